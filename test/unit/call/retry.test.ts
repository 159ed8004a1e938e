/**
 * The retry policy of unary calls, on a fake clock against the test agent
 * in memory, its faults failing the attempts: which failures are tried
 * again, the wait a Retry-After asks for, the call's deadline and signal
 * over the attempts and waits, that streams are not retried, and the
 * checks of the policy's fields. retry-transport.test.ts has what needs a
 * transport of its own.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  A2AClient,
  AbortedError,
  connect,
  InvalidParamsError,
  ServerError,
  userMessage,
  type ClientOptions,
  type RetryPolicy,
} from "../../../src/index.js";
import { createTestAgent, steps, type OperationFaults, type TestAgent } from "../../../src/testing.js";
import { settle } from "../../support/fake-clock.js";

let agent: TestAgent | undefined;

/** A 503, asking to be called again after `retryAfter` seconds when given. */
const unavailable = (retryAfter?: string) => steps.httpStatus(503, retryAfter === undefined ? {} : { "Retry-After": retryAfter });

/** A client of a test agent in memory whose operations fail with `faults`; `attempts(method)` are the requests it received, with when (fake ms since now). */
function client(faults: OperationFaults, retry: RetryPolicy | undefined, options: Omit<ClientOptions, "retry"> = {}) {
  const a = createTestAgent({ faults });
  agent = a;
  const start = Date.now();
  const attempts = (method: string) => a.requests.filter((r) => r.method === method).map((r) => ({ at: r.receivedAt - start }));
  return { client: new A2AClient(a.transport("JSONRPC"), { ...options, retry }), attempts };
}

/** The id of a task the agent holds (it completed at once). */
async function aTask(c: A2AClient): Promise<string> {
  const { value } = await settle(c.sendMessage({ message: userMessage("hi") }, { retry: false }));
  return value?.payload.case === "task" ? value.payload.value.id : "";
}

beforeAll(async () => {
  // Loaded on demand by the first retried call, and by the first call and failure of a transport: loaded here, on the real clock.
  await import("../../../src/call/retry.js");
  const warm = createTestAgent({ faults: { GetTask: [unavailable("1")] } });
  const c = new A2AClient(warm.transport("JSONRPC"));
  await c.listTasks({});
  await c.getTask({ id: "t1" }).catch(() => {});
  await warm.close();
});
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "performance"] });
});
afterEach(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  await agent?.close();
  agent = undefined;
});

describe("retries of reads", () => {
  it("the last failure is reported once the attempts are spent", async () => {
    const { client: c, attempts } = client({ ListTasks: [unavailable()] }, { attempts: 2 });
    const { error } = await settle(c.listTasks({}));
    expect(error).toBeInstanceOf(ServerError);
    expect(attempts("ListTasks")).toHaveLength(2);
  });

  it("no policy, `attempts: 1` or a call's `retry: false`: one attempt", async () => {
    for (const [retry, call] of [
      [undefined, {}],
      [{ attempts: 1 }, {}],
      [{ attempts: 5 }, { retry: false as const }],
    ] as const) {
      const { client: c, attempts } = client({ GetTask: [steps.once(unavailable())] }, retry);
      expect((await settle(c.getTask({ id: "t1" }, call))).error).toBeInstanceOf(ServerError);
      expect(attempts("GetTask")).toHaveLength(1);
    }
  });
});

describe("waits", () => {
  it("Retry-After is waited out before the next attempt, whatever the jitter draws", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0);
    const { client: c, attempts } = client({ GetTask: [steps.once(unavailable("3"))] }, {});
    const id = await aTask(c);
    const { error } = await settle(c.getTask({ id }));
    expect(error).toBeUndefined();
    expect(attempts("GetTask")[1]!.at).toBeGreaterThanOrEqual(3_000);
    expect(attempts("GetTask")[1]!.at).toBeLessThan(3_100);
  });
});

