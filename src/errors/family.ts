/**
 * One error family for every binding. Whatever went wrong, and whichever of
 * JSON-RPC, HTTP+JSON or gRPC carried the call, the caller catches an
 * `A2AError` subclass with the same fields.
 *
 * Servers disagree on numeric codes (spec revisions moved some of them), so
 * classification prefers the `google.rpc.ErrorInfo` reason (or a problem+json
 * `type`), then the JSON-RPC code, then the status the server stated (the
 * gRPC code, or the `status` of an HTTP+JSON `google.rpc.Status` body), and
 * only then the HTTP status. A bare HTTP 404 names no A2A error: it is an
 * endpoint that does not exist, reported as `MethodNotFoundError` as JSON-RPC
 * and gRPC report an unknown method.
 */

import { keepNames } from "../base/keep-names.js";
import type { VerificationResult } from "./verification-result.js";
import type { Binding } from "../base/bindings.js";
import { isTransient, type A2AErrorCode } from "./codes.js";

/** What an `A2AError` is built from; every field may be left out. @category Errors */
export interface A2AErrorInit {
  /** The binding that carried the call. */
  binding?: Binding | undefined;
  /** HTTP status of the response that carried the error, if any. */
  httpStatus?: number | undefined;
  /** gRPC status code (numeric, as in `@connectrpc/connect`'s `Code`). */
  grpcCode?: number | undefined;
  /** JSON-RPC `error.code`, if the error came as a JSON-RPC error object. */
  jsonRpcCode?: number | undefined;
  /** `google.rpc.ErrorInfo.reason`, e.g. `TASK_NOT_FOUND`. */
  reason?: string | undefined;
  /** Error detail objects as the server sent them (`@type` keyed JSON). */
  details?: readonly unknown[] | undefined;
  /** How long the server asked the client to wait (`Retry-After`), in milliseconds. */
  retryAfterMs?: number | undefined;
  /** The underlying failure, kept as the standard `Error.cause`. */
  cause?: unknown;
}

/**
 * Base class of every error the client throws. The subclass says what went
 * wrong, and so does its `code`; the fields say how the error arrived, so
 * one `catch` works the same whatever the binding. `transient` says whether
 * trying again later may help.
 * @example
 * ```ts
 * import { connect, A2AError, TaskNotFoundError, CallTimeoutError } from "a2a-connect";
 *
 * const { client } = await connect("https://agent.example.com");
 * try {
 *   await client.getTask({ id: "task-123" }, { timeoutMs: 5_000 });
 * } catch (e) {
 *   if (e instanceof TaskNotFoundError) console.log("no such task");
 *   else if (e instanceof CallTimeoutError) console.log("slow agent:", e.message);
 *   else if (e instanceof A2AError) console.log(e.code, e.transient, e.binding, e.reason);
 *   else throw e;
 * }
 * ```
 * @category Errors
 */
export class A2AError extends Error {
  /**
   * The stable code of this class (see `A2AErrorCode`), the same on every
   * instance. A subclass without a code of its own has its parent's.
   */
  static readonly code: A2AErrorCode = "UNKNOWN";

  /**
   * The stable code of the error's class (`TASK_NOT_FOUND`, `CONNECTION_FAILED`
   * ...): public API that survives minification and two copies of this
   * package, where the class name and `instanceof` do not.
   */
  readonly code: A2AErrorCode;
  /**
   * Whether the same call may succeed if made again later: true for a failed
   * connection, a timeout, a resumption that gave up, a server error of no
   * known name with 429, 502, 503 or 504 (or gRPC `RESOURCE_EXHAUSTED`), and
   * any error but an abort that came with a 429 or 503 and `Retry-After`.
   * False for everything that says something about the request, the card or
   * the caller, and for an abort. It says nothing of whether sending a
   * message again is safe: one that may have arrived may run twice.
   */
  readonly transient: boolean;
  /** The binding of the call that failed, when the error came from one. */
  readonly binding: Binding | undefined;
  /** HTTP status of the response that carried the error, if any. */
  readonly httpStatus: number | undefined;
  /** gRPC status code (numeric, as in `@connectrpc/connect`'s `Code`), if any. */
  readonly grpcCode: number | undefined;
  /** JSON-RPC `error.code`, if the error came as a JSON-RPC error object. */
  readonly jsonRpcCode: number | undefined;
  /** `google.rpc.ErrorInfo.reason` (e.g. `TASK_NOT_FOUND`), when known. */
  readonly reason: string | undefined;
  /** Error detail objects as the server sent them (`@type` keyed JSON); empty when none. */
  readonly details: readonly unknown[];
  /** How long the server asked the client to wait (`Retry-After`), in milliseconds. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, init: A2AErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.code = new.target.code;
    this.transient = isTransient(this.code, init);
    this.binding = init.binding;
    this.httpStatus = init.httpStatus;
    this.grpcCode = init.grpcCode;
    this.jsonRpcCode = init.jsonRpcCode;
    this.reason = init.reason;
    this.details = init.details ?? [];
    this.retryAfterMs = init.retryAfterMs;
  }

  /**
   * What `JSON.stringify(err)` writes: the name, code and message, then the
   * error's own fields (a subclass's included). `message` is not an own
   * enumerable field of an Error, so a logger writing errors as JSON would
   * otherwise lose what went wrong.
   */
  toJSON(): Record<string, unknown> {
    const json: Record<string, unknown> = { name: this.name, code: this.code, message: this.message };
    return Object.assign(json, this);
  }
}

