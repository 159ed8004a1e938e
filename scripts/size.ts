// npm run size
//
// What a browser app pays for a2a-connect: small apps are bundled with
// esbuild the way an app would bundle them (minified, ESM, code splitting,
// platform browser, against the package's own entries as its "exports" map
// names them, from the sources: esbuild compiles our TypeScript as
// `npm run build` does, and an app bundling the built package's chunks gets
// the same code within a few hundred bytes) and their output is measured,
// each chunk gzipped on its own.
// Prints one markdown table (the one in docs/size.md).
//
// "at start" is what the app loads before it runs: its entry chunk and every
// chunk that one imports statically. "on demand" is what a feature loads
// with a dynamic import the first time it is used (card verification, the
// 0.3 wire).
//
// `npm run size -- --inputs` also lists each app's largest inputs;
// `npm run size -- --where` says where core's bytes go: by package and by
// folder of src/, its largest modules, what its chunks cost as chunks, and
// which modules on demand load each chunk at start too;
// `npm run size -- --boundaries` what each module core loads on demand
// costs its start (see `boundaryCosts`).
//
// Exit codes: 0 within the budget, 1 core over the budget, 2 build error.

import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build, type Metafile, type Plugin } from "esbuild";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The core row may not exceed this many gzipped bytes: a regression guard,
 * just above core as last measured (48,400 bytes; docs/size.md says where
 * they go, and what the last changes saved). It follows core: when a change shrinks core, set it again just
 * above the new figure, so that growth shows up in review rather than
 * accumulating. The "floor" row (protobuf-es with the A2A descriptors, about
 * 11 KB) is what no change to the client can remove.
 */
export const CORE_BUDGET_GZIP = 48_500;

/**
 * The gRPC-web row's guard at start (58,585 bytes as last measured), set
 * the same way: its failures are named with code loaded when a call first
 * fails, and a static import of that code would bring about 5 KB back.
 * Its transport is ours (bindings/grpc/web-transport.ts), binary only, and
 * reads a status with our google.rpc.Status: connect-web's built a
 * ProtoJSON serializer for every call, and connect's Status schema is
 * built from descriptor.proto's, which together cost this row 15,920 bytes.
 * Its frames are read by the frame reader HTTP/2 gRPC uses (frames.ts).
 */
export const GRPC_WEB_BUDGET_GZIP = 58_690;

function sdkVersion(): string {
  const pkg = JSON.parse(readFileSync(join(repoRoot, "node_modules/@a2a-js/sdk/package.json"), "utf8")) as { version: string };
  return pkg.version;
}

interface App {
  id: string;
  label: string;
  source: string;
  /** Source files (repository paths) whose dynamically loaded chunks the row counts. */
  onDemand?: RegExp;
}

// Apps are plain JavaScript: esbuild does not type-check, and the official
// SDK's app must not need our types.
const CALLS = `
  await session.client.sendMessage({ message: userMessage("hello") });
  for await (const event of session.client.sendStreamingMessage({ message: userMessage("stream") })) console.log(event);
`;

