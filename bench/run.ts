/**
 * `npm run bench`: our client side by side with @a2a-js/sdk's and with the
 * bare minimum (`node:http` + JSON.parse, or grpc-js + protobuf decoding),
 * against a canned server in a process of its own on 127.0.0.1. Each client
 * runs in its own process too, so CPU time and memory are the client's
 * alone. Rounds are interleaved across clients (one round of each, then the
 * next), so that load from elsewhere on the machine hits every client
 * alike; the tables give medians and the spread (min-max) over the rounds.
 *
 *   B1   unary SendMessage, 1 and 16 in flight: calls/s and client CPU per call
 *        (JSON-RPC, HTTP+JSON, gRPC)
 *   B1o  the same at 16 in flight against the official @a2a-js/sdk server
 *   B2   one stream of BENCH_EVENTS (default 100 000) events: events/s and CPU per event
 *   B3   Agent Cards: resolved cold, from the cache, revalidated by 304; ES256 verifications
 *   B4a  BENCH_STREAMS (default 1000) slow streams open at once in one client:
 *        peak heap and RSS (a fresh process per round)
 *   B4b  one stream of BENCH_LONG_EVENTS (default 1 000 000) events: live heap
 *        at the start, at its peak and at the end, growth per event
 *
 * Environment: BENCH_ROUNDS (default 5), BENCH_UNARY_MS (per round, default
 * 400), BENCH_EVENTS, BENCH_STREAMS, BENCH_SLOW_EVERY_MS (pace of the slow
 * streams, default 100), BENCH_HOLD_MS (how long B4a holds them all open,
 * default 1000), BENCH_MEMORY_ROUNDS (B4a, default 2), BENCH_LONG_EVENTS,
 * BENCH_LONG_MS (time bound of each long stream, default 30 000),
 * BENCH_DEADLINE_MS (the whole run, default 600 000), BENCH_ONLY (e.g.
 * "B1,B4a": only these), BENCH_OUT (default bench/results.md).
 */
import { fork, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import * as os from "node:os";
import { fileURLToPath } from "node:url";
import { cannedUrl, type BindingName, type ClientName } from "./clients.js";
import type { LongStreamMeasurement, ManyStreamsMeasurement, Measurement, Request } from "./worker.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const UNARY_MS = Number(process.env.BENCH_UNARY_MS ?? 400);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const SLOW_EVERY_MS = Number(process.env.BENCH_SLOW_EVERY_MS ?? 100);
const HOLD_MS = Number(process.env.BENCH_HOLD_MS ?? 1000);
const MEMORY_ROUNDS = Number(process.env.BENCH_MEMORY_ROUNDS ?? 2);
const LONG_EVENTS = Number(process.env.BENCH_LONG_EVENTS ?? 1_000_000);
const LONG_MS = Number(process.env.BENCH_LONG_MS ?? 30_000);
const OUT = process.env.BENCH_OUT ?? fileURLToPath(new URL("./results.md", import.meta.url));
// The whole run is bounded: whatever is still going after this is stopped.
const DEADLINE_MS = Number(process.env.BENCH_DEADLINE_MS ?? 600_000);

/** Memory is sampled this often while the B4a streams are open. */
const MEMORY_SAMPLE_MS = 50;
/** A full GC and a live-heap sample this often during the B4b stream. */
const LONG_SAMPLE_MS = 250;

const BINDINGS = ["JSONRPC", "HTTP+JSON", "GRPC"] as const;
const HTTP_BINDINGS = ["JSONRPC", "HTTP+JSON"] as const;
const HTTP_CLIENTS: ClientName[] = ["ours-fetch", "ours-node", "sdk", "raw", "raw-fetch"];
const GRPC_CLIENTS: ClientName[] = ["ours", "sdk", "raw"];
const clientsOf = (binding: BindingName) => (binding === "GRPC" ? GRPC_CLIENTS : HTTP_CLIENTS);

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const children = new Set<ChildProcess>();

function start(file: string, args: string[], flags: string[] = []): ChildProcess {
  const child = fork(here(file), args, { execArgv: ["--import", "tsx", ...flags], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  children.add(child);
  child.on("exit", () => children.delete(child));
  return child;
}

function next<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`a benchmark process exited (${code})`));
    child.once("exit", onExit);
    child.once("message", (m) => {
      child.off("exit", onExit);
      resolve(m as T);
    });
  });
}

