/**
 * The testing entry stays apart: no module of the package outside
 * src/testing/ imports it or its folder (statically, by type, or on
 * demand), so no other entry, and no app's bundle, carries the test agent.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { expect, it } from "vitest";
import { repoRoot } from "../../../scripts/size.js";

const src = join(repoRoot, "src");

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

const isTesting = (file: string) => {
  const path = relative(src, file);
  return path === "testing.ts" || path.startsWith("testing/") || path === "testing.js";
};

it("no module outside src/testing/ imports the testing entry or its folder", () => {
  const arrows: string[] = [];
  for (const file of tsFiles(src).filter((f) => !isTesting(f))) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith(".")) continue;
      if (isTesting(resolve(dirname(file), fileName))) arrows.push(`${relative(repoRoot, file)} -> ${fileName}`);
    }
  }
  expect(arrows).toEqual([]);
});

it("the check sees an import of the entry where there is one", () => {
  const { importedFiles } = ts.preProcessFile(
    'import type { TestAgent } from "./testing.js"; await import("./testing/agent.js");',
    true,
    true,
  );
  expect(importedFiles.map((f) => isTesting(resolve(src, f.fileName)))).toEqual([true, true]);
});
