/**
 * What the gRPC binding adds to a connect gRPC transport, whichever protocol
 * carries it (HTTP/2 gRPC in Node, grpc.ts; gRPC-web over fetch,
 * grpc-web.ts): A2A-Version, extensions and default headers on
 * every call, the unary timeout and its default, the idle timeout of
 * streams, cut connections reported as `ConnectionError`, and error statuses
 * classified by their `google.rpc.ErrorInfo` reason.
 */
import type { DescMessage, DescMethod, DescMethodStreaming, DescMethodUnary, MessageInitShape } from "@bufbuild/protobuf";
import { ConnectError, type ContextValues, type StreamResponse, type Transport, type UnaryResponse } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { CallTimeoutError, ProtocolError, fromConnectError, type A2AError } from "../errors.js";
import { checkedResponse } from "./response-shape.js";
import { withIdleTimeout } from "./idle.js";
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, mergeHeaders, serviceHeaders, timeoutOrNone, type TransportOptions } from "./options.js";
import type { A2ATransport } from "./transport.js";
import { followSignal } from "../util.js";

/**
 * The error for a call whose connection was cut below gRPC (closed, reset,
 * lost: no status from the server), or undefined when `e` is not one. Each
 * protocol reports a cut its own way.
 */
export type CutConnection = (e: unknown) => A2AError | undefined;

const GRPC_FACTS = { binding: "GRPC" } as const;

/** Wraps a connect gRPC (or gRPC-web) transport with what the A2A gRPC binding adds (see above). */
export function a2aGrpcTransport(inner: Transport, options: TransportOptions, cut: CutConnection): A2ATransport {
  const defaults = serviceHeaders(options);
  const idleMs = timeoutOrNone(options.idleTimeoutMs, DEFAULT_IDLE_TIMEOUT_MS);
  return {
    binding: "GRPC",
    async unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: MessageInitShape<I>,
      contextValues?: ContextValues,
    ): Promise<UnaryResponse<I, O>> {
      // connect takes 0 as "no deadline".
      const timeout = timeoutOrNone(timeoutMs ?? options.timeoutMs, DEFAULT_TIMEOUT_MS) ?? 0;
      let res: UnaryResponse<I, O>;
      try {
        res = await inner.unary(method, signal, timeout, mergeHeaders(defaults, header), input, contextValues);
      } catch (e) {
        throw signal?.aborted ? e : (cut(e) ?? statusError(e));
      }
      checkedResponse(method, res.message, GRPC_FACTS);
      return res;
    },
    async stream<I extends DescMessage, O extends DescMessage>(
      method: DescMethodStreaming<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: AsyncIterable<MessageInitShape<I>>,
      contextValues?: ContextValues,
    ): Promise<StreamResponse<I, O>> {
      // Our own controller under the caller's, so an idle stream can be cut.
      const { controller } = followSignal(signal);
      let res: StreamResponse<I, O>;
      try {
        // No deadline for streams unless the caller sets one (0 = none for connect).
        res = await inner.stream(method, controller.signal, timeoutMs ?? 0, mergeHeaders(defaults, header), input, contextValues);
      } catch (e) {
        throw signal?.aborted ? e : (cut(e) ?? statusError(e));
      }
      let idle: CallTimeoutError | undefined;
      const message = withIdleTimeout(
        res.message,
        idleMs,
        () => {
          idle = new CallTimeoutError(`no message on the stream for ${idleMs} ms`, { binding: "GRPC", kind: "idle" });
          controller.abort(idle);
        },
        controller.signal,
      );
      const why = () => idle ?? (signal?.aborted ? undefined : "drop");
      return { ...res, message: streamErrors(method, message, why, cut, () => controller.abort()) };
    },
  };
}

/**
 * A stream cut below gRPC surfaces with the codes of an abort or of a
 * failed read. What the caller did not abort is a dropped connection, which
 * a resumption can recover from; what the server said is classified. A
 * reader that stops early gets the call cancelled (`cancel`): the stream
 * iterables of connect-web's gRPC-web transport cannot be closed any other
 * way.
 */
async function* streamErrors<T extends object>(
  method: DescMethod,
  source: AsyncIterable<T>,
  why: () => CallTimeoutError | "drop" | undefined,
  cut: CutConnection,
  cancel: () => void,
): AsyncGenerator<T> {
  let ended = false;
  try {
    for await (const m of source) yield checkedResponse(method, m, GRPC_FACTS);
    ended = true;
  } catch (e) {
    // A message of the wrong shape ends the stream here: the call is cancelled below.
    if (e instanceof ProtocolError) throw e;
    ended = true;
    const reason = why();
    if (reason instanceof CallTimeoutError) throw reason;
    if (reason === undefined) throw e;
    throw cut(e) ?? statusError(e);
  } finally {
    if (!ended) cancel();
  }
}

/** An error status, classified by the ErrorInfo among its details. */
function statusError(e: unknown): unknown {
  if (!(e instanceof ConnectError)) return e;
  return fromConnectError(e, "GRPC", e.findDetails(ErrorInfoSchema)[0]);
}
