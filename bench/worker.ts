/**
 * One client under test, in a process of its own so that its CPU time and
 * memory are its own. Answers each of the runner's requests with one
 * measurement.
 *
 * Arguments: client name, binding, interface URL, events per stream.
 */
import { performance, type EventLoopUtilization } from "node:perf_hooks";
import { createBenchClient, type BindingName, type ClientName } from "./clients.js";

const [name, binding, url, n] = process.argv.slice(2) as [ClientName, BindingName, string, string];
const events = Number(n);
const client = await createBenchClient(name, binding, url);

export interface Measurement {
  /** Calls or events completed. */
  count: number;
  wallMs: number;
  cpuUs: number;
  /** Of the wall time, the share the main thread was busy (event loop utilization, 0 to 1). */
  mainBusy: number;
  heapUsed: number;
}

/** B4a: many slow streams open at once. Bytes. */
export interface ManyStreamsMeasurement {
  /** Live heap (after a full GC) with the client made and no stream open. */
  idleHeap: number;
  /** Highest heapUsed seen by the sampler, garbage included. */
  peakHeap: number;
  /** Live heap (after a full GC) the moment the last stream got its first event. */
  liveHeapAllOpen: number | undefined;
  peakRss: number;
  /** Most streams that had an event and had not ended, at one time. */
  maxOpen: number;
  /** From the first call to the last stream's first event; undefined if not all opened. */
  openAllMs: number | undefined;
  /** Streams that failed, and the first error. */
  failed: number;
  firstError?: string | undefined;
}

/** B4b: one very long stream. Bytes. */
export interface LongStreamMeasurement {
  events: number;
  wallMs: number;
  cpuUs: number;
  /** Live heap before the stream, at its highest during it, and after it (full GC before each). */
  startHeap: number;
  peakHeap: number;
  endHeap: number;
  /** Live heap growth per event over the stream after its first 10 % (least squares); null if too short to sample twice. */
  bytesPerEvent: number | null;
  peakRss: number;
  /** Whether the time bound stopped the stream before its end. */
  stopped: boolean;
}

export type Request =
  | { kind: "unary"; concurrency: number; ms: number }
  | { kind: "stream" }
  | { kind: "many-streams"; count: number; sampleMs: number; holdMs: number; maxMs: number }
  | { kind: "long-stream"; sampleMs: number; maxMs: number };

async function unary(concurrency: number, ms: number): Promise<Measurement> {
  let count = 0;
  const until = performance.now() + ms;
  const cpu0 = process.cpuUsage();
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await client.send();
        count++;
      }
    }),
  );
  return finish(count, t0, cpu0, elu0);
}

async function stream(): Promise<Measurement> {
  const cpu0 = process.cpuUsage();
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  const count = await client.stream();
  if (count !== events) throw new Error(`${name} saw ${count} of ${events} events`);
  return finish(count, t0, cpu0, elu0);
}

function finish(count: number, t0: number, cpu0: NodeJS.CpuUsage, elu0: EventLoopUtilization): Measurement {
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const mainBusy = performance.eventLoopUtilization(elu0).utilization;
  return { count, wallMs, cpuUs: cpu.user + cpu.system, mainBusy, heapUsed: process.memoryUsage().heapUsed };
}

/** Heap still in use after a full collection (needs `--expose-gc`). */
function liveHeap(): number {
  if (!globalThis.gc) throw new Error("memory measurements need node --expose-gc");
  globalThis.gc();
  return process.memoryUsage().heapUsed;
}

/** A flag that turns true after `ms`, so a measurement stays bounded in time. */
function deadline(ms: number): { readonly passed: boolean; clear(): void } {
  let passed = false;
  const timer = setTimeout(() => (passed = true), ms);
  return {
    get passed() {
      return passed;
    },
    clear: () => clearTimeout(timer),
  };
}

/**
 * B4a: `count` streams opened at once; once every one has had an event they
 * are all held open `holdMs` more, then given up. Memory is sampled every
 * `sampleMs` from the first call until then. Bounded by `maxMs` whatever
 * happens.
 */