const APPS: readonly App[] = [
  {
    id: "core",
    label: "core: `connect` + send + stream, JSON-RPC and HTTP+JSON",
    source: `
import { connect, userMessage } from "a2a-connect";
export async function run(url) {
  const session = await connect(url, { preferredBindings: ["JSONRPC", "HTTP+JSON"] });
  ${CALLS}
}`,
  },
  {
    id: "verify",
    label: 'core + verification (`verify: "required"`)',
    source: `
import { connect, userMessage } from "a2a-connect";
export async function run(url, keys) {
  const session = await connect(url, { verify: "required", verification: { keys } });
  ${CALLS}
}`,
    onDemand: /^src\/trust\/verify\.ts$/,
  },
  {
    id: "grpc-web",
    label: "core + gRPC-web (`grpcWeb: createGrpcWebTransport`)",
    source: `
import { connect, createGrpcWebTransport, userMessage } from "a2a-connect";
export async function run(url) {
  const session = await connect(url, { grpcWeb: createGrpcWebTransport, preferredBindings: ["GRPC"] });
  ${CALLS}
}`,
  },
  {
    id: "v0.3",
    label: "core + an agent on A2A 0.3 (JSON-RPC or HTTP+JSON)",
    source: `
import { connect, userMessage } from "a2a-connect";
export async function run(url) {
  const session = await connect(url);
  ${CALLS}
}`,
    onDemand: /^src\/bindings\/v0_3-transports\.ts$/,
  },
  {
    id: "floor",
    label: "floor: protobuf-es with the A2A descriptors and nothing else (`create` + the service)",
    source: `
import { create } from "@bufbuild/protobuf";
import { A2AService, SendMessageRequestSchema } from "${join(repoRoot, "gen/lf/a2a/v1/a2a_pb.ts")}";
export function run() {
  return [create(SendMessageRequestSchema), A2AService];
}`,
  },
  {
    id: "proto-json",
    label: "for reference: the floor with ProtoJSON (`toJson` + `fromJson`)",
    source: `
import { create, fromJson, toJson } from "@bufbuild/protobuf";
import { SendMessageRequestSchema, StreamResponseSchema } from "${join(repoRoot, "gen/lf/a2a/v1/a2a_pb.ts")}";
export function run(json) {
  return [toJson(SendMessageRequestSchema, create(SendMessageRequestSchema)), fromJson(StreamResponseSchema, json)];
}`,
  },
  {
    id: "a2a-js",
    label: `\`@a2a-js/sdk/client\` ${sdkVersion()}: \`ClientFactory\` + send + stream`,
    source: `
import { ClientFactory } from "@a2a-js/sdk/client";
const message = (text) => ({ messageId: crypto.randomUUID(), role: 1, parts: [{ text }] });
export async function run(url) {
  const client = await new ClientFactory().createFromUrl(url);
  await client.sendMessage({ message: message("hello") });
  for await (const event of client.sendMessageStream({ message: message("stream") })) console.log(event);
}`,
  },
];

export interface Bytes {
  min: number;
  gzip: number;
}

/** A chunk the app loads at start: why it is a chunk of its own is which modules on demand load it too. */
export interface StartChunk {
  gzip: number;
  /** Its inputs, the largest first. */
  inputs: string[];
  /** The modules loaded on demand (repository paths) whose chunks import it; none for the app's entry chunk. */
  alsoLoadedBy: string[];
}

export interface SizeRow {
  id: string;
  label: string;
  /** Entry chunk and the chunks it imports statically. */
  atStart: Bytes;
  /** Chunks the row's feature loads with a dynamic import (zero if none). */
  onDemand: Bytes;
  total: Bytes;
  /** The largest inputs of the loaded chunks, in minified bytes. */
  largest: Array<{ path: string; bytes: number }>;
  /** The modules the app imports with `import()` (repository paths), whether or not the row counts them. */
  loadedOnDemand: string[];
  /** How many chunks load at start, and their gzip bytes had they been one file. */
  startChunks: { count: number; gzipAsOne: number; each: StartChunk[] };
}

