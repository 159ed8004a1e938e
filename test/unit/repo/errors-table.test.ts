/**
 * The errors guide's table is made from src/errors/codes.ts
 * (`npm run docs:errors`): one row per code of `A2AErrorCode`, its class,
 * whether it is transient by the rule the errors apply, and the doc comment
 * of the code. The guide must hold exactly what the sources give.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codesIn, ERRORS_GUIDE, errorsTable, withTable } from "../../../scripts/errors-table.js";
import { repoRoot } from "../../../scripts/size.js";

const CODES = "src/errors/codes.ts";

describe("the errors table", () => {
  it(`in ${ERRORS_GUIDE} is the one src/errors/codes.ts gives (npm run docs:errors writes it)`, async () => {
    const guide = readFileSync(join(repoRoot, ERRORS_GUIDE), "utf8");
    expect(withTable(guide, await errorsTable())).toBe(guide);
  });

  it("has a row per code, in the order of A2AErrorCode, with its class, its transient rule and its comment", async () => {
    const rows = (await errorsTable()).split("\n").slice(2);
    const codes = codesIn(readFileSync(join(repoRoot, CODES), "utf8"));
    expect(rows.map((r) => /\| `([A-Z_]+)` \|/.exec(r)?.[1])).toEqual(codes.map((c) => c.code));
    const row = (code: string) => rows.find((r) => r.includes(`| \`${code}\` |`));
    expect(row("TASK_NOT_FOUND")).toBe("| `TaskNotFoundError` | `TASK_NOT_FOUND` | no | no such task, or not one the caller may see |");
    expect(row("CONNECTION_FAILED")).toMatch(/^\| `ConnectionError` \| `CONNECTION_FAILED` \| yes \| /);
    expect(row("ABORTED")).toMatch(/\| `ABORTED` \| never \|/);
    expect(row("SERVER_ERROR")).toMatch(/\| `SERVER_ERROR` \| with 429, 502, 503, 504 or gRPC `RESOURCE_EXHAUSTED` \|/);
    expect(row("TASK_TERMINAL")).toMatch(/^\| `TaskTerminalError` \(an `UnsupportedOperationError`\) \| `TASK_TERMINAL` \|/);
    expect(row("UNKNOWN")).toMatch(/^\| `A2AError` \| `UNKNOWN` \| no \|/);
  });
});

describe("codesIn", () => {
  it("reads each member of A2AErrorCode with its doc comment, joined to one line", () => {
    const source = `export type A2AErrorCode =
  // A group.
  /** the first,
   * on two lines */
  | "FIRST"
  /** the second */
  | "SECOND";`;
    expect(codesIn(source)).toEqual([
      { code: "FIRST", when: "the first, on two lines" },
      { code: "SECOND", when: "the second" },
    ]);
  });

  it("refuses a code without a doc comment, naming it", () => {
    const source = `export type A2AErrorCode =\n  /** the first */\n  | "FIRST"\n  // a line comment is not one\n  | "SECOND";`;
    expect(() => codesIn(source)).toThrow(/SECOND has no doc comment/);
  });
});

describe("withTable", () => {
  it("replaces what is between the markers, and refuses a guide without them", () => {
    const doc = "intro\n<!-- errors-table:start -->\nold\n<!-- errors-table:end -->\nafter\n";
    expect(withTable(doc, "| new |")).toBe("intro\n<!-- errors-table:start -->\n| new |\n<!-- errors-table:end -->\nafter\n");
    expect(() => withTable("no markers\n", "| new |")).toThrow(/errors-table:start/);
  });
});
