/**
 * OpenTelemetry spans for A2A calls, as a connect interceptor: one span per
 * call, and one per stream from its first call until its reader is done
 * with it, resumptions included (they are events of that span). The caller
 * hands in a tracer (`trace.getTracer(...)` of `@opentelemetry/api`, an
 * optional peer dependency), so nothing of OpenTelemetry is imported here
 * and apps that do not trace load nothing of it.
 *
 * Attributes follow the semantic conventions for RPC client spans
 * (`rpc.system`, `rpc.service`, `rpc.method`, `server.address`,
 * `server.port`, `error.type`) and for URLs (`url.full`, masked: origin and
 * path only), with the A2A facts under `a2a.*`. Error messages are not
 * recorded: interceptors see an error before the call runner has masked the
 * credentials a server may have echoed into it; its class and stable code are.
 */
import type { Interceptor, StreamRequest, UnaryRequest } from "@connectrpc/connect";
import type { A2AError } from "./errors/family.js";
import type { Binding } from "./base/bindings.js";
import { taskIdOf } from "./protocol/events.js";
import { callRecordKey, type CallRecord } from "./call/record.js";
import type { StreamWatcher } from "./call/stream-state.js";
import { sentUrlOf, targetOf } from "./call/target.js";
import { watchCall, type CallWatcher } from "./call/watch.js";
import { sendTraceContext } from "./observability.js";
import { isRecord } from "./base/is-record.js";
import { maskedHref, parsedUrl } from "./base/urls.js";

/**
 * Span attribute values, as OpenTelemetry takes them.
 * @category Interceptors and observability
 */
export type SpanAttributes = Record<string, string | number | boolean>;

/**
 * The part of an OpenTelemetry `Span` (`@opentelemetry/api`) that tracing uses.
 * @category Interceptors and observability
 */
export interface SpanLike {
  /** Sets one attribute. */
  setAttribute(key: string, value: string | number | boolean): unknown;
  /** Records an event at this moment. */
  addEvent(name: string, attributes?: SpanAttributes): unknown;
  /** Sets the status: `{ code: 2 }` is `SpanStatusCode.ERROR`. */
  setStatus(status: { code: number; message?: string }): unknown;
  /** Ends the span. */
  end(): unknown;
  /** The span's identity, propagated as W3C trace context when asked. */
  spanContext(): SpanContextLike;
}

/**
 * The part of an OpenTelemetry `SpanContext` that propagation uses.
 * @category Interceptors and observability
 */
export interface SpanContextLike {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
  /** W3C trace flags; 1 is sampled. */
  traceFlags: number;
  /** Vendor data, sent as `tracestate`. */
  traceState?:
    | {
        /** The `tracestate` header value. */
        serialize(): string;
      }
    | undefined;
}

/**
 * The part of an OpenTelemetry `Tracer` (`@opentelemetry/api`) that tracing uses: `trace.getTracer("my-app")` is one.
 * @category Interceptors and observability
 */
export interface TracerLike {
  /** Starts a span; `kind: 2` is `SpanKind.CLIENT`; `links` name the spans it follows from. */
  startSpan(name: string, options?: { kind?: number; attributes?: SpanAttributes; links?: SpanLinkLike[] }): SpanLike;
}

/**
 * The part of an OpenTelemetry `Link` that tracing uses: the span a
 * resumption's read (GetTask) was made for, its stream's.
 * @category Interceptors and observability
 */
export interface SpanLinkLike {
  /** The linked span's identity. */
  context: Pick<SpanContextLike, "traceId" | "spanId" | "traceFlags">;
}

/**
 * Options of `tracingInterceptor`.
 * @category Interceptors and observability
 */
export interface TracingOptions {
  /** Where spans come from, e.g. `trace.getTracer("my-app")` of `@opentelemetry/api`. */
  tracer: TracerLike;
  /**
   * Send each call's span as the server's parent, as W3C `traceparent` (and
   * `tracestate`) headers or gRPC metadata. A `traceparent` the call already
   * carries is left as it is. Default false.
   */
  propagate?: boolean | undefined;
  /** Record each stream event as an `rpc.message` span event (one small object per event). Default true. */
  messageEvents?: boolean | undefined;
  /** The binding to report on a transport built by hand that is not gRPC (those of `connect()` tell it themselves). */
  binding?: Binding | undefined;
}

// @opentelemetry/api's SpanKind.CLIENT and SpanStatusCode.ERROR.
const CLIENT = 2;
const ERROR = 2;

