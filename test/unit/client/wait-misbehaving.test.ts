// Keeps fakes: refused connections, calls that ignore their signal, another task's answers and a subscription cut after its first event are no step of the test agent.
/**
 * waitForTask against what the test agent cannot play: how it rides out
 * polls that cannot reach the agent and a subscription dropped after its
 * snapshot, that it ends by its deadline when a call ignores its signal,
 * and that it takes no other task's state for its own (wait.test.ts has
 * the rest, on the test agent).
 */
import { create } from "@bufbuild/protobuf";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  A2AClient,
  CallTimeoutError,
  ConnectionError,
  InvalidAgentResponseError,
  ServerError,
  StreamResponseSchema,
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

  it("a GetTask that never settles and ignores its signal still ends at the deadline", async () => {
    const client = fake(["never"]);
    const outcome = waitForTask(client, "t1", { timeoutMs: 3_000 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(await outcome).toBeInstanceOf(CallTimeoutError);
    expect(vi.getTimerCount()).toBe(0);
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
});

describe("waitForTask, subscribing", () => {
  afterEach(() => {
    vi.useRealTimers();
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
