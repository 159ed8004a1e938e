/**
 * Interceptor recipes for logs and distributed traces, with no tracing
 * library behind them. Both are plain connect interceptors, so they work on
 * every binding: pass them in a transport's `interceptors` (or in
 * `connect(url, { transport: { interceptors } })`).
 */
import type { Interceptor, StreamResponse, UnaryResponse } from "@connectrpc/connect";
import { toA2AError } from "./errors/classify.js";
import type { Binding } from "./protocol/bindings.js";
import { isInterrupted, isTerminal } from "./protocol/messages.js";
import type { StreamResponse as A2AStreamResponse } from "../gen/lf/a2a/v1/a2a_pb.js";

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
  /** The binding, when the logger was told it or the request shows it (gRPC). */
  binding: Binding | undefined;
  /** Host (and port) the call went to; no path, no query. */
  host: string;
  /** Start to end: the response for unary calls, the last event for streams. */
  durationMs: number;
  /**
   * "ok"; "error" when the call failed; "aborted" when it was canceled: the
   * caller's signal, or a stream closed before its end (a stream closed
   * right after a final or interrupted state, as the client does, is "ok").
   */
  outcome: "ok" | "error" | "aborted";
  /** The class of the error, as this package names it (`TaskNotFoundError`, ...). */
  errorName?: string | undefined;
  /** Streams: the events received. */
  events?: number | undefined;
}

/** Options of `loggingInterceptor`. @category Interceptors and observability */
export interface LoggingOptions {
  /** The binding to report, for transports that are not gRPC. */
  binding?: Binding | undefined;
  /** The clock; default `performance.now()`. */
  now?: (() => number) | undefined;
}

function defaultLog(entry: CallLogEntry): void {
  const extra = [entry.errorName, entry.events === undefined ? undefined : `${entry.events} events`].filter(Boolean).join(", ");
  console.info(
    `a2a ${entry.method} ${entry.binding ?? ""}@${entry.host} ${entry.outcome} ${entry.durationMs.toFixed(1)}ms${extra ? ` (${extra})` : ""}`,
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

function bindingOf(header: Headers): Binding | undefined {
  return /^application\/grpc/i.test(header.get("content-type") ?? "") ? "GRPC" : undefined;
}

/**
 * Logs one `CallLogEntry` per call when it ends (streams: when the last event
 * arrived, the stream failed or its reader stopped, with the event count).
 * `log` defaults to a one-line `console.info`. Only the method, host,
 * timing, outcome and error class are logged: never headers, bodies or
 * URLs' paths and queries, so no secret can leak.
 * @example
 * ```ts
 * import { connect, loggingInterceptor } from "a2a-connect";
 *
 * // One line per call on console.info: operation, binding, host, outcome, duration.
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
  return (next) => async (req) => {
    const start = now();
    const base = {
      method: req.method.name,
      stream: req.stream,
      binding: options.binding ?? bindingOf(req.header),
      host: hostOf(req.url),
    };
    let logged = false;
    let events = 0;
    const finish = (outcome: CallLogEntry["outcome"], error?: unknown): void => {
      if (logged) return;
      logged = true;
      req.signal.removeEventListener("abort", onAbort);
      const entry: CallLogEntry = { ...base, durationMs: now() - start, outcome };
      if (error !== undefined) {
        entry.errorName = toA2AError(error, entry.binding).name;
        if (entry.errorName === "AbortedError") entry.outcome = "aborted";
      }
      if (req.stream) entry.events = events;
      try {
        log(entry);
      } catch {
        // A failing logger must not fail the call.
      }
    };
    const failed = (e: unknown): never => {
      finish("error", e);
      throw e;
    };
    // A stream's last event may end the exchange (a final or interrupted
    // state, a direct message); the client then closes the connection itself.
    let ended = false;
    const onAbort = (): void => finish(ended ? "ok" : "aborted");

    let res: UnaryResponse | StreamResponse;
    try {
      res = await next(req);
    } catch (e) {
      return failed(e);
    }
    if (!res.stream) {
      finish("ok");
      return res;
    }
    // connect aborts the call's signal when a consumer stops reading early.
    if (req.signal.aborted) onAbort();
    else req.signal.addEventListener("abort", onAbort, { once: true });
    const inner = res.message;
    return {
      ...res,
      message: {
        [Symbol.asyncIterator]() {
          const it = inner[Symbol.asyncIterator]();
          return {
            next: () =>
              it.next().then(
                (r) => {
                  if (r.done) finish("ok");
                  else {
                    events++;
                    ended = endsExchange(r.value);
                  }
                  return r;
                },
                (e: unknown) => failed(e),
              ),
            return: (value?: unknown) => {
              onAbort();
              return it.return ? it.return(value) : Promise.resolve({ done: true as const, value: undefined });
            },
          };
        },
      },
    } as typeof res;
  };
}

function endsExchange(event: unknown): boolean {
  const payload = (event as Partial<A2AStreamResponse> | undefined)?.payload;
  if (!payload) return false;
  if (payload.case === "message") return true;
  if (payload.case === "task" || payload.case === "statusUpdate") {
    const state = payload.value.status?.state;
    return state !== undefined && (isTerminal(state) || isInterrupted(state));
  }
  return false;
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
  const m = TRACEPARENT.exec(value);
  return m !== null && m[1] !== "ff" && !/^0+$/.test(m[2]!) && !/^0+$/.test(m[3]!);
}

function hex(bytes: number): string {
  for (;;) {
    const b = crypto.getRandomValues(new Uint8Array(bytes));
    const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
    if (!/^0+$/.test(h)) return h;
  }
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
 * library, or a value kept per request); `undefined` or a malformed
 * `traceparent` sends nothing. A `traceparent` the call already carries (per
 * call `headers`) is left as it is.
 * @category Interceptors and observability
 */
export function traceparentInterceptor(get: () => string | TraceContext | undefined): Interceptor {
  return (next) => async (req) => {
    if (!req.header.has("traceparent")) {
      const got = get();
      const ctx = typeof got === "string" ? { traceparent: got } : got;
      if (ctx && isTraceparent(ctx.traceparent)) {
        req.header.set("traceparent", ctx.traceparent);
        if (ctx.tracestate) req.header.set("tracestate", ctx.tracestate);
      }
    }
    return next(req);
  };
}