class Worker {
  private constructor(
    readonly name: ClientName,
    private readonly child: ChildProcess,
  ) {}
  /** `events`: how many events each stream of `url` carries. */
  static async start(name: ClientName, binding: BindingName, url: string, events: number, flags: string[] = []): Promise<Worker> {
    const child = start("./worker.ts", [name, binding, url, String(events)], flags);
    await next(child);
    return new Worker(name, child);
  }
  async run<T = Measurement>(request: Request): Promise<T> {
    const reply = next<{ ok?: T; error?: string }>(this.child);
    this.child.send(request);
    const r = await reply;
    if (!r.ok) throw new Error(`${this.name}: ${r.error}`);
    return r.ok;
  }
  stop(): void {
    this.child.kill();
  }
}

interface Row {
  binding: BindingName;
  concurrency?: number;
  client: ClientName;
  rate: number[];
  cpu: number[];
  /** Per round: the client process's CPU time over the wall time (cores' worth; above 1 with threads beside the main one). */
  cores: number[];
  /** Per round: the share of the wall time the client's main thread was busy. */
  mainBusy: number[];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const int = (x: number) => Math.round(x).toLocaleString("en-US");
const spread = (xs: number[]) => `${int(Math.min(...xs))}–${int(Math.max(...xs))}`;
const ratio = (x: number) => `${x.toFixed(2)}x`;
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const mbSpread = (xs: number[]) => `${mb(Math.min(...xs))}–${mb(Math.max(...xs))}`;

/** Seconds since the run began, for the progress lines. */
const began = Date.now();
const clock = () => `[${String(Math.round((Date.now() - began) / 1000)).padStart(3)} s]`;

/**
 * Starts one worker per client of `binding` on `url`, hands them to `use`,
 * and stops them. Starting them costs seconds, so one set serves every
 * measurement on that URL.
 */
async function withWorkers<T>(binding: BindingName, url: string, events: number, use: (workers: Worker[]) => Promise<T>): Promise<T> {
  const workers = await startWorkers(clientsOf(binding), binding, url, events);
  try {
    return await use(workers);
  } finally {
    for (const w of workers) w.stop();
  }
}

/** Starts one worker per client at once (their start-up overlaps; none runs until asked); if one fails, stops the others. */
async function startWorkers(
  clients: readonly ClientName[],
  binding: BindingName,
  url: string,
  events: number,
  flags: string[] = [],
): Promise<Worker[]> {
  const started = await Promise.allSettled(clients.map((c) => Worker.start(c, binding, url, events, flags)));
  const workers = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const failed = started.find((s) => s.status === "rejected");
  if (failed) {
    for (const w of workers) w.stop();
    throw failed.reason;
  }
  return workers;
}

/** A warm-up round, then ROUNDS rounds of `request` on each worker in turn. */
async function measure(bench: string, binding: BindingName, workers: Worker[], request: Request, concurrency?: number): Promise<Row[]> {
  const rows = workers.map((w) => ({
    binding,
    concurrency,
    client: w.name,
    rate: [] as number[],
    cpu: [] as number[],
    cores: [] as number[],
    mainBusy: [] as number[],
  }));
  for (const w of workers) await w.run(request);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, w] of workers.entries()) {
      const m = await w.run(request);
      rows[i]!.rate.push((m.count * 1000) / m.wallMs);
      rows[i]!.cpu.push(m.cpuUs / m.count);
      rows[i]!.cores.push(m.cpuUs / (m.wallMs * 1000));
      rows[i]!.mainBusy.push(m.mainBusy);
    }
  }
  const label = concurrency === undefined ? `${bench} ${binding}` : `${bench} ${binding} ×${concurrency}`;
  console.log(clock(), label.padEnd(18), rows.map((r) => `${r.client} ${int(median(r.rate))}/s ${median(r.cpu).toFixed(1)}µs`).join("  "));
  return rows;
}

