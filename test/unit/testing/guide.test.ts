/**
 * docs/testing.md's examples run as a reader runs them: each ts block (but
 * one marked `<!-- fragment -->` before its fence) is a module of its own,
 * imported here with the package's names ("a2a-connect",
 * "a2a-connect/testing") mapped to the sources' entries, as check:examples
 * maps them for the compile (check-examples.test.ts compiles every guide's
 * blocks, these among them). A block runs to its end, and what it prints is
 * what its comment says it prints: `console.log(textOf(answer)); // "forty-two"`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ENTRIES, examplesInMarkdown } from "../../../scripts/check-examples.js";
import { repoRoot } from "../../../scripts/size.js";

const GUIDE = "docs/testing.md";
const examples = examplesInMarkdown(GUIDE, readFileSync(join(repoRoot, GUIDE), "utf8")).filter((e) => !e.fragment);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "a2a-testing-guide-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
});

/** The block's code with the package's names replaced by the paths of the sources' entries. */
const onSources = (code: string): string =>
  code.replace(/(\bfrom\s+)"(a2a-connect(?:\/[\w-]+)?)"/g, (whole, from: string, name: string) => {
    const entry = ENTRIES[name];
    return entry ? `${from}${JSON.stringify(join(repoRoot, entry))}` : whole;
  });

/** What a block says it prints: the comment after a `console.log(...)` on its line, as JSON values. */
const promised = (code: string): string[] => code.split("\n").flatMap((line) => /console\.log\(.*\);?\s*\/\/ (.+)$/.exec(line)?.[1] ?? []);

describe(`the examples of ${GUIDE}`, () => {
  it("are found: every ts block of the guide but its fragments", () => {
    expect(examples.length).toBeGreaterThanOrEqual(8);
  });

  it.each(examples.map((e) => [`under "${e.symbol}", line ${e.line}`, e] as const))("run: the block %s", async (_, example) => {
    const printed: string[] = [];
    vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
      printed.push(args.map((a) => JSON.stringify(a)).join(" "));
    });
    const file = join(dir, `example-${example.line}.ts`);
    writeFileSync(file, `${onSources(example.code)}\nexport {};\n`);
    await import(pathToFileURL(file).href);
    expect(printed).toEqual(expect.arrayContaining(promised(example.code)));
  });
});
