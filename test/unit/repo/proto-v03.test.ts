// proto/a2a/v1/a2a.proto is the A2A 0.3 schema. Its wire identity with the
// specification's a2a.proto is checked by `npm run check:spec -- <spec
// a2a-v0.3.0.proto>` (CI runs it); here the comparison itself is shown to
// notice what a careless copy would change.

import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffProtoFiles, repoRoot, type SpecDiff } from "../../../scripts/spec-diff.js";

const schema = "a2a/v1/a2a.proto";
const ours = join(repoRoot, "proto", schema);

let dir: string | undefined;
let same: SpecDiff;
let renamed: SpecDiff;
let fixedRoute: SpecDiff;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "a2a-proto-v03-"));
  const text = await readFile(ours, "utf8");
  // Two edits a careless copy could make: the comparison must notice both.
  const editedState = join(dir, "state.proto");
  await writeFile(editedState, text.replace("TASK_STATE_CANCELLED = 5;", "TASK_STATE_CANCELED = 5;"));
  const editedRoute = join(dir, "route.proto");
  await writeFile(editedRoute, text.replace("{parent=task/*/pushNotificationConfigs}", "{parent=tasks/*}/pushNotificationConfigs"));
  [same, renamed, fixedRoute] = await Promise.all([
    diffProtoFiles(ours, ours, schema),
    diffProtoFiles(editedState, ours, schema),
    diffProtoFiles(editedRoute, ours, schema),
  ]);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("proto/a2a/v1/a2a.proto (A2A 0.3)", () => {
  it("builds, and compares as identical with itself", () => {
    expect(same.wire).toEqual([]);
    expect(same.nonWire).toEqual([]);
  });

  it("is compared fact by fact: a renamed enum value is reported", () => {
    expect(renamed.wire).toEqual(["enum value a2a.v1.TaskState.TASK_STATE_CANCELED: name TASK_STATE_CANCELED != TASK_STATE_CANCELLED"]);
  });

  it("keeps the specification's CreateTaskPushNotificationConfig route as written", () => {
    expect(fixedRoute.wire).toEqual([
      "method a2a.v1.A2AService.CreateTaskPushNotificationConfig: http POST /v1/{parent=tasks/*}/pushNotificationConfigs body=config != POST /v1/{parent=task/*/pushNotificationConfigs} body=config",
    ]);
  });
});