/** `a2a-connect` and its subpaths, resolved through package.json "exports" to the TypeScript sources. */
async function packageEntries(): Promise<Plugin> {
  const pkg = JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8")) as {
    name: string;
    exports: Record<string, { default: string }>;
  };
  const escaped = pkg.name.replace(/[-/\\^$*+?.()|[\]{}]/g, "\\$&");
  return {
    name: "package-entries",
    setup(b) {
      b.onResolve({ filter: new RegExp(`^${escaped}(/.*)?$`) }, (args) => {
        const sub = `.${args.path.slice(pkg.name.length)}`;
        const target = pkg.exports[sub]?.default;
        if (!target) return { errors: [{ text: `${args.path} is not exported by package.json` }] };
        // ./dist/src/x.js is compiled from ./src/x.ts
        return { path: join(repoRoot, target.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts")) };
      });
    },
  };
}

function sum(files: Iterable<Uint8Array>): Bytes {
  let min = 0;
  let gzip = 0;
  for (const f of files) {
    min += f.byteLength;
    gzip += gzipSync(f, { level: 9 }).byteLength;
  }
  return { min, gzip };
}

/** Output chunks reachable from `start` over static imports. */
export function staticClosure(meta: Metafile, start: Iterable<string>): Set<string> {
  const seen = new Set<string>();
  const todo = [...start];
  for (let f = todo.pop(); f !== undefined; f = todo.pop()) {
    if (seen.has(f)) continue;
    seen.add(f);
    for (const i of meta.outputs[f]?.imports ?? []) if (i.kind === "import-statement" && !i.external) todo.push(i.path);
  }
  return seen;
}

/** The inputs bundled into the output chunks `start` and every chunk they import statically. */
export function staticInputs(meta: Metafile, start: Iterable<string>): string[] {
  return [...staticClosure(meta, start)].flatMap((f) => Object.keys(meta.outputs[f]!.inputs));
}

async function measureApp(app: App, dir: string, plugins: Plugin[]): Promise<SizeRow> {
  const entry = join(dir, `${app.id}.js`);
  await writeFile(entry, app.source);
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: repoRoot,
    // The apps live outside the repository; packages resolve from its node_modules.
    nodePaths: [join(repoRoot, "node_modules")],
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    metafile: true,
    write: false,
    outdir: join(dir, `out-${app.id}`),
    define: { "process.env.NODE_ENV": '"production"' },
    plugins,
    logLevel: "silent",
  });
  const meta = result.metafile;
  const contents = new Map(result.outputFiles.map((f) => [f.path, f.contents]));
  const bytesOf = (out: string) => contents.get(join(repoRoot, out)) ?? new Uint8Array();

  const outputs = Object.entries(meta.outputs);
  const [main] = outputs.find(([, o]) => o.entryPoint !== undefined && resolve(repoRoot, o.entryPoint) === entry) ?? [];
  if (!main) throw new Error(`${app.id}: no output for the entry point`);
  const atStart = staticClosure(meta, [main]);
  const lazyRoots = app.onDemand
    ? outputs.filter(([, o]) => o.entryPoint !== undefined && app.onDemand!.test(o.entryPoint)).map(([f]) => f)
    : [];
  if (app.onDemand && lazyRoots.length === 0) throw new Error(`${app.id}: no chunk is loaded on demand for ${app.onDemand}`);
  const lazy = [...staticClosure(meta, lazyRoots)].filter((f) => !atStart.has(f));

  const inputs = new Map<string, number>();
  for (const f of [...atStart, ...lazy]) {
    for (const [path, { bytesInOutput }] of Object.entries(meta.outputs[f]!.inputs)) {
      inputs.set(path, (inputs.get(path) ?? 0) + bytesInOutput);
    }
  }
  const start = sum([...atStart].map(bytesOf));
  const onDemand = sum(lazy.map(bytesOf));
  const joined = Buffer.concat([...atStart].map(bytesOf));
  const onDemandEntries = outputs.filter(([f, o]) => o.entryPoint !== undefined && f !== main);
  const reach = onDemandEntries.map(([f, o]) => ({ module: o.entryPoint!, chunks: staticClosure(meta, [f]) }));
  const each: StartChunk[] = [...atStart].map((f) => ({
    gzip: gzipSync(bytesOf(f), { level: 9 }).byteLength,
    inputs: Object.entries(meta.outputs[f]!.inputs)
      .sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput)
      .map(([path]) => path),
    alsoLoadedBy: reach.filter((r) => r.chunks.has(f)).map((r) => r.module),
  }));
  return {
    id: app.id,
    label: app.label,
    atStart: start,
    onDemand,
    total: { min: start.min + onDemand.min, gzip: start.gzip + onDemand.gzip },
    largest: [...inputs].sort((a, b) => b[1] - a[1]).map(([path, bytes]) => ({ path, bytes })),
    loadedOnDemand: onDemandEntries.map(([, o]) => o.entryPoint!),
    startChunks: { count: atStart.size, gzipAsOne: gzipSync(joined, { level: 9 }).byteLength, each: each.sort((a, b) => b.gzip - a.gzip) },
  };
}

