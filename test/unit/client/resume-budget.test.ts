/**
 * The resumption's time budget and backoff, on a fake clock: an agent that
 * is away for a deploy is waited for, one that never comes back is given up
 * on after the documented budget, and the attempts are spread over it.
 */
import { create } from "@bufbuild/protobuf";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { METHOD_TRAITS } from "../../../src/call/method-traits.js";
import { resumable, type ResumeIo } from "../../../src/client/resume.js";
import { LOOP_KIT } from "../../../src/client/resume-start.js";
import {
  ConnectionError,
  InvalidParamsError,
  StreamResponseSchema,
  StreamResumeError,
  TaskSchema,
  TaskState,
  type ResumeOptions,
  type StreamResponse,
} from "../../../src/index.js";

const snapshot = (state: TaskState): StreamResponse =>
  create(StreamResponseSchema, { payload: { case: "task", value: create(TaskSchema, { id: "t1", contextId: "c1", status: { state } }) } });

async function* events(...list: StreamResponse[]): AsyncGenerator<StreamResponse> {
  yield* list;
}
async function* refused(): AsyncGenerator<StreamResponse> {
  throw new ConnectionError("connection refused", { kind: "refused" });
}

/** An agent whose stream drops after WORKING and that is down until `upAt` (fake ms since the start). */
function agent(upAt: number) {
  const start = Date.now();
  const attempts: number[] = [];
  const down = () => Date.now() - start < upAt;
  const io: ResumeIo = {
    traits: METHOD_TRAITS.sendStreamingMessage,
    binding: () => "JSONRPC",
    signal: undefined,
    taskId: undefined,
    open: () => events(snapshot(TaskState.WORKING)),
    getTask: async () => {
      attempts.push(Date.now() - start);
      if (down()) throw new ConnectionError("connection refused", { kind: "refused" });
      return create(TaskSchema, { id: "t1", contextId: "c1", status: { state: TaskState.WORKING } });
    },
    subscribe: () => (down() ? refused() : events(snapshot(TaskState.WORKING), snapshot(TaskState.COMPLETED))),
  };
  return { io, attempts };
}

/** Reads the stream to its end on the fake clock; the outcome and when it came. */
async function run(io: ResumeIo, options: ResumeOptions = {}) {
  const start = Date.now();
  const items: StreamResponse[] = [];
  let error: unknown;
  const done = (async () => {
    try {
      for await (const e of resumable(io, options, LOOP_KIT)) items.push(e);
    } catch (e) {
      error = e;
    }
  })();
  let settled = false;
  void done.then(() => (settled = true));
  // Ten minutes of fake time at most: more than any budget here.
  for (let t = 0; t < 600 && !settled; t++) await vi.advanceTimersByTimeAsync(1000);
  await done;
  return { items, error, ms: Date.now() - start };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("resumption budget (defaults)", () => {
  it("an agent away for 30 s (a deploy) is resumed", async () => {
    const { io, attempts } = agent(30_000);
    const { items, error } = await run(io);
    expect(error).toBeUndefined();
    expect(items.at(-1)?.payload.case === "task" && items.at(-1)?.payload.value).toMatchObject({ status: { state: TaskState.COMPLETED } });
    // Back within a backoff ceiling (10 s) of the agent's return.
    expect(attempts.at(-1)).toBeGreaterThanOrEqual(30_000);
    expect(attempts.at(-1)).toBeLessThan(40_001);
  });

  it("an agent away for good: StreamResumeError once the 60 s budget is spent, not before", async () => {
    const { io, attempts } = agent(Infinity);
    const { error, ms } = await run(io);
    expect(error).toBeInstanceOf(StreamResumeError);
    expect(error).toMatchObject({ taskId: "t1", attempts: attempts.length, state: TaskState.WORKING });
    expect((error as Error).message).toMatch(/after 60000 ms/);
    expect((error as StreamResumeError).cause).toBeInstanceOf(ConnectionError);
    // The last attempt is made as the budget runs out.
    expect(attempts.at(-1)).toBe(60_000);
    expect(ms).toBeGreaterThanOrEqual(60_000);
    expect(ms).toBeLessThan(61_000);
  });

  it("attempts are spread over the budget, not spent in its first second, whatever the jitter draws", async () => {
    for (const draw of [0, 0.5, 0.999]) {
      vi.spyOn(Math, "random").mockReturnValue(draw);
      const { io, attempts } = agent(Infinity);
      await run(io);
      expect(attempts.filter((t) => t < 1000).length).toBeLessThanOrEqual(3);
      // Each wait is at least half its ceiling (250 ms doubling, capped at 10 s).
      attempts.forEach((t, i) => {
        const gap = t - (attempts[i - 1] ?? 0);
        const ceiling = Math.min(10_000, 250 * 2 ** i);
        if (t < 60_000) expect(gap).toBeGreaterThanOrEqual(ceiling / 2);
        expect(gap).toBeLessThanOrEqual(ceiling);
      });
      // Some, but not a flood: between 8 and 18 in a minute.
      expect(attempts.length).toBeGreaterThanOrEqual(8);
      expect(attempts.length).toBeLessThanOrEqual(18);
      vi.restoreAllMocks();
    }
  });

  it("progress starts the budget again", async () => {
    const start = Date.now();
    let subscribes = 0;
    const io: ResumeIo = {
      ...agent(0).io,
      getTask: async () => create(TaskSchema, { id: "t1", contextId: "c1", status: { state: TaskState.WORKING } }),
      // Each resubscribe brings news and drops; after 5 minutes the task completes.
      subscribe: () => {
        subscribes++;
        const news = create(StreamResponseSchema, {
          payload: { case: "statusUpdate", value: { taskId: "t1", contextId: "c1", status: { state: TaskState.WORKING } } },
        });
        return Date.now() - start > 300_000 ? events(snapshot(TaskState.COMPLETED)) : events(snapshot(TaskState.WORKING), news);
      },
    };
    const { error } = await run(io, { backoff: { initialMs: 20_000, maxMs: 20_000 } });
    expect(error).toBeUndefined();
    expect(subscribes).toBeGreaterThan(10);
  });

  it("maxElapsedMs and maxAttempts bound it as given", async () => {
    const short = await run(agent(Infinity).io, { maxElapsedMs: 5_000 });
    expect(short.error).toBeInstanceOf(StreamResumeError);
    expect(short.ms).toBeGreaterThanOrEqual(5_000);
    expect(short.ms).toBeLessThan(6_000);
    const counted = agent(Infinity);
    const few = await run(counted.io, { maxAttempts: 2 });
    expect(few.error).toMatchObject({ attempts: 2 });
    expect(counted.attempts).toHaveLength(2);
  });

  it("numbers that would spin or stall are refused up front, with InvalidParamsError naming them", () => {
    const { io } = agent(0);
    for (const bad of [
      { maxElapsedMs: -1 },
      { maxElapsedMs: Number.NaN },
      { backoff: { maxMs: Infinity } },
      { backoff: { multiplier: 0.5 } },
    ]) {
      expect(() => resumable(io, bad, LOOP_KIT)).toThrow(InvalidParamsError);
    }
    expect(() => resumable(io, { maxElapsedMs: -1 }, LOOP_KIT)).toThrow(/resume\.maxElapsedMs/);
  });
});
