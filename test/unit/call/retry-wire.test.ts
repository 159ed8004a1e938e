/**
 * Retries as the agent sees them, over JSON-RPC and HTTP+JSON to fake
 * servers on 127.0.0.1: a 503 with Retry-After is waited out and the same
 * message sent again, a refused connection is tried again, a server that
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
import { sendJson, startFakeServer, type FakeServer } from "../../support/fake-server.js";

type HttpBinding = "JSONRPC" | "HTTP+JSON";
const TASK = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } };

let srv: FakeServer;
beforeEach(async () => {
  srv = await startFakeServer();
});
afterEach(async () => {
  vi.restoreAllMocks();
  vi.useRealTimers();
  await srv.close();
});

function clientOf(binding: HttpBinding, retry: RetryPolicy, baseUrl = srv.url, interceptors: Interceptor[] = []): A2AClient {
  const options = { baseUrl, interceptors };
  return new A2AClient(binding === "JSONRPC" ? createJsonRpcTransport(options) : createRestTransport(options), { retry });
}

/** A successful answer carrying `result` as the binding lays it out. */
function ok(binding: HttpBinding, body: string, result: unknown): unknown {
  return binding === "JSONRPC" ? { jsonrpc: "2.0", id: (JSON.parse(body) as { id: number }).id, result } : result;
}

/** The messageId of each SendMessage the server received. */
function messageIds(binding: HttpBinding): string[] {
  return srv.requests.map((r) => {
    const body = JSON.parse(r.body) as { params?: { message: { messageId: string } }; message?: { messageId: string } };
    return (binding === "JSONRPC" ? body.params : body)!.message!.messageId;
  });
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
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    srv.handle((_req, res, body) => {
      if (srv.requests.length === 1) {
        res.writeHead(503, { "Retry-After": "2", "Content-Type": "text/plain" });
        res.end("busy");
      } else sendJson(res, 200, ok(binding, body, { task: TASK }));
    });
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
    expect(srv.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await until(() => result !== undefined, "the answer");
    await call;
    const ids = messageIds(binding);
    expect(ids).toHaveLength(2);
    expect(ids[0]).toMatch(/\S/);
    expect(ids[1]).toBe(ids[0]);
  });

  it("a refused connection is tried again, each attempt with the same messageId", async () => {
    const closed = await startFakeServer();
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
    const c = clientOf(binding, { attempts: 5, initialDelayMs: 1 });
    srv.handle((req) => req.socket.destroy());
    expect(await c.sendMessage({ message: userMessage("hi") }).catch((e: unknown) => e)).toBeInstanceOf(ConnectionError);
    expect(srv.requests).toHaveLength(1);
    srv.requests.length = 0;
    srv.handle((_req, res) => sendJson(res, 502, { error: "upstream failed" }));
    expect(await c.sendMessage({ message: userMessage("hi") }).catch((e: unknown) => e)).toBeInstanceOf(ServerError);
    expect(srv.requests).toHaveLength(1);
    // The same failures on a read are tried again.
    srv.requests.length = 0;
    srv.handle((req) => req.socket.destroy());
    expect(await c.getTask({ id: "t1" }).catch((e: unknown) => e)).toBeInstanceOf(ConnectionError);
    expect(srv.requests).toHaveLength(5);
  });

  it('retryWrites: "transient" sends it again after the cut, with the same messageId on the wire', async () => {
    srv.handle((req, res, body) => {
      if (srv.requests.length === 1) req.socket.destroy();
      else sendJson(res, 200, ok(binding, body, { task: TASK }));
    });
    const c = clientOf(binding, { initialDelayMs: 1, retryWrites: "transient" });
    const res = await c.sendMessage({ message: userMessage("hi") });
    expect(res.payload.case).toBe("task");
    const ids = messageIds(binding);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(ids[0]);
  });

  it("an error that is not transient (TaskNotFound, even with 503 but no Retry-After) ends the call", async () => {
    srv.handle((_req, res, body) =>
      binding === "JSONRPC"
        ? sendJson(res, 200, {
            jsonrpc: "2.0",
            id: (JSON.parse(body) as { id: number }).id,
            error: { code: -32001, message: "no such task" },
          })
        : sendJson(res, 404, {
            error: {
              code: 404,
              status: "NOT_FOUND",
              message: "no such task",
              details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" }],
            },
          }),
    );
    const c = clientOf(binding, { attempts: 5, initialDelayMs: 1 });
    expect(await c.getTask({ id: "t1" }).catch((e: unknown) => e)).toBeInstanceOf(TaskNotFoundError);
    expect(srv.requests).toHaveLength(1);
  });
});