function table(rows: Row[], unit: string): string {
  const out = [
    `| binding | ${rows[0]!.concurrency !== undefined ? "in flight | " : ""}client | ${unit}/s (median) | min–max | CPU µs/${unit} (median) | min–max | ${unit}/s vs sdk | CPU vs sdk | ${unit}/s vs raw | CPU vs its floor | client CPU, cores | main thread busy |`,
    `| --- | ${rows[0]!.concurrency !== undefined ? "--- | " : ""}--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`,
  ];
  for (const r of rows) {
    const sdk = peer(rows, r, "sdk");
    const raw = peer(rows, r, "raw");
    const floor = peer(rows, r, floorOf(r));
    out.push(
      [
        "",
        r.binding,
        ...(r.concurrency !== undefined ? [String(r.concurrency)] : []),
        r.client,
        int(median(r.rate)),
        spread(r.rate),
        median(r.cpu).toFixed(1),
        `${Math.min(...r.cpu).toFixed(1)}–${Math.max(...r.cpu).toFixed(1)}`,
        sdk ? ratio(median(r.rate) / median(sdk.rate)) : "",
        sdk ? ratio(median(r.cpu) / median(sdk.cpu)) : "",
        raw ? ratio(median(r.rate) / median(raw.rate)) : "",
        floor ? ratio(median(r.cpu) / median(floor.cpu)) : "",
        median(r.cores).toFixed(2),
        `${Math.round(median(r.mainBusy) * 100)} %`,
        "",
      ]
        .join(" | ")
        .trim(),
    );
  }
  return out.join("\n");
}

/**
 * The floor a client's CPU is held against: on JSON-RPC and HTTP+JSON the
 * bare fetch (`raw-fetch`) for the clients on fetch, the bare `node:http`
 * (`raw`) for the others; on gRPC the bare grpc-js client.
 */
function floorOf(r: { binding: BindingName; client: ClientName }): ClientName {
  const onFetch = r.client === "ours-fetch" || r.client === "raw-fetch" || r.client === "sdk";
  return r.binding !== "GRPC" && onFetch ? "raw-fetch" : "raw";
}

/** The row of `client` measured alongside `r` (same binding, same concurrency). */
function peer<R extends { binding: BindingName; client: ClientName; concurrency?: number }>(
  rows: R[],
  r: R,
  client: ClientName,
): R | undefined {
  return rows.find((o) => o.binding === r.binding && o.concurrency === r.concurrency && o.client === client);
}

// ---------------------------------------------------------------------------
// B4: memory

interface ManyRow {
  binding: BindingName;
  client: ClientName;
  runs: ManyStreamsMeasurement[];
}

/** Workers for the memory measurements: the GC exposed, so the live heap can be measured. */
function startMemoryWorkers(clients: readonly ClientName[], binding: BindingName, url: string, events: number): Promise<Worker[]> {
  return startWorkers(clients, binding, url, events, ["--expose-gc"]);
}

/** Runs `request` on each worker in turn, stopping each after its run, so every figure is of one process's life. */
async function eachOnce<T>(workers: Worker[], request: Request): Promise<T[]> {
  const out: T[] = [];
  try {
    for (const w of workers) {
      out.push(await w.run<T>(request));
      w.stop();
    }
    return out;
  } finally {
    for (const w of workers) w.stop();
  }
}

