/**
 * The tracing interceptor on a fake JSON-RPC agent, for what a real peer
 * will not do: a stream that drops and is resumed (the resumption is an
 * event of the stream's one span), one that cannot be resumed, a reader that
 * stops early; and the W3C trace context it propagates when asked.
 */
import type { ServerResponse } from "node:http";
import { SpanStatusCode, trace, type Tracer } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  A2AClient,
  StreamResumeError,
  TaskNotFoundError,
  createJsonRpcTransport,
  tracingInterceptor,
  userMessage,
  type ResumeOptions,
  type SpanLike,
  type TracerLike,
  type TracingOptions,
} from "../../../src/index.js";
import { closed, sendJson, sseFrame, startFakeServer, startSse, type FakeServer } from "../../support/fake-server.js";

const FAST: ResumeOptions = { backoff: { initialMs: 1, maxMs: 1 } };
const task = (state: string) => ({ id: "t1", contextId: "c1", status: { state: `TASK_STATE_${state}` } });
const snapshot = (state: string) => ({ task: task(state) });
const status = (state: string) => ({ statusUpdate: { taskId: "t1", contextId: "c1", status: { state: `TASK_STATE_${state}` } } });

let srv: FakeServer;
const exporter = new InMemorySpanExporter();
// @opentelemetry/api's Tracer is what the interceptor takes.
const tracer: Tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("tests");
const asTaken: TracerLike = tracer;

beforeAll(async () => {
  srv = await startFakeServer();
});
beforeEach(() => {
  exporter.reset();
  srv.requests.length = 0;
});
afterAll(() => srv.close());

type Answer = (res: ServerResponse, id: number) => void;

/** Answers the JSON-RPC methods in `script` in order of arrival, per method. */
function serve(script: Record<string, Answer[]>): void {
  const counts: Record<string, number> = {};
  srv.handle((_req, res, body) => {
    const { id, method } = JSON.parse(body) as { id: number; method: string };
    const n = (counts[method] = (counts[method] ?? 0) + 1) - 1;
    const answer = script[method]?.[n];
    if (!answer) throw new Error(`unexpected ${method} #${n}`);
    answer(res, id);
  });
}

const rpc = (id: number, result: unknown) => ({ jsonrpc: "2.0", id, result });
/** An SSE stream of `events`, then the end, a cut connection, or silence. */
const stream =
  (events: unknown[], then: "end" | "cut" | "hold"): Answer =>
  (res, id) => {
    startSse(res);
    for (const e of events) res.write(sseFrame(rpc(id, e)));
    if (then === "end") res.end();
    else if (then === "cut") res.write("", () => res.socket?.destroy());
  };
const json =
  (result: unknown): Answer =>
  (res, id) =>
    sendJson(res, 200, rpc(id, result));

function client(options: Partial<TracingOptions> = {}): A2AClient {
  return new A2AClient(createJsonRpcTransport({ baseUrl: srv.url, interceptors: [tracingInterceptor({ tracer: asTaken, ...options })] }));
}

const STREAM = "lf.a2a.v1.A2AService/SendStreamingMessage";