// --- Errors the A2A specification defines (section 3.3.2) -----------------

/** `TASK_NOT_FOUND`: no such task, or not one the caller may see. @category Errors */
export class TaskNotFoundError extends A2AError {
  static override readonly code = "TASK_NOT_FOUND";
}
/** `TASK_NOT_CANCELABLE`: the task cannot be canceled in its current state. @category Errors */
export class TaskNotCancelableError extends A2AError {
  static override readonly code = "TASK_NOT_CANCELABLE";
}
/**
 * `PUSH_NOTIFICATION_NOT_SUPPORTED`: the agent takes no push configs. A
 * session throws it before any request when the card says so.
 * @category Errors
 */
export class PushNotificationNotSupportedError extends A2AError {
  static override readonly code = "PUSH_NOTIFICATION_NOT_SUPPORTED";
}
/** `UNSUPPORTED_OPERATION`: the agent, or the protocol version in use, cannot do this. @category Errors */
export class UnsupportedOperationError extends A2AError {
  static override readonly code: A2AErrorCode = "UNSUPPORTED_OPERATION";
}
/** `CONTENT_TYPE_NOT_SUPPORTED`: a part's media type is not one the agent accepts. @category Errors */
export class ContentTypeNotSupportedError extends A2AError {
  static override readonly code = "CONTENT_TYPE_NOT_SUPPORTED";
}
/** `INVALID_AGENT_RESPONSE`: an agent answered in a way the protocol does not allow. @category Errors */
export class InvalidAgentResponseError extends A2AError {
  static override readonly code = "INVALID_AGENT_RESPONSE";
}
/** `EXTENDED_AGENT_CARD_NOT_CONFIGURED`: the agent has no extended card to give. @category Errors */
export class ExtendedAgentCardNotConfiguredError extends A2AError {
  static override readonly code = "EXTENDED_AGENT_CARD_NOT_CONFIGURED";
}
/**
 * `EXTENSION_SUPPORT_REQUIRED`: the agent requires an extension the client
 * did not activate. `connect()` throws it before any call when the card
 * marks an extension `required`.
 * @category Errors
 */
export class ExtensionSupportRequiredError extends A2AError {
  static override readonly code = "EXTENSION_SUPPORT_REQUIRED";
}
/** `VERSION_NOT_SUPPORTED`: the agent does not speak the A2A version sent in `A2A-Version`. @category Errors */
export class VersionNotSupportedError extends A2AError {
  static override readonly code = "VERSION_NOT_SUPPORTED";
}

// --- JSON-RPC 2.0 standard errors ------------------------------------------

/** JSON-RPC -32700: the server could not parse the request as JSON. @category Errors */
export class JsonRpcParseError extends A2AError {
  static override readonly code = "PARSE_ERROR";
}
/** JSON-RPC -32600: the request is not a valid JSON-RPC request. @category Errors */
export class InvalidRequestError extends A2AError {
  static override readonly code = "INVALID_REQUEST";
}
/** JSON-RPC -32601 (gRPC `UNIMPLEMENTED`): the server has no such method. @category Errors */
export class MethodNotFoundError extends A2AError {
  static override readonly code = "METHOD_NOT_FOUND";
}
/**
 * JSON-RPC -32602 (gRPC `INVALID_ARGUMENT`): the request's parameters are
 * invalid. Also thrown before any request by the client's own checks.
 * @category Errors
 */
