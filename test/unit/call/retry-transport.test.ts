// Keeps its scripted transport: refused and DNS failures, attempts that time out, the timeout each attempt is given and the very error reported are no step or record of the test agent.
/**
 * The retry policy of unary calls, on a fake clock over a scripted
 * transport: which failures of which operations are tried again, the waits
 * (Retry-After, jitter), and the call's deadline over all attempts, where
 * the failures are ones the test agent cannot make or the test asserts
 * what only the transport sees (retry.test.ts has the rest, on the agent).
 */
import { create } from "@bufbuild/protobuf";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  A2AClient,
  AbortedError,
  CallTimeoutError,
  ConnectionError,
  InternalError,
  InvalidParamsError,
  ServerError,
  TaskNotFoundError,
  TaskSchema,
  userMessage,
  type A2AError,
  type A2ATransport,
  type ClientOptions,
  type RetryPolicy,
} from "../../../src/index.js";
import { settle } from "../../support/fake-clock.js";

interface Attempt {
  method: string;
  at: number;
  timeoutMs: number | undefined;
  input: unknown;
}

/**
 * A transport whose unary calls fail with `failures` in turn (each after
 * `takesMs` of fake time), then answer with a task.
 */
function scripted(failures: A2AError[], takesMs = 0) {
  const attempts: Attempt[] = [];
  const start = Date.now();
  const transport = {
    binding: "JSONRPC",
    unary: async (method, signal, timeoutMs, _header, input) => {
      attempts.push({ method: method.name, at: Date.now() - start, timeoutMs, input });
      if (takesMs > 0) await new Promise((r) => setTimeout(r, takesMs));
      if (signal?.aborted) throw new AbortedError("aborted");
      const failure = failures.shift();
      if (failure) throw failure;
      return { message: create(TaskSchema, { id: "t1" }) } as never;
    },
    stream: async () => {
      throw new Error("not used");
    },
  } satisfies A2ATransport;
  return { transport, attempts };
}

const unavailable = (retryAfterMs?: number) => new ServerError("503 Service Unavailable", { httpStatus: 503, retryAfterMs });
const badGateway = () => new ServerError("502 Bad Gateway", { httpStatus: 502 });
const refused = () => new ConnectionError("connection refused", { kind: "refused" });
const reset = () => new ConnectionError("connection reset", { kind: "reset" });
const timedOut = () => new CallTimeoutError("timed out");

function client(failures: A2AError[], retry: RetryPolicy | undefined, options: Omit<ClientOptions, "retry"> = {}, takesMs = 0) {
  const { transport, attempts } = scripted(failures, takesMs);
  return { client: new A2AClient(transport, { ...options, retry }), attempts };
}

beforeAll(async () => {
  // Loaded on demand by the first retried call: loaded here, on the real clock.
  await import("../../../src/call/retry.js");
});
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "performance"] });
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("retries of reads", () => {
  it("GetTask is tried again after transient failures, up to `attempts`, and then succeeds", async () => {
    const { client: c, attempts } = client([unavailable(), refused(), timedOut()], { attempts: 4 });
    const { value, error } = await settle(c.getTask({ id: "t1" }));
    expect(error).toBeUndefined();
    expect(value?.id).toBe("t1");
    expect(attempts.map((a) => a.method)).toEqual(["GetTask", "GetTask", "GetTask", "GetTask"]);
  });

  it("errors that are not transient are not tried again; `retryOn` narrows by code", async () => {
    for (const failure of [
      new TaskNotFoundError("no task"),
      new InternalError("boom", { httpStatus: 500 }),
      new InvalidParamsError("bad"),
    ]) {
      const { client: c, attempts } = client([failure], { attempts: 5 });
      expect((await settle(c.getTask({ id: "t1" }))).error).toBe(failure);
      expect(attempts).toHaveLength(1);
    }
    const { client: c, attempts } = client([unavailable()], { attempts: 5, retryOn: ["CONNECTION_FAILED"] });
    expect((await settle(c.getTask({ id: "t1" }))).error).toBeInstanceOf(ServerError);
    expect(attempts).toHaveLength(1);
    // A listed code is retried even when not transient.
    const listed = client([new InternalError("boom")], { retryOn: ["INTERNAL_ERROR"] });
    expect((await settle(listed.client.getTask({ id: "t1" }))).error).toBeUndefined();
    expect(listed.attempts).toHaveLength(2);
  });
});

