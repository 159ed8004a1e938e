/**
 * A gRPC call answered with an HTTP status other than 2xx: not the gRPC
 * server's status but what something in front of it said (a gateway's rate
 * limit or outage, a login wall, a proxy's 404 page). gRPC maps such
 * statuses to codes (429 and 5xx to UNAVAILABLE, 400 and 500 to UNKNOWN),
 * which made a rate limit a cut connection and lost its `Retry-After`.
 * Such an answer is classified as the HTTP bindings classify a status
 * without an A2A error body (http/error-bodies.ts's `statusOnlyError`), so
 * a 429, a 503 or a 401 is the same error, with the same facts, whatever
 * the binding.
 */
import { A2AError } from "../../errors/family.js";
import { isConnectError } from "../../errors/classify.js";
import { statusOnlyError } from "../../http/error-bodies.js";

/**
 * The error of a gRPC call to `url` answered with HTTP `status` (not 2xx),
 * these headers and their `Retry-After` (errors/retry-after.ts's
 * `parseRetryAfter`, read by the caller: gRPC-web loads this when a call
 * first fails, and the start holds the parser already).
 */
export function httpAnswerError(status: number, header: Headers, url: string, retryAfterMs: number | undefined): A2AError {
  return statusOnlyError(`HTTP ${status} without a gRPC status`, {
    binding: "GRPC",
    httpStatus: status,
    challenge: header.get("www-authenticate") ?? undefined,
    retryAfterMs,
    url,
  });
}

/**
 * What a failed gRPC call's error says was answered over HTTP: the transports
 * raise a ConnectError (without a grpc-status) whose cause is the
 * `httpAnswerError`; undefined for any other failure.
 */
export function answeredOverHttp(e: unknown): A2AError | undefined {
  return isConnectError(e) && !e.metadata.has("grpc-status") && e.cause instanceof A2AError ? e.cause : undefined;
}
