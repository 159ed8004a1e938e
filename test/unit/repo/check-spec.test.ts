// check:spec must notice every kind of wire change and nothing else. Each case
// edits one element in a copy of our own proto and expects exactly that element
// to be named, with exit code 1; a comment-only edit must stay wire-identical.
// Builds run together in beforeAll (buf takes ~0.2 s per build).

import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkSpec } from "../../../scripts/check-spec.js";
import { ourProto, repoRoot } from "../../../scripts/spec-diff.js";

interface Result {
  code: number;
  lines: string[];
}

/** Replaces the first `from` found after `anchor`; throws if the proto no longer has them. */
function edit(text: string, anchor: string, from: string, to: string): string {
  const start = text.indexOf(anchor);
  const at = start < 0 ? -1 : text.indexOf(from, start);
  if (at < 0) throw new Error(`test proto edit: "${from}" after "${anchor}" not found`);
  return text.slice(0, at) + to + text.slice(at + from.length);
}

interface Case {
  what: string;
  /** Where, what and the replacement, applied to a copy of our proto. */
  edit: [anchor: string, from: string, to: string];
  /** The line the edit must produce (ours != spec). */
  line: string;
}

const cases: Case[] = [
  {
    what: "a field number changed",
    edit: ["message Task {", "string context_id = 2;", "string context_id = 20;"],
    line: "field lf.a2a.v1.Task.context_id: number 2 != 20",
  },
  {
    what: "a field renamed",
    edit: ["message Task {", "string context_id = 2;", "string conversation_id = 2;"],
    line: "field lf.a2a.v1.Task.context_id: name context_id != conversation_id",
  },
  {
    what: "a json_name added",
    edit: ["message Task {", "string context_id = 2;", 'string context_id = 2 [json_name = "contextID"];'],
    line: "field lf.a2a.v1.Task.context_id: json_name contextId != contextID",
  },
  {
    what: "optional removed",
    edit: ["message SendMessageConfiguration {", "optional int32 history_length = 3;", "int32 history_length = 3;"],
    line: "field lf.a2a.v1.SendMessageConfiguration.history_length: presence explicit (optional) != implicit",
  },
  {
    what: "an http path changed",
    edit: ["rpc GetTask(", 'get: "/tasks/{id=*}"', 'get: "/task/{id=*}"'],
    line: "method lf.a2a.v1.A2AService.GetTask: http GET /tasks/{id=*} != GET /task/{id=*}",
  },
  {
    what: "an enum value renumbered",
    edit: ["enum TaskState {", "TASK_STATE_WORKING = 2;", "TASK_STATE_WORKING = 12;"],
    line: "enum value lf.a2a.v1.TaskState.TASK_STATE_WORKING: number 2 != 12",
  },
  {
    what: "a method made non-streaming",
    edit: ["rpc SubscribeToTask(", "returns (stream StreamResponse)", "returns (StreamResponse)"],
    line: "method lf.a2a.v1.A2AService.SubscribeToTask: server_streaming true != false",
  },
  {
    what: "a REQUIRED field_behavior removed",
    edit: ["message Task {", "string id = 1 [(google.api.field_behavior) = REQUIRED];", "string id = 1;"],
    line: "field lf.a2a.v1.Task.id: field_behavior [REQUIRED] != []",
  },
];

/** A comment-only edit: new, changed and trailing comments, extra blank lines. */
function commentOnly(text: string): string {
  let t = edit(text, "message Task {", "{", "{ // trailing comment\n\n  /* block comment */");
  t = edit(t, "enum TaskState {", "TASK_STATE_WORKING = 2;", "TASK_STATE_WORKING = 2; // still two");
  return t.replace(/^\/\/ .*$/m, "// A different first comment.") + "\n// The end.\n";
}

/** Runs the real command line, for the process exit code. */
function cli(protoPath: string): Promise<Result> {
  return new Promise((done) => {
    execFile(process.execPath, ["--import", "tsx", "scripts/check-spec.ts", protoPath], { cwd: repoRoot }, (err, stdout) =>
      done({ code: err ? Number(err.code) : 0, lines: stdout.trimEnd().split("\n") }),
    );
  });
}

/** Runs the command in-process, collecting its output. */
async function run(protoPath: string): Promise<Result> {
  const lines: string[] = [];
  const code = await checkSpec(
    [protoPath],
    (l) => lines.push(l),
    (l) => lines.push(l),
  );
  return { code, lines };
}

let dir: string;
let self: Result;
let comments: Result;
let mutated: Result[];
let mutatedCli: Result;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "a2a-check-spec-test-"));
  const ours = await readFile(ourProto, "utf8");
  const write = async (name: string, text: string) => {
    const path = join(dir, `${name}.proto`);
    await writeFile(path, text);
    return path;
  };
  const paths = await Promise.all(cases.map((c, i) => write(`case${i}`, edit(ours, ...c.edit))));
  const commentPath = await write("comments", commentOnly(ours));
  [self, comments, mutatedCli, ...mutated] = await Promise.all([cli(ourProto), run(commentPath), cli(paths[0]!), ...paths.map(run)]);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("check:spec", () => {
  it("finds our proto wire-identical to itself (exit 0)", () => {
    expect(self).toEqual({ code: 0, lines: ["wire-identical"] });
  });

  it("ignores comment-only changes", () => {
    expect(comments).toEqual({ code: 0, lines: ["wire-identical"] });
  });

  it.each(cases.map((c, i) => [c.what, i] as const))("reports %s", (_what, i) => {
    const { code, lines } = mutated[i]!;
    const expected = cases[i]!.line;
    const element = expected.slice(0, expected.indexOf(": ") + 1);
    const diffs = lines.slice(0, -1);
    expect(code).toBe(1);
    expect(diffs).toContain(expected);
    // Every line names the edited element, and the count matches the lines.
    for (const l of diffs) expect(l.startsWith(element), l).toBe(true);
    expect(lines.at(-1)).toBe(`${diffs.length} difference${diffs.length === 1 ? "" : "s"}`);
  });

  it("exits 1 from the command line when there are differences", () => {
    expect(mutatedCli).toEqual({ code: 1, lines: [cases[0]!.line, "1 difference"] });
  });

  it("exits 2 with a usage message on bad arguments", async () => {
    expect(await run("")).toMatchObject({ code: 2, lines: [expect.stringMatching(/^usage: /)] });
    const missing = await run(join(tmpdir(), "no-such-dir-a2a", "a2a.proto"));
    expect(missing).toMatchObject({ code: 2, lines: [expect.stringMatching(/no such file/)] });
  });

  it("exits 2 when the spec does not compile", async () => {
    const broken = join(dir, "broken.proto");
    await writeFile(broken, 'syntax = "proto3";\npackage lf.a2a.v1;\nmessage X { Missing m = 1; }\n');
    const { code, lines } = await run(broken);
    expect(code).toBe(2);
    expect(lines.join("\n")).toMatch(/buf build failed[\s\S]*Missing/);
  });
});
