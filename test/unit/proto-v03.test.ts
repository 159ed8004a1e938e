// proto/a2a/v1/a2a.proto must be wire-identical to the A2A 0.3.0
// specification's a2a.proto, which lives next to the repository in
// ../shared/spec (in CI as well). The comparison is scripts/spec-diff.ts's,
// run on the 0.3 schema file instead of the 1.0 one.

import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffProtoFiles, repoRoot, type SpecDiff } from "../../scripts/spec-diff.js";

const schema = "a2a/v1/a2a.proto";
const ours = join(repoRoot, "proto", schema);
const spec = resolve(repoRoot, "..", "shared", "spec", "a2a-v0.3.0.proto");

function requireSpec(): void {
  if (!existsSync(spec)) {
    throw new Error(
      `the A2A 0.3.0 specification proto is missing: expected ${spec} ` +
        "(shared/spec/a2a-v0.3.0.proto in a directory named shared next to the repository)",
    );
  }
}

let dir: string | undefined;
let same: SpecDiff;
let renamed: SpecDiff;
let fixedRoute: SpecDiff;

beforeAll(async () => {
  requireSpec();
  dir = await mkdtemp(join(tmpdir(), "a2a-proto-v03-"));
  const text = await readFile(ours, "utf8");
  // Two edits a careless copy could make: the checks must notice both.
  const editedState = join(dir, "state.proto");
  await writeFile(editedState, text.replace("TASK_STATE_CANCELLED = 5;", "TASK_STATE_CANCELED = 5;"));
  const editedRoute = join(dir, "route.proto");
  await writeFile(editedRoute, text.replace("{parent=task/*/pushNotificationConfigs}", "{parent=tasks/*}/pushNotificationConfigs"));
  [same, renamed, fixedRoute] = await Promise.all([
    diffProtoFiles(ours, spec, schema),
    diffProtoFiles(editedState, spec, schema),
    diffProtoFiles(editedRoute, spec, schema),
  ]);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("proto/a2a/v1/a2a.proto (A2A 0.3)", () => {
  it("is wire-identical to the 0.3.0 specification's proto", () => {
    expect(same.wire).toEqual([]);
  });

  it("has the specification's file options and imports too", () => {
    expect(same.nonWire).toEqual([]);
  });

  it("is compared fact by fact: a renamed enum value is reported", () => {
    expect(renamed.wire).toEqual([
      "enum value a2a.v1.TaskState.TASK_STATE_CANCELED: name TASK_STATE_CANCELED != TASK_STATE_CANCELLED",
    ]);
  });

  it("keeps the specification's CreateTaskPushNotificationConfig route as written", () => {
    expect(fixedRoute.wire).toEqual([
      "method a2a.v1.A2AService.CreateTaskPushNotificationConfig: http POST /v1/{parent=tasks/*}/pushNotificationConfigs body=config != POST /v1/{parent=task/*/pushNotificationConfigs} body=config",
    ]);
  });
});
