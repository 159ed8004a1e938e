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

import { Code, ConnectError } from "@connectrpc/connect";
import type { ErrorInfo } from "../gen/google/rpc/error_details_pb.js";
import type { VerificationResult } from "./discovery/verify.js";
import { safeUrl } from "./util.js";

/** The protocol bindings of A2A 1.0, spelled as Agent Cards spell them. */
export type Binding = "JSONRPC" | "HTTP+JSON" | "GRPC";

/** What an `A2AError` is built from; every field may be left out. */
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
 * wrong; the fields say how the error arrived, so one `catch` works the same
 * whatever the binding.
 */
export class A2AError extends Error {
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
    this.binding = init.binding;
    this.httpStatus = init.httpStatus;
    this.grpcCode = init.grpcCode;
    this.jsonRpcCode = init.jsonRpcCode;
    this.reason = init.reason;
    this.details = init.details ?? [];
    this.retryAfterMs = init.retryAfterMs;
  }
}

// --- Errors the A2A specification defines (section 3.3.2) -----------------

/** `TASK_NOT_FOUND`: no such task, or not one the caller may see. */
export class TaskNotFoundError extends A2AError {}
/** `TASK_NOT_CANCELABLE`: the task cannot be canceled in its current state. */
export class TaskNotCancelableError extends A2AError {}
/**
 * `PUSH_NOTIFICATION_NOT_SUPPORTED`: the agent takes no push configs. A
 * session throws it before any request when the card says so.
 */
export class PushNotificationNotSupportedError extends A2AError {}
/** `UNSUPPORTED_OPERATION`: the agent, or the protocol version in use, cannot do this. */
export class UnsupportedOperationError extends A2AError {}
/** `CONTENT_TYPE_NOT_SUPPORTED`: a part's media type is not one the agent accepts. */
export class ContentTypeNotSupportedError extends A2AError {}
/** `INVALID_AGENT_RESPONSE`: an agent answered in a way the protocol does not allow. */
export class InvalidAgentResponseError extends A2AError {}
/** `EXTENDED_AGENT_CARD_NOT_CONFIGURED`: the agent has no extended card to give. */
export class ExtendedAgentCardNotConfiguredError extends A2AError {}
/**
 * `EXTENSION_SUPPORT_REQUIRED`: the agent requires an extension the client
 * did not activate. `connect()` throws it before any call when the card
 * marks an extension `required`.
 */
export class ExtensionSupportRequiredError extends A2AError {}
/** `VERSION_NOT_SUPPORTED`: the agent does not speak the A2A version sent in `A2A-Version`. */
export class VersionNotSupportedError extends A2AError {}

// --- JSON-RPC 2.0 standard errors ------------------------------------------

/** JSON-RPC -32700: the server could not parse the request as JSON. */
export class JsonRpcParseError extends A2AError {}
/** JSON-RPC -32600: the request is not a valid JSON-RPC request. */
export class InvalidRequestError extends A2AError {}
/** JSON-RPC -32601 (gRPC `UNIMPLEMENTED`): the server has no such method. */
export class MethodNotFoundError extends A2AError {}
/**
 * JSON-RPC -32602 (gRPC `INVALID_ARGUMENT`): the request's parameters are
 * invalid. Also thrown before any request by the client's own checks.
 */
export class InvalidParamsError extends A2AError {}
/** JSON-RPC -32603: the server failed while handling the request. */
export class InternalError extends A2AError {}

// --- Access ------------------------------------------------------------------

/** 401 / UNAUTHENTICATED: credentials missing, expired or wrong. */
export class AuthenticationError extends A2AError {
  /** The `WWW-Authenticate` challenge, when the server sent one. */
  readonly challenge: string | undefined;
  constructor(message: string, init: A2AErrorInit & { challenge?: string | undefined } = {}) {
    super(message, init);
    this.challenge = init.challenge;
  }
}

/** 403 / PERMISSION_DENIED: authenticated, but not allowed. */
export class AuthorizationError extends A2AError {}

// --- Failures below the protocol ---------------------------------------------

/** How a connection failed: refused, reset, name resolution, or another network error. */
export type ConnectionFailure = "refused" | "reset" | "dns" | "network";

