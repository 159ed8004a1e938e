/**
 * How the gRPC binding names what a call failed with: an answer over HTTP,
 * a cut connection, the server's status classified by its
 * `google.rpc.ErrorInfo` reason. It takes the classification (classify.ts)
 * and the google.rpc schemas, so gRPC-web loads it when a call first fails
 * (common.ts's `grpcFailures`): a call that succeeds never runs it.
 */
import type { DescMethod } from "@bufbuild/protobuf";
import type { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema, RetryInfoSchema } from "../../../gen/google/rpc/error_details_pb.js";
import { A2AError, ConnectionError } from "../../errors/family.js";
import { clientFault, fromConnectError, isConnectError, toA2AError } from "../../errors/classify.js";
import type { CutConnection } from "./common.js";
import { answeredOverHttp } from "./http-answer.js";

// What the module loaded on demand hands over, with the rest of the naming.
export { clientFault } from "../../errors/classify.js";
export { httpAnswerError } from "./http-answer.js";

/**
 * What a gRPC call of `method` to `url` failed with, as the binding names
 * it: an answer over HTTP, a cut connection, or the server's status. The
 * transports apply it where a call's error is first met, below the
 * interceptors, so that they see the A2AError the caller gets.
 */
export function grpcCallError(method: DescMethod, e: unknown, cut: CutConnection, url: string): unknown {
  return answeredOverHttp(e) ?? cut(e, url) ?? statusError(method, e);
}

/**
 * The ConnectionError that `cause`, what a protocol found below gRPC (a
 * socket error, fetch's TypeError) on a call to `url`, is, or undefined
 * when it is something else. The gRPC binding's one conversion: it keeps
 * the kind of a connection never made (refused, dns), which failover
 * relies on, and names the host and port.
 */
export function connectionFailure(cause: unknown, url: string): ConnectionError | undefined {
  const failure = toA2AError(cause, "GRPC", url);
  return failure instanceof ConnectionError ? failure : undefined;
}

/**
 * An error status of a call of `method`, classified by the ErrorInfo among
 * its details (or, without one, by the status and the method). What the
 * call named itself before any status (an interceptor's AuthenticationError,
 * a request it cannot write), and that connect wrapped, is that error.
 */
function statusError(method: DescMethod, e: unknown): unknown {
  // Thrown before connect's runner made it a ConnectError (an interceptor that throws at once).
  if (!isConnectError(e)) return clientFault(e);
  if (!e.metadata.has("grpc-status")) {
    if (e.cause instanceof A2AError) return e.cause;
    // What connect wrapped before any status: a fault in the client (an interceptor's TypeError), not the server's.
    const fault = clientFault(e.cause);
    if (fault instanceof A2AError) return fault;
  }
  return fromConnectError(e, "GRPC", e.findDetails(ErrorInfoSchema)[0], retryDelayOf(e), method.name);
}

/** The `google.rpc.RetryInfo` delay among a status's details, in milliseconds. */
function retryDelayOf(e: ConnectError): number | undefined {
  const delay = e.findDetails(RetryInfoSchema)[0]?.retryDelay;
  if (!delay || delay.seconds < 0n || delay.nanos < 0) return undefined;
  return Number(delay.seconds) * 1000 + Math.round(delay.nanos / 1e6);
}
