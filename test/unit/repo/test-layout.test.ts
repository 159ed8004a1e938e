/**
 * test/unit mirrors src/: a test sits in the folder named after the source
 * folder whose code it tests (test/unit/http/ for src/http/), so a change
 * and its tests are found side by side. Tests of the entry files (src/*.ts)
 * go in entries/; tests of what is not under src/ (scripts/ and the code
 * they generate, docs, the package, the benchmarks, the examples) in repo/.
 */
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../../scripts/size.js";

/** The folders of test/unit that no src/ folder names. */
const OWN_FOLDERS = ["entries", "repo"];

/** Every folder under `root`, as a path relative to it with `/` separators. */
function foldersUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => relative(root, join(d.parentPath, d.name)).split(sep).join("/"));
}

/** Every test file under `root`, as a path relative to it with `/` separators. */
function testsUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith(".test.ts"))
    .map((d) => relative(root, join(d.parentPath, d.name)).split(sep).join("/"));
}

/** Each test whose folder is neither a folder of src/ nor one of OWN_FOLDERS, with where it may go. */
function misplaced(tests: readonly string[], srcFolders: readonly string[]): string[] {
  const allowed = new Set([...srcFolders, ...OWN_FOLDERS]);
  return tests
    .filter((test) => !allowed.has(test.slice(0, Math.max(test.lastIndexOf("/"), 0))))
    .map((test) => `test/unit/${test}: not in a folder named after a src/ folder (${[...allowed].sort().join(", ")})`);
}

describe("test/unit mirrors src/", () => {
  it("every test sits in the folder of the source it tests, none directly in test/unit", () => {
    const tests = testsUnder(join(repoRoot, "test/unit"));
    expect(tests.length).toBeGreaterThan(0);
    expect(misplaced(tests, foldersUnder(join(repoRoot, "src")))).toEqual([]);
  });

  it("the check names each test out of place: at the top, in a folder src/ lacks, in a src/ folder's unknown subfolder", () => {
    const src = ["http", "bindings", "bindings/grpc"];
    const tests = ["http/sse.test.ts", "bindings/grpc/h2.test.ts", "entries/entries.test.ts", "repo/readme.test.ts"];
    expect(misplaced(tests, src)).toEqual([]);
    expect(misplaced([...tests, "sse.test.ts", "util/bytes.test.ts", "http/sse/split.test.ts"], src)).toEqual([
      expect.stringMatching(
        /^test\/unit\/sse\.test\.ts: not in a folder named after a src\/ folder \(bindings, bindings\/grpc, entries, http, repo\)$/,
      ),
      expect.stringMatching(/^test\/unit\/util\/bytes\.test\.ts: /),
      expect.stringMatching(/^test\/unit\/http\/sse\/split\.test\.ts: /),
    ]);
  });
});
