/**
 * Interceptor recipes for logs and trace context, with no tracing library
 * behind them (OpenTelemetry spans: tracing.ts). Both are plain connect
 * interceptors, so they work on every binding: pass them in a transport's
 * `interceptors` (or in `connect(url, { transport: { interceptors } })`).
 */
import type { Interceptor } from "@connectrpc/connect";
import type { Binding } from "./base/bindings.js";
import { sentUrlOf, targetOf } from "./call/target.js";
import { watchCall } from "./call/watch.js";
import { maskedHref, parsedUrl } from "./base/urls.js";

/**
 * One finished call. It holds no header, body or query string, so neither
 * credentials nor content can reach a log through it.
 * @category Interceptors and observability
 */
export interface CallLogEntry {
  /** The A2A operation, as the proto names it: `SendMessage`, `ListTasks`, ... */
  method: string;
  /** Whether the call was one of the two streaming operations. */
  stream: boolean;
  /**
   * The binding of the interface the call went to. Always known on the
   * transports `connect()` builds (after a failover, the new interface's);
   * on a transport built by hand, when the logger was told it or the request
   * shows it (gRPC).
   */
  binding: Binding | undefined;
  /** The A2A protocol version the call spoke ("1.0", "0.3"), as its interface declares it or its `A2A-Version` header says. */
  version: string | undefined;
  /** The URL the call went to, masked: origin and path only (no user info, no query string). */
  url: string;
  /** Host (and port) the call went to; no path, no query. */
  host: string;
  /** Start to end: the response for unary calls, the last event for streams. */
  durationMs: number;
  /**
   * "ok"; "error" when the call failed (also a stream with `resume: false`
   * that ended before its task settled, as its reader is told); "aborted"
   * when it was canceled: the caller's signal, or a stream closed before its
   * end (a stream closed right after a final or interrupted state, as the
   * client does, is "ok").
   */
  outcome: "ok" | "error" | "aborted";
  /** The class of the error, as this package names it (`TaskNotFoundError`, ...). */
  errorName?: string | undefined;
  /** The error's stable code (`TASK_NOT_FOUND`, ...; see `A2AErrorCode`). */
  errorCode?: string | undefined;
  /** Streams: the events received. */
  events?: number | undefined;
}

/** Options of `loggingInterceptor`. @category Interceptors and observability */
export interface LoggingOptions {
  /** The binding to report on a transport built by hand that is not gRPC (those of `connect()` tell it themselves). */
  binding?: Binding | undefined;
  /** The clock; default `performance.now()`. */
  now?: (() => number) | undefined;
}

function defaultLog(entry: CallLogEntry): void {
  console.info(callLogLine(entry));
}

/**
 * The one line `loggingInterceptor` writes for a call by default:
 * `a2a SendMessage JSONRPC 1.0 https://agent.example.com/a2a ok 42.0ms`,
 * with the error's class and a stream's event count in parentheses.
 */
export function callLogLine(entry: CallLogEntry): string {
  const extra = [entry.errorName, entry.events === undefined ? undefined : `${entry.events} events`].filter(Boolean).join(", ");
  const via = [entry.binding, entry.version].filter(Boolean).join(" ");
  return `a2a ${entry.method}${via ? ` ${via}` : ""} ${entry.url} ${entry.outcome} ${entry.durationMs.toFixed(1)}ms${extra ? ` (${extra})` : ""}`;
}

/**
 * Logs one `CallLogEntry` per call when it ends (streams: when the last event
 * arrived, the stream failed or its reader stopped, with the event count).
 * `log` defaults to a one-line `console.info`. Only the operation, binding,
 * version, masked URL, timing, outcome and error class and code are logged:
 * never headers, bodies or URLs' queries and user info, so no secret can leak.
 * @example
 * ```ts
 * import { connect, loggingInterceptor } from "a2a-connect";
 *
 * // One line per call on console.info, e.g. "a2a SendMessage JSONRPC 1.0 https://agent.example.com/a2a ok 42.0ms".
 * const session = await connect("https://agent.example.com", { transport: { interceptors: [loggingInterceptor()] } });
 * // Or entries of your own logger:
 * const logged = await connect("https://agent.example.com", {
 *   transport: { interceptors: [loggingInterceptor((entry) => console.log(JSON.stringify(entry)))] },
 * });
 * ```
 * @category Interceptors and observability
 */
