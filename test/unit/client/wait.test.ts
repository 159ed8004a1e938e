/**
 * waitForTask against fakes: how often it polls, that it ends by its signal
 * and deadline whatever the agent does (no timer left), how it rides out
 * unreachable polls and a dropped subscription, and what it refuses.
 */
import { create } from "@bufbuild/protobuf";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  A2AClient,
  AbortedError,
  CallTimeoutError,
  ConnectionError,
  InvalidAgentResponseError,
  InvalidParamsError,
  MIN_POLL_MS,
  ServerError,
  StreamResponseSchema,
  TaskNotFoundError,
  TaskSchema,
  TaskState,
  UnsupportedOperationError,
  createJsonRpcTransport,
  textOf,
  waitForTask,
  type StreamResponse,
  type Task,
  type TaskWaiter,
} from "../../../src/index.js";
import { sendJson, sseFrame, startFakeServer, startSse } from "../../support/fake-server.js";

const taskIn = (state: TaskState, text?: string): Task =>
  create(TaskSchema, {
    id: "t1",
    contextId: "c1",
    status: { state },
    artifacts: text ? [{ artifactId: "a", parts: [{ content: { case: "text", value: text } }] }] : [],
  });
const taskEvent = (state: TaskState): StreamResponse => create(StreamResponseSchema, { payload: { case: "task", value: taskIn(state) } });
const statusEvent = (state: TaskState): StreamResponse =>
  create(StreamResponseSchema, { payload: { case: "statusUpdate", value: { taskId: "t1", contextId: "c1", status: { state } } } });
const chunkEvent = (text: string): StreamResponse =>
  create(StreamResponseSchema, {
    payload: {
      case: "artifactUpdate",
      value: { taskId: "t1", contextId: "c1", artifact: { artifactId: "a", parts: [{ content: { case: "text", value: text } }] } },
    },
  });

/** A stream that fails when first read, as a session's client does without streaming. */
async function* refusedStream(): AsyncGenerator<StreamResponse> {
  throw new UnsupportedOperationError("the agent's card does not declare streaming (capabilities.streaming)");
}

/** A fake client: GetTask answers from `answers` (the last one repeated), SubscribeToTask as given. */
function fake(
  answers: Array<Task | Error | "never">,
  subscribe: TaskWaiter["subscribeToTask"] = () => refusedStream(),
): TaskWaiter & { polls: number[] } {
  const polls: number[] = [];
  return {
    polls,
    subscribeToTask: subscribe,
    getTask: () => {
      polls.push(Date.now());
      const a = answers[Math.min(polls.length - 1, answers.length - 1)]!;
      // "never": a call that ignores its signal and never settles.
      if (a === "never") return new Promise<Task>(() => {});
      return a instanceof Error ? Promise.reject(a) : Promise.resolve(a);
    },
  };
}

