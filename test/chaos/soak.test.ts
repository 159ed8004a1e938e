/**
 * Soak: streamed tasks on every binding through a proxy that cuts, resets
 * and stalls their connections, in front of the official server. Every task
 * must end with the server's final state and artifacts, with no chunk
 * applied twice and no reconnection beyond the bound, and nothing of ours
 * may be left running afterwards.
 *
 * Each task has a proxy of its own, in front of the agent's HTTP port or its
 * gRPC port, so that the proxy's connection count and cut plan are the
 * task's. Where to cut is learned first from an uncut stream of each
 * binding: inside a frame, inside a multi-byte character, between events.
 *
 * SOAK_TASKS (tasks per binding, default 200), SOAK_SEED (default: random,
 * printed) and SOAK_CONCURRENCY (tasks in flight per binding, default 20)
 * tune a run; a failure prints the seed and each failed task's plan, and
 * the same seed gives every task the same plan again.
 */
import { equals } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalAgent, type LocalAgent } from "../../demo/agent.js";
import {
  A2AClient,
  ArtifactSchema,
  TaskState,
  TaskTracker,
  isResumeSnapshot,
  userMessage,
  type Binding,
  type ResumeOptions,
  type Task,
} from "../../src/index.js";
import { createGrpcTransport, createJsonRpcTransport, createRestTransport } from "../../src/node.js";
import { BINDINGS } from "../support/bindings.js";
import { startChaosProxy, type ChaosProxy, type ConnectionPlan, type Fault } from "../../demo/chaos-proxy.js";
import { trackTimers, type TimerTracker } from "../support/timers.js";
import { seededRandom } from "../support/seeded-random.js";

const TASKS = positive(process.env.SOAK_TASKS, 200);
const CONCURRENCY = positive(process.env.SOAK_CONCURRENCY, 20);
const SEED = process.env.SOAK_SEED ? Number(process.env.SOAK_SEED) >>> 0 : (Math.random() * 2 ** 32) >>> 0;

/**
 * Short backoffs: the soak is about correctness, not patience. A reset can
 * lose bytes the client had received but not read yet, even the task's first
 * event: then the client finds the task with ListTasks rather than sending
 * the message again.
 */
const RESUME: ResumeOptions = { maxAttempts: 6, backoff: { initialMs: 5, maxMs: 50 } };
/**
 * A stalled connection is given up after this long without bytes. Not much
 * shorter: under a full CPU the official server can take a few hundred ms
 * to start a stream.
 */
const IDLE_MS = 500;
/** A stalled unary call (GetTask) gives up after this long. */
const UNARY_MS = 1000;
/**
 * How long a gRPC PING may go unanswered. Not much shorter: under a full
 * CPU a healthy connection can take a few hundred ms to answer.
 */
const PING_TIMEOUT_MS = 500;
/** No task may take longer than this, whatever happens. */
const TASK_DEADLINE_MS = 20_000;
/** Two-, three- and four-byte characters at the end of every chunk's text (the agent's `wide` option). */
const WIDE = "é中𝄞";
const WIDE_BYTES = Buffer.from(WIDE);
/** Offsets inside WIDE that split a character: é is 2 bytes, 中 3, 𝄞 4. */
const INSIDE_WIDE = [1, 3, 4, 6, 7, 8];
const SRC = /[/\\]src[/\\]/;

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

// --- Reproducible randomness ----------------------------------------------------

/** Each task draws from its own generator, so its plan does not depend on scheduling. */
function taskRandom(binding: Binding, index: number): () => number {
  return seededRandom(SEED ^ Math.imul(BINDINGS.indexOf(binding) + 1, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b));
}

