/**
 * The browser-safe entries stay browser-safe: everything reachable from
 * src/index.ts, src/trust.ts and src/toolkit.ts (dynamic imports included) is bundled for
 * the browser, and the bundle may neither import a Node built-in nor use
 * Node's `Buffer`. And verification stays lazy: an app that imports the
 * whole root entry loads no JOSE or canonicalization code at start.
 */
import { builtinModules } from "node:module";
import { join } from "node:path";
import { build, type Metafile } from "esbuild";
import { describe, expect, it } from "vitest";
import { repoRoot, staticInputs } from "../../scripts/size.js";

const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

async function bundle(entry: string, splitting: boolean) {
  return build({
    entryPoints: [join(repoRoot, entry)],
    absWorkingDir: repoRoot,
    bundle: true,
    splitting,
    format: "esm",
    platform: "browser",
    write: false,
    outdir: join(repoRoot, "out-browser-safe"),
    metafile: true,
    // Kept out of the bundle, so that an import of one is reported below
    // rather than failing the build with a less specific message.
    external: ["node:*", ...builtinModules],
    logLevel: "silent",
  });
}

/** Every import of a Node built-in, as "importer -> module". */
function nodeImports(meta: Metafile): string[] {
  return Object.entries(meta.inputs).flatMap(([file, input]) =>
    input.imports.filter((i) => NODE_BUILTINS.has(i.path) || i.path.startsWith("node:")).map((i) => `${file} -> ${i.path}`),
  );
}

describe.each(["src/index.ts", "src/trust.ts", "src/toolkit.ts"])("%s", (entry) => {
  it("imports no Node built-in, directly or through a dependency", async () => {
    const { metafile } = await bundle(entry, false);
    expect(nodeImports(metafile)).toEqual([]);
    expect(Object.keys(metafile.inputs).some((f) => f.startsWith("src/"))).toBe(true);
  });

  it("uses no Buffer", async () => {
    const { outputFiles } = await bundle(entry, false);
    const code = outputFiles.map((f) => f.text).join("\n");
    expect(code.match(/.{0,60}\bBuffer\b.{0,60}/g) ?? []).toEqual([]);
  });
});

it("the check finds what it looks for: the Node entry imports built-ins and mentions Buffer", async () => {
  const { metafile, outputFiles } = await bundle("src/node.ts", false);
  expect(nodeImports(metafile).length).toBeGreaterThan(0);
  expect(outputFiles.some((f) => /\bBuffer\b/.test(f.text))).toBe(true);
});

describe("verification is loaded on demand", () => {
  it("an app importing all of the root entry loads neither jose nor canonicalize at start", async () => {
    const result = await bundle("src/index.ts", true);
    const meta = result.metafile;
    const [entryChunk] = Object.entries(meta.outputs).find(([, o]) => o.entryPoint === "src/index.ts")!;
    const inputsAtStart = staticInputs(meta, [entryChunk]);
    expect(inputsAtStart.filter((i) => /node_modules\/(jose|canonicalize)\/|src\/trust\/(verify|canonical)\.ts/.test(i))).toEqual([]);

    // ...while the chunk that verification loads has them.
    const lazy = Object.values(meta.outputs).filter((o) => o.entryPoint === "src/trust/verify.ts");
    expect(lazy).toHaveLength(1);
    const all = Object.values(meta.outputs).flatMap((o) => Object.keys(o.inputs));
    expect(all.some((i) => i.includes("node_modules/jose/"))).toBe(true);
    expect(all.some((i) => i.includes("node_modules/canonicalize/"))).toBe(true);
  });
});