export function loggingInterceptor(log: (entry: CallLogEntry) => void = defaultLog, options: LoggingOptions = {}): Interceptor {
  const now = options.now ?? (() => performance.now());
  return (next) => (req) => {
    const start = now();
    const { binding, version } = targetOf(req, options.binding);
    let events = 0;
    return watchCall(
      req,
      () => next(req),
      {
        event: () => void events++,
        end(outcome, error) {
          const u = parsedUrl(sentUrlOf(req));
          const entry: CallLogEntry = {
            method: req.method.name,
            stream: req.stream,
            binding,
            version,
            url: u ? maskedHref(u) : "",
            host: u?.host ?? "",
            durationMs: now() - start,
            outcome,
          };
          if (error) {
            entry.errorName = error.name;
            entry.errorCode = error.code;
          }
          if (req.stream) entry.events = events;
          log(entry);
        },
      },
      binding,
    );
  };
}

/** What `traceparentInterceptor` propagates: a `traceparent` and, optionally, a `tracestate`. @category Interceptors and observability */
export interface TraceContext {
  /** W3C `traceparent`: `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`. */
  traceparent: string;
  /** W3C `tracestate`, vendor data passed along as is. */
  tracestate?: string | undefined;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * A well-formed W3C trace-context `traceparent`: version, a 32-hex trace id
 * and a 16-hex parent id (neither all zeros), flags; lowercase.
 * @category Interceptors and observability
 */
export function isTraceparent(value: string): boolean {
  const m = typeof value === "string" ? TRACEPARENT.exec(value) : null;
  return m !== null && m[1] !== "ff" && !/^0+$/.test(m[2]!) && !/^0+$/.test(m[3]!);
}

function hex(bytes: number): string {
  for (;;) {
    const b = crypto.getRandomValues(new Uint8Array(bytes));
    const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
    if (!/^0+$/.test(h)) return h;
  }
}

/** One W3C `tracestate` list member, `key=value`: a simple or a multi-tenant key, a value of printable ASCII but `,` and `=`, not ending in a space. */
const TRACESTATE_MEMBER =
  /^(?:[a-z][a-z0-9_\-*/]{0,255}|[a-z0-9][a-z0-9_\-*/]{0,240}@[a-z][a-z0-9_\-*/]{0,13})=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/** A well-formed W3C `tracestate`: at most 32 `key=value` members, separated by commas and optional spaces or tabs. */
function isTracestate(value: string): boolean {
  if (typeof value !== "string") return false;
  const members = value
    .split(",")
    .map((m) => m.replace(/^[ \t]+|[ \t]+$/g, ""))
    .filter((m) => m !== "");
  return members.length <= 32 && members.every((m) => TRACESTATE_MEMBER.test(m));
}

/**
 * Puts a trace context on a call's headers (HTTP headers, or gRPC
 * metadata), unless the call carries a `traceparent` already. A malformed
 * `traceparent` sends nothing and a malformed `tracestate` is left out: a
 * value with a line break is one no HTTP client sends, and would fail the
 * call rather than only its trace.
 */
export function sendTraceContext(header: Headers, traceparent: string, tracestate: string | undefined): void {
  if (header.has("traceparent") || !isTraceparent(traceparent)) return;
  header.set("traceparent", traceparent);
  if (tracestate && isTracestate(tracestate)) header.set("tracestate", tracestate);
}

/**
 * A fresh sampled `traceparent` (`00-<32 hex>-<16 hex>-01`), from
 * `crypto.getRandomValues`. Given a trace id, a new span of that trace.
 * @category Interceptors and observability
 */
export function newTraceparent(traceId?: string): string {
  if (traceId !== undefined && !/^[0-9a-f]{32}$/.test(traceId)) throw new TypeError("a trace id is 32 lowercase hex digits");
  return `00-${traceId ?? hex(16)}-${hex(8)}-01`;
}

/**
 * Sends the current trace context on every call, on every binding:
 * `traceparent` (and `tracestate` when given) as HTTP headers, or gRPC
 * metadata. `get` is asked per call (e.g. from the active span of a tracing
 * library, or a value kept per request); `undefined`, a malformed
 * `traceparent` or a `get` that throws sends nothing, and a malformed
 * `tracestate` is left out: the call goes on without its trace context. A
 * `traceparent` the call already carries (per call `headers`) is left as it
 * is.
 * @category Interceptors and observability
 */
export function traceparentInterceptor(get: () => string | TraceContext | undefined): Interceptor {
  return (next) => async (req) => {
    if (!req.header.has("traceparent")) {
      let got: string | TraceContext | undefined;
      try {
        got = get();
      } catch {
        // Like a logger or a tracer, a trace context that cannot be had fails the trace, not the call.
      }
      const ctx = typeof got === "string" ? { traceparent: got } : got;
      if (ctx) sendTraceContext(req.header, ctx.traceparent, ctx.tracestate);
    }
    return next(req);
  };
}