describe("waits", () => {
  it("a Retry-After longer than maxDelayMs ends the call at once with the server's error", async () => {
    const failure = unavailable(60_000);
    const { client: c, attempts } = client([failure], { maxDelayMs: 5_000 });
    const { error, ms } = await settle(c.getTask({ id: "t1" }));
    expect(error).toBe(failure);
    expect(attempts).toHaveLength(1);
    expect(ms).toBeLessThan(20);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("full jitter: each wait is drawn up to a ceiling that doubles, capped at maxDelayMs", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0.999);
    const { client: c, attempts } = client([refused(), refused(), refused(), refused()], {
      attempts: 5,
      initialDelayMs: 100,
      maxDelayMs: 300,
    });
    await settle(c.getTask({ id: "t1" }));
    const gaps = attempts.slice(1).map((a, i) => a.at - attempts[i]!.at);
    // Ceilings 100, 200, 300 (capped), 300; the clock advances in steps of 10.
    expect(gaps.map((g) => Math.round(g / 100) * 100)).toEqual([100, 200, 300, 300]);
  });

  it("decorrelated jitter: each wait between initialDelayMs and three times the last, capped", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0.999);
    const { client: c, attempts } = client([refused(), refused(), refused()], {
      attempts: 4,
      initialDelayMs: 100,
      maxDelayMs: 1_000,
      jitter: "decorrelated",
    });
    await settle(c.getTask({ id: "t1" }));
    const gaps = attempts.slice(1).map((a, i) => a.at - attempts[i]!.at);
    expect(gaps.map((g) => Math.round(g / 100) * 100)).toEqual([300, 900, 1_000]);
  });
});

