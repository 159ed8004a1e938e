// npm run build
//
// The package as it ships, in dist/: each entry of package.json "exports"
// and the CLI bundled by esbuild into as few ES modules as code splitting
// makes (an entry, the chunks entries share, and one chunk per dynamic
// import, which still loads on demand), so that a process that imports an
// entry opens a handful of files rather than one per source module. The
// dependencies stay imports of their own, so that they dedupe with the
// app's. The declarations come from tsc (tsconfig.build.json), one per
// source module, where the "exports" map's "types" name them.
//
// Not minified: stack traces read as the sources do, and an app's bundler
// minifies anyway.

import { execFileSync } from "node:child_process";
import { chmodSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type BuildOptions, type BuildResult, type Plugin } from "esbuild";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

interface PackageJson {
  exports: Record<string, { default: string }>;
  bin: Record<string, string>;
}

const readPackage = (root: string) => JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as PackageJson;

/** ./dist/src/x.js is built from src/x.ts. */
const sourceOf = (target: string) => target.replace(/^(\.\/)?dist\//, "").replace(/\.js$/, ".ts");

/** The sources of the package's entries and its CLI, from package.json. */
function entrySources(root = repoRoot): string[] {
  const pkg = readPackage(root);
  const targets = [...Object.values(pkg.exports).map((c) => c.default), ...Object.values(pkg.bin)];
  return targets.map(sourceOf);
}

/**
 * Entries built apart from the others, each into a file of its own, with
 * the modules listed taken from the root entry at run time. Built with the
 * others, the testing entry would share only some of what their chunks
 * hold, each such chunk would split in two, and every other entry would
 * load more files at start (the Node entry 30 rather than 26, the root
 * entry 22 rather than 18). What it takes from the root entry are the
 * modules whose values an app shares with it (the generated descriptors
 * and messages, the transports, whose errors must be the app's own
 * classes): every name it imports from them must be one the root entry
 * exports, which importing the packed entry checks
 * (test/unit/repo/package.test.ts). The rest (small helpers, the HTTP+JSON
 * routes) it carries.
 */
const APART: Readonly<Record<string, readonly string[]>> = {
  "src/testing.ts": [
    "gen/lf/a2a/v1/a2a_pb.ts",
    "src/protocol/messages.ts",
    "src/bindings/jsonrpc/transport.ts",
    "src/bindings/http-json/transport.ts",
    "src/bindings/grpc/web.ts",
  ],
};

/** Imports of `modules` (repository paths) become imports of the package's root entry, by its name. */
function fromRootEntry(root: string, modules: readonly string[]): Plugin {
  const taken = new Set(modules.map((m) => join(root, m)));
  const name = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { name: string }).name;
  return {
    name: "from-root-entry",
    setup(b) {
      b.onResolve({ filter: /^\./ }, (args) =>
        taken.has(resolve(args.resolveDir, args.path.replace(/\.js$/, ".ts"))) ? { path: name, external: true } : undefined,
      );
    },
  };
}

/**
 * How the package's code is bundled, which `npm run bench:stream` bundles
 * the same way. The browser-safe entries must run anywhere; the Node entry
 * and the CLI import Node's modules by their node: names, which stay imports.
 */
export const BUNDLING = {
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  packages: "external",
  external: ["node:*"],
  minify: false,
} as const satisfies BuildOptions;

/** esbuild's options for the package's JavaScript but the entries built apart, written under `outdir` (dist/src). */
function packageBuildOptions(root: string, outdir: string): BuildOptions {
  return {
    absWorkingDir: root,
    entryPoints: entrySources(root)
      .filter((s) => !(s in APART))
      .map((s) => join(root, s)),
    outbase: join(root, "src"),
    outdir,
    // Shared and on-demand code beside the entries.
    chunkNames: "[name]-[hash]",
    ...BUNDLING,
    splitting: true,
    sourcemap: false,
    metafile: true,
    logLevel: "warning",
  };
}

/** Relative imports in the output that name no file of it: the build is broken. */
function danglingImports(result: BuildResult, root: string): string[] {
  const outputs = new Set(Object.keys(result.metafile!.outputs).map((f) => resolve(root, f)));
  return Object.entries(result.metafile!.outputs).flatMap(([file, output]) =>
    output.imports
      .filter((i) => i.path.startsWith("."))
      .map((i) => resolve(root, dirname(file), i.path))
      .filter((target) => !outputs.has(target))
      .map((target) => `${file} -> ${target}`),
  );
}

async function main(): Promise<void> {
  const dist = join(repoRoot, "dist");
  rmSync(dist, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", join(repoRoot, "tsconfig.build.json"), "--emitDeclarationOnly"], { stdio: "inherit" });
  const options = packageBuildOptions(repoRoot, join(dist, "src"));
  const results = [await build(options)];
  for (const [entry, taken] of Object.entries(APART)) {
    const apart = { ...options, entryPoints: [join(repoRoot, entry)], splitting: false, plugins: [fromRootEntry(repoRoot, taken)] };
    results.push(await build(apart));
  }
  const dangling = results.flatMap((result) => danglingImports(result, repoRoot));
  if (dangling.length > 0) throw new Error(`build: imports of files it did not write:\n${dangling.join("\n")}`);
  // The CLI runs as a command: esbuild keeps its #! line; npm makes bins executable, a checkout needs it too.
  for (const file of Object.values(readPackage(repoRoot).bin)) chmodSync(join(repoRoot, file), 0o755);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
