/**
 * The stable codes of the error family, and which failures are transient.
 * A code names an error's class exactly (`TaskTerminalError` has its own
 * code although it is an `UnsupportedOperationError`), survives minification
 * and two copies of this package in one app, where `instanceof` does not.
 * Codes are public API: a renamed code is a breaking change.
 *
 * This file holds facts only and imports nothing, so every part of the
 * client can read them without a cycle through the family.
 */

/**
 * The `code` of each `A2AError` class. The errors of the A2A specification
 * (section 3.3.2) and JSON-RPC's standard errors are named by their
 * `google.rpc.ErrorInfo` reason, which is also how the classification
 * recognises them; the rest are this client's.
 * @example
 * ```ts
 * import { A2AError } from "a2a-connect";
 *
 * function retryable(e: unknown): boolean {
 *   if (!(e instanceof A2AError)) return false;
 *   switch (e.code) {
 *     case "CONNECTION_FAILED":
 *     case "CALL_TIMEOUT":
 *       return true;
 *     default:
 *       return e.transient;
 *   }
 * }
 * ```
 * @category Errors
 */
export type A2AErrorCode =
  // The A2A specification's errors: the reason a server sends for each.
  | "TASK_NOT_FOUND"
  | "TASK_NOT_CANCELABLE"
  | "PUSH_NOTIFICATION_NOT_SUPPORTED"
  | "UNSUPPORTED_OPERATION"
  | "CONTENT_TYPE_NOT_SUPPORTED"
  | "INVALID_AGENT_RESPONSE"
  | "EXTENDED_AGENT_CARD_NOT_CONFIGURED"
  | "EXTENSION_SUPPORT_REQUIRED"
  | "VERSION_NOT_SUPPORTED"
  // JSON-RPC 2.0's standard errors, by the reasons servers attach to them.
  | "PARSE_ERROR"
  | "INVALID_REQUEST"
  | "METHOD_NOT_FOUND"
  | "INVALID_PARAMS"
  | "INTERNAL_ERROR"
  // Access, as the gRPC status names it.
  | "UNAUTHENTICATED"
  | "PERMISSION_DENIED"
  // Below the protocol, and what the server reported without a known name.
  | "CONNECTION_FAILED"
  | "CALL_TIMEOUT"
  | "ABORTED"
  | "PROTOCOL_ERROR"
  | "SERVER_ERROR"
  // This client's own steps: discovery, trust, connecting, streams, conversations.
  | "AGENT_CARD_NOT_FOUND"
  | "INVALID_AGENT_CARD"
  | "REDIRECT_REFUSED"
  | "AGENT_CARD_VERIFICATION_FAILED"
  | "NO_COMPATIBLE_INTERFACE"
  | "STREAM_RESUME_FAILED"
  | "TASK_TERMINAL"
  // `A2AError` itself: a failure nothing more specific describes.
  | "UNKNOWN";

/** What of an error the transient rule reads. */
interface StatusFacts {
  readonly httpStatus?: number | undefined;
  readonly grpcCode?: number | undefined;
  readonly retryAfterMs?: number | undefined;
}

/** gRPC `RESOURCE_EXHAUSTED` (as `@connectrpc/connect`'s `Code` numbers it). */
const RESOURCE_EXHAUSTED = 8;

/** 502, 503, 504: a gateway, or the server, says the service is away for now. */
export function isGatewayStatus(status: number | undefined): boolean {
  return status === 502 || status === 503 || status === 504;
}

/** The server asked to be called again later: a 429 or 503 with `Retry-After`. */
export function asksToRetryLater(e: StatusFacts): boolean {
  return e.retryAfterMs !== undefined && (e.httpStatus === 503 || e.httpStatus === 429);
}

/**
 * The rule behind `A2AError.transient` (documented there), from the code of
 * the error's class and the status it arrived with. A connection that failed
 * and a call that ran out of time may go through later; so may a rate limit
 * or a gateway's 5xx, but only where no more specific error was named: a
 * server that says the task is not there means it, unless it asks to be
 * called again. An abort is the caller's decision.
 */
export function isTransient(code: A2AErrorCode, e: StatusFacts): boolean {
  switch (code) {
    case "CONNECTION_FAILED":
    case "CALL_TIMEOUT":
    case "STREAM_RESUME_FAILED":
      return true;
    case "ABORTED":
      return false;
    case "SERVER_ERROR":
      // A rate limit (gRPC says RESOURCE_EXHAUSTED), or a service away for now.
      if (e.httpStatus === 429 || isGatewayStatus(e.httpStatus) || e.grpcCode === RESOURCE_EXHAUSTED) return true;
  }
  return asksToRetryLater(e);
}