/** `rpc.system` by binding: the conventions' names where they have one. */
const RPC_SYSTEM: Record<Binding, string> = { GRPC: "grpc", JSONRPC: "jsonrpc", "HTTP+JSON": "a2a" };

/**
 * Traces every call with OpenTelemetry (see the module comment): span
 * `lf.a2a.v1.A2AService/<Operation>`, kind CLIENT, with `rpc.*`,
 * `server.*`, `url.full`, `a2a.binding`, `a2a.version` and `a2a.task.id`
 * once known; on failure status ERROR with `error.type` and `a2a.error.code`
 * (the error's stable code). A stream's span ends when the stream ends,
 * fails or its reader stops; its events are `rpc.message` events, and each
 * reconnection after a drop is an `a2a.resume` event (attempt, and the
 * drop's code) on the same span; the reads a resumption makes (GetTask,
 * the lookup of the message sent) are spans of their own, linked to it.
 *
 * @example
 * ```ts
 * import { trace } from "@opentelemetry/api";
 * import { connect, tracingInterceptor } from "a2a-connect";
 *
 * const tracing = tracingInterceptor({ tracer: trace.getTracer("my-app"), propagate: true });
 * const session = await connect("https://agent.example.com", { transport: { interceptors: [tracing] } });
 * ```
 * @category Interceptors and observability
 */
export function tracingInterceptor(options: TracingOptions): Interceptor {
  const { tracer } = options;
  const messageEvents = options.messageEvents ?? true;
  /** The span of each resumable stream this interceptor follows, by the stream's state. */
  const streams = new WeakMap<CallRecord, CallSpan>();
  return (next) => (req) => {
    // A resumable stream's record, which its calls share: only such a stream has watchers.
    const record = req.contextValues.get(callRecordKey);
    const followed = record?.watchers && record;
    const state = req.stream ? followed : undefined;
    const { binding, version } = targetOf(req, options.binding);
    let span = state && streams.get(state);
    try {
      if (span) {
        // A later call of a stream already followed (a resumption, a failover): the span names its interface now.
        span.setAttributes(targetAttributes(req, binding, version));
      } else {
        const attributes = targetAttributes(req, binding, version);
        attributes["rpc.service"] = req.service.typeName;
        attributes["rpc.method"] = req.method.name;
        const taskId = req.stream ? undefined : taskIdIn(req.message);
        if (taskId) attributes["a2a.task.id"] = taskId;
        // A read that a resumption makes for a stream follows from the stream's span.
        const links = state || !followed ? undefined : linkTo(streams.get(followed));
        span = new CallSpan(
          tracer.startSpan(`${req.service.typeName}/${req.method.name}`, { kind: CLIENT, attributes, ...(links && { links }) }),
          messageEvents,
          taskId,
        );
        if (state) {
          streams.set(state, span);
          state.watchers!.push(span);
        }
      }
    } catch {
      // A tracer that fails leaves the call untraced; it does not fail it (nor does it once the span is there).
      if (span === undefined) return next(req);
    }
    if (options.propagate) propagate(req.header, span.span);
    const s = span;
    const watcher: CallWatcher = {
      response: (message) => {
        s.sentTo(req);
        s.response(message);
      },
      event: (event) => s.event(event),
      end: (_outcome, error) => {
        s.sentTo(req);
        // A resumable stream's span ends with the stream as its reader sees it, not with one of its calls.
        if (!state) s.ended(error);
      },
    };
    return watchCall(req, () => next(req), watcher, binding);
  };
}

/** A link to `span`, the stream a resumption's read is made for; none when it is not traced here or has no context. */
function linkTo(span: CallSpan | undefined): SpanLinkLike[] | undefined {
  try {
    if (span === undefined) return undefined;
    const { traceId, spanId, traceFlags } = span.span.spanContext();
    return [{ context: { traceId, spanId, traceFlags } }];
  } catch {
    return undefined;
  }
}

/** Where a call goes, as attributes. */
function targetAttributes(req: UnaryRequest | StreamRequest, binding: Binding | undefined, version: string | undefined): SpanAttributes {
  const out: SpanAttributes = {};
  if (binding) {
    out["rpc.system"] = RPC_SYSTEM[binding];
    out["a2a.binding"] = binding;
  }
  if (version) out["a2a.version"] = version;
  const u = parsedUrl(req.url);
  if (u) {
    out["server.address"] = u.hostname.replace(/^\[(.*)\]$/, "$1");
    out["server.port"] = Number(u.port) || (u.protocol === "https:" ? 443 : 80);
    out["url.full"] = maskedHref(u);
  }
  return out;
}