/** B4a on one binding: a fresh process per client and round, rounds interleaved. */
async function manyStreams(binding: BindingName, ports: { port: number; grpcPort: number }): Promise<ManyRow[]> {
  const rows: ManyRow[] = HTTP_CLIENTS.map((client) => ({ binding, client, runs: [] }));
  // Bounds a run whatever happens; the server's streams outlast it.
  const maxMs = HOLD_MS + 30_000;
  const url = cannedUrl(ports, binding, Math.ceil(maxMs / SLOW_EVERY_MS) + 10, SLOW_EVERY_MS);
  const request: Request = { kind: "many-streams", count: STREAMS, sampleMs: MEMORY_SAMPLE_MS, holdMs: HOLD_MS, maxMs };
  for (let round = 0; round < MEMORY_ROUNDS; round++) {
    const workers = await startMemoryWorkers(HTTP_CLIENTS, binding, url, 0);
    const runs = await eachOnce<ManyStreamsMeasurement>(workers, request);
    runs.forEach((m, i) => rows[i]!.runs.push(m));
  }
  console.log(
    clock(),
    `B4a ${binding}`.padEnd(18),
    rows
      .map(
        (r) =>
          `${r.client} heap ${mb(median(r.runs.map((m) => m.peakHeap)))} MB rss ${mb(median(r.runs.map((m) => m.peakRss)))} MB open ${Math.min(...r.runs.map((m) => m.maxOpen))}`,
      )
      .join("  "),
  );
  for (const r of rows) {
    const failed = r.runs.find((m) => m.failed > 0);
    if (failed) console.log(`  ${r.client}: ${failed.failed} streams failed: ${failed.firstError}`);
  }
  return rows;
}

