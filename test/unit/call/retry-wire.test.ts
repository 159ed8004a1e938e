/**
 * Retries as the agent sees them, over JSON-RPC and HTTP+JSON to the test
 * agent on 127.0.0.1: a 503 with Retry-After is waited out and the same
 * message sent again, a refused connection is tried again, an agent that
 * took the message and then failed never gets it twice, and errors that
 * are not transient end the call.
 */
import type { Interceptor } from "@connectrpc/connect";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  A2AClient,
  ConnectionError,
  createJsonRpcTransport,
  createRestTransport,
  ServerError,
  TaskNotFoundError,
  userMessage,
  type RetryPolicy,
} from "../../../src/index.js";
import { createTestAgent, steps, type LoopbackServer, type TestAgent, type TestAgentOptions } from "../../../src/testing.js";
import { INTERFACE_PATHS } from "../../../src/testing/card.js";

type HttpBinding = "JSONRPC" | "HTTP+JSON";

let agent: TestAgent | undefined;
let server: LoopbackServer;
/** The test agent of the test, on loopback. */
async function agentOf(options: TestAgentOptions): Promise<TestAgent> {
  agent = createTestAgent(options);
  server = await agent.listen();
  return agent;
}
beforeEach(() => {
  agent = undefined;
});
afterEach(async () => {
  vi.restoreAllMocks();
  vi.useRealTimers();
  await agent?.close();
});

function clientOf(binding: HttpBinding, retry: RetryPolicy, origin = server.url, interceptors: Interceptor[] = []): A2AClient {
  const options = { baseUrl: origin + INTERFACE_PATHS[binding], interceptors };
  return new A2AClient(binding === "JSONRPC" ? createJsonRpcTransport(options) : createRestTransport(options), { retry });
}

/** The messageId of each SendMessage the agent received. */
function messageIds(a: TestAgent): string[] {
  return a.requests.map((r) => (r.request as { message: { messageId: string } }).message.messageId);
}

/** Waits, on the real clock, for the I/O that `done` describes. */
async function until(done: () => boolean, what: string): Promise<void> {
  const start = performance.now();
  while (!done()) {
    if (performance.now() - start > 5_000) throw new Error(`not seen: ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

describe.each(["JSONRPC", "HTTP+JSON"] as const)("%s", (binding) => {
  it("a 503 with Retry-After is waited out, then the same message (same messageId) is sent again", async () => {
    const a = await agentOf({
      script: [steps.once(steps.httpStatus(503, { "Retry-After": "2", "Content-Type": "text/plain" }, "busy")), steps.complete()],
    });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    // The waits asked for, to tell when the client has started waiting.
    const fakeSetTimeout = globalThis.setTimeout;
    const waits: number[] = [];
    vi.spyOn(globalThis, "setTimeout").mockImplementation(((fn: () => void, ms?: number) => {
      waits.push(ms ?? 0);
      return fakeSetTimeout(fn, ms);
    }) as typeof setTimeout);
    const c = clientOf(binding, { initialDelayMs: 1, maxDelayMs: 5_000 });
    let result: unknown;
    const call = c.sendMessage({ message: userMessage("hi") }).then((r) => (result = r));
    await until(() => waits.includes(2_000), "the wait of Retry-After: 2");
    await vi.advanceTimersByTimeAsync(1_999);
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(a.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await until(() => result !== undefined, "the answer");
    await call;
    const ids = messageIds(a);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toMatch(/\S/);
    expect(ids[1]).toBe(ids[0]);
  });

  it("a refused connection is tried again, each attempt with the same messageId", async () => {
    const a = await agentOf({});
    // A server of the agent's that has gone: its port refuses.
    const closed = await a.listen();
    await closed.close();
    const sent: string[] = [];
    const record: Interceptor = (next) => (req) => {
      sent.push((req.message as unknown as { message: { messageId: string } }).message.messageId);
      return next(req);
    };
    const c = clientOf(binding, { attempts: 3, initialDelayMs: 1 }, closed.url, [record]);
    const error = await c.sendMessage({ message: userMessage("hi") }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).kind).toBe("refused");
    expect(sent).toHaveLength(3);
    expect(new Set(sent).size).toBe(1);
  });

  it("a server that took the message and then failed (connection cut, 502) does not get it again", async () => {
    const a = await agentOf({
      scripts: [[steps.drop()], [steps.raw(JSON.stringify({ error: "upstream failed" }), { status: 502 })]],
      faults: { GetTask: [steps.drop()] },
    });
    const c = clientOf(binding, { attempts: 5, initialDelayMs: 1 });
    let seen = a.requests.length;
    expect(await c.sendMessage({ message: userMessage("hi") }).catch((e: unknown) => e)).toBeInstanceOf(ConnectionError);
    expect(a.requests.slice(seen)).toHaveLength(1);
    seen = a.requests.length;
    expect(await c.sendMessage({ message: userMessage("hi") }).catch((e: unknown) => e)).toBeInstanceOf(ServerError);
    expect(a.requests.slice(seen)).toHaveLength(1);
    // The same failures on a read are tried again.
    seen = a.requests.length;
    expect(await c.getTask({ id: "t1" }).catch((e: unknown) => e)).toBeInstanceOf(ConnectionError);
    expect(a.requests.slice(seen)).toHaveLength(5);
  });

  it('retryWrites: "transient" sends it again after the cut, with the same messageId on the wire', async () => {
    const a = await agentOf({ script: [steps.once(steps.drop()), steps.complete()] });
    const c = clientOf(binding, { initialDelayMs: 1, retryWrites: "transient" });
    const res = await c.sendMessage({ message: userMessage("hi") });
    expect(res.payload.case).toBe("task");
    const ids = messageIds(a);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(ids[0]);
  });

  it("an error that is not transient (TaskNotFound, even with 503 but no Retry-After) ends the call", async () => {
    // The agent has no task t1: it answers TaskNotFound in the binding's shape.
    const a = await agentOf({});
    const c = clientOf(binding, { attempts: 5, initialDelayMs: 1 });
    expect(await c.getTask({ id: "t1" }).catch((e: unknown) => e)).toBeInstanceOf(TaskNotFoundError);
    expect(a.requests).toHaveLength(1);
  });
});