describe("a resumed stream", () => {
  it("is one span; the resumption is an a2a.resume event on it, between the events of both streams", async () => {
    serve({
      SendStreamingMessage: [stream([snapshot("WORKING")], "cut")],
      GetTask: [json(task("WORKING"))],
      SubscribeToTask: [stream([snapshot("WORKING"), status("COMPLETED")], "end")],
    });
    const events = [];
    for await (const e of client().sendStreamingMessage({ message: userMessage("hi") }, { resume: FAST })) events.push(e);
    expect(events).toHaveLength(3);

    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(["lf.a2a.v1.A2AService/GetTask", STREAM]);
    const span = spans[1]!;
    expect(span.events.map((e) => [e.name, e.attributes?.["a2a.event"] ?? e.attributes?.["a2a.resume.attempt"]])).toEqual([
      ["rpc.message", "task"],
      ["a2a.resume", 1],
      ["rpc.message", "task"],
      ["rpc.message", "statusUpdate"],
    ]);
    expect(span.events[1]!.attributes).toMatchObject({ "error.type": "CONNECTION_FAILED" });
    expect(span.attributes).toMatchObject({ "a2a.task.id": "t1", "a2a.stream.events": 3 });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    // The span is the one the stream's reader saw: it ends with the last event, not with the first stream.
    expect(span.endTime[0] * 1e9 + span.endTime[1]).toBeGreaterThanOrEqual(spans[0]!.endTime[0] * 1e9 + spans[0]!.endTime[1]);
  });

  it("the reads the resumption makes (the lookup of the message sent, GetTask) are spans linked to the stream's span", async () => {
    const sent = userMessage("hi", { messageId: "m1", contextId: "c1" });
    const listed = { ...task("WORKING"), history: [{ messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] }] };
    serve({
      // Cut before any event: the task id is not known, so the agent is asked whether the message started one.
      SendStreamingMessage: [stream([], "cut")],
      ListTasks: [json({ tasks: [listed], nextPageToken: "", pageSize: 50, totalSize: 1 })],
      GetTask: [json(task("WORKING")), json(task("COMPLETED"))],
      SubscribeToTask: [stream([snapshot("WORKING"), status("COMPLETED")], "end")],
    });
    for await (const _ of client().sendStreamingMessage({ message: sent }, { resume: FAST }));

    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(["lf.a2a.v1.A2AService/ListTasks", "lf.a2a.v1.A2AService/GetTask", STREAM]);
    const streamContext = spans[2]!.spanContext();
    for (const read of spans.slice(0, 2)) {
      expect(
        read.links.map((l) => [l.context.traceId, l.context.spanId]),
        read.name,
      ).toEqual([[streamContext.traceId, streamContext.spanId]]);
    }
    // A call of its own carries no link.
    await client().getTask({ id: "t1" });
    expect(exporter.getFinishedSpans().at(-1)!.links).toEqual([]);
  });

  it("that cannot be resumed ends its span with the error that ended the stream", async () => {
    serve({
      SendStreamingMessage: [stream([snapshot("WORKING")], "cut")],
      GetTask: [(res, id) => sendJson(res, 200, { jsonrpc: "2.0", id, error: { code: -32001, message: "no such task" } })],
    });
    const it = client()
      .sendStreamingMessage({ message: userMessage("hi") }, { resume: FAST })
      [Symbol.asyncIterator]();
    expect((await it.next()).done).toBe(false);
    await expect(it.next()).rejects.toBeInstanceOf(TaskNotFoundError);
    const span = exporter.getFinishedSpans().find((s) => s.name === STREAM)!;
    expect(span.events.map((e) => e.name)).toEqual(["rpc.message", "a2a.resume"]);
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes["a2a.error.code"]).toBe("TASK_NOT_FOUND");
  });

  it("whose reader stops early ends its span, without an error", async () => {
    let gone: Promise<void> | undefined;
    serve({
      SendStreamingMessage: [
        (res, id) => {
          stream([snapshot("WORKING")], "hold")(res, id);
          gone = closed(res);
        },
      ],
    });
    for await (const _ of client().sendStreamingMessage({ message: userMessage("hi") }, { resume: FAST })) break;
    await gone;
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe(STREAM);
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("without resumption: the span ends with the stream, events recorded unless turned off", async () => {
    serve({ SendStreamingMessage: [stream([snapshot("WORKING"), status("COMPLETED")], "end")] });
    for await (const _ of client({ messageEvents: false }).sendStreamingMessage({ message: userMessage("hi") }, { resume: false }));
    const [span] = exporter.getFinishedSpans();
    expect(span?.events).toEqual([]);
    expect(span?.attributes["a2a.stream.events"]).toBe(2);
  });
});

describe("a stream that does not resume", () => {
  it("and ends before its task settled: the span ends with the StreamResumeError its reader gets", async () => {
    serve({ SendStreamingMessage: [stream([snapshot("WORKING")], "end")] });
    const it = client()
      .sendStreamingMessage({ message: userMessage("hi") }, { resume: false })
      [Symbol.asyncIterator]();
    expect((await it.next()).done).toBe(false);
    await expect(it.next()).rejects.toBeInstanceOf(StreamResumeError);
    const [span] = exporter.getFinishedSpans();
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes).toMatchObject({ "error.type": "STREAM_RESUME_FAILED", "a2a.error.code": "STREAM_RESUME_FAILED" });
  });
});

