/**
 * `npm run bench`: our client side by side with @a2a-js/sdk's and with the
 * bare minimum (`node:http` + JSON.parse), against a canned server in a
 * process of its own on 127.0.0.1. Each client runs in its own process too,
 * so CPU time per call is the client's alone. Rounds are interleaved across
 * clients (one round of each, then the next), so that load from elsewhere on
 * the machine hits every client alike; the table gives medians and the
 * spread (min-max) over the rounds.
 *
 *   B1  unary SendMessage, 1 and 16 in flight: calls/s and client CPU per call
 *   B2  one stream of BENCH_EVENTS (default 100 000) events: events/s and CPU per event
 *   B3  Agent Cards: resolved cold, from the cache, revalidated by 304; ES256 verifications
 *
 * Environment: BENCH_ROUNDS (default 5), BENCH_UNARY_MS (per round, default
 * 400), BENCH_EVENTS, BENCH_OUT (default bench/results.md).
 */
import { fork, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import * as os from "node:os";
import { fileURLToPath } from "node:url";
import type { BindingName, ClientName } from "./clients.js";
import type { Measurement } from "./worker.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const UNARY_MS = Number(process.env.BENCH_UNARY_MS ?? 400);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const OUT = process.env.BENCH_OUT ?? fileURLToPath(new URL("./results.md", import.meta.url));
// The whole run is bounded: whatever is still going after this is stopped.
const DEADLINE_MS = Number(process.env.BENCH_DEADLINE_MS ?? 280_000);

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const execArgv = ["--import", "tsx"];
const children = new Set<ChildProcess>();

function start(file: string, args: string[]): ChildProcess {
  const child = fork(here(file), args, { execArgv, stdio: ["ignore", "inherit", "inherit", "ipc"] });
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
  static async start(name: ClientName, binding: BindingName, port: number, n: number): Promise<Worker> {
    const child = start("./worker.ts", [name, binding, String(port), String(n)]);
    await next(child);
    return new Worker(name, child);
  }
  async run(request: object): Promise<Measurement> {
    const reply = next<{ ok?: Measurement; error?: string }>(this.child);
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
  bench: string;
  binding: BindingName;
  concurrency?: number;
  client: ClientName;
  rate: number[];
  cpu: number[];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const int = (x: number) => Math.round(x).toLocaleString("en-US");
const spread = (xs: number[]) => `${int(Math.min(...xs))}–${int(Math.max(...xs))}`;
const ratio = (x: number) => `${x.toFixed(2)}x`;

async function measure(bench: string, binding: BindingName, clients: ClientName[], port: number, n: number, request: object, concurrency?: number): Promise<Row[]> {
  const workers = await Promise.all(clients.map((c) => Worker.start(c, binding, port, n)));
  try {
    const rows = workers.map((w) => ({ bench, binding, concurrency, client: w.name, rate: [] as number[], cpu: [] as number[] }));
    // Warm-up round, not counted.
    for (const w of workers) await w.run(request);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, w] of workers.entries()) {
        const m = await w.run(request);
        rows[i]!.rate.push((m.count * 1000) / m.wallMs);
        rows[i]!.cpu.push(m.cpuUs / m.count);
      }
    }
    const label = concurrency === undefined ? `${bench} ${binding}` : `${bench} ${binding} ×${concurrency}`;
    console.log(label.padEnd(22), rows.map((r) => `${r.client} ${int(median(r.rate))}/s ${median(r.cpu).toFixed(1)}µs`).join("  "));
    return rows;
  } finally {
    for (const w of workers) w.stop();
  }
}

function table(rows: Row[], unit: string): string {
  const out = [
    `| binding | ${rows[0]!.concurrency !== undefined ? "in flight | " : ""}client | ${unit}/s (median) | min–max | CPU µs/${unit} (median) | min–max | ${unit}/s vs sdk | CPU vs sdk | ${unit}/s vs raw |`,
    `| --- | ${rows[0]!.concurrency !== undefined ? "--- | " : ""}--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`,
  ];
  for (const r of rows) {
    const group = rows.filter((o) => o.binding === r.binding && o.concurrency === r.concurrency);
    const sdk = group.find((o) => o.client === "sdk");
    const raw = group.find((o) => o.client === "raw");
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
        "",
      ].join(" | ").trim(),
    );
  }
  return out.join("\n");
}

async function main(): Promise<void> {
  const server = start("./canned-server.ts", []);
  const { port } = await next<{ port: number }>(server);
  const load0 = os.loadavg();
  const began = Date.now();
  const clients: ClientName[] = ["ours-fetch", "ours-node", "sdk", "raw"];
  const b1: Row[] = [];
  const b2: Row[] = [];
  for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
    for (const concurrency of [1, 16]) {
      b1.push(...(await measure("B1", binding, clients, port, 1, { kind: "unary", concurrency, ms: UNARY_MS }, concurrency)));
    }
  }
  for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
    b2.push(...(await measure("B2", binding, clients, port, EVENTS, { kind: "stream" })));
  }
  const cards = start("./cards.ts", [String(port), String(ROUNDS)]);
  const b3 = await next<Record<string, number[]>>(cards);
  for (const [what, xs] of Object.entries(b3)) console.log(`B3 ${what}: ${int(median(xs))}/s`);
  const load1 = os.loadavg();
  server.kill();

  const cpus = os.cpus();
  const md = [
    "# Benchmark results",
    "",
    `Made by \`npm run bench\` on ${new Date(began).toISOString().slice(0, 16).replace("T", " ")} UTC in ${Math.round((Date.now() - began) / 1000)} s:`,
    `Node ${process.version}, ${cpus.length} × ${cpus[0]?.model.trim() ?? "unknown CPU"}, ${os.platform()} ${os.release()}.`,
    `Load average (1 min) ${load0[0]!.toFixed(2)} at the start, ${load1[0]!.toFixed(2)} at the end. Medians of ${ROUNDS} rounds after a warm-up round;`,
    "min–max is the spread over the rounds. Every client and the canned server run in processes of their own on 127.0.0.1;",
    "CPU is the client process's user + system time (`process.cpuUsage`).",
    "",
    "Clients: `ours-fetch` is `A2AClient` over the default fetch HTTP client, `ours-node` over `createNodeHttpClient()` (keep-alive",
    "`node:http`, what `connect()` of `a2a-connect/node` uses), `sdk` is @a2a-js/sdk's `Client` from `ClientFactory`, `raw` is a",
    "bare keep-alive `node:http` POST with `JSON.parse` (for streams: split on blank lines + `JSON.parse` of each event).",
    "",
    `## B1: unary SendMessage (${UNARY_MS} ms per round)`,
    "",
    table(b1, "call"),
    "",
    `## B2: one stream of ${EVENTS.toLocaleString("en-US")} events (status and ~1 KB artifact updates)`,
    "",
    table(b2, "event"),
    "",
    "## B3: Agent Cards (one process; 300 ms per round)",
    "",
    "| operation | per second (median) | min–max |",
    "| --- | ---: | ---: |",
    ...Object.entries(b3).map(([what, xs]) => `| ${what} | ${int(median(xs))} | ${spread(xs)} |`),
    "",
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
