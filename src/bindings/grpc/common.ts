/**
 * What the gRPC binding adds to a connect gRPC transport, whichever protocol
 * carries it (HTTP/2 gRPC in Node, transport.ts; gRPC-web over fetch,
 * web.ts): A2A-Version, extensions and default headers on
 * every call, the unary timeout and its default, the idle timeout of
 * streams, and the errors of its calls named as the binding names them
 * (failures.ts, loaded when a call first fails).
 */
import type { DescMethod } from "@bufbuild/protobuf";
import type { StreamResponse, Transport, UnaryResponse } from "@connectrpc/connect";
import { onDemand } from "../../base/on-demand.js";
import type { A2AError, CallTimeoutError } from "../../errors/family.js";
import { unclassified } from "../../errors/classification.js";
import { cutIdle, idleBeforeResponse, withIdleTimeout } from "../../http/idle.js";
import { checkedResponse } from "../../protocol/response-shape.js";
import { CallSignal } from "../../http/run-call.js";
import { mergeHeaders, serviceHeaders, type TransportOptions } from "../../call/options.js";
import { timeoutFor } from "../../call/timeouts.js";
import type { A2ATransport } from "../../call/transport.js";
import { recordFor } from "../../call/record.js";

/** How the binding names a call's failure (failures.ts). */
export type GrpcFailures = typeof import("./failures.js");

/**
 * How the binding names a call's failure, loaded when a call first fails
 * (a failed load is tried again next time). Whoever waits for it bounds the
 * wait by the call's deadline and signal: the binding races it with the
 * call (`CallSignal.race`), and what waits below, within the call, is raced
 * with it too.
 */
export const grpcFailures = onDemand(() => import("./failures.js"));

/**
 * `name(m)` with the naming loaded; should it fail to load (a chunk the
 * browser could not fetch), an A2AError saying so, `e` as its cause.
 */
export function namedFailure(e: unknown, name: (m: GrpcFailures) => unknown): Promise<unknown> {
  return grpcFailures().then(name, (loadError: unknown) => unclassified(e, loadError, "GRPC"));
}

/**
 * The error for a call to `url` whose connection was cut below gRPC
 * (closed, reset, lost: no status from the server), or undefined when `e`
 * is not one. Each protocol reports a cut its own way.
 */
export type CutConnection = (e: unknown, url: string) => A2AError | undefined;

const GRPC_FACTS = { binding: "GRPC" } as const;

/** Where a gRPC transport's calls go, and whether they already run through our call runner. */
export interface GrpcCallTarget {
  /** The base URL of the calls, named by timeout errors. */
  url: string;
  /**
   * The transport runs its calls through run-call.ts, which ends a unary
   * call by its deadline and signal whatever the server does. Otherwise
   * (gRPC-web's, run by connect's runner over a fetch that may ignore its
   * signal) unary calls are raced here.
   */
  guarded: boolean;
}