describe("the call's deadline and signal bound every attempt and wait", () => {
  it("each attempt gets what is left of the call's timeout", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0.5);
    const { client: c, attempts } = client([unavailable(), unavailable()], { initialDelayMs: 200 }, {}, 100);
    const { error } = await settle(c.getTask({ id: "t1" }, { timeoutMs: 2_000 }));
    expect(error).toBeUndefined();
    expect(attempts.map((a) => a.timeoutMs! + a.at)).toEqual([2_000, 2_000, 2_000]);
    expect(attempts[2]!.timeoutMs).toBeLessThan(2_000 - 300);
  });

  it("a deadline that would pass during the wait ends the call at once with the last failure, leaving no timer", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0.999);
    const failure = unavailable();
    const { client: c, attempts } = client([failure], { initialDelayMs: 500 }, {}, 800);
    const { error, ms } = await settle(c.getTask({ id: "t1" }, { timeoutMs: 1_000 }));
    expect(error).toBe(failure);
    expect(attempts).toHaveLength(1);
    expect(ms).toBeLessThan(1_000);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("the deadline comes from the call, else the client's timeoutMs, else one minute", async () => {
    const seen = async (options: ClientOptions, call: { timeoutMs?: number }) => {
      const { client: c, attempts } = client([], { attempts: 2 }, options);
      await settle(c.getTask({ id: "t1" }, call));
      return attempts[0]!.timeoutMs;
    };
    expect(await seen({}, { timeoutMs: 700 })).toBe(700);
    expect(await seen({ timeoutMs: 900 }, {})).toBe(900);
    expect(await seen({}, {})).toBe(60_000);
    // 0 is no limit, for every attempt.
    expect(await seen({ timeoutMs: 0 }, {})).toBe(0);
  });

  it("an attempt that outlives what was left to it (a transport that ignores its timeout) is cut at the call's deadline", async () => {
    let cut: unknown;
    const transport = {
      binding: "JSONRPC",
      // Answers only to its signal, as failover trying one interface after another may take that long.
      unary: (_m, signal) => new Promise<never>((_, reject) => signal?.addEventListener("abort", () => reject((cut = signal.reason)))),
      stream: async () => {
        throw new Error("not used");
      },
    } satisfies A2ATransport;
    const c = new A2AClient(transport, { retry: { attempts: 3 } });
    const { error, ms } = await settle(c.getTask({ id: "t1" }, { timeoutMs: 1_500 }));
    expect(error).toBeInstanceOf(CallTimeoutError);
    expect((error as Error).message).toMatch(/GetTask did not succeed within its 1500 ms timeout \(1 attempt\)/);
    expect(cut).toBe(error);
    expect(ms).toBeGreaterThanOrEqual(1_500);
    expect(ms).toBeLessThan(1_520);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("writes: tried again only where the agent cannot have processed them", () => {
  const send = (c: A2AClient) => c.sendMessage({ message: userMessage("hi") });
  const ids = (attempts: Attempt[]) => attempts.map((a) => (a.input as { message: { messageId: string } }).message.messageId);

  it("SendMessage after a refused connection or a 429/503: the same message, with the same messageId", async () => {
    for (const failure of [
      refused(),
      new ConnectionError("no such host", { kind: "dns" }),
      unavailable(),
      new ServerError("429", { httpStatus: 429 }),
    ]) {
      const { client: c, attempts } = client([failure], {});
      expect((await settle(send(c))).error).toBeUndefined();
      expect(attempts).toHaveLength(2);
      expect(ids(attempts)[0]).toMatch(/\S/);
      expect(ids(attempts)[1]).toBe(ids(attempts)[0]);
    }
  });

  it("SendMessage after a timeout, a reset or a 502/504 (the agent may have acted): not sent again", async () => {
    for (const failure of [timedOut(), reset(), badGateway(), new ServerError("504", { httpStatus: 504 })]) {
      const { client: c, attempts } = client([failure], { attempts: 5 });
      expect((await settle(send(c))).error).toBe(failure);
      expect(attempts).toHaveLength(1);
    }
  });

  it('retryWrites: "transient" sends again after a timeout, with the same messageId; "never" not even after a refusal', async () => {
    const opted = client([timedOut(), reset()], { retryWrites: "transient" });
    expect((await settle(send(opted.client))).error).toBeUndefined();
    expect(new Set(ids(opted.attempts)).size).toBe(1);
    expect(opted.attempts).toHaveLength(3);
    const never = client([refused()], { retryWrites: "never" });
    expect((await settle(send(never.client))).error).toBeInstanceOf(ConnectionError);
    expect(never.attempts).toHaveLength(1);
  });

  it("CancelTask and the push config create and delete follow the rule of writes; get and list that of reads", async () => {
    const calls: Record<string, (c: A2AClient) => Promise<unknown>> = {
      CancelTask: (c: A2AClient) => c.cancelTask({ id: "t1" }),
      CreateTaskPushNotificationConfig: (c: A2AClient) => c.createTaskPushNotificationConfig({ taskId: "t1" }),
      DeleteTaskPushNotificationConfig: (c: A2AClient) => c.deleteTaskPushNotificationConfig({ taskId: "t1", id: "p" }),
      GetTaskPushNotificationConfig: (c: A2AClient) => c.getTaskPushNotificationConfig({ taskId: "t1", id: "p" }),
      ListTaskPushNotificationConfigs: (c: A2AClient) => c.listTaskPushNotificationConfigs({ taskId: "t1" }),
      GetExtendedAgentCard: (c: A2AClient) => c.getExtendedAgentCard(),
    };
    const retried: Record<string, number> = {};
    for (const [name, call] of Object.entries(calls)) {
      const { client: c, attempts } = client([timedOut(), refused()], {});
      await settle(call(c));
      retried[name] = attempts.length;
    }
    expect(retried).toEqual({
      CancelTask: 1,
      CreateTaskPushNotificationConfig: 1,
      DeleteTaskPushNotificationConfig: 1,
      GetTaskPushNotificationConfig: 3,
      ListTaskPushNotificationConfigs: 3,
      GetExtendedAgentCard: 3,
    });
  });
});
