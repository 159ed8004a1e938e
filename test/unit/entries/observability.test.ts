/**
 * The logging and trace-context interceptors, on fake servers: what reaches
 * the wire on each binding, and what a log entry holds (and never holds).
 */
import { createServer, type IncomingHttpHeaders, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Interceptor } from "@connectrpc/connect";
import {
  A2AClient,
  AbortedError,
  StreamResumeError,
  TaskNotFoundError,
  createGrpcTransport,
  createJsonRpcTransport,
  createNodeHttpClient,
  createRestTransport,
  isTraceparent,
  loggingInterceptor,
  newTraceparent,
  traceparentInterceptor,
  type CallLogEntry,
  type TraceContext,
} from "../../../src/node.js";
import { closed, sendJson, sseFrame, startFakeServer, startSse, type FakeServer } from "../../support/fake-server.js";

const SECRET = "Bearer s3cr3t-token-value";
const TASK = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } };

describe("newTraceparent and isTraceparent", () => {
  it("makes W3C traceparents: 00-<32 hex>-<16 hex>-01, fresh each time", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const tp = newTraceparent();
      expect(tp).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(isTraceparent(tp)).toBe(true);
      seen.add(tp);
    }
    expect(seen.size).toBe(50);
  });

  it("a new span of a given trace keeps the trace id", () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    expect(newTraceparent(traceId)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect(() => newTraceparent("XYZ")).toThrow(TypeError);
  });

  it("refuses malformed values", () => {
    expect(isTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")).toBe(true);
    for (const bad of [
      "",
      "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
      "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\nx: y",
    ]) {
      expect(isTraceparent(bad), bad).toBe(false);
    }
  });
});

// --- HTTP bindings ---------------------------------------------------------------

let http: FakeServer;
beforeAll(async () => {
  http = await startFakeServer();
});
afterEach(() => {
  http.requests.length = 0;
});
afterAll(() => http.close());

/** Answers JSON-RPC and HTTP+JSON GetTask with a task. */
function answerTask(): void {
  http.handle((req, res, body) => {
    if (req.url?.startsWith("/rpc")) sendJson(res, 200, { jsonrpc: "2.0", id: (JSON.parse(body) as { id: number }).id, result: TASK });
    else sendJson(res, 200, TASK);
  });
}

function httpClient(binding: "JSONRPC" | "HTTP+JSON", interceptors: Interceptor[], headers?: HeadersInit): A2AClient {
  return new A2AClient(
    binding === "JSONRPC"
      ? createJsonRpcTransport({ baseUrl: `${http.url}/rpc`, interceptors, headers })
      : createRestTransport({ baseUrl: http.url, interceptors, headers }),
  );
}

describe.each(["JSONRPC", "HTTP+JSON"] as const)("traceparentInterceptor (%s)", (binding) => {
  it("sends traceparent and tracestate on every call", async () => {
    answerTask();
    const parents: string[] = [];
    const client = httpClient(binding, [
      traceparentInterceptor(() => {
        parents.push(newTraceparent());
        return { traceparent: parents.at(-1)!, tracestate: "vendor=abc" };
      }),
    ]);
    await client.getTask({ id: "t1" });
    await client.getTask({ id: "t1" });
    expect(http.requests.map((r) => r.headers.traceparent)).toEqual(parents);
    expect(http.requests.map((r) => r.headers.tracestate)).toEqual(["vendor=abc", "vendor=abc"]);
  });

  it("sends nothing without a context or with a malformed one; a per-call traceparent wins", async () => {
    answerTask();
    let next: string | undefined;
    const client = httpClient(binding, [traceparentInterceptor(() => next)]);
    await client.getTask({ id: "t1" });
    next = "not-a-traceparent";
    await client.getTask({ id: "t1" });
    next = newTraceparent();
    const own = newTraceparent();
    await client.getTask({ id: "t1" }, { headers: { traceparent: own } });
    expect(http.requests.map((r) => r.headers.traceparent)).toEqual([undefined, undefined, own]);
    expect(http.requests.every((r) => r.headers.tracestate === undefined)).toBe(true);
  });

  it("a malformed tracestate is left out and a get that throws sends nothing: the call goes on without its trace context", async () => {
    answerTask();
    const tp = newTraceparent();
    const contexts: (() => TraceContext)[] = [
      () => ({ traceparent: tp, tracestate: "k=v\r\nx-injected: 1" }),
      () => {
        throw new TypeError("no active span");
      },
    ];
    let get = contexts[0]!;
    const client = httpClient(binding, [traceparentInterceptor(() => get())]);
    expect((await client.getTask({ id: "t1" })).id).toBe("t1");
    get = contexts[1]!;
    expect((await client.getTask({ id: "t1" })).id).toBe("t1");
    expect(http.requests.map((r) => [r.headers.traceparent, r.headers.tracestate, r.headers["x-injected"]])).toEqual([
      [tp, undefined, undefined],
      [undefined, undefined, undefined],
    ]);
  });
});

