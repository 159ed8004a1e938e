/**
 * `npm run bench:stream`: where the client CPU of a stream event goes, with
 * no server and no socket, so the figures hold still from run to run (B2's
 * move by about 0.05 of a ratio between runs; these by about 0.02 µs).
 *
 * The bytes are those the canned server sends for one B2 stream
 * (BENCH_EVENTS events, default 100,000), handed over in 64 KB Buffers as
 * `node:http` delivers them. Per binding, each round measures in turn:
 *
 *   floor    B2's floor's own work: the chunks decoded as `setEncoding`
 *            does, split on blank lines, JSON.parse of each event
 *   sse      our SSE decoder and JSON.parse of each event, in a loop
 *   parsed   the same with the generated reader making each message
 *   decoded  the same read through the stream's iterator (DecodedEvents)
 *            by `for await`
 *   client   A2AClient.sendStreamingMessage on the binding's transport
 *            (resumption on, as by default), read by `for await`
 *
 * CPU per event is process.cpuUsage over the whole stream. "Over the floor"
 * is the median, over BENCH_ROUNDS rounds (default 12) after two warm-up
 * rounds, of each row's difference to the floor in the same round: what
 * each layer adds, as the steps between the rows show.
 *
 * The code measured is the sources bundled by esbuild as `npm run build`
 * bundles them (scripts/build.ts's BUNDLING; the internal modules are not
 * in the package's entries).
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import { build } from "esbuild";
import { BUNDLING } from "../scripts/build.js";
import { streamBody } from "./canned-server.js";
import type { BindingName as BenchBinding } from "./clients.js";
import type * as Internals from "./stream-cpu-entry.js";
import { countEvents, splitEvents } from "./stream-events.js";

const WARM_UP = 2;
/** What node:http hands a reader at a time, here, for a body this size. */
const CHUNK = 65_536;

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

/** The internals, bundled as the build bundles the package (scripts/build.ts). */
async function loadInternals(): Promise<typeof Internals> {
  const outDir = join(repoRoot, "node_modules", ".cache", "a2a-stream-cpu");
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, "entry.mjs");
  await build({
    entryPoints: [fileURLToPath(new URL("./stream-cpu-entry.ts", import.meta.url))],
    outfile,
    ...BUNDLING,
    logLevel: "error",
  });
  return (await import(pathToFileURL(outfile).href)) as typeof Internals;
}

/** The HTTP bindings, whose streams are SSE. */
export type BindingName = Exclude<BenchBinding, "GRPC">;
export type Case = "floor" | "sse" | "parsed" | "decoded" | "client";
export const CASES: readonly Case[] = ["floor", "sse", "parsed", "decoded", "client"];

/** One row of the table: a layer's CPU per event, and what it adds to the floor's and to the row above. */
export interface Row {
  binding: BindingName;
  row: Case;
  cpuUs: number;
  overFloorUs: number;
  overAboveUs: number;
}

function chunksOf(bytes: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += CHUNK) chunks.push(Buffer.from(bytes.subarray(at, at + CHUNK)));
  return chunks;
}

async function* delivered(chunks: readonly Buffer[]): AsyncGenerator<Buffer> {
  for (const chunk of chunks) yield chunk;
}

/** Keeps results reachable, so that no work is optimized away. */
let sink: unknown;

/** The stream's events as the canned server wraps them on `binding` (JSON-RPC: for the request numbered 1). */
export function wrapFor(binding: BindingName): (e: unknown) => unknown {
  return binding === "JSONRPC" ? (e) => ({ jsonrpc: "2.0", id: 1, result: e }) : (e) => e;
}