describe("waitForTask, polling", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("polls at once, then every pollMs, half as long again while nothing changes, up to maxPollMs, and returns the final task", async () => {
    const start = Date.now();
    const W = taskIn(TaskState.WORKING);
    const client = fake([taskIn(TaskState.SUBMITTED), W, W, W, W, taskIn(TaskState.COMPLETED, "done")]);
    const updates: TaskState[] = [];
    const waiting = waitForTask(client, "t1", { pollMs: 200, maxPollMs: 400, onUpdate: (t) => updates.push(t.status!.state) });
    await vi.advanceTimersByTimeAsync(5_000);
    const task = await waiting;
    expect(textOf(task)).toBe("done");
    // SUBMITTED at 0, WORKING (new) at 200, then 300, 400 (450 capped), 400.
    expect(client.polls.map((t) => t - start)).toEqual([0, 200, 400, 700, 1100, 1500]);
    expect(updates).toEqual([TaskState.SUBMITTED, TaskState.WORKING, TaskState.COMPLETED]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("ends at an interrupted state too (input required)", async () => {
    const client = fake([taskIn(TaskState.WORKING), taskIn(TaskState.INPUT_REQUIRED)]);
    const waiting = waitForTask(client, "t1", { pollMs: 100 });
    await vi.advanceTimersByTimeAsync(100);
    expect((await waiting).status?.state).toBe(TaskState.INPUT_REQUIRED);
    expect(client.polls).toHaveLength(2);
  });

  it("a task that never ends: timeoutMs fails the wait with CallTimeoutError naming the task and the time, leaving no timer", async () => {
    const client = fake([taskIn(TaskState.WORKING)]);
    const waiting = waitForTask(client, "t1", { pollMs: 1000, timeoutMs: 5_000 });
    const outcome = waiting.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(5_000);
    const e = await outcome;
    expect(e).toBeInstanceOf(CallTimeoutError);
    expect((e as Error).message).toBe("task t1 did not reach a final or interrupted state within 5000 ms");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("timeoutMs: Infinity is no deadline, as for every other timeout: the wait lasts until the task ends", async () => {
    const W = taskIn(TaskState.WORKING);
    const client = fake([W, W, W, taskIn(TaskState.COMPLETED, "done")]);
    const waiting = waitForTask(client, "t1", { pollMs: 1000, maxPollMs: 1000, timeoutMs: Number.POSITIVE_INFINITY });
    await vi.advanceTimersByTimeAsync(3_000);
    expect(textOf(await waiting)).toBe("done");
    expect(client.polls).toHaveLength(4);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a GetTask that never settles and ignores its signal still ends at the deadline", async () => {
    const client = fake(["never"]);
    const outcome = waitForTask(client, "t1", { timeoutMs: 3_000 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(await outcome).toBeInstanceOf(CallTimeoutError);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("the caller's signal stops a poll sleep at once with AbortedError", async () => {
    const client = fake([taskIn(TaskState.WORKING)]);
    const controller = new AbortController();
    const outcome = waitForTask(client, "t1", { signal: controller.signal, pollMs: 60_000 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10);
    expect(client.polls).toHaveLength(1);
    controller.abort();
    const e = await outcome;
    expect(e).toBeInstanceOf(AbortedError);
    expect((e as Error).message).toBe("waiting for task t1 was aborted");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a poll interval longer than a timer holds (2^31 - 1 ms) waits that long, instead of polling every millisecond", async () => {
    const client = fake([taskIn(TaskState.WORKING)]);
    const controller = new AbortController();
    const outcome = waitForTask(client, "t1", { signal: controller.signal, pollMs: 3e9, maxPollMs: 3e9 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(client.polls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(0x7fffffff);
    expect(client.polls).toHaveLength(2);
    controller.abort();
    expect(await outcome).toBeInstanceOf(AbortedError);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("an already aborted signal makes no call", async () => {
    const client = fake([taskIn(TaskState.WORKING)]);
    await expect(waitForTask(client, "t1", { signal: AbortSignal.abort(), subscribe: false })).rejects.toBeInstanceOf(AbortedError);
    expect(client.polls).toHaveLength(0);
  });

  it("rides out polls that cannot reach the agent, waiting at least a 503's Retry-After", async () => {
    const start = Date.now();
    const busy = new ServerError("busy", { httpStatus: 503, retryAfterMs: 3_000 });
    const longest = new ServerError("busy", { httpStatus: 503, retryAfterMs: 5_000 });
    const refused = new ConnectionError("refused", { kind: "refused" });
    const client = fake([refused, busy, longest, taskIn(TaskState.COMPLETED)]);
    const waiting = waitForTask(client, "t1", { pollMs: 200, maxPollMs: 5_000 });
    await vi.advanceTimersByTimeAsync(20_000);
    expect((await waiting).status?.state).toBe(TaskState.COMPLETED);
    expect(client.polls.map((t) => t - start)).toEqual([0, 200, 3_200, 8_200]);
  });

  it("a Retry-After longer than maxPollMs ends the wait with the server's error, not called early", async () => {
    const hostile = new ServerError("busy", { httpStatus: 503, retryAfterMs: 86_400_000 });
    const client = fake([hostile, taskIn(TaskState.COMPLETED)]);
    const outcome = waitForTask(client, "t1", { pollMs: 200, maxPollMs: 5_000 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(await outcome).toBe(hostile);
    expect(client.polls).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("gives up on an agent unreachable for resume.maxElapsedMs, with the last error", async () => {
    const client = fake([new ConnectionError("connection refused by 127.0.0.1:1", { kind: "refused" })]);
    const outcome = waitForTask(client, "t1", { pollMs: 500, resume: { maxElapsedMs: 2_000 } }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(await outcome).toBeInstanceOf(ConnectionError);
    expect(client.polls).toHaveLength(5); // 0, 500, 1000, 1500, 2000
    expect(vi.getTimerCount()).toBe(0);
  });

  it("an agent's answer such as TaskNotFoundError is thrown at once", async () => {
    const client = fake([new TaskNotFoundError("no task t1")]);
    await expect(waitForTask(client, "t1")).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(client.polls).toHaveLength(1);
  });

  it("refuses, before any call, a missing id and intervals that would spin or never start, naming the option", async () => {
    const client = fake([taskIn(TaskState.COMPLETED)]);
    const bad: Array<[string, Parameters<typeof waitForTask>[2], RegExp]> = [
      ["", {}, /the task id must be a non-empty string/],
      ["t1", { pollMs: 10 }, new RegExp(`pollMs must be a finite number of at least ${MIN_POLL_MS} ms, got 10`)],
      ["t1", { pollMs: Number.NaN }, /pollMs must be a finite number/],
      ["t1", { pollMs: 2_000, maxPollMs: 1_000 }, /maxPollMs must be a finite number of at least 2000 ms/],
      ["t1", { timeoutMs: 0 }, /timeoutMs must be a finite number of at least 1 ms/],
      ["t1", { timeoutMs: Number.NaN }, /timeoutMs must be a finite number/],
    ];
    for (const [id, options, message] of bad) {
      const e = await waitForTask(client, id, options).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(InvalidParamsError);
      expect((e as Error).message).toMatch(message);
    }
    expect(client.polls).toHaveLength(0);
  });
});

describe("waitForTask, subscribing", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("follows the subscription to the final state and returns the task it describes, without polling", async () => {
    const client = fake([new Error("no GetTask expected")], async function* () {
      yield taskEvent(TaskState.WORKING);
      yield chunkEvent("all ");
      yield statusEvent(TaskState.COMPLETED);
    });
    const task = await waitForTask(client, "t1");
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(textOf(task)).toBe("all ");
    expect(client.polls).toHaveLength(0);
  });

  it("a subscription that settles another task's events is not taken at its word: GetTask is", async () => {
    const client = fake([taskIn(TaskState.COMPLETED, "ours")], async function* () {
      yield create(StreamResponseSchema, { payload: { case: "task", value: { ...taskIn(TaskState.COMPLETED), id: "someone-else" } } });
    });
    const task = await waitForTask(client, "t1");
    expect(task.id).toBe("t1");
    expect(textOf(task)).toBe("ours");
    expect(client.polls).toHaveLength(1);
  });

  it("a GetTask that answers with another task fails with InvalidAgentResponseError", async () => {
    const client = fake([{ ...taskIn(TaskState.COMPLETED), id: "someone-else" }]);
    await expect(waitForTask(client, "t1", { subscribe: false })).rejects.toThrow(InvalidAgentResponseError);
  });

  it("a subscription refused with UnsupportedOperationError falls back to polling", async () => {
    const client = fake([taskIn(TaskState.COMPLETED)]);
    expect((await waitForTask(client, "t1")).status?.state).toBe(TaskState.COMPLETED);
    expect(client.polls).toHaveLength(1);
  });

  it("a subscription that never yields and ignores its signal still ends at the deadline, leaving no timer", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "performance"] });
    const client = fake([new Error("no GetTask expected")], () => ({
      [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<StreamResponse>>(() => {}) }),
    }));
    const outcome = waitForTask(client, "t1", { timeoutMs: 2_000 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await outcome).toBeInstanceOf(CallTimeoutError);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("survives a dropped subscription through the client's resumption (GetTask, then SubscribeToTask again)", async () => {
    const methods: string[] = [];
    const json = (state: string) => ({ id: "t1", contextId: "c1", status: { state: `TASK_STATE_${state}` } });
    const srv = await startFakeServer((_req, res, body) => {
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      methods.push(method);
      if (method === "GetTask") return sendJson(res, 200, { jsonrpc: "2.0", id, result: json("WORKING") });
      startSse(res);
      res.write(sseFrame({ jsonrpc: "2.0", id, result: { task: json("WORKING") } }));
      if (methods.filter((m) => m === "SubscribeToTask").length === 1) {
        // The first subscription drops after its snapshot.
        res.write("", () => res.socket?.destroy());
        return;
      }
      res.end(
        sseFrame({ jsonrpc: "2.0", id, result: { statusUpdate: { taskId: "t1", contextId: "c1", status: json("COMPLETED").status } } }),
      );
    });
    try {
      const client = new A2AClient(createJsonRpcTransport({ baseUrl: srv.url }));
      const task = await waitForTask(client, "t1", { resume: { backoff: { initialMs: 1, maxMs: 1 } }, timeoutMs: 10_000 });
      expect(task.status?.state).toBe(TaskState.COMPLETED);
      expect(methods).toEqual(["SubscribeToTask", "GetTask", "SubscribeToTask"]);
    } finally {
      await srv.close();
    }
  });
});