describe("propagation", () => {
  it("sends the call's span as traceparent when asked, and only then", async () => {
    serve({ GetTask: [json(task("COMPLETED")), json(task("COMPLETED")), json(task("COMPLETED"))] });
    await client({ propagate: true }).getTask({ id: "t1" });
    const [span] = exporter.getFinishedSpans();
    const ctx = span!.spanContext();
    expect(srv.requests[0]!.headers.traceparent).toBe(`00-${ctx.traceId}-${ctx.spanId}-01`);

    await client().getTask({ id: "t1" });
    expect(srv.requests[1]!.headers.traceparent).toBeUndefined();

    // A traceparent the call carries is left alone.
    const own = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    await client({ propagate: true }).getTask({ id: "t1" }, { headers: { traceparent: own } });
    expect(srv.requests[2]!.headers.traceparent).toBe(own);
  });

  it("sends nothing for the API's no-op tracer, whose spans have no valid context", async () => {
    serve({ GetTask: [json(task("COMPLETED"))] });
    const noop = trace.getTracerProvider().getTracer("none");
    const c = new A2AClient(
      createJsonRpcTransport({ baseUrl: srv.url, interceptors: [tracingInterceptor({ tracer: noop, propagate: true })] }),
    );
    expect((await c.getTask({ id: "t1" })).id).toBe("t1");
    expect(srv.requests[0]!.headers.traceparent).toBeUndefined();
  });

  it("a tracer that cannot start a span, or whose span cannot give its context, leaves the call untraced, not failed", async () => {
    const context = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 1 };
    const span: SpanLike = { setAttribute: () => 0, addEvent: () => 0, setStatus: () => 0, end: () => 0, spanContext: () => context };
    const down = (): never => {
      throw new Error("tracer down");
    };
    const tracers: TracerLike[] = [{ startSpan: down }, { startSpan: () => ({ ...span, spanContext: down }) }];
    for (const broken of tracers) {
      serve({ GetTask: [json(task("COMPLETED"))], SendStreamingMessage: [stream([status("COMPLETED")], "end")] });
      const c = new A2AClient(
        createJsonRpcTransport({ baseUrl: srv.url, interceptors: [tracingInterceptor({ tracer: broken, propagate: true })] }),
      );
      expect((await c.getTask({ id: "t1" })).id).toBe("t1");
      const events = [];
      for await (const e of c.sendStreamingMessage({ message: userMessage("hi") }, { resume: false })) events.push(e);
      expect(events).toHaveLength(1);
      expect(srv.requests.map((r) => r.headers.traceparent)).toEqual([undefined, undefined]);
      srv.requests.length = 0;
    }
  });

  it("a tracestate that is not W3C's (a line break, a bad member) is left out; the traceparent and the call go on", async () => {
    const sent = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 1 };
    for (const tracestate of ["vendor=a\r\nx-injected: 1", "Vendor=a", "vendor=a,other", "good=1,x@y=a b"]) {
      serve({ GetTask: [json(task("COMPLETED"))] });
      const own: TracerLike = {
        startSpan: () => ({
          setAttribute: () => 0,
          addEvent: () => 0,
          setStatus: () => 0,
          end: () => 0,
          spanContext: () => ({ ...sent, traceState: { serialize: () => tracestate } }),
        }),
      };
      const c = new A2AClient(
        createJsonRpcTransport({ baseUrl: srv.url, interceptors: [tracingInterceptor({ tracer: own, propagate: true })] }),
      );
      expect((await c.getTask({ id: "t1" })).id, tracestate).toBe("t1");
      expect(srv.requests.at(-1)!.headers.traceparent).toBe(`00-${sent.traceId}-${sent.spanId}-01`);
      expect(srv.requests.at(-1)!.headers.tracestate).toBe(tracestate.startsWith("good") ? tracestate : undefined);
    }
  });

  it("a tracer that throws does not fail the call", async () => {
    serve({ GetTask: [json(task("COMPLETED"))] });
    const broken: TracerLike = {
      startSpan: () => ({
        setAttribute: () => undefined,
        addEvent: () => undefined,
        setStatus: () => undefined,
        end: () => {
          throw new Error("exporter down");
        },
        spanContext: () => ({ traceId: "0".repeat(32), spanId: "0".repeat(16), traceFlags: 0 }),
      }),
    };
    const c = new A2AClient(createJsonRpcTransport({ baseUrl: srv.url, interceptors: [tracingInterceptor({ tracer: broken })] }));
    expect((await c.getTask({ id: "t1" })).id).toBe("t1");
  });
});