/** Wraps a connect gRPC (or gRPC-web) transport with what the A2A gRPC binding adds (see above). */
export function a2aGrpcTransport(inner: Transport, options: TransportOptions, cut: CutConnection, target: GrpcCallTarget): A2ATransport {
  const defaults = serviceHeaders(options);
  const idleMs = timeoutFor("idle", undefined, options.idleTimeoutMs);
  // A unary request given no timeout is held to the transport's.
  const unaryMs = timeoutFor("unary", undefined, options.timeoutMs);
  // What a deadline's error names: the method's URL, gRPC's /<service>/<method> under the base.
  const base = target.url.replace(/\/+$/, "");
  const urlOf = (method: DescMethod) => `${base}/${method.parent.typeName}/${method.name}`;
  /** The binding's name for the error `e` of a call of `method`, once the naming has loaded. */
  const callError = (method: DescMethod, e: unknown): Promise<unknown> =>
    namedFailure(e, (m) => m.grpcCallError(method, e, cut, target.url));
  /**
   * The error of a call of `method` that failed with `e`, once `call` is
   * over. Naming it waits for its code to load within the call's deadline
   * and signal: an abort meanwhile is reported as any other.
   */
  const failure = async (method: DescMethod, call: CallSignal, e: unknown): Promise<unknown> => {
    // Aborted (by the caller or the deadline): reported from the signal, as the runner does.
    if (call.signal.aborted) return call.failWith(e);
    let m: GrpcFailures;
    try {
      m = await call.race(grpcFailures());
    } catch (lost: unknown) {
      return call.failWith(call.aborted ? lost : unclassified(e, lost, "GRPC"));
    }
    call.failWith(m.clientFault(e));
    return m.grpcCallError(method, e, cut, target.url);
  };
  return {
    binding: "GRPC",
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      // The call's record (call/record.ts): the A2AClient's values, or made here for a call that comes without one.
      const record = recordFor("unary", timeoutMs, contextValues);
      // The limit of a call that left it to the transport is chosen here; the transport below takes it as given.
      const timeout = record.requestMs(timeoutMs, unaryMs);
      const headers = mergeHeaders(defaults, header);
      const values = contextValues ?? record;
      let res: UnaryResponse<typeof method.input, typeof method.output>;
      if (target.guarded) {
        try {
          res = await inner.unary(method, signal, timeout, headers, input, values);
        } catch (e) {
          // The binding's A2AErrors pass as they are; an interceptor's own ConnectError is read as a status.
          throw signal?.aborted ? e : await callError(method, e);
        }
      } else {
        const call = new CallSignal(signal, values, timeout, urlOf(method), "GRPC");
        // Aborted before it starts: connect's runner would still run the interceptors.
        if (call.aborted) throw await failure(method, call, call.reason);
        try {
          res = await call.race(inner.unary(method, call.signal, timeout, headers, input, values));
          call.release();
        } catch (e) {
          throw await failure(method, call, e);
        }
      }
      checkedResponse(method, res.message, GRPC_FACTS);
      return res;
    },
    async stream(method, signal, timeoutMs, header, input, contextValues) {
      // Our own controller under the caller's, so an idle stream can be cut.
      const controller = new AbortController();
      const record = recordFor("stream", timeoutMs, contextValues);
      // The stream's deadline, if its call gave one: the idle timeout guards against a silent server instead.
      const deadline = record.requestMs(timeoutMs);
      const call = new CallSignal(signal, contextValues ?? record, deadline, urlOf(method), "GRPC", controller);
      // Aborted before it starts: nothing is run, no interceptor nor request.
      if (call.aborted) throw await failure(method, call, call.reason);
      let idle: CallTimeoutError | undefined;
      const goneIdle = (silence: string) => void (idle = cutIdle(controller, silence, target.url, idleMs, "GRPC"));
      // Silence counts from the moment the request is sent, not from the
      // response headers: a server may accept the stream and say nothing.
      const stopWaiting = idleBeforeResponse(idleMs, () => goneIdle("no response"));
      let res: StreamResponse<typeof method.input, typeof method.output>;
      try {
        res = await call.race(inner.stream(method, call.signal, deadline, mergeHeaders(defaults, header), input, contextValues ?? record));
      } catch (e) {
        throw idle ?? (await failure(method, call, e));
      } finally {
        stopWaiting();
      }
      const message = withIdleTimeout(res.message, idleMs, () => goneIdle("no message on the stream"), call.signal);
      return { ...res, message: streamErrors(method, message, call, () => idle, failure) };
    },
  } satisfies A2ATransport;
}

/**
 * A stream cut below gRPC surfaces with the codes of an abort or of a
 * failed read. What the caller did not abort is a dropped connection, which
 * a resumption can recover from; what the server said is classified. A
 * stream that ends, or whose reader stops early, ends its call: the stream
 * iterables of connect's streaming runner (gRPC-web's) cannot be closed any
 * other way.
 */
async function* streamErrors<T extends object>(
  method: DescMethod,
  source: AsyncIterable<T>,
  call: CallSignal,
  idle: () => CallTimeoutError | undefined,
  failure: (method: DescMethod, call: CallSignal, e: unknown) => Promise<unknown>,
): AsyncGenerator<T> {
  let failed = false;
  try {
    for await (const m of source) yield checkedResponse(method, m, GRPC_FACTS);
  } catch (e) {
    // A message of the wrong shape fails the call too, which cancels the stream.
    failed = true;
    const f = await failure(method, call, e);
    throw idle() ?? f;
  } finally {
    if (!failed) call.finish();
  }
}