/** The request did not get a complete response: refused, reset, DNS, other. */
export class ConnectionError extends A2AError {
  /** How the connection failed. */
  readonly kind: ConnectionFailure;
  constructor(message: string, init: A2AErrorInit & { kind: ConnectionFailure }) {
    super(message, init);
    this.kind = init.kind;
  }
}

/**
 * A unary call outlived its timeout ("deadline"), or a stream received no
 * bytes for its idle timeout ("idle"). Not named `TimeoutError`: that name is
 * reserved by the platform's DOMException and treated specially by fetch and
 * connect.
 */
export class CallTimeoutError extends A2AError {
  /** `"deadline"`: the call outlived `timeoutMs`; `"idle"`: the stream was silent for `idleTimeoutMs`. */
  readonly kind: "deadline" | "idle";
  constructor(message: string, init: A2AErrorInit & { kind?: "deadline" | "idle" } = {}) {
    super(message, init);
    this.kind = init.kind ?? "deadline";
  }
}

/** The caller's AbortSignal fired. */
export class AbortedError extends A2AError {}

/**
 * The server answered, but not in a form the binding allows: malformed JSON,
 * a wrong content type, a body of the wrong shape, or one over a size limit.
 */
export class ProtocolError extends A2AError {}

/** The server reported an error that has no more specific class here. */
export class ServerError extends A2AError {}

// --- Classification ------------------------------------------------------------

type ErrorClass = new (message: string, init: A2AErrorInit) => A2AError;

interface Known {
  reason: string;
  jsonRpc: number;
  cls: ErrorClass;
}

// Codes from the specification's mapping table (section 5.4). -32006 is also
// accepted as VersionNotSupported in the reason-less fallback below only via
// the reason: peers of different revisions reuse codes, the reason is stable.
const A2A_ERRORS: readonly Known[] = [
  { reason: "TASK_NOT_FOUND", jsonRpc: -32001, cls: TaskNotFoundError },
  { reason: "TASK_NOT_CANCELABLE", jsonRpc: -32002, cls: TaskNotCancelableError },
  { reason: "PUSH_NOTIFICATION_NOT_SUPPORTED", jsonRpc: -32003, cls: PushNotificationNotSupportedError },
  { reason: "UNSUPPORTED_OPERATION", jsonRpc: -32004, cls: UnsupportedOperationError },
  { reason: "CONTENT_TYPE_NOT_SUPPORTED", jsonRpc: -32005, cls: ContentTypeNotSupportedError },
  { reason: "INVALID_AGENT_RESPONSE", jsonRpc: -32006, cls: InvalidAgentResponseError },
  { reason: "EXTENDED_AGENT_CARD_NOT_CONFIGURED", jsonRpc: -32007, cls: ExtendedAgentCardNotConfiguredError },
  { reason: "EXTENSION_SUPPORT_REQUIRED", jsonRpc: -32008, cls: ExtensionSupportRequiredError },
  { reason: "VERSION_NOT_SUPPORTED", jsonRpc: -32009, cls: VersionNotSupportedError },
];

// JSON-RPC's standard errors, by code and by the ErrorInfo reason servers
// attach to them on every binding (the official SDK sends INVALID_PARAMS
// with an HTTP+JSON 400 and a gRPC INVALID_ARGUMENT alike).
const STANDARD_ERRORS: readonly Known[] = [
  { reason: "PARSE_ERROR", jsonRpc: -32700, cls: JsonRpcParseError },
  { reason: "INVALID_REQUEST", jsonRpc: -32600, cls: InvalidRequestError },
  { reason: "METHOD_NOT_FOUND", jsonRpc: -32601, cls: MethodNotFoundError },
  { reason: "INVALID_PARAMS", jsonRpc: -32602, cls: InvalidParamsError },
  { reason: "INTERNAL_ERROR", jsonRpc: -32603, cls: InternalError },
];

const KNOWN_ERRORS: readonly Known[] = [...A2A_ERRORS, ...STANDARD_ERRORS];

// gRPC status codes (numbers as in the gRPC specification), by the names
// a google.rpc.Status in JSON gives them (`"status": "NOT_FOUND"`).
const GRPC: Readonly<Record<string, number>> = {
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  UNIMPLEMENTED: 12,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
};

const ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo";

/** The ErrorInfo reason among JSON error details, if one is there. */
export function reasonFromDetails(details: readonly unknown[]): string | undefined {
  for (const d of details) {
    if (isRecord(d) && d["@type"] === ERROR_INFO_TYPE && typeof d.reason === "string") {
      return d.reason;
    }
  }
  return undefined;
}

/** `https://example.com/errors/task-not-found` -> `TASK_NOT_FOUND`. */
function reasonFromProblemType(type: string | undefined): string | undefined {
  if (!type) return undefined;
  const last = type.split(/[/#:]/).filter(Boolean).pop();
  if (!last) return undefined;
  return last.replace(/Error$/, "").replace(/([a-z])([A-Z])/g, "$1_$2").replace(/-/g, "_").toUpperCase();
}

/** What a binding learned from an error response, for `errorFromServer` to classify. */
export interface ServerErrorFacts extends A2AErrorInit {
  /** The server's message; a generic one is used when empty. */
  message: string;
  /** `type` of an RFC 9457 problem+json body. */
  problemType?: string | undefined;
  /** `WWW-Authenticate` of a 401 response. */
  challenge?: string | undefined;
  /** `status` of an HTTP+JSON `google.rpc.Status` body: a gRPC code name such as `NOT_FOUND`. */
  rpcStatus?: string | undefined;
  /** The URL the response came from, for the message of an error only the HTTP status describes. */
  url?: string | undefined;
}

/**
 * Builds the most specific error for what a server reported. Every binding
 * funnels its error responses through here, so one table decides.
 */
export function errorFromServer(facts: ServerErrorFacts): A2AError {
  const { message: said, problemType, challenge, rpcStatus, url, ...rest } = facts;
  const init: A2AErrorInit = { ...rest, reason: facts.reason ?? reasonFromDetails(facts.details ?? []) };
  const message = said || "the server reported an error without a message";

  // 1. What the error is, by name: the ErrorInfo reason (or problem type).
  const reason = init.reason ?? reasonFromProblemType(problemType);
  const byReason = reason === undefined ? undefined : KNOWN_ERRORS.find((k) => k.reason === reason);
  if (byReason) return new byReason.cls(message, { ...init, reason });

  // 2. The JSON-RPC code.
  if (facts.jsonRpcCode !== undefined) {
    const byCode = KNOWN_ERRORS.find((k) => k.jsonRpc === facts.jsonRpcCode)?.cls;
    if (byCode) return new byCode(message, init);
  }

  // 3. The status the server stated: the gRPC code, or the google.rpc.Status
  // of an HTTP+JSON error body, which the same table reads.
  const code = facts.grpcCode ?? (rpcStatus === undefined ? undefined : GRPC[rpcStatus]);
  if (code !== undefined && facts.jsonRpcCode === undefined) {
    if (code === GRPC.UNAUTHENTICATED) return new AuthenticationError(message, { ...init, challenge });
    if (code === GRPC.PERMISSION_DENIED) return new AuthorizationError(message, init);
    if (code === GRPC.NOT_FOUND) return new TaskNotFoundError(message, init);
    if (code === GRPC.UNIMPLEMENTED) return new MethodNotFoundError(message, init);
    if (code === GRPC.INVALID_ARGUMENT) return new InvalidParamsError(message, init);
    if (code === GRPC.DEADLINE_EXCEEDED) return new CallTimeoutError(message, init);
    if (code === GRPC.CANCELLED) return new AbortedError(message, init);
    if (code === GRPC.UNAVAILABLE) return new ConnectionError(message, { ...init, kind: "network" });
  }

  // 4. The HTTP status alone.
  const status = facts.httpStatus;
  if (status === 401) return new AuthenticationError(message, { ...init, challenge });
  if (status === 403) return new AuthorizationError(message, init);
  if (status === 404 && facts.jsonRpcCode === undefined && facts.grpcCode === undefined && rpcStatus === undefined) {
    // No A2A error says what is missing (spec 11.6: A2A errors carry an
    // ErrorInfo): the URL itself serves no A2A method, as with a wrong
    // interface URL, a proxy's path mistake or a framework's 404 page.
    const where = url === undefined ? "" : ` at ${safeUrl(url)}`;
    return new MethodNotFoundError(`no A2A endpoint${where} (HTTP 404: ${message}); check the interface URL`, init);
  }
  return new ServerError(message, init);
}

// Node's socket errors, found anywhere in the `cause` chain of a failed fetch
// or node:http request.
const SOCKET_CODES: Record<string, ConnectionFailure> = {
  ECONNREFUSED: "refused",
  ECONNRESET: "reset",
  EPIPE: "reset",
  UND_ERR_SOCKET: "reset",
  ENOTFOUND: "dns",
  EAI_AGAIN: "dns",
};

function socketFailure(e: unknown): { kind: ConnectionFailure; code: string } | undefined {
  for (let cur = e, depth = 0; isRecord(cur) && depth < 8; cur = cur.cause, depth++) {
    const code = cur.code;
    if (typeof code === "string" && code in SOCKET_CODES) return { kind: SOCKET_CODES[code]!, code };
  }
  return undefined;
}

// What the HTTP parsers report for a response that is not valid HTTP (a
// bad status line, headers over the limit, a broken chunked encoding, more
// body than Content-Length): Node's llhttp codes are `HPE_*`, undici has
// its own for the last two. The server answered, but not in HTTP.
const MALFORMED_HTTP = new Set(["UND_ERR_HEADERS_OVERFLOW", "UND_ERR_RES_CONTENT_LENGTH_MISMATCH"]);
// The one parser code that means the connection ended inside a response.
const CUT_HTTP = "HPE_INVALID_EOF_STATE";

function parserFailure(e: unknown): string | undefined {
  for (let cur = e, depth = 0; isRecord(cur) && depth < 8; cur = cur.cause, depth++) {
    const code = cur.code;
    if (typeof code === "string" && (code.startsWith("HPE_") || MALFORMED_HTTP.has(code))) return code;
  }
  return undefined;
}

/**
 * Turns anything thrown while making a call into an A2AError. Errors that
 * are already A2AErrors pass through, also when wrapped as a `cause` (connect
 * wraps what a transport throws). `url`, when given, is named (origin and
 * path only) in the messages of failures below the protocol.
 */
export function toA2AError(e: unknown, binding?: Binding, url?: string): A2AError {
  for (let cur = e, depth = 0; isRecord(cur) && depth < 8; cur = cur.cause, depth++) {
    if (cur instanceof A2AError) return cur;
  }
  if (e instanceof ConnectError) return fromConnectError(e, binding);
  if (isRecord(e) && (e.name === "AbortError" || e.name === "TimeoutError")) {
    return e.name === "TimeoutError"
      ? new CallTimeoutError("the call timed out", { binding, cause: e })
      : new AbortedError("the call was aborted", { binding, cause: e });
  }
  const where = url === undefined ? "" : ` (${safeUrl(url)})`;
  const parser = parserFailure(e);
  if (parser === CUT_HTTP) {
    return new ConnectionError(`connection cut inside the response (${parser})${where}`, { binding, kind: "reset", cause: e });
  }
  if (parser !== undefined) {
    return new ProtocolError(`malformed HTTP response (${parser})${where}`, { binding, cause: e });
  }
  const socket = socketFailure(e);
  if (socket) {
    return new ConnectionError(`connection ${socket.kind === "dns" ? "failed: host not found" : socket.kind} (${socket.code})${where}`, {
      binding,
      kind: socket.kind,
      cause: e,
    });
  }
  if (e instanceof TypeError) {
    // fetch reports every network failure as a TypeError ("Failed to fetch",
    // "fetch failed", "terminated").
    return new ConnectionError(`network error: ${e.message}${where}`, { binding, kind: "network", cause: e });
  }
  const message = e instanceof Error ? e.message : String(e);
  return new A2AError(message, { binding, cause: e });
}

/**
 * gRPC errors, and the aborts and deadlines that the call runners
 * report, arrive as ConnectErrors. `info` is the `google.rpc.ErrorInfo` of
 * a gRPC error status: the gRPC transports decode it from the status details
 * (which takes the google.rpc schema, so only they carry that code) and
 * classify their errors here.
 */
export function fromConnectError(e: ConnectError, binding: Binding | undefined, info?: Pick<ErrorInfo, "reason" | "domain" | "metadata">): A2AError {
  if (e.code === Code.Canceled) return new AbortedError("the call was aborted", { binding, grpcCode: e.code, cause: e });
  if (e.code === Code.DeadlineExceeded) {
    // The runners' message names the URL and the deadline.
    return new CallTimeoutError(e.rawMessage || "the call timed out", { binding, kind: "deadline", cause: e });
  }
  // connect reports what it could not decode (a bad frame, a wrong content
  // type) as Internal or Unknown errors without a grpc-status from the server.
  if (binding === "GRPC" && (e.code === Code.Internal || e.code === Code.Unknown) && !e.metadata.has("grpc-status")) {
    return new ProtocolError(`malformed gRPC response: ${e.rawMessage}`, { binding, grpcCode: e.code, cause: e });
  }
  const socket = socketFailure(e.cause);
  if (socket && e.code === Code.Unavailable) {
    return new ConnectionError(`connection ${socket.kind} (${socket.code})`, { binding, kind: socket.kind, grpcCode: e.code, cause: e });
  }
  return errorFromServer({
    message: e.rawMessage,
    binding,
    grpcCode: e.code,
    reason: info?.reason || undefined,
    details: info ? [{ "@type": ERROR_INFO_TYPE, reason: info.reason, domain: info.domain, metadata: info.metadata }] : [],
    cause: e,
  });
}

/** A non-null object (arrays included): something whose fields can be read. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}

// --- Agent Card discovery ------------------------------------------------------

/** No Agent Card at any of the locations tried. */
export class AgentCardNotFoundError extends A2AError {
  /** Every URL tried, in order. */
  readonly tried: readonly string[];
  constructor(message: string, init: A2AErrorInit & { tried: readonly string[] }) {
    super(message, init);
    this.tried = init.tried;
  }
}

/** Why a document is not a valid Agent Card. */
export type InvalidCardProblem =
  | "content-type"
  | "too-large"
  | "malformed-json"
  | "duplicate-key"
  | "not-an-object"
  | "missing-fields"
  | "wrong-shape";

/** A document was found where a card should be, but it is not a valid Agent Card. */
export class InvalidAgentCardError extends A2AError {
  /** What is wrong with the document. */
  readonly problem: InvalidCardProblem;
  /** For "missing-fields": the JSON path of every REQUIRED field that is absent. */
  readonly missingFields: readonly string[];
  constructor(message: string, init: A2AErrorInit & { problem: InvalidCardProblem; missingFields?: readonly string[] }) {
    super(message, init);
    this.problem = init.problem;
    this.missingFields = init.missingFields ?? [];
  }
}

/** A redirect that the caller's redirect policy does not allow. */
export class RedirectRefusedError extends A2AError {}

// --- Agent Card signatures -------------------------------------------------------

/**
 * An Agent Card did not meet the signature policy: no signature verified, or
 * one was required and the card has none. `result` says, per signature, why.
 */
export class AgentCardVerificationError extends A2AError {
  /** The outcome of verification, with the failure of each signature. */
  readonly result: VerificationResult;
  constructor(message: string, init: A2AErrorInit & { result: VerificationResult }) {
    super(message, init);
    this.result = init.result;
  }
}

// --- Connecting ------------------------------------------------------------------

/** None of the card's interfaces can be used by this client here. */
export class NoCompatibleInterfaceError extends A2AError {
  /** Each interface of the card and why it was passed over. */
  readonly passedOver: ReadonlyArray<{
    /** The interface's URL. */
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

/**
 * `Retry-After` (RFC 9110 section 10.2.3): seconds, or an HTTP date.
 * Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

// --- Resumable streams -------------------------------------------------------------

/**
 * A stream dropped and could not be resumed within the time and attempts
 * allowed, or, with `resume: false`, ended before its task reached a final
 * or interrupted state (then `attempts` is 0).
 */
export class StreamResumeError extends A2AError {
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
 */
export class TaskTerminalError extends UnsupportedOperationError {
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
