/**
 * The stable codes of the error family, and which failures are transient.
 * A code names an error's class exactly (`TaskTerminalError` has its own
 * code although it is an `UnsupportedOperationError`), survives minification
 * and two copies of this package in one app, where `instanceof` does not.
 * Codes are public API: a renamed code is a breaking change.
 *
 * This file holds facts only and imports nothing, so every part of the
 * client can read them without a cycle through the family.
 *
 * Each code's doc comment says when it is used: it is that code's row of the
 * table in docs/errors.md, which `npm run docs:errors` writes from here.
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
  /** no such task, or not one the caller may see */
  | "TASK_NOT_FOUND"
  /** the task cannot be canceled in its state */
  | "TASK_NOT_CANCELABLE"
  /** the agent takes no push configs */
  | "PUSH_NOTIFICATION_NOT_SUPPORTED"
  /** the agent, or the version in use, cannot do this */
  | "UNSUPPORTED_OPERATION"
  /** a part's media type is not accepted */
  | "CONTENT_TYPE_NOT_SUPPORTED"
  /** the agent answered in a way the protocol does not allow */
  | "INVALID_AGENT_RESPONSE"
  /** the agent has no extended card */
  | "EXTENDED_AGENT_CARD_NOT_CONFIGURED"
  /** a required extension is not activated */
  | "EXTENSION_SUPPORT_REQUIRED"
  /** the agent does not speak the `A2A-Version` sent */
  | "VERSION_NOT_SUPPORTED"
  // JSON-RPC 2.0's standard errors, by the reasons servers attach to them.
  /** JSON-RPC -32700 */
  | "PARSE_ERROR"
  /** JSON-RPC -32600 */
  | "INVALID_REQUEST"
  /** JSON-RPC -32601, gRPC `UNIMPLEMENTED`, a URL with no A2A endpoint (a 404 without an A2A error body) */
  | "METHOD_NOT_FOUND"
  /** JSON-RPC -32602, gRPC `INVALID_ARGUMENT`, the client's own checks */
  | "INVALID_PARAMS"
  /** the server failed while handling the call: JSON-RPC -32603, gRPC `INTERNAL` or `UNKNOWN` */
  | "INTERNAL_ERROR"
  // Access, as the gRPC status names it.
  /** 401, gRPC `UNAUTHENTICATED`; `challenge` holds the `WWW-Authenticate` header */
  | "UNAUTHENTICATED"
  /** 403, gRPC `PERMISSION_DENIED` */
  | "PERMISSION_DENIED"
  // Below the protocol, and what the server reported without a known name.
  /** no complete response; `kind`: `refused`, `reset`, `dns` or `network` */
  | "CONNECTION_FAILED"
  /** a unary call's deadline (`kind`: `deadline`), or a stream without data (`idle`) */
  | "CALL_TIMEOUT"
  /** the caller's AbortSignal fired (its reason is the error's `cause`) */
  | "ABORTED"
  /** malformed JSON or HTTP, a wrong content type, an answer of the wrong shape, a size limit exceeded */
  | "PROTOCOL_ERROR"
  /** any other error the server reported */
  | "SERVER_ERROR"
  // This client's own steps: discovery, trust, connecting, streams, conversations.
  /** no card at any location discovery tried (`tried` lists them) */
  | "AGENT_CARD_NOT_FOUND"
  /** a document that is not a valid card (`problem` says why) */
  | "INVALID_AGENT_CARD"
  /** a redirect the policy does not allow */
  | "REDIRECT_REFUSED"
  /** the card does not meet the signature policy, or names this machine from elsewhere */
  | "AGENT_CARD_VERIFICATION_FAILED"
  /** no interface of the card can be used here (`passedOver` says why) */
  | "NO_COMPATIBLE_INTERFACE"
  /**
   * a stream dropped and could not be resumed within its budget, or (`resume: false`) ended before a final or
   * interrupted state
   */
  | "STREAM_RESUME_FAILED"
  /** a message to a task known to have ended, refused before any request */
  | "TASK_TERMINAL"
  // `A2AError` itself: a failure nothing more specific describes.
  /** a failure nothing more specific describes */
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