describe.each(["JSONRPC", "HTTP+JSON"] as const)("loggingInterceptor (%s)", (binding) => {
  it("logs method, host, binding, duration and outcome of unary calls, and never a header value", async () => {
    answerTask();
    const entries: CallLogEntry[] = [];
    const client = httpClient(binding, [loggingInterceptor((e) => entries.push(e), { binding })], { Authorization: SECRET });
    await client.getTask({ id: "t1" }, { headers: { "X-Api-Key": "key-123" } });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ method: "GetTask", stream: false, binding, host: `127.0.0.1:${http.port}`, outcome: "ok" });
    expect(entries[0]!.durationMs).toBeGreaterThanOrEqual(0);
    expect(entries[0]!.errorName).toBeUndefined();
    expect(http.requests[0]!.headers.authorization).toBe(SECRET);
    const logged = JSON.stringify(entries);
    expect(logged).not.toContain("s3cr3t");
    expect(logged).not.toContain("key-123");
  });

  it("never logs the URL's user info or query", async () => {
    answerTask();
    const entries: CallLogEntry[] = [];
    const lines: string[] = [];
    const info = vi.spyOn(console, "info").mockImplementation((line: string) => void lines.push(line));
    try {
      const base = binding === "JSONRPC" ? `${http.url}/rpc` : http.url;
      const baseUrl = `${base.replace("://", "://ann:pw-s3cr3t@")}?api_key=key-456`;
      const interceptors = [loggingInterceptor((e) => entries.push(e), { binding }), loggingInterceptor()];
      const transport = (binding === "JSONRPC" ? createJsonRpcTransport : createRestTransport)({
        baseUrl,
        interceptors,
        httpClient: createNodeHttpClient(),
      });
      await new A2AClient(transport).getTask({ id: "t1" }).catch(() => {});
    } finally {
      info.mockRestore();
    }
    expect(entries).toHaveLength(1);
    expect(entries[0]!.host).toBe(`127.0.0.1:${http.port}`);
    expect(entries[0]!.url).toBe(binding === "JSONRPC" ? `${http.url}/rpc` : `${http.url}/tasks/t1`);
    expect(lines).toHaveLength(1);
    for (const text of [JSON.stringify(entries), ...lines])
      for (const s of ["ann", "pw-s3cr3t", "key-456", "api_key"]) expect(text).not.toContain(s);
  });

  it("logs the error class of a failed call", async () => {
    http.handle((req, res, body) => {
      if (req.url?.startsWith("/rpc")) {
        const { id } = JSON.parse(body) as { id: number };
        sendJson(res, 200, { jsonrpc: "2.0", id, error: { code: -32001, message: `no task; you sent ${SECRET}` } });
      } else sendJson(res, 404, { error: { code: 404, status: "NOT_FOUND", message: "no task" } });
    });
    const entries: CallLogEntry[] = [];
    const client = httpClient(binding, [loggingInterceptor((e) => entries.push(e))], { Authorization: SECRET });
    await expect(client.getTask({ id: "gone" })).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(entries).toEqual([expect.objectContaining({ method: "GetTask", outcome: "error", errorName: "TaskNotFoundError" })]);
    expect(JSON.stringify(entries)).not.toContain("s3cr3t");
  });

  it("logs a stream once, at its end, with the number of events", async () => {
    http.handle((req, res, body) => {
      const wrap = (result: unknown) =>
        req.url?.startsWith("/rpc") ? { jsonrpc: "2.0", id: (JSON.parse(body) as { id: number }).id, result } : result;
      startSse(res);
      res.write(sseFrame(wrap({ task: { ...TASK, status: { state: "TASK_STATE_WORKING" } } })));
      res.write(sseFrame(wrap({ statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } } })));
      res.end(sseFrame(wrap({ statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } } })));
    });
    const entries: CallLogEntry[] = [];
    const client = httpClient(binding, [loggingInterceptor((e) => entries.push(e))], { Authorization: SECRET });
    const events = [];
    for await (const e of client.sendStreamingMessage({
      message: { messageId: "m", parts: [{ content: { case: "text", value: "hi" } }] },
    })) {
      events.push(e);
      expect(entries).toEqual([]);
    }
    expect(events).toHaveLength(3);
    expect(entries).toEqual([expect.objectContaining({ method: "SendStreamingMessage", stream: true, outcome: "ok", events: 3 })]);
  });

  it("a stream that does not resume and ends before its task settled is logged as the error its reader gets", async () => {
    http.handle((req, res, body) => {
      const wrap = (result: unknown) =>
        req.url?.startsWith("/rpc") ? { jsonrpc: "2.0", id: (JSON.parse(body) as { id: number }).id, result } : result;
      startSse(res);
      res.end(sseFrame(wrap({ task: { ...TASK, status: { state: "TASK_STATE_WORKING" } } })));
    });
    const entries: CallLogEntry[] = [];
    const client = httpClient(binding, [loggingInterceptor((e) => entries.push(e))]);
    await expect(
      (async () => {
        for await (const _ of client.subscribeToTask({ id: "t1" }, { resume: false }));
      })(),
    ).rejects.toBeInstanceOf(StreamResumeError);
    expect(entries).toEqual([
      expect.objectContaining({
        method: "SubscribeToTask",
        outcome: "error",
        errorName: "StreamResumeError",
        errorCode: "STREAM_RESUME_FAILED",
        events: 1,
      }),
    ]);
  });

  it("a stream the reader leaves early is logged as aborted, with the events seen", async () => {
    let gone: Promise<void> | undefined;
    http.handle((req, res, body) => {
      const wrap = (result: unknown) =>
        req.url?.startsWith("/rpc") ? { jsonrpc: "2.0", id: (JSON.parse(body) as { id: number }).id, result } : result;
      startSse(res);
      res.write(sseFrame(wrap({ task: { ...TASK, status: { state: "TASK_STATE_WORKING" } } })));
      gone = closed(res);
    });
    const entries: CallLogEntry[] = [];
    const client = httpClient(binding, [loggingInterceptor((e) => entries.push(e))]);
    for await (const _ of client.subscribeToTask({ id: "t1" }, { resume: false })) break;
    await gone;
    expect(entries).toEqual([expect.objectContaining({ method: "SubscribeToTask", outcome: "aborted", events: 1 })]);
  });

  it("a call the caller aborts is logged as aborted", async () => {
    const controller = new AbortController();
    // Never answers; aborted once the server has the request, so that it is not the next test's.
    http.handle(() => controller.abort());
    const entries: CallLogEntry[] = [];
    const client = httpClient(binding, [loggingInterceptor((e) => entries.push(e))]);
    const call = client.getTask({ id: "t1" }, { signal: controller.signal });
    await expect(call).rejects.toBeInstanceOf(AbortedError);
    expect(entries).toEqual([expect.objectContaining({ method: "GetTask", outcome: "aborted", errorName: "AbortedError" })]);
  });
});