function manyTable(rows: ManyRow[]): string {
  const out = [
    "| binding | client | open at once (min) | failed (max) | s to open all (median) | idle heap MB | peak heapUsed MB (median) | min–max | live heap, all open, MB | peak RSS MB (median) | min–max | peak heap vs sdk | live heap vs sdk | peak RSS vs sdk |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  const of = (r: ManyRow, f: (m: ManyStreamsMeasurement) => number | undefined) => median(r.runs.map((m) => f(m) ?? NaN));
  for (const r of rows) {
    const sdk = peer(rows, r, "sdk");
    const vs = (f: (m: ManyStreamsMeasurement) => number | undefined) => (sdk ? ratio(of(r, f) / of(sdk, f)) : "");
    out.push(
      [
        "",
        r.binding,
        r.client,
        int(Math.min(...r.runs.map((m) => m.maxOpen))),
        int(Math.max(...r.runs.map((m) => m.failed))),
        (of(r, (m) => m.openAllMs) / 1000).toFixed(2),
        mb(of(r, (m) => m.idleHeap)),
        mb(of(r, (m) => m.peakHeap)),
        mbSpread(r.runs.map((m) => m.peakHeap)),
        mb(of(r, (m) => m.liveHeapAllOpen)),
        mb(of(r, (m) => m.peakRss)),
        mbSpread(r.runs.map((m) => m.peakRss)),
        vs((m) => m.peakHeap),
        vs((m) => m.liveHeapAllOpen),
        vs((m) => m.peakRss),
        "",
      ]
        .join(" | ")
        .trim(),
    );
  }
  return out.join("\n");
}

interface LongRow {
  client: ClientName;
  m: LongStreamMeasurement;
}

/** Growth of the live heap per event below which a stream's heap counts as flat. */
const FLAT_BYTES_PER_EVENT = 1;
const growth = (m: LongStreamMeasurement) => (m.bytesPerEvent === null ? "too short to tell" : `${m.bytesPerEvent.toFixed(2)} B/event`);
const isFlat = (m: LongStreamMeasurement) => m.bytesPerEvent !== null && Math.abs(m.bytesPerEvent) < FLAT_BYTES_PER_EVENT;

async function longStreams(binding: BindingName, url: string): Promise<LongRow[]> {
  const clients = ["ours-node", "sdk", "raw"] as const;
  const workers = await startMemoryWorkers(clients, binding, url, LONG_EVENTS);
  const runs = await eachOnce<LongStreamMeasurement>(workers, { kind: "long-stream", sampleMs: LONG_SAMPLE_MS, maxMs: LONG_MS });
  return runs.map((m, i) => {
    console.log(
      clock(),
      `B4b ${binding} ${clients[i]}`.padEnd(18),
      `${int(m.events)} events in ${(m.wallMs / 1000).toFixed(1)} s; live heap ${mb(m.startHeap)} → peak ${mb(m.peakHeap)} → ${mb(m.endHeap)} MB; ${growth(m)}`,
    );
    return { client: clients[i]!, m };
  });
}

function longTable(binding: BindingName, rows: LongRow[]): string {
  return [
    "| binding | client | events | s | events/s | CPU µs/event | live heap at start MB | peak MB | at end MB | growth, bytes/event | flat (< 1 B/event) | peak RSS MB |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |",
    ...rows.map(({ client, m }) =>
      [
        "",
        binding,
        client,
        `${int(m.events)}${m.stopped ? " (stopped by the time bound)" : ""}`,
        (m.wallMs / 1000).toFixed(1),
        int((m.events * 1000) / m.wallMs),
        (m.cpuUs / m.events).toFixed(1),
        mb(m.startHeap),
        mb(m.peakHeap),
        mb(m.endHeap),
        m.bytesPerEvent === null ? "–" : m.bytesPerEvent.toFixed(2),
        m.bytesPerEvent === null ? "–" : isFlat(m) ? "yes" : "no",
        mb(m.peakRss),
        "",
      ]
        .join(" | ")
        .trim(),
    ),
  ].join("\n");
}

// ---------------------------------------------------------------------------
// Goals

interface GoalCheck {
  goal: string;
  client: ClientName;
  binding: BindingName;
  value: string;
  met: boolean;
}

/** Each goal of ours against what was measured (medians). */
function goalChecks(r: Results): GoalCheck[] {
  const checks: GoalCheck[] = [];
  const add = (goal: string, row: { client: ClientName; binding: BindingName }, x: number, met: boolean) =>
    checks.push({ goal, client: row.client, binding: row.binding, value: ratio(x), met });
  const ours = (row: { client: ClientName }) => row.client.startsWith("ours");
  for (const [bench, rows] of [
    ["B1", r.b1],
    ["B1o", r.b1o],
  ] as const) {
    for (const row of rows.filter((o) => ours(o) && o.concurrency === 16)) {
      const sdk = peer(rows, row, "sdk");
      if (!sdk) continue;
      const speed = median(row.rate) / median(sdk.rate);
      if (row.binding === "GRPC") {
        add(`${bench}: calls/s at 16 in flight vs sdk (gRPC ≥ 1x)`, row, speed, speed >= 1);
        continue;
      }
      const cpu = median(row.cpu) / median(sdk.cpu);
      if (row.client === "ours-fetch") {
        // Both on fetch: what is left is this client's own work.
        add(`${bench}: calls/s at 16 in flight vs sdk, both on fetch (≥ 1.2x)`, row, speed, speed >= 1.2);
        add(`${bench}: CPU per call vs sdk, both on fetch (≤ 0.8x)`, row, cpu, cpu <= 0.8);
        continue;
      }
      add(`${bench}: calls/s at 16 in flight vs sdk (≥ 3x)`, row, speed, speed >= 3);
      add(`${bench}: CPU per call vs sdk (≤ 0.4x)`, row, cpu, cpu <= 0.4);
      const raw = peer(rows, row, "raw");
      if (raw) {
        const floor = median(row.cpu) / median(raw.cpu);
        add(`${bench}: CPU per call vs the raw floor (≤ 1.8x)`, row, floor, floor <= 1.8);
      }
    }
  }
  for (const row of r.b2.filter(ours)) {
    const sdk = peer(r.b2, row, "sdk");
    const raw = peer(r.b2, row, "raw");
    if (sdk) {
      const x = median(row.rate) / median(sdk.rate);
      add("B2: events/s vs sdk (≥ 1.25x; gRPC ≥ 1x)", row, x, x >= (row.binding === "GRPC" ? 1 : 1.25));
    }
    if (raw && row.binding !== "GRPC") {
      const x = median(row.rate) / median(raw.rate);
      const goal = row.client === "ours-node" ? 0.85 : 0.8;
      add(`B2: events/s vs raw (≥ ${goal}x)`, row, x, x >= goal);
    }
  }
  for (const row of r.b4a.filter(ours)) {
    const sdk = peer(r.b4a, row, "sdk");
    if (!sdk) continue;
    const x = median(row.runs.map((m) => m.peakHeap)) / median(sdk.runs.map((m) => m.peakHeap));
    add(`B4a: peak heap with ${int(STREAMS)} streams vs sdk (≤ 0.5x)`, row, x, x <= 0.5);
  }
  for (const { client, m } of r.b4b.filter(ours)) {
    checks.push({
      goal: `B4b: live heap growth over ${int(m.events)} events (flat: < ${FLAT_BYTES_PER_EVENT} B/event)`,
      client,
      binding: "JSONRPC",
      value: growth(m),
      met: isFlat(m),
    });
  }
  return checks;
}

/** The goal checks as one table: a row per goal and client, a column per binding. */
function goalTable(checks: GoalCheck[]): string {
  const out = ["| goal | client | JSON-RPC | HTTP+JSON | gRPC |", "| --- | --- | ---: | ---: | ---: |"];
  const keys = [...new Set(checks.map((c) => `${c.goal}\u0000${c.client}`))];
  for (const key of keys) {
    const [goal, client] = key.split("\u0000") as [string, ClientName];
    const cell = (binding: BindingName) => {
      const c = checks.find((o) => o.goal === goal && o.client === client && o.binding === binding);
      return c ? `${c.value} ${c.met ? "met" : "**missed**"}` : "";
    };
    out.push(`| ${goal} | ${client} | ${cell("JSONRPC")} | ${cell("HTTP+JSON")} | ${cell("GRPC")} |`);
  }
  return out.join("\n");
}

// ---------------------------------------------------------------------------

/** BENCH_ONLY, e.g. "B1,B4a": run only these (a partial run; its file says so). */
const ONLY = process.env.BENCH_ONLY?.split(",").map((b) => b.trim());
const runs = (bench: string) => !ONLY || ONLY.includes(bench);

interface Results {
  b1: Row[];
  b1o: Row[];
  b2: Row[];
  b3: Record<string, number[]>;
  b4a: ManyRow[];
  b4b: LongRow[];
}

/** Everything measured against the canned server. */
async function againstCannedServer(r: Results): Promise<void> {
  // Its gRPC streams carry EVENTS events (B2); no other gRPC stream is read.
  const server = start("./canned-server.ts", [String(EVENTS)]);
  try {
    const ports = await next<{ port: number; grpcPort: number }>(server);
    for (const binding of BINDINGS) {
      if (!runs("B1") && !runs("B2")) break;
      // B1 calls SendMessage, which ignores the stream length in the URL: one set of workers serves both.
      await withWorkers(binding, cannedUrl(ports, binding, EVENTS), EVENTS, async (workers) => {
        for (const concurrency of runs("B1") ? [1, 16] : []) {
          r.b1.push(...(await measure("B1", binding, workers, { kind: "unary", concurrency, ms: UNARY_MS }, concurrency)));
        }
        if (runs("B2")) r.b2.push(...(await measure("B2", binding, workers, { kind: "stream" })));
      });
    }
    if (runs("B3")) {
      const cards = start("./cards.ts", [String(ports.port), String(ROUNDS)]);
      r.b3 = await next<Record<string, number[]>>(cards);
      for (const [what, xs] of Object.entries(r.b3)) console.log(clock(), `B3 ${what}: ${int(median(xs))}/s`);
    }
    for (const binding of HTTP_BINDINGS) {
      if (runs("B4a")) r.b4a.push(...(await manyStreams(binding, ports)));
    }
    if (runs("B4b")) r.b4b = await longStreams("JSONRPC", cannedUrl(ports, "JSONRPC", LONG_EVENTS));
  } finally {
    server.kill();
  }
}

/** B1o: B1 at 16 in flight against the official server. */
async function againstOfficialServer(r: Results): Promise<void> {
  if (!runs("B1o")) return;
  const official = start("./official-server.ts", []);
  try {
    const urls = await next<{ jsonRpcUrl: string; restUrl: string; grpcAddress: string }>(official);
    const url = { JSONRPC: urls.jsonRpcUrl, "HTTP+JSON": urls.restUrl, GRPC: urls.grpcAddress };
    for (const binding of BINDINGS) {
      const request: Request = { kind: "unary", concurrency: 16, ms: UNARY_MS };
      r.b1o.push(...(await withWorkers(binding, url[binding], 1, (workers) => measure("B1o", binding, workers, request, 16))));
    }
  } finally {
    official.kill();
  }
}

function header(began: number, load0: number[], load1: number[]): string[] {
  const cpus = os.cpus();
  return [
    "# Benchmark results",
    "",
    `Made by \`npm run bench\`${ONLY ? ` (only ${ONLY.join(", ")})` : ""} on ${new Date(began).toISOString().slice(0, 16).replace("T", " ")} UTC in ${Math.round((Date.now() - began) / 1000)} s:`,
    `Node ${process.version}, ${cpus.length} × ${cpus[0]?.model.trim() ?? "unknown CPU"}, ${os.platform()} ${os.release()}.`,
    `Load average (1 min) ${load0[0]!.toFixed(2)} at the start, ${load1[0]!.toFixed(2)} at the end. B1, B2 and B3: medians of ${ROUNDS} rounds after a warm-up round;`,
    "min–max is the spread over the rounds. Every client and the server run in processes of their own on 127.0.0.1;",
    "CPU is the client process's user + system time (`process.cpuUsage`). The machine may be shared: read the ratios, which",
    'come from interleaved rounds, rather than the absolute figures. "client CPU, cores" is that CPU time over the wall time',
    "(above 1 when threads beside the main one, such as V8's garbage collector's, work too); \"main thread busy\" is the share",
    "of the wall time the client's event loop was not idle (`performance.eventLoopUtilization`): at 100 % the client's main",
    "thread, not the server, sets the calls per second, which are then one over the main thread's CPU per call.",
    "",
    "Clients on JSON-RPC and HTTP+JSON: `ours-fetch` is `A2AClient` over the default fetch HTTP client, `ours-node` over",
    "`createNodeHttpClient()` (keep-alive `node:http`, what `connect()` of `a2a-connect/node` uses), `sdk` is @a2a-js/sdk's",
    "`Client` from `ClientFactory` (on fetch), `raw` is a bare keep-alive `node:http` POST with `JSON.parse` (for streams: split",
    "on blank lines + `JSON.parse` of each event), `raw-fetch` the same over `fetch` (`text()`; for streams the body's reader",
    'through a `TextDecoder`): the floor of the clients on fetch, as `raw` is of the others ("CPU vs its floor"). On gRPC: `ours` is `A2AClient` over `createGrpcTransport` (gRPC straight on',
    "`node:http2`), `sdk` is the SDK's `Client` with its `GrpcTransportFactory` (@grpc/grpc-js), `raw` is a bare @grpc/grpc-js",
    "client with pass-through serializers that encodes the request with protobuf-es `toBinary` and decodes each answer with",
    "`fromBinary` and nothing more: the decoding every gRPC client must do, as `JSON.parse` is for the HTTP floor.",
    "",
    "The canned server (`bench/canned-server.ts`) gives fixed answers: a completed task for SendMessage; for streams, status",
    "and ~1 KB artifact updates in turn, ending with a completed status. Its gRPC endpoint (`bench/canned-grpc.ts`) is a bare",
    "`node:http2` server writing the same answers encoded and framed in advance, streams in blocks of 1000 events as on SSE (a",
    "@grpc/grpc-js server, which writes each message on its own, spent as much CPU per event as the clients reading them).",
  ];
}

function sections(r: Results): string[][] {
  const out: string[][] = [];
  if (r.b1.length) out.push([`## B1: unary SendMessage, canned server (${UNARY_MS} ms per round)`, "", table(r.b1, "call")]);
  if (r.b1o.length) {
    out.push([
      `## B1o: unary SendMessage against the official @a2a-js/sdk server, 16 in flight (${UNARY_MS} ms per round)`,
      "",
      "`bench/official-server.ts`: `DefaultRequestHandler` over `InMemoryTaskStore`, its express JSON-RPC and HTTP+JSON handlers",
      "and its gRPC service, with an agent that answers each message at once with a message (so no task is stored). The server",
      "costs far more per call than the client, so calls/s mostly measure the server; the CPU per call is the client's.",
      "",
      table(r.b1o, "call"),
    ]);
  }
  if (r.b2.length) out.push([`## B2: one stream of ${int(EVENTS)} events (status and ~1 KB artifact updates)`, "", table(r.b2, "event")]);
  if (Object.keys(r.b3).length) {
    out.push([
      "## B3: Agent Cards (one process; 300 ms per round)",
      "",
      "| operation | per second (median) | min–max |",
      "| --- | ---: | ---: |",
      ...Object.entries(r.b3).map(([what, xs]) => `| ${what} | ${int(median(xs))} | ${spread(xs)} |`),
    ]);
  }
  if (r.b4a.length) {
    out.push([
      `## B4a: ${int(STREAMS)} slow streams open at once in one client`,
      "",
      `All ${int(STREAMS)} streams are opened together in one client process, a fresh one (with \`--expose-gc\`) per client and round;`,
      `the server sends each an event every ${SLOW_EVERY_MS} ms (status and ~1 KB artifact updates in turn). Once every stream has had`,
      `its first event, all are held open ${(HOLD_MS / 1000).toFixed(1)} s more, then given up. heapUsed and RSS are sampled every ${MEMORY_SAMPLE_MS} ms from the`,
      `first call until then (the peak heap includes garbage not yet collected); medians of ${MEMORY_ROUNDS} rounds. "live heap, all open" is`,
      'heapUsed after a full GC the moment the last stream got its first event; "idle heap" the same before any stream was',
      'opened (tsx, which runs the benchmark, is most of it). "open at once" is the most streams that had an event and had not',
      "ended at one time (the least over the rounds). The HTTP clients use agents without a socket limit (`node:http`",
      "keep-alive agents; undici's default pool for fetch).",
      "",
      manyTable(r.b4a),
    ]);
  }
  if (r.b4b.length) {
    out.push([
      `## B4b: one stream of ${int(LONG_EVENTS)} events`,
      "",
      `One run per client in a fresh process (with \`--expose-gc\`), stopped after ${(LONG_MS / 1000).toFixed(0)} s at most. Every ${LONG_SAMPLE_MS} ms a full GC and`,
      "a live-heap sample; growth is the least-squares slope of the live heap over the events read, after the first 10 % of",
      `them. The heap counts as flat below ${FLAT_BYTES_PER_EVENT} byte per event. The GCs cost every client alike, so events/s here are lower than in B2.`,
      "",
      longTable("JSONRPC", r.b4b),
    ]);
  }
  return out;
}

async function main(): Promise<void> {
  const load0 = os.loadavg();
  const r: Results = { b1: [], b1o: [], b2: [], b3: {}, b4a: [], b4b: [] };
  await againstCannedServer(r);
  await againstOfficialServer(r);
  const load1 = os.loadavg();
  const md = [
    ...header(began, load0, load1),
    "",
    "## Goals",
    "",
    "Each of our clients against the goals, from the medians below (`ours-node` is what `connect()` uses in Node; `ours-fetch`",
    "is the browser-safe default).",
    "",
    goalTable(goalChecks(r)),
    "",
    ...sections(r).flatMap((s) => [...s, ""]),
  ].join("\n");
  writeFileSync(OUT, md);
  console.log(`\nwritten to ${OUT}`);
}

const timer = setTimeout(() => {
  console.error(`the benchmark ran longer than ${DEADLINE_MS} ms; stopped`);
  for (const c of children) c.kill();
  process.exit(1);
}, DEADLINE_MS);
timer.unref();

main()
  .catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const c of children) c.kill();
    clearTimeout(timer);
  });