const pick = <T>(rnd: () => number, items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
const between = (rnd: () => number, min: number, max: number): number => min + Math.floor(rnd() * (max - min + 1));

// --- Where to cut: learned from an uncut stream -----------------------------------

type CutKind = "mid-frame" | "inside-char" | "between-events";
const CUT_KINDS: readonly CutKind[] = ["mid-frame", "inside-char", "between-events"];

interface CutPoints {
  /** Bytes of the connection seen in the sample. */
  length: number;
  /** Offsets by the kind of place they cut at. */
  at: Record<CutKind, number[]>;
}

interface Profile {
  /** The first connection (the original SendStreamingMessage), from after its first chunk. */
  first: CutPoints;
  /** A connection opened by a resumption (GetTask, then SubscribeToTask). */
  resumed: CutPoints;
}

/** Offsets just after each complete event (an SSE event, or an HTTP/2 DATA frame for gRPC). */
function eventEnds(bytes: Buffer, binding: Binding): number[] {
  const ends: number[] = [];
  if (binding === "GRPC") {
    for (let pos = 0; pos + 9 <= bytes.length; ) {
      const length = bytes.readUIntBE(pos, 3);
      const type = bytes[pos + 3];
      pos += 9 + length;
      if (type === 0 && length > 0 && pos <= bytes.length) ends.push(pos);
    }
    return ends;
  }
  for (let i = bytes.indexOf("\n\n"); i >= 0; i = bytes.indexOf("\n\n", i + 2)) ends.push(i + 2);
  return ends;
}

/** Places to cut in `bytes`, from offset `from` up to (not including) `until`. */
function cutPoints(bytes: Buffer, binding: Binding, from: number, until: number): CutPoints {
  const within = (o: number) => o >= from && o < until;
  const between = eventEnds(bytes, binding).filter(within);
  const inside: number[] = [];
  for (let i = bytes.indexOf(WIDE_BYTES); i >= 0; i = bytes.indexOf(WIDE_BYTES, i + 1)) {
    for (const d of INSIDE_WIDE) if (within(i + d)) inside.push(i + d);
  }
  const special = new Set([...between, ...inside]);
  const mid: number[] = [];
  for (let o = Math.max(from, 1); o < until; o++) if (!special.has(o)) mid.push(o);
  return { length: bytes.length, at: { "mid-frame": mid, "inside-char": inside, "between-events": between } };
}

// --- The soak ---------------------------------------------------------------------

interface Plan {
  chunks: number;
  everyMs: number;
  /** One planned cut per connection, in order; connections after them are left alone. */
  cuts: Array<{ kind: CutKind; at: number; fault: Fault }>;
}

function planTask(binding: Binding, index: number, profile: Profile): Plan {
  const rnd = taskRandom(binding, index);
  const chunks = between(rnd, 6, 10);
  const everyMs = between(rnd, 5, 15);
  const count = between(rnd, 1, 3);
  const cuts: Plan["cuts"] = [];
  for (let c = 0; c < count; c++) {
    const points = c === 0 ? profile.first : profile.resumed;
    const kinds = CUT_KINDS.filter((k) => points.at[k].length > 0);
    const kind = pick(rnd, kinds);
    cuts.push({ kind, at: pick(rnd, points.at[kind]), fault: pick(rnd, ["end", "reset", "stall"] as const) });
  }
  return { chunks, everyMs, cuts };
}

interface Outcome {
  index: number;
  plan: Plan;
  problems: string[];
  /** Faults the proxy injected, by kind. */
  injected: Fault[];
  /** Planned cuts that fired, by the kind of place. */
  cutKinds: CutKind[];
  connections: number;
  getTasks: number;
  subscribes: number;
  /** SendStreamingMessage calls beyond the first: the task id was lost with the first stream. */
  resends: number;
  /** Most GetTask calls without an event of progress in between. */
  maxInARow: number;
  /** The stream ended with a task GetTask found finished. */
  endedByGetTask: boolean;
  ms: number;
}

interface Targets {
  httpPort: number;
  grpcPort: number;
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

/** A client through the proxy on `proxyPort`, quick to notice a stall; or, without a port, a plain one straight to the agent. */
function clientThrough(binding: Binding, agent: LocalAgent, proxyPort: number | undefined, interceptors: Interceptor[]): A2AClient {
  const swap = (url: string) => (proxyPort === undefined ? url : url.replace(`:${portOf(agent.origin)}/`, `:${proxyPort}/`));
  const common = proxyPort === undefined ? {} : { idleTimeoutMs: IDLE_MS, timeoutMs: UNARY_MS, interceptors };
  switch (binding) {
    case "JSONRPC":
      return new A2AClient(createJsonRpcTransport({ baseUrl: swap(agent.jsonRpcUrl), ...common }));
    case "HTTP+JSON":
      return new A2AClient(createRestTransport({ baseUrl: swap(agent.restUrl), ...common }));
    case "GRPC":
      if (proxyPort === undefined) return new A2AClient(createGrpcTransport({ baseUrl: agent.grpcAddress }));
      // A PING unanswered for PING_TIMEOUT_MS closes a stalled connection.
      return new A2AClient(
        createGrpcTransport({ baseUrl: `127.0.0.1:${proxyPort}`, ...common, pingIntervalMs: 100, pingTimeoutMs: PING_TIMEOUT_MS }),
      );
  }
}

/** An error and its causes, one line. */
function causes(e: unknown): string {
  const out: string[] = [];
  for (let cur = e, depth = 0; cur instanceof Error && depth < 5; cur = cur.cause, depth++) {
    const code = (cur as { code?: unknown }).code;
    out.push(`${cur.name}${code === undefined ? "" : `(${String(code)})`}: ${cur.message}`);
  }
  return out.join(" <- ");
}

function chunkText(i: number): string {
  return `chunk-${i}-${WIDE}`;
}

function partTexts(task: Task | undefined): string[] {
  return (task?.artifacts ?? []).flatMap((a) => a.parts.map((p) => (p.content.case === "text" ? p.content.value : "<not text>")));
}

async function runTask(
  binding: Binding,
  index: number,
  agent: LocalAgent,
  targets: Targets,
  profile: Profile,
  direct: A2AClient,
): Promise<Outcome> {
  const plan = planTask(binding, index, profile);
  const started = performance.now();
  const problems: string[] = [];
  const target = binding === "GRPC" ? targets.grpcPort : targets.httpPort;
  // The first cut waits for a connection that gets that far: a first stream
  // lost early (a timeout on a loaded machine) is sent again and cut then.
  // The other cuts go to the connections after the one first cut.
  const proxy: ChaosProxy = await startChaosProxy(target, (i) => {
    const first = proxy.injected[0];
    const cut = first === undefined ? plan.cuts[0] : plan.cuts[i - first.index];
    return cut ? { cutAfter: cut.at, fault: cut.fault } : {};
  });
  let getTasks = 0;
  let subscribes = 0;
  let sends = 0;
  let inARow = 0;
  let maxInARow = 0;
  const counting: Interceptor = (next) => (req) => {
    if (req.method.name === "GetTask") {
      getTasks++;
      maxInARow = Math.max(maxInARow, ++inARow);
    }
    if (req.method.name === "SubscribeToTask") subscribes++;
    if (req.method.name === "SendStreamingMessage") sends++;
    return next(req);
  };
  const client = clientThrough(binding, agent, proxy.port, [counting]);
  const tracker = new TaskTracker();
  const controller = new AbortController();
  const deadline = setTimeout(() => controller.abort(new Error(`task ${index} over ${TASK_DEADLINE_MS} ms`)), TASK_DEADLINE_MS);
  let endedByGetTask = false;
  let lastIndex = 0;
  let duplicates = 0;
  let gaps = 0;
  try {
    const message = userMessage(`count ${plan.chunks} every ${plan.everyMs} wide`);
    for await (const event of client.sendStreamingMessage({ message }, { signal: controller.signal, resume: RESUME })) {
      tracker.apply(event);
      const p = event.payload;
      if (isResumeSnapshot(event)) {
        // Rebased: the server's task says where the chunks stand.
        lastIndex = partTexts(tracker.task).length;
        endedByGetTask = tracker.settled;
        continue;
      }
      // Anything but a resume snapshot is progress.
      inARow = 0;
      if (p.case === "artifactUpdate") {
        for (const part of p.value.artifact?.parts ?? []) {
          const text = part.content.case === "text" ? part.content.value : "";
          const n = Number(/^chunk-(\d+)-/.exec(text)?.[1] ?? NaN);
          if (text !== chunkText(n)) problems.push(`mangled chunk text ${JSON.stringify(text)}`);
          else if (n <= lastIndex) duplicates++;
          else if (n !== lastIndex + 1) gaps++;
          lastIndex = Math.max(lastIndex, n);
        }
      }
    }
  } catch (e) {
    problems.push(`stream failed: ${causes(e)}`);
  } finally {
    clearTimeout(deadline);
    await proxy.close();
  }
  if (duplicates) problems.push(`${duplicates} chunk(s) delivered twice`);
  if (gaps) problems.push(`${gaps} chunk(s) skipped without a snapshot`);

  const mine = tracker.task;
  const server = mine && (await direct.getTask({ id: mine.id }).catch((e: unknown) => void problems.push(`GetTask after: ${causes(e)}`)));
  if (!mine) {
    problems.push("no task seen");
  } else if (server) {
    if (server.status?.state !== TaskState.COMPLETED) problems.push(`server task not completed: ${TaskState[server.status?.state ?? 0]}`);
    if (mine.status?.state !== server.status?.state) {
      problems.push(`final state ${TaskState[mine.status?.state ?? 0]}, server has ${TaskState[server.status?.state ?? 0]}`);
    }
    const same =
      mine.artifacts.length === server.artifacts.length && mine.artifacts.every((a, i) => equals(ArtifactSchema, a, server.artifacts[i]!));
    if (!same) problems.push(`artifacts differ: ${JSON.stringify(partTexts(mine))} vs server ${JSON.stringify(partTexts(server))}`);
    const expected = Array.from({ length: plan.chunks }, (_, i) => chunkText(i + 1));
    if (JSON.stringify(partTexts(mine)) !== JSON.stringify(expected)) problems.push(`chunks ${JSON.stringify(partTexts(mine))}`);
  }
  if (proxy.faults < 1) problems.push("no cut happened");
  if (maxInARow > RESUME.maxAttempts!) problems.push(`${maxInARow} reconnections in a row, more than ${RESUME.maxAttempts}`);
  // Each drop (a fault, or now and then a timeout on a loaded machine) costs
  // at most maxAttempts reconnections.
  const reconnections = getTasks + sends - 1;
  if (reconnections > RESUME.maxAttempts! * (proxy.faults + 1)) problems.push(`${reconnections} reconnections for ${proxy.faults} faults`);
  if (subscribes > getTasks) problems.push(`${subscribes} resubscribes for ${getTasks} GetTask calls`);

  return {
    index,
    plan,
    problems,
    injected: proxy.injected.map((f) => f.fault),
    // Connections opened before the first fault all got the first cut: a
    // fault may fire on one that has no place in the plan's order.
    cutKinds: proxy.injected.flatMap((f) => plan.cuts[f.index - proxy.injected[0]!.index]?.kind ?? []),
    connections: proxy.connections,
    getTasks,
    subscribes,
    resends: sends - 1,
    maxInARow,
    endedByGetTask,
    ms: performance.now() - started,
  };
}

/** Runs `count` jobs with at most `width` in flight. */
async function inBatches<T>(count: number, width: number, job: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await job(i);
      }
    }),
  );
  return out;
}