describe("loggingInterceptor's default output", () => {
  it("is one console.info line without secrets; a throwing logger does not fail the call", async () => {
    answerTask();
    const info = vi.spyOn(console, "info").mockImplementation(() => undefined);
    try {
      const client = httpClient("JSONRPC", [loggingInterceptor()], { Authorization: SECRET });
      await client.getTask({ id: "t1" });
      expect(info).toHaveBeenCalledTimes(1);
      const line = String(info.mock.calls[0]![0]);
      // A transport built by hand: the version from its A2A-Version header, the masked URL.
      expect(line).toMatch(/^a2a GetTask 1\.0 http:\/\/127\.0\.0\.1:\d+\/\S* ok \d+\.\dms$/);
      expect(line).not.toContain("s3cr3t");
    } finally {
      info.mockRestore();
    }
    const throwing = httpClient("JSONRPC", [
      loggingInterceptor(() => {
        throw new Error("logger down");
      }),
    ]);
    expect((await throwing.getTask({ id: "t1" })).id).toBe("t1");
  });
});

// --- gRPC ----------------------------------------------------------------------------

describe("gRPC", () => {
  const seen: IncomingHttpHeaders[] = [];
  const sessions = new Set<ServerHttp2Session>();
  const h2 = createServer();
  h2.on("session", (s) => {
    sessions.add(s);
    s.on("close", () => sessions.delete(s));
  });
  h2.on("stream", (stream, headers) => {
    seen.push(headers);
    stream.on("data", () => undefined);
    stream.on("end", () => {
      // Trailers-only: TASK_NOT_FOUND as NOT_FOUND.
      stream.respond(
        { ":status": 200, "content-type": "application/grpc", "grpc-status": "5", "grpc-message": "no task" },
        { endStream: true },
      );
    });
  });
  let address = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => h2.listen(0, "127.0.0.1", resolve));
    address = `127.0.0.1:${(h2.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of sessions) s.destroy();
    await new Promise<void>((resolve) => h2.close(() => resolve()));
  });

  it("traceparent and tracestate travel as metadata; the logger sees the binding and the error class", async () => {
    const tp = newTraceparent();
    const entries: CallLogEntry[] = [];
    const order: string[] = [];
    const probe: Interceptor = (next) => (req) => {
      order.push(`probe saw ${req.header.get("traceparent") === tp ? "traceparent" : "nothing"}`);
      return next(req);
    };
    const client = new A2AClient(
      createGrpcTransport({
        baseUrl: address,
        headers: { Authorization: SECRET },
        interceptors: [
          loggingInterceptor((e) => entries.push(e)),
          traceparentInterceptor(() => ({ traceparent: tp, tracestate: "k=v" })),
          probe,
        ],
      }),
    );
    await expect(client.getTask({ id: "t1" })).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(order).toEqual(["probe saw traceparent"]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.traceparent).toBe(tp);
    expect(seen[0]!.tracestate).toBe("k=v");
    expect(seen[0]!.authorization).toBe(SECRET);
    expect(entries).toEqual([
      expect.objectContaining({ method: "GetTask", binding: "GRPC", host: address, outcome: "error", errorName: "TaskNotFoundError" }),
    ]);
    expect(JSON.stringify(entries)).not.toContain("s3cr3t");
  });
});
