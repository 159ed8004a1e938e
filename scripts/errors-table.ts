// npm run docs:errors
//
// Writes the table of docs/errors.md from the sources, so that it cannot
// drift from them: one row per member of `A2AErrorCode` (src/errors/codes.ts),
// in its order, with the exported class whose `code` it is, whether the error
// is transient by the rule the errors themselves apply (`isTransient`), and
// the member's doc comment as the "when". test/unit/repo/errors-table.test.ts
// fails when the guide holds anything else.

import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Code } from "@connectrpc/connect";
import ts from "typescript";
import { type A2AErrorCode, isTransient } from "../src/errors/codes.js";
import * as api from "../src/index.js";
import { repoRoot } from "./size.js";

/** The guide whose table this writes, relative to the repository. */
export const ERRORS_GUIDE = "docs/errors.md";
const CODES = "src/errors/codes.ts";
const START = "<!-- errors-table:start -->";
const END = "<!-- errors-table:end -->";

/** A member of `A2AErrorCode` and what its doc comment says of it. */
export interface CodeEntry {
  code: string;
  when: string;
}

/** The members of `A2AErrorCode` in a text of codes.ts, in order, each with its doc comment on one line. */
export function codesIn(source: string): CodeEntry[] {
  const file = ts.createSourceFile(CODES, source, ts.ScriptTarget.Latest, true);
  const alias = file.statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === "A2AErrorCode");
  if (!alias || !ts.isUnionTypeNode(alias.type)) throw new Error(`${CODES}: no union type A2AErrorCode`);
  const union = alias.type;
  return union.types.map((member, i) => {
    if (!ts.isLiteralTypeNode(member) || !ts.isStringLiteral(member.literal)) {
      throw new Error(`${CODES}: A2AErrorCode has a member that is not a string literal: ${member.getText(file)}`);
    }
    const code = member.literal.text;
    // Between the member before (or the `=`) and this one lie only its `|` and comments; the
    // last `/** */` of them is its doc comment (a line comment there heads a group of codes).
    const before = source.slice(i === 0 ? union.pos : union.types[i - 1]!.end, member.getStart(file));
    const doc = before.match(/\/\*\*[\s\S]*?\*\//g)?.at(-1);
    if (doc === undefined) throw new Error(`${CODES}: ${code} has no doc comment to say when it is used`);
    const when = doc
      .replace(/^\/\*\*|\*\/$/g, "")
      .split("\n")
      .map((line) => line.replace(/^\s*\*?\s?/, "").trim())
      .filter((line) => line !== "")
      .join(" ");
    return { code, when };
  });
}

type ErrorClass = (abstract new (...args: never[]) => api.A2AError) & { readonly code: A2AErrorCode };

/** The exported error classes by their code: `A2AError` and every subclass with a code of its own. */
function classesByCode(): Map<string, ErrorClass> {
  const byCode = new Map<string, ErrorClass>();
  for (const value of Object.values(api)) {
    if (typeof value !== "function" || !(value === api.A2AError || value.prototype instanceof api.A2AError)) continue;
    const cls = value as ErrorClass;
    // A subclass without a code of its own inherits its parent's: the parent names that code.
    if (Object.hasOwn(cls, "code")) byCode.set(cls.code, cls);
  }
  return byCode;
}

/** `ConnectionError`, or `TaskTerminalError` (an `UnsupportedOperationError`) for a class below another's. */
function classCell(cls: ErrorClass): string {
  const parent = Object.getPrototypeOf(cls) as ErrorClass;
  if (cls === api.A2AError || parent === api.A2AError) return `\`${cls.name}\``;
  const article = /^[AEIOU]/.test(parent.name) ? "an" : "a";
  return `\`${cls.name}\` (${article} \`${parent.name}\`)`;
}

const HTTP_STATUSES = Array.from({ length: 200 }, (_, i) => 400 + i);
const GRPC_CODES = Object.values(Code).filter((c): c is Code => typeof c === "number");

/** `RESOURCE_EXHAUSTED` for connect's `ResourceExhausted`: gRPC's own spelling. */
const grpcName = (code: Code): string => Code[code].replace(/(?<=[a-z])(?=[A-Z])/g, "_").toUpperCase();

/**
 * Whether a code is transient, read from `isTransient` itself: always,
 * never (not even when the server asks to be called again), or with the
 * statuses that make it so.
 */
function transientCell(code: A2AErrorCode): string {
  if (isTransient(code, {})) return "yes";
  if (!isTransient(code, { httpStatus: 503, retryAfterMs: 1000 })) return "never";
  const statuses = [
    ...HTTP_STATUSES.filter((httpStatus) => isTransient(code, { httpStatus })).map(String),
    ...GRPC_CODES.filter((grpcCode) => isTransient(code, { grpcCode })).map((c) => `gRPC \`${grpcName(c)}\``),
  ];
  if (statuses.length === 0) return "no";
  return `with ${statuses.length === 1 ? statuses[0] : `${statuses.slice(0, -1).join(", ")} or ${statuses.at(-1)}`}`;
}

/** The table, as markdown, from the sources as they are. */
export async function errorsTable(): Promise<string> {
  const classes = classesByCode();
  const rows = codesIn(readFileSync(join(repoRoot, CODES), "utf8")).map(({ code, when }) => {
    const cls = classes.get(code);
    if (!cls) throw new Error(`${CODES}: no class exported from src/index.ts has the code ${code}`);
    return `| ${classCell(cls)} | \`${code}\` | ${transientCell(code as A2AErrorCode)} | ${when} |`;
  });
  return ["| class | `code` | `transient` | when |", "| --- | --- | --- | --- |", ...rows].join("\n");
}

/** The guide's text with `table` between its markers. */
export function withTable(doc: string, table: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END, start);
  if (start === -1 || end === -1) throw new Error(`${ERRORS_GUIDE} has no ${START} ... ${END} to hold the table`);
  return `${doc.slice(0, start + START.length)}\n${table}\n${doc.slice(end)}`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const path = join(repoRoot, ERRORS_GUIDE);
  writeFileSync(path, withTable(readFileSync(path, "utf8"), await errorsTable()));
  console.log(`${ERRORS_GUIDE}: the table of ${CODES} written`);
}