/** One uncut task, then one cut once, with every byte recorded: where cuts can go. */
async function profile(binding: Binding, agent: LocalAgent, targets: Targets): Promise<Profile> {
  const capture = async (plan: ConnectionPlan[]): Promise<Buffer[]> => {
    const proxy = await startChaosProxy(binding === "GRPC" ? targets.grpcPort : targets.httpPort, (i) => plan[i] ?? {});
    const seen: Buffer[][] = [];
    proxy.tap = (i, chunk) => (seen[i] ??= []).push(Buffer.from(chunk));
    try {
      const client = clientThrough(binding, agent, proxy.port, []);
      for await (const _ of client.sendStreamingMessage({ message: userMessage(`count 6 every 5 wide`) }, { resume: RESUME })) {
        // Read to the end.
      }
    } finally {
      await proxy.close();
    }
    return seen.map((chunks) => Buffer.concat(chunks));
  };
  const [whole] = await capture([]);
  // Events: the task, WORKING, six chunks, COMPLETED. The task and WORKING
  // come at once, the first chunk a few ms later: cuts on the first
  // connection come after it, once the task id is known, and before the
  // fifth chunk is through, so that every task is cut while it runs.
  const ends = eventEnds(whole!, binding);
  const first = cutPoints(whole!, binding, ends[2]!, ends[6]!);
  const [, resumedBytes] = await capture([{ cutAfter: ends[2]! + 1, fault: "end" }]);
  // Up to the end of the last event (a cut after it may come once the
  // stream has said everything), or of the GetTask answer if that was all.
  const resumed = cutPoints(resumedBytes!, binding, 1, eventEnds(resumedBytes!, binding).at(-1) ?? resumedBytes!.length - 16);
  return { first, resumed };
}

