/**
 * The browser-safe entries stay browser-safe: everything reachable from
 * src/index.ts, src/trust.ts, src/toolkit.ts and src/testing.ts (dynamic imports included) is bundled for
 * the browser, as an app's bundler splits it (the entry and every chunk it
 * loads on demand), and no chunk may import a Node built-in nor use one of
 * Node's globals (`Buffer`, `process`, `require`, ...), our code or a
 * dependency's. And verification stays lazy: an app that imports the
 * whole root entry loads no JOSE or canonicalization code at start.
 */
import { builtinModules } from "node:module";
import { join } from "node:path";
import { build, type Metafile } from "esbuild";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { repoRoot, staticInputs } from "../../../scripts/size.js";

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

/** Globals that Node has and browsers do not. */
const NODE_GLOBALS = new Set([
  "Buffer",
  "process",
  "require",
  "module",
  "exports",
  "__dirname",
  "__filename",
  "setImmediate",
  "clearImmediate",
  "global",
]);

/**
 * Every use of a Node global in `code` (one chunk), as "chunk: statement".
 * Found in the syntax tree, so that a word in a string or a property of
 * that name (`x.process`) is not one. A feature test is allowed: a use in
 * a statement that checks `typeof name` first, as @bufbuild/protobuf does
 * with `typeof process`, which runs in browsers as written.
 */
function nodeGlobalUses(file: string, code: string): string[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.ESNext, true, ts.ScriptKind.JS);
  const uses: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && NODE_GLOBALS.has(node.text) && isReference(node)) {
      const statement = enclosingStatement(node);
      const text = statement.getText(source);
      if (!text.includes(`typeof ${node.text}`) && !text.includes(`typeof globalThis.${node.text}`))
        uses.push(`${file}: ${node.text} in ${text.slice(0, 160)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return uses;
}

/** Whether `id` names a variable here, rather than a property, a member or a label. */
function isReference(id: ts.Identifier): boolean {
  const p = id.parent;
  // `globalThis.process` is the global by another name.
  if (ts.isPropertyAccessExpression(p) && p.name === id) return ts.isIdentifier(p.expression) && p.expression.text === "globalThis";
  if (ts.isQualifiedName(p) && p.right === id) return false;
  if (
    (ts.isPropertyAssignment(p) ||
      ts.isMethodDeclaration(p) ||
      ts.isPropertyDeclaration(p) ||
      ts.isGetAccessor(p) ||
      ts.isSetAccessor(p)) &&
    p.name === id
  )
    return false;
  if ((ts.isLabeledStatement(p) || ts.isBreakOrContinueStatement(p)) && p.label === id) return false;
  if ((ts.isImportSpecifier(p) || ts.isExportSpecifier(p)) && p.propertyName === id) return false;
  return true;
}

function enclosingStatement(node: ts.Node): ts.Node {
  let n = node;
  while (n.parent !== undefined && !ts.isSourceFile(n.parent) && !ts.isBlock(n.parent) && !ts.isModuleBlock(n.parent)) n = n.parent;
  return n;
}

describe.each(["src/index.ts", "src/trust.ts", "src/toolkit.ts", "src/testing.ts"])("%s", (entry) => {
  it("imports no Node built-in, directly or through a dependency", async () => {
    const { metafile } = await bundle(entry, true);
    expect(nodeImports(metafile)).toEqual([]);
    expect(Object.keys(metafile.inputs).some((f) => f.startsWith("src/"))).toBe(true);
  });

  it("uses no Node global in its chunk or in any chunk it loads on demand", async () => {
    const { outputFiles, metafile } = await bundle(entry, true);
    // Split as an app's bundler splits it: every chunk is looked at, the lazy ones too.
    expect(outputFiles.filter((f) => f.path.endsWith(".js"))).toHaveLength(Object.keys(metafile.outputs).length);
    expect(outputFiles.flatMap((f) => nodeGlobalUses(f.path.slice(repoRoot.length + 1), f.text))).toEqual([]);
  });
});

it("the checks find what they look for: built-ins imported, Node globals used, but not feature tests", async () => {
  // The CLI imports node:fs and more (the Node entry loads its built-ins when first used: process.getBuiltinModule).
  const { metafile } = await bundle("src/cli/main.ts", true);
  expect(nodeImports(metafile).length).toBeGreaterThan(0);
  const code = `
    export const file = __dirname + __filename + require("x") + global.y + module.id + exports.z;
    export function later() { setImmediate(() => clearImmediate(0)); return Buffer.from(process.argv[0]); }
    export const tested = typeof process !== "undefined" && process.env.X === "1";
    export const words = { process: "the process", require: 1 }.process + later.Buffer + "global";
    export const renamed = globalThis.Buffer;
    export const checked = typeof globalThis.Buffer === "function" ? globalThis.Buffer : undefined;`;
  expect(nodeGlobalUses("app.js", code).map((u) => u.split(" ")[1])).toEqual([
    "__dirname",
    "__filename",
    "require",
    "global",
    "module",
    "exports",
    "setImmediate",
    "clearImmediate",
    "Buffer",
    "process",
    "Buffer",
  ]);
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