async function manyStreams(count: number, sampleMs: number, holdMs: number, maxMs: number): Promise<ManyStreamsMeasurement> {
  const idleHeap = liveHeap();
  let peakHeap = idleHeap;
  let peakRss = process.memoryUsage().rss;
  const sample = () => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  };
  const sampler = setInterval(sample, sampleMs);
  const bound = deadline(maxMs);
  let hold: ReturnType<typeof deadline> | undefined;
  const done = () => bound.passed || hold?.passed === true;
  let started = 0;
  let open = 0;
  let maxOpen = 0;
  let liveHeapAllOpen: number | undefined;
  let openAllMs: number | undefined;
  const t0 = performance.now();
  const allOpen = () => {
    openAllMs = performance.now() - t0;
    sample();
    liveHeapAllOpen = liveHeap();
    hold = deadline(holdMs);
  };
  const one = async (): Promise<number> => {
    let first = true;
    try {
      return await client.stream(() => {
        if (first) {
          first = false;
          maxOpen = Math.max(maxOpen, ++open);
          if (++started === count) allOpen();
        }
        if (done()) clearInterval(sampler); // the streams close from here on
        return !done();
      });
    } finally {
      if (!first) open--;
    }
  };
  try {
    const results = await Promise.allSettled(Array.from({ length: count }, one));
    const failures = results.filter((r) => r.status === "rejected");
    return {
      idleHeap,
      peakHeap,
      liveHeapAllOpen,
      peakRss,
      maxOpen,
      openAllMs,
      failed: failures.length,
      firstError: failures[0] && String((failures[0].reason as Error)?.message ?? failures[0].reason),
    };
  } finally {
    clearInterval(sampler);
    bound.clear();
    hold?.clear();
  }
}

/** Least-squares slope of `y` over `x`. */
function slope(points: { x: number; y: number }[]): number {
  const mx = points.reduce((s, p) => s + p.x, 0) / points.length;
  const my = points.reduce((s, p) => s + p.y, 0) / points.length;
  const sxy = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

/**
 * B4b: one stream of `events` events; every `sampleMs` a full GC and the
 * live heap, so that growth with the number of events shows apart from
 * garbage. Stopped after `maxMs`.
 */
async function longStream(sampleMs: number, maxMs: number): Promise<LongStreamMeasurement> {
  const startHeap = liveHeap();
  let seen = 0;
  let peakRss = process.memoryUsage().rss;
  const samples: { x: number; y: number }[] = [];
  const sampler = setInterval(() => {
    samples.push({ x: seen, y: liveHeap() });
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, sampleMs);
  const bound = deadline(maxMs);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  try {
    const count = await client.stream(() => {
      seen++;
      return !bound.passed;
    });
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const steady = samples.filter((s) => s.x >= count / 10);
    return {
      events: count,
      wallMs,
      cpuUs: cpu.user + cpu.system,
      startHeap,
      peakHeap: Math.max(startHeap, ...samples.map((s) => s.y)),
      endHeap: liveHeap(),
      bytesPerEvent: steady.length >= 2 ? slope(steady) : null,
      peakRss,
      stopped: count < events,
    };
  } finally {
    clearInterval(sampler);
    bound.clear();
  }
}

function serve(m: Request): Promise<unknown> {
  switch (m.kind) {
    case "unary":
      return unary(m.concurrency, m.ms);
    case "stream":
      return stream();
    case "many-streams":
      return manyStreams(m.count, m.sampleMs, m.holdMs, m.maxMs);
    case "long-stream":
      return longStream(m.sampleMs, m.maxMs);
  }
}

process.on("message", (m: Request) => {
  serve(m).then(
    (r) => process.send!({ ok: r }),
    (e: unknown) => process.send!({ error: String((e as Error)?.stack ?? e) }),
  );
});
process.on("disconnect", () => process.exit(0));
process.send!({ ready: true });