describe("the call's deadline and signal bound every attempt and wait", () => {
  it("a Retry-After past the deadline is not waited for", async () => {
    const { client: c, attempts } = client({ GetTask: [steps.once(unavailable("3"))] }, {}, { timeoutMs: 2_000 });
    const { error, ms } = await settle(c.getTask({ id: "t1" }));
    expect(error).toBeInstanceOf(ServerError);
    expect(attempts("GetTask")).toHaveLength(1);
    expect(ms).toBeLessThan(20);
  });

  it("the caller's signal ends a wait at once with AbortedError and clears its timer", async () => {
    const { client: c, attempts } = client({ GetTask: [steps.once(unavailable("5"))] }, {});
    const controller = new AbortController();
    const call = c.getTask({ id: "t1" }, { signal: controller.signal });
    await vi.advanceTimersByTimeAsync(100);
    // The wait, and the call's deadline.
    expect(vi.getTimerCount()).toBe(2);
    controller.abort();
    const { error } = await settle(call);
    expect(error).toBeInstanceOf(AbortedError);
    expect(attempts("GetTask")).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("calls of one client wait on their own: one aborted leaves the other retrying", async () => {
    const { client: c, attempts } = client({ GetTask: [steps.once(unavailable("1")), steps.once(unavailable("1"))] }, {});
    const id = await aTask(c);
    const controller = new AbortController();
    const first = c.getTask({ id }, { signal: controller.signal });
    const second = c.getTask({ id });
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    expect((await settle(first)).error).toBeInstanceOf(AbortedError);
    expect((await settle(second)).error).toBeUndefined();
    expect(attempts("GetTask")).toHaveLength(3);
  });
});

describe("writes: tried again only where the agent cannot have processed them", () => {
  it("streams are not retried by the policy", async () => {
    const { client: c, attempts } = client({ SendStreamingMessage: [unavailable()] }, { attempts: 5 });
    const { error } = await settle(
      (async () => {
        for await (const _ of c.sendStreamingMessage({ message: userMessage("hi") }, { resume: false }));
      })(),
    );
    expect(error).toBeDefined();
    expect(attempts("SendStreamingMessage")).toHaveLength(1);
  });
});

describe("the policy's fields are checked", () => {
  const bad: Array<[RetryPolicy, RegExp]> = [
    [{ attempts: 0 }, /retry\.attempts must be a whole number of at least 1, got 0/],
    [{ attempts: 1.5 }, /retry\.attempts/],
    [{ attempts: Number.NaN }, /retry\.attempts/],
    [{ attempts: Infinity }, /retry\.attempts/],
    [{ initialDelayMs: -1 }, /retry\.initialDelayMs must be a finite number of at least 0, got -1/],
    [{ initialDelayMs: Infinity }, /retry\.initialDelayMs/],
    [{ initialDelayMs: 500, maxDelayMs: 100 }, /retry\.maxDelayMs must be a finite number of at least initialDelayMs \(500\), got 100/],
    [{ jitter: "equal" as never }, /retry\.jitter must be one of full, decorrelated, got "equal"/],
    [{ retryOn: ["ABORTED"] }, /retry\.retryOn must be without ABORTED/],
    [{ retryOn: "CALL_TIMEOUT" as never }, /retry\.retryOn must be an array of error codes/],
    [{ retryWrites: "always" as never }, /retry\.retryWrites must be one of unprocessed, transient, never/],
  ];

  it.each(bad)("%j: InvalidParamsError naming the field, on the first call, before any request", async (policy, message) => {
    const { client: c, attempts } = client({}, policy);
    const { error } = await settle(c.getTask({ id: "t1" }));
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect((error as Error).message).toMatch(message);
    expect(attempts("GetTask")).toHaveLength(0);
  });

  it("a call's own policy is checked too", async () => {
    const { client: c, attempts } = client({}, undefined);
    const { error } = await settle(c.getTask({ id: "t1" }, { retry: { attempts: -2 } }));
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect((error as Error).message).toMatch(/retry\.attempts/);
    expect(attempts("GetTask")).toHaveLength(0);
  });

  it("connect() checks the policy before fetching the card", async () => {
    vi.useRealTimers();
    agent = createTestAgent();
    await expect(connect(agent.url, { ...agent.connectOptions(), retry: { maxDelayMs: -5 } })).rejects.toThrow(InvalidParamsError);
    expect(agent.requests).toHaveLength(0);
  });
});