/** One span: a call's, or a resumable stream's across its calls. */
class CallSpan implements StreamWatcher {
  private events = 0;
  private over = false;

  constructor(
    readonly span: SpanLike,
    private readonly messageEvents: boolean,
    private taskId: string | undefined,
  ) {}

  setAttributes(attributes: SpanAttributes): void {
    for (const [key, value] of Object.entries(attributes)) this.span.setAttribute(key, value);
  }

  response(message: unknown): void {
    this.sawTask(taskIdIn(message));
  }

  private sawTask(taskId: string | undefined): void {
    if (this.taskId || !taskId) return;
    this.taskId = taskId;
    this.span.setAttribute("a2a.task.id", taskId);
  }

  event(event: unknown): void {
    this.events++;
    if (!this.taskId) this.sawTask(taskIdIn(event));
    if (this.messageEvents) {
      const kind = isRecord(event) && isRecord(event.payload) ? event.payload.case : undefined;
      this.span.addEvent("rpc.message", {
        "rpc.message.type": "RECEIVED",
        "rpc.message.id": this.events,
        ...(typeof kind === "string" ? { "a2a.event": kind } : {}),
      });
    }
  }

  /** Where a call of this span went, when its transport chose the URL below the interceptors (call/target.ts). */
  sentTo(req: UnaryRequest | StreamRequest): void {
    const sent = sentUrlOf(req);
    const u = sent === req.url ? undefined : parsedUrl(sent);
    if (u) this.span.setAttribute("url.full", maskedHref(u));
  }

  resuming(attempt: number, drop: A2AError): void {
    this.span.addEvent("a2a.resume", { "a2a.resume.attempt": attempt, "error.type": drop.code });
  }

  ended(error: A2AError | undefined): void {
    if (this.over) return;
    this.over = true;
    if (this.events > 0) this.span.setAttribute("a2a.stream.events", this.events);
    if (error) {
      this.span.setAttribute("error.type", error.code);
      this.span.setAttribute("a2a.error.code", error.code);
      if (error.httpStatus !== undefined) this.span.setAttribute("http.response.status_code", error.httpStatus);
      if (error.grpcCode !== undefined) this.span.setAttribute("rpc.grpc.status_code", error.grpcCode);
      this.span.setStatus({ code: ERROR, message: `${error.name} (${error.code})` });
    }
    this.span.end();
  }
}

/** Messages whose `id` is the task's (elsewhere it is a push config's, or the field is `taskId`). */
const TASK_ID_AS_ID: ReadonlySet<string> = new Set([
  "lf.a2a.v1.Task",
  "lf.a2a.v1.GetTaskRequest",
  "lf.a2a.v1.CancelTaskRequest",
  "lf.a2a.v1.SubscribeToTaskRequest",
]);

/** The task a request, a response or an event is about, if it names one. */
function taskIdIn(m: unknown): string | undefined {
  if (!isRecord(m)) return undefined;
  if (isRecord(m.payload)) return taskIdOf(m as Parameters<typeof taskIdOf>[0]);
  const id = typeof m.taskId === "string" ? m.taskId : TASK_ID_AS_ID.has(m.$typeName as string) ? m.id : undefined;
  if (typeof id === "string" && id) return id;
  return isRecord(m.message) && typeof m.message.taskId === "string" ? m.message.taskId || undefined : undefined;
}

/**
 * Sets the span's W3C trace context on the request, unless it carries one.
 * A span that is not sampled by a real tracer (the API's no-op one) has an
 * invalid, all-zero context, and sends none; nor does a span whose context
 * cannot be read.
 */
function propagate(header: Headers, span: SpanLike): void {
  if (header.has("traceparent")) return;
  let ctx: SpanContextLike;
  try {
    ctx = span.spanContext();
  } catch {
    return;
  }
  const traceparent = `00-${ctx.traceId}-${ctx.spanId}-${(ctx.traceFlags & 0xff).toString(16).padStart(2, "0")}`;
  let state: string | undefined;
  try {
    state = ctx.traceState?.serialize();
  } catch {
    // The traceparent goes without its vendor data.
  }
  sendTraceContext(header, traceparent, state);
}