function summary(binding: Binding, outcomes: Outcome[], wallMs: number): string {
  const sum = (f: (o: Outcome) => number) => outcomes.reduce((s, o) => s + f(o), 0);
  const count = <K extends string>(items: K[]) => items.reduce<Record<string, number>>((m, k) => ((m[k] = (m[k] ?? 0) + 1), m), {});
  const cutsPerTask = count(outcomes.map((o) => String(o.injected.length)));
  return [
    `${binding}: ${outcomes.length} tasks in ${(wallMs / 1000).toFixed(1)} s (seed ${SEED})`,
    `  cuts ${sum((o) => o.injected.length)} (per task ${JSON.stringify(cutsPerTask)}; planned ${sum((o) => o.plan.cuts.length)})`,
    `  faults ${JSON.stringify(count(outcomes.flatMap((o) => o.injected)))}, places ${JSON.stringify(count(outcomes.flatMap((o) => o.cutKinds)))}`,
    `  GetTask ${sum((o) => o.getTasks)}, resubscribes ${sum((o) => o.subscribes)}, resends ${sum((o) => o.resends)}, ended by GetTask ${sum((o) => (o.endedByGetTask ? 1 : 0))}, connections ${sum((o) => o.connections)}`,
    `  most reconnections in a row ${Math.max(...outcomes.map((o) => o.maxInARow))} (bound ${RESUME.maxAttempts}), slowest task ${Math.max(...outcomes.map((o) => o.ms)).toFixed(0)} ms`,
  ].join("\n");
}

