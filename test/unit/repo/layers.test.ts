// The layering check over the real tree, and over a small tree made to fail
// in each way it knows: an import of a folder above, an import cycle between
// folders, a folder layers.json does not list and one it lists in vain.

import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkLayers } from "../../../scripts/check-layers.js";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

/** A repository of `files` (path to text) in a new temporary folder. */
async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "layers-"));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

describe("check:layers", () => {
  it("passes on this repository: every import between folders of src/ points down layers.json", () => {
    expect(checkLayers(repoRoot)).toEqual([]);
  });

  describe("on a tree with a wrong arrow, a cycle, an unlisted folder and a listed one that is gone", () => {
    let root: string;
    const files: Record<string, string> = {
      "layers.json": JSON.stringify({ layers: [".", "app", "core", "gone", "base"] }),
      "src/index.ts": `export { main } from "./app/main.js";\n`,
      "src/app/main.ts": `import { readFileSync } from "node:fs";\nexport const main = readFileSync;\n`,
      // Up, but app imports nothing of core: a wrong arrow and no cycle.
      "src/core/a.ts": `import { main } from "../app/main.js";\nexport const a = main;\n`,
      // Down, a type only: allowed, yet it closes the cycle the next file opens.
      "src/core/b.ts": `import type { B } from "../base/b.js";\nexport const b: B = 1;\n`,
      // Up, loaded on demand, in a comment's company: still an import of core.
      "src/base/b.ts": `// import "../app/main.js" in a comment is not an import\nexport type B = number;\nexport const load = () => import("../core/b.js");\n`,
      "src/extra/x.ts": `export { a } from "../core/a.js";\n`,
    };

    beforeAll(async () => {
      root = await tree(files);
    });
    afterAll(() => rm(root, { recursive: true, force: true }));

    it("names each problem, with the file and the import that breaks the rule", () => {
      expect(checkLayers(root)).toEqual([
        "src/extra/ is not in layers.json (list it where it belongs, top to bottom)",
        "layers.json lists gone, which is not a folder of src/",
        "src/base/b.ts -> src/core/b.ts (base may not import core: core is above base in layers.json)",
        "src/core/a.ts -> src/app/main.ts (core may not import app: app is above core in layers.json)",
        "import cycle between folders: base -> core -> base (src/base/b.ts -> src/core/b.ts, src/core/b.ts -> src/base/b.ts)",
      ]);
    });
  });

  it("names a loop through three folders, none of which imports another back directly", async () => {
    const root = await tree({
      "layers.json": JSON.stringify({ layers: ["a", "b", "c"] }),
      "src/a/a.ts": `export * from "../b/b.js";\n`,
      "src/b/b.ts": `export * from "../c/c.js";\n`,
      "src/c/c.ts": `import type { A } from "../a/a.js";\nexport type C = A;\n`,
    });
    try {
      expect(checkLayers(root)).toEqual([
        "src/c/c.ts -> src/a/a.ts (c may not import a: a is above c in layers.json)",
        "import cycle between folders: a -> b -> c -> a (src/a/a.ts -> src/b/b.ts, src/b/b.ts -> src/c/c.ts, src/c/c.ts -> src/a/a.ts)",
      ]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("reads only a rule file that lists each folder once", async () => {
    const root = await tree({ "layers.json": JSON.stringify({ layers: ["a", "b", "a"] }), "src/a/a.ts": "" });
    try {
      expect(checkLayers(root)).toEqual(['layers.json must be { "layers": [folders of src/, top to bottom, each once] }']);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