function casesFor(binding: BindingName, lib: typeof Internals, events: number): Record<Case, () => Promise<number>> {
  const rpc = binding === "JSONRPC";
  // A fresh transport per stream numbers its first request 1, the id these events carry.
  const chunks = chunksOf(streamBody(events, wrapFor(binding)));
  const read = lib.jsonReaders["lf.a2a.v1.StreamResponse"]!;
  const message = (data: string) => {
    const json = JSON.parse(data) as { result?: unknown };
    const got = read(rpc ? json.result : json);
    // A reader that gave up would leave the work to ProtoJSON in the client, and this row would not measure it.
    if (got === undefined) throw new Error("the generated reader gave up on a B2 event");
    return got;
  };
  const sseOptions = { maxEventBytes: 16 * 1024 * 1024, binding };
  const httpClient: UniversalClientFn = async (req) => {
    let sent = "";
    if (req.body) for await (const part of req.body) sent += Buffer.from(part).toString();
    if (rpc && (JSON.parse(sent) as { id?: unknown }).id !== 1) throw new Error("the events carry id 1: one transport per stream");
    return {
      status: 200,
      header: new Headers({ "content-type": "text/event-stream" }),
      trailer: new Headers(),
      body: delivered(chunks),
    };
  };
  /** Our SSE decoder over the chunks, each event's data handed to `use` in a plain loop. */
  const eachSseEvent = async (use: (data: string) => unknown): Promise<number> => {
    const sse = lib.sseDecoder(sseOptions);
    let count = 0;
    for await (const chunk of delivered(chunks)) {
      for (const event of sse.absorb(chunk)) {
        sink = use(event.data);
        count++;
      }
    }
    return count;
  };
  return {
    floor() {
      // What B2's node:http floor reads: `res.setEncoding("utf8")`'s text, split as bench/clients.ts splits it.
      const decoder = new StringDecoder("utf8");
      const text = async function* () {
        for await (const chunk of delivered(chunks)) yield decoder.write(chunk);
      };
      return splitEvents(text(), undefined, () => {});
    },
    sse: () => eachSseEvent((data) => JSON.parse(data)),
    parsed: () => eachSseEvent(message),
    decoded: () =>
      countEvents(
        new lib.DecodedEvents(
          delivered(chunks),
          lib.sseDecoder(sseOptions),
          (e) => message(e.data),
          (e) => e,
        ),
      ),
    client: () => {
      const options = { baseUrl: "http://127.0.0.1:1/a2a", httpClient };
      const client = new lib.A2AClient(rpc ? lib.createJsonRpcTransport(options) : lib.createRestTransport(options));
      return countEvents(client.sendStreamingMessage({ message: lib.userMessage("hello") }));
    },
  };
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

async function measure(binding: BindingName, lib: typeof Internals, events: number, rounds: number): Promise<Row[]> {
  const cases = casesFor(binding, lib, events);
  const cpu: Record<Case, number[]> = { floor: [], sse: [], parsed: [], decoded: [], client: [] };
  const over: Record<Case, number[]> = { floor: [], sse: [], parsed: [], decoded: [], client: [] };
  for (let round = 0; round < WARM_UP + rounds; round++) {
    const row = {} as Record<Case, number>;
    for (const name of CASES) {
      const start = process.cpuUsage();
      const count = await cases[name]();
      const used = process.cpuUsage(start);
      if (count !== events) throw new Error(`${binding} ${name}: ${count} events of ${events}`);
      row[name] = (used.user + used.system) / count;
    }
    if (round < WARM_UP) continue;
    for (const name of CASES) {
      cpu[name].push(row[name]);
      over[name].push(row[name] - row.floor);
    }
  }
  const rows: Row[] = [];
  let above = 0;
  for (const name of CASES) {
    const overFloorUs = median(over[name]);
    rows.push({ binding, row: name, cpuUs: median(cpu[name]), overFloorUs, overAboveUs: overFloorUs - above });
    above = overFloorUs;
  }
  return rows;
}

/** Every row of both bindings: `events` per stream, medians of `rounds` rounds after two to warm up. */
export async function measureStreamCpu(events: number, rounds: number): Promise<Row[]> {
  const lib = await loadInternals();
  const rows: Row[] = [];
  for (const binding of ["JSONRPC", "HTTP+JSON"] as const) rows.push(...(await measure(binding, lib, events, rounds)));
  if (sink === undefined) throw new Error("no event was read");
  return rows;
}

export function formatStreamTable(rows: readonly Row[], events: number, rounds: number): string {
  const us = (n: number) => n.toFixed(3);
  // A row may cost less than the one above it (our SSE decoder against the floor's split, in the noise).
  const signed = (n: number) => (n < 0 ? `−${us(-n)}` : `+${us(n)}`);
  return [
    `CPU µs per stream event, ${events.toLocaleString("en")} events, medians of ${rounds} rounds (Node ${process.version}):`,
    "",
    "| binding | row | CPU µs/event | over the floor | over the row above |",
    "| --- | --- | ---: | ---: | ---: |",
    ...rows.map((r) =>
      r.row === "floor"
        ? `| ${r.binding} | floor | ${us(r.cpuUs)} | | |`
        : `| ${r.binding} | ${r.row} | ${us(r.cpuUs)} | ${signed(r.overFloorUs)} | ${signed(r.overAboveUs)} |`,
    ),
  ].join("\n");
}

// Run by hand (`npm run bench:stream`); the tests import the functions.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const events = Number(process.env.BENCH_EVENTS ?? 100_000);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 12);
  console.log(formatStreamTable(await measureStreamCpu(events, rounds), events, rounds));
}