/** Builds every app and measures it. */
export async function measureSizes(): Promise<SizeRow[]> {
  const dir = await mkdtemp(join(tmpdir(), "a2a-connect-size-"));
  try {
    const plugins = [await packageEntries()];
    const rows: SizeRow[] = [];
    for (const app of APPS) rows.push(await measureApp(app, dir, plugins));
    return rows;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * What the modules that core loads on demand cost core at start, in gzip
 * bytes: core built again with one `import()` left out of the bundle (each
 * in turn, then all of them together), against core as it is. A module on
 * demand that imports code the start has too takes that code out of the
 * start's chunk into a chunk of its own (esbuild gives each module the
 * chunk of the set of entries that reach it), and each chunk is gzipped on
 * its own and joined to the others by imports: this is the price of those
 * splits, not of the modules' own code, which is not at start.
 */
export async function boundaryCosts(): Promise<{ together: number; each: Array<{ module: string; bytes: number }> }> {
  const app = APPS.find((a) => a.id === "core")!;
  const dir = await mkdtemp(join(tmpdir(), "a2a-connect-size-"));
  try {
    const entries = await packageEntries();
    const core = await measureApp(app, dir, [entries]);
    const without = async (left: (path: string) => boolean) => {
      const plugin: Plugin = {
        name: "without-imports",
        setup(b) {
          b.onResolve({ filter: /./ }, (args) =>
            args.kind === "dynamic-import" && left(join(args.resolveDir, args.path.replace(/\.js$/, ".ts")))
              ? { path: args.path, external: true }
              : undefined,
          );
        },
      };
      return core.atStart.gzip - (await measureApp(app, dir, [plugin, entries])).atStart.gzip;
    };
    const each: Array<{ module: string; bytes: number }> = [];
    for (const module of core.loadedOnDemand) each.push({ module, bytes: await without((path) => path === join(repoRoot, module)) });
    return { together: await without(() => true), each: each.sort((a, b) => b.bytes - a.bytes) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const cell = (b: Bytes) => (b.min === 0 ? "-" : `${kb(b.min)} / ${kb(b.gzip)}`);

export function formatTable(rows: readonly SizeRow[]): string {
  const lines = [
    "| app | at start (min / gzip) | on demand (min / gzip) | total gzip |",
    "| --- | ---: | ---: | ---: |",
    ...rows.map((r) => `| ${r.label} | ${cell(r.atStart)} | ${cell(r.onDemand)} | **${kb(r.total.gzip)}** |`),
  ];
  return lines.join("\n");
}

/**
 * What an input of a bundle belongs to: a package of node_modules by its
 * name, the generated code (`gen/`), or our own code by its folder of src/
 * (`src/` for the entry files).
 */
export function ownerOf(path: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path)?.[1];
  if (pkg) return pkg;
  if (path.startsWith("gen/")) return "gen/";
  const folder = /^src\/([^/]+)\//.exec(path)?.[1];
  if (folder) return `src/${folder}/`;
  return path.startsWith("src/") ? "src/" : "the app";
}

/** A row's minified bytes by owner (see `ownerOf`), the largest first. */
export function bytesByOwner(row: SizeRow): Array<{ owner: string; bytes: number }> {
  const owners = new Map<string, number>();
  for (const i of row.largest) if (i.bytes > 0) owners.set(ownerOf(i.path), (owners.get(ownerOf(i.path)) ?? 0) + i.bytes);
  return [...owners].sort((a, b) => b[1] - a[1]).map(([owner, bytes]) => ({ owner, bytes }));
}

/** Where a row's bytes go, as markdown: its owners, its largest modules, and the cost of its chunks. */
export function formatWhere(row: SizeRow, top = 25): string {
  const total = row.largest.reduce((n, i) => n + i.bytes, 0);
  const share = (n: number) => `${((100 * n) / total).toFixed(1)} %`;
  const short = (path: string) => path.replace(/^.*node_modules\//, "");
  const split = row.atStart.gzip - row.startChunks.gzipAsOne;
  // What the chunks hold besides their inputs' code: the imports and exports that join them.
  const glue = row.atStart.min + row.onDemand.min - total;
  return [
    `${row.id}: ${row.atStart.gzip} gzip bytes at start (${row.atStart.min} minified), in ${row.startChunks.count} chunks;`,
    `as one file ${row.startChunks.gzipAsOne} gzip bytes: the split into chunks costs ${split}.`,
    `The chunks' imports and exports of each other take ${glue} minified bytes, the modules the rest:`,
    "",
    "| owner | minified bytes | share |",
    "| --- | ---: | ---: |",
    ...bytesByOwner(row).map((o) => `| ${o.owner} | ${o.bytes} | ${share(o.bytes)} |`),
    "",
    "| module | minified bytes |",
    "| --- | ---: |",
    ...row.largest.slice(0, top).map((i) => `| ${short(i.path)} | ${i.bytes} |`),
    "",
    "| chunk at start: its largest inputs | gzip bytes | loaded on demand by, too |",
    "| --- | ---: | --- |",
    ...row.startChunks.each.map((c) => {
      const shown = c.inputs.slice(0, 3).map(short).join(", ") + (c.inputs.length > 3 ? ` and ${c.inputs.length - 3} more` : "");
      const by = c.alsoLoadedBy.length === 0 ? "-" : c.alsoLoadedBy.map((m) => m.replace(/^.*\//, "")).join(", ");
      return `| ${shown} | ${c.gzip} | ${by} |`;
    }),
  ].join("\n");
}

async function main(): Promise<number> {
  let rows: SizeRow[];
  try {
    rows = await measureSizes();
  } catch (e) {
    console.error(`size: ${(e as Error).message}`);
    return 2;
  }
  console.log(formatTable(rows));
  if (process.argv.includes("--inputs")) {
    for (const r of rows) {
      console.log(`\n${r.id}: largest inputs (minified bytes)`);
      for (const i of r.largest.slice(0, 25)) console.log(`  ${String(i.bytes).padStart(7)}  ${i.path}`);
    }
  }
  const core = rows.find((r) => r.id === "core")!;
  if (process.argv.includes("--where")) console.log(`\n${formatWhere(core)}`);
  if (process.argv.includes("--boundaries")) {
    const costs = await boundaryCosts();
    console.log("\n| loaded on demand by core | its cost at start (gzip bytes) |\n| --- | ---: |");
    for (const c of costs.each) console.log(`| ${c.module} | ${c.bytes} |`);
    console.log(`| all of them together | ${costs.together} |`);
  }
  console.log(`\ncore: ${kb(core.total.gzip)} gzip (${core.total.gzip} bytes) of a ${kb(CORE_BUDGET_GZIP)} budget (${CORE_BUDGET_GZIP})`);
  if (core.total.gzip > CORE_BUDGET_GZIP) {
    console.error("size: core is over its budget");
    return 1;
  }
  const grpcWeb = rows.find((r) => r.id === "grpc-web")!;
  if (grpcWeb.atStart.gzip > GRPC_WEB_BUDGET_GZIP) {
    console.error(`size: gRPC-web's start (${grpcWeb.atStart.gzip} gzip bytes) is over its budget of ${GRPC_WEB_BUDGET_GZIP}`);
    return 1;
  }
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main();
}