export class InvalidParamsError extends A2AError {
  static override readonly code = "INVALID_PARAMS";
}
/** JSON-RPC -32603: the server failed while handling the request. @category Errors */
export class InternalError extends A2AError {
  static override readonly code = "INTERNAL_ERROR";
}

// --- Access ------------------------------------------------------------------

/** 401 / UNAUTHENTICATED: credentials missing, expired or wrong. @category Errors */
export class AuthenticationError extends A2AError {
  static override readonly code = "UNAUTHENTICATED";
  /** The `WWW-Authenticate` challenge, when the server sent one. */
  readonly challenge: string | undefined;
  constructor(message: string, init: A2AErrorInit & { challenge?: string | undefined } = {}) {
    super(message, init);
    this.challenge = init.challenge;
  }
}

/** 403 / PERMISSION_DENIED: authenticated, but not allowed. @category Errors */
export class AuthorizationError extends A2AError {
  static override readonly code = "PERMISSION_DENIED";
}

// --- Failures below the protocol ---------------------------------------------

/** How a connection failed: refused, reset, name resolution, or another network error. @category Errors */
export type ConnectionFailure = "refused" | "reset" | "dns" | "network";

/**
 * The request did not get a complete response: refused, reset, DNS, other.
 * Always transient, whatever the `kind`: a host that is away or a name that
 * does not resolve now may be back later.
 * @category Errors
 */
export class ConnectionError extends A2AError {
  static override readonly code = "CONNECTION_FAILED";
  /** How the connection failed. */
  readonly kind: ConnectionFailure;
  constructor(message: string, init: A2AErrorInit & { kind: ConnectionFailure }) {
    super(message, init);
    this.kind = init.kind;
  }
}

/**
 * A unary call outlived its timeout ("deadline"), or a stream received no
 * bytes for its idle timeout ("idle"). Always transient: a slow or silent
 * server may answer in time later. Not named `TimeoutError`: that name is
 * reserved by the platform's DOMException and treated specially by fetch and
 * connect.
 * @category Errors
 */
export class CallTimeoutError extends A2AError {
  static override readonly code = "CALL_TIMEOUT";
  /** `"deadline"`: the call outlived `timeoutMs`; `"idle"`: the stream was silent for `idleTimeoutMs`. */
  readonly kind: "deadline" | "idle";
  constructor(message: string, init: A2AErrorInit & { kind?: "deadline" | "idle" } = {}) {
    super(message, init);
    this.kind = init.kind ?? "deadline";
  }
}

/** The caller's AbortSignal fired (or a gRPC server cancelled the call). Never transient: it is a decision, not a fault. @category Errors */
export class AbortedError extends A2AError {
  static override readonly code = "ABORTED";
}

/**
 * The server answered, but not in a form the binding allows: malformed JSON,
 * a wrong content type, a body of the wrong shape, or one over a size limit.
 * @category Errors
 */
export class ProtocolError extends A2AError {
  static override readonly code = "PROTOCOL_ERROR";
}

/**
 * The server reported an error that has no more specific class here.
 * Transient with HTTP 429, 502, 503 or 504, or gRPC `RESOURCE_EXHAUSTED`:
 * a rate limit, or a gateway whose agent is away for now.
 * @category Errors
 */
export class ServerError extends A2AError {
  static override readonly code = "SERVER_ERROR";
}

// --- Agent Card discovery ------------------------------------------------------

/** No Agent Card at any of the locations tried. @category Errors */
export class AgentCardNotFoundError extends A2AError {
  static override readonly code = "AGENT_CARD_NOT_FOUND";
  /** Every URL tried, in order. */
  readonly tried: readonly string[];
  constructor(message: string, init: A2AErrorInit & { tried: readonly string[] }) {
    super(message, init);
    this.tried = init.tried;
  }
}

/** Why a document is not a valid Agent Card. @category Errors */
export type InvalidCardProblem =
  | "content-type"
  | "too-large"
  | "malformed-json"
  | "duplicate-key"
  | "not-an-object"
  | "missing-fields"
  | "wrong-shape"
  | "relative-url";

/** A document was found where a card should be, but it is not a valid Agent Card. @category Errors */
export class InvalidAgentCardError extends A2AError {
  static override readonly code = "INVALID_AGENT_CARD";
  /** What is wrong with the document. */
  readonly problem: InvalidCardProblem;
  /** For "missing-fields": the JSON path of every REQUIRED field a call needs that is absent (those no call needs are read, with a warning). */
  readonly missingFields: readonly string[];
  constructor(message: string, init: A2AErrorInit & { problem: InvalidCardProblem; missingFields?: readonly string[] }) {
    super(message, init);
    this.problem = init.problem;
    this.missingFields = init.missingFields ?? [];
  }
}

