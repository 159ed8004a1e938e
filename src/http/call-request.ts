/**
 * The request a hand-written transport gives the call runner (run-call.ts).
 * A module of its own, apart from the runner: only the transports loaded on
 * demand (the 0.3 adapter) and the Node-only gRPC transport use it, so the
 * core bundle, which holds the runner, does not carry it.
 */
import { createContextValues, type ContextValues, type StreamRequest, type UnaryRequest } from "@connectrpc/connect";

/**
 * The request of one call, as a transport gives it to the runner: the
 * connect fields every request has, filled in one way (the service from the
 * method, fresh context values when the caller gave none), so that the
 * transport states only where the call goes and what it carries.
 */
export function callRequest<R extends UnaryRequest | StreamRequest>(
  stream: R["stream"],
  method: R["method"],
  requestMethod: string,
  url: string,
  header: Headers,
  contextValues: ContextValues | undefined,
  message: R["message"],
): Omit<R, "signal"> {
  return {
    stream,
    service: method.parent,
    method,
    requestMethod,
    url,
    header,
    contextValues: contextValues ?? createContextValues(),
    message,
  } as Omit<R, "signal">;
}