// ---------------------------------------------------------------------------------

type Resources = Record<string, number>;
function resources(): Resources {
  const out: Resources = {};
  for (const r of process.getActiveResourcesInfo()) out[r] = (out[r] ?? 0) + 1;
  return out;
}
/** Kinds of resource (by name) of which there are more now than in `base`. */
function extra(base: Resources): Resources {
  const now = resources();
  return Object.fromEntries(
    Object.entries(now)
      .filter(([k, n]) => n > (base[k] ?? 0))
      .map(([k, n]) => [k, n - (base[k] ?? 0)]),
  );
}

/** Each binding's share of time: generous (200 tasks take a few seconds), but a bound. */
const BUDGET_MS = Math.max(60_000, TASKS * 150);

describe(`chaos soak: ${TASKS} streamed tasks per binding, cut 1-3 times each`, () => {
  let agent: LocalAgent;
  let targets: Targets;
  let baseline: Resources;
  let timers: TimerTracker;
  const reports: string[] = [];

  beforeAll(async () => {
    baseline = resources();
    timers = trackTimers(SRC);
    agent = await startLocalAgent();
    targets = { httpPort: portOf(agent.origin), grpcPort: Number(agent.grpcAddress.split(":").at(-1)) };
  });

  afterAll(async () => {
    timers.stop();
    await agent.close();
    if (reports.length) console.log(`\n${reports.join("\n")}\n`);
  });

  it.each(BINDINGS)(
    "%s: every task ends with the server's state and artifacts",
    async (binding) => {
      const shape = await profile(binding, agent, targets);
      const direct = clientThrough(binding, agent, undefined, []);
      // A first round uncut, so that a cold start does not count as a stall.
      await inBatches(CONCURRENCY, CONCURRENCY, async () => {
        for await (const _ of direct.sendStreamingMessage({ message: userMessage("count 6 every 5 wide") }, { resume: false })) {
          // Read to the end.
        }
      });
      const started = performance.now();
      const outcomes = await inBatches(TASKS, CONCURRENCY, (i) => runTask(binding, i, agent, targets, shape, direct));
      const wall = performance.now() - started;
      reports.push(summary(binding, outcomes, wall));
      const failed = outcomes.filter((o) => o.problems.length > 0);
      const detail = failed
        .slice(0, 10)
        .map((o) => `  task ${o.index} ${JSON.stringify(o.plan)} injected ${JSON.stringify(o.injected)}: ${o.problems.join("; ")}`)
        .join("\n");
      if (failed.length) console.error(`soak ${binding} failed with SOAK_SEED=${SEED}:\n${detail}`);
      expect(failed.length, `SOAK_SEED=${SEED}: ${failed.length} of ${TASKS} tasks failed\n${detail}`).toBe(0);
    },
    BUDGET_MS,
  );

  it("leaves no sockets, servers or timers behind", async () => {
    await agent.close();
    // Closed handles leave libuv in its close phase: give the loop a few turns.
    const until = performance.now() + 3000;
    while (Object.keys(extra(baseline)).length > 0 && performance.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect(extra(baseline), `SOAK_SEED=${SEED}`).toEqual({});
    expect(await timers.live()).toEqual([]);
  });
});