/** A redirect that the caller's redirect policy does not allow. @category Errors */
export class RedirectRefusedError extends A2AError {
  static override readonly code = "REDIRECT_REFUSED";
}

// --- Agent Card signatures -------------------------------------------------------

/**
 * An Agent Card did not meet the signature policy: no signature verified, or
 * one was required and the card has none. `result` says, per signature, why.
 * @category Errors
 */
export class AgentCardVerificationError extends A2AError {
  static override readonly code = "AGENT_CARD_VERIFICATION_FAILED";
  /** The outcome of verification, with the failure of each signature. */
  readonly result: VerificationResult;
  constructor(message: string, init: A2AErrorInit & { result: VerificationResult }) {
    super(message, init);
    this.result = init.result;
  }
}

// --- Connecting ------------------------------------------------------------------

/** None of the card's interfaces can be used by this client here. @category Errors */
export class NoCompatibleInterfaceError extends A2AError {
  static override readonly code = "NO_COMPATIBLE_INTERFACE";
  /** Each interface of the card and why it was passed over. */
  readonly passedOver: ReadonlyArray<{
    /** The interface's URL, without user info, query or fragment (which may hold a key). */
    url: string;
    /** Its protocol binding, as the card spells it. */
    binding: string;
    /** Its protocol version. */
    version: string;
    /** Why this client cannot use it. */
    reason: string;
  }>;
  constructor(message: string, init: A2AErrorInit & { passedOver: NoCompatibleInterfaceError["passedOver"] }) {
    super(message, init);
    this.passedOver = init.passedOver;
  }
}

// --- Resumable streams -------------------------------------------------------------

/**
 * A stream dropped and could not be resumed within the time and attempts
 * allowed, or, with `resume: false`, ended before its task reached a final
 * or interrupted state (then `attempts` is 0). Transient: the agent may be
 * back, and the task may be followed again with `subscribeToTask`.
 * @category Errors
 */
export class StreamResumeError extends A2AError {
  static override readonly code = "STREAM_RESUME_FAILED";
  /** The task the stream followed, if it was known. */
  readonly taskId: string | undefined;
  /** Reconnection attempts made after the last event. */
  readonly attempts: number;
  /** The last task state the stream reported (a `TaskState` value), if any. */
  readonly state: number | undefined;
  constructor(message: string, init: A2AErrorInit & { taskId: string | undefined; attempts: number; state?: number | undefined }) {
    super(message, init);
    this.taskId = init.taskId;
    this.attempts = init.attempts;
    this.state = init.state;
  }
}

// --- Conversations -------------------------------------------------------------------

/**
 * A message was addressed to a task the caller knows has ended (completed,
 * failed, canceled or rejected); raised before any request. A subclass of
 * `UnsupportedOperationError` because that is what an agent answers for such
 * a message (spec: terminal tasks accept no further messages), so code that
 * handles the server's error handles this one too.
 * @category Errors
 */
export class TaskTerminalError extends UnsupportedOperationError {
  static override readonly code = "TASK_TERMINAL";
  /** The task the message was for. */
  readonly taskId: string;
  /** Its terminal state (a `TaskState` value). */
  readonly state: number;
  constructor(message: string, init: A2AErrorInit & { taskId: string; state: number }) {
    super(message, init);
    this.taskId = init.taskId;
    this.state = init.state;
  }
}

// Each class's name as written, so that a minified bundle still prints
// `TaskNotFoundError: ...` (see base/keep-names.ts).
keepNames({
  A2AError,
  TaskNotFoundError,
  TaskNotCancelableError,
  PushNotificationNotSupportedError,
  UnsupportedOperationError,
  ContentTypeNotSupportedError,
  InvalidAgentResponseError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  VersionNotSupportedError,
  JsonRpcParseError,
  InvalidRequestError,
  MethodNotFoundError,
  InvalidParamsError,
  InternalError,
  AuthenticationError,
  AuthorizationError,
  ConnectionError,
  CallTimeoutError,
  AbortedError,
  ProtocolError,
  ServerError,
  AgentCardNotFoundError,
  InvalidAgentCardError,
  RedirectRefusedError,
  AgentCardVerificationError,
  NoCompatibleInterfaceError,
  StreamResumeError,
  TaskTerminalError,
});
