/**
 * Classification: which `A2AError` class a failure is. Servers disagree on
 * numeric codes, so the `google.rpc.ErrorInfo` reason (or a problem+json
 * `type`) decides first, then the JSON-RPC code, then the status the server
 * stated, and only then the HTTP status. Failures below the protocol (socket
 * errors, parser errors, aborts) are classified from their cause chain.
 */
import type { ConnectError } from "@connectrpc/connect";
import type { ErrorInfo } from "../../gen/google/rpc/error_details_pb.js";
import type { Binding } from "../base/bindings.js";
import { isRecord } from "../base/is-record.js";
import { hostPort, parsedUrl, safeUrl } from "../base/urls.js";
import {
  A2AError,
  AbortedError,
  AuthenticationError,
  AuthorizationError,
  CallTimeoutError,
  ConnectionError,
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  InternalError,
  InvalidAgentResponseError,
  InvalidParamsError,
  InvalidRequestError,
  JsonRpcParseError,
  MethodNotFoundError,
  ProtocolError,
  PushNotificationNotSupportedError,
  ServerError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
  type A2AErrorInit,
  type ConnectionFailure,
} from "./family.js";
import { isGatewayStatus, type A2AErrorCode } from "./codes.js";
import { foundA2AError } from "./classification.js";

// --- Classification ------------------------------------------------------------

/** An error class the server names; `code` is the ErrorInfo reason it is sent with. */
export interface ErrorClass {
  new (message: string, init: A2AErrorInit): A2AError;
  readonly code: A2AErrorCode;
}

/** A class the server may name by its reason (the class's code) or its JSON-RPC code. */
interface Known {
  jsonRpc: number;
  cls: ErrorClass;
}

// Codes from the specification's mapping table (section 5.4). -32006 is also
// accepted as VersionNotSupported in the reason-less fallback below only via
// the reason: peers of different revisions reuse codes, the reason is stable.
const A2A_ERRORS: readonly Known[] = [
  { jsonRpc: -32001, cls: TaskNotFoundError },
  { jsonRpc: -32002, cls: TaskNotCancelableError },
  { jsonRpc: -32003, cls: PushNotificationNotSupportedError },
  { jsonRpc: -32004, cls: UnsupportedOperationError },
  { jsonRpc: -32005, cls: ContentTypeNotSupportedError },
  { jsonRpc: -32006, cls: InvalidAgentResponseError },
  { jsonRpc: -32007, cls: ExtendedAgentCardNotConfiguredError },
  { jsonRpc: -32008, cls: ExtensionSupportRequiredError },
  { jsonRpc: -32009, cls: VersionNotSupportedError },
];

// JSON-RPC's standard errors, by code and by the ErrorInfo reason servers
// attach to them on every binding (the official SDK sends INVALID_PARAMS
// with an HTTP+JSON 400 and a gRPC INVALID_ARGUMENT alike).
const STANDARD_ERRORS: readonly Known[] = [
  { jsonRpc: -32700, cls: JsonRpcParseError },
  { jsonRpc: -32600, cls: InvalidRequestError },
  { jsonRpc: -32601, cls: MethodNotFoundError },
  { jsonRpc: -32602, cls: InvalidParamsError },
  { jsonRpc: -32603, cls: InternalError },
];

const KNOWN_ERRORS: readonly Known[] = [...A2A_ERRORS, ...STANDARD_ERRORS];

// gRPC status codes (numbers as in the gRPC specification), by the names
// a google.rpc.Status in JSON gives them (`"status": "NOT_FOUND"`).
const GRPC: Readonly<Record<string, number>> = {
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
};

// FAILED_PRECONDITION is the gRPC status of six A2A errors (spec 5.4), so
// the status alone does not say which. Without a reason or a JSON-RPC code,
// the method does where one of them is about the method itself: a cancel
// refused is the task's state, a subscribe refused is the task's final
// state (spec 3.1.6), a push config call refused is push support, an
// extended card refused is that card. Method names of 1.0 and of 0.3
// (whose subscribe, list and card methods are named otherwise).
const PRECONDITION_OF_METHOD: ReadonlyMap<string, ErrorClass> = new Map<string, ErrorClass>([
  ["CancelTask", TaskNotCancelableError],
  ["SubscribeToTask", UnsupportedOperationError],
  ["TaskSubscription", UnsupportedOperationError],
  ["CreateTaskPushNotificationConfig", PushNotificationNotSupportedError],
  ["GetTaskPushNotificationConfig", PushNotificationNotSupportedError],
  ["ListTaskPushNotificationConfigs", PushNotificationNotSupportedError],
  ["ListTaskPushNotificationConfig", PushNotificationNotSupportedError],
  ["DeleteTaskPushNotificationConfig", PushNotificationNotSupportedError],
  ["GetExtendedAgentCard", ExtendedAgentCardNotConfiguredError],
  ["GetAgentCard", ExtendedAgentCardNotConfiguredError],
]);

const ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo";
const RETRY_INFO_TYPE = "type.googleapis.com/google.rpc.RetryInfo";

/**
 * The `retryDelay` of a `google.rpc.RetryInfo` among an error's JSON
 * details (a ProtoJSON duration such as "1.5s"), in milliseconds: how
 * gRPC-style servers say when to try again, where HTTP says Retry-After.
 */
function retryDelayFromDetails(details: readonly unknown[]): number | undefined {
  for (const d of details) {
    if (!isRecord(d) || d["@type"] !== RETRY_INFO_TYPE) continue;
    const delay = d.retryDelay;
    const m = typeof delay === "string" ? /^(\d{1,12})(\.\d{1,9})?s$/.exec(delay) : null;
    if (m) return Number(m[1]) * 1000 + Math.round(Number(`0${m[2] ?? ""}`) * 1000);
  }
  return undefined;
}

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
  return last
    .replace(/Error$/, "")
    .replace(/([a-z])([A-Z])/g, "$1_$2")
    .replace(/-/g, "_")
    .toUpperCase();
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
  /**
   * The method called, by its proto name (`CancelTask`), which tells apart
   * the errors that share a stated status (FAILED_PRECONDITION).
   */
  method?: string | undefined;
  /**
   * The A2A error the server named without a reason or a code, as our class
   * of it: a 0.3 Java server's HTTP+JSON body names the error's Java class
   * (`io.a2a.spec.TaskNotFoundError`), which the 0.3 wire reads
   * (v0_3/error-names.ts). Decides after a reason, before a code or status.
   */
  named?: ErrorClass | undefined;
}

/**
 * Builds the most specific error for what a server reported. Every binding
 * funnels its error responses through here, so one table decides.
 */
export function errorFromServer(facts: ServerErrorFacts): A2AError {
  const { message: said, problemType, challenge, rpcStatus, url, method, named, ...rest } = facts;
  const init: A2AErrorInit = {
    ...rest,
    reason: facts.reason ?? reasonFromDetails(facts.details ?? []),
    retryAfterMs: facts.retryAfterMs ?? retryDelayFromDetails(facts.details ?? []),
  };
  const message = said || "the server reported an error without a message";

  // 1. What the error is, by name: the ErrorInfo reason (or problem type),
  // or the class the server named otherwise.
  const reason = init.reason ?? reasonFromProblemType(problemType);
  const byReason = reason === undefined ? undefined : KNOWN_ERRORS.find((k) => k.cls.code === reason);
  if (byReason) return new byReason.cls(message, { ...init, reason });
  if (named) return new named(message, init);

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
    const precondition = code === GRPC.FAILED_PRECONDITION && method !== undefined ? PRECONDITION_OF_METHOD.get(method) : undefined;
    if (precondition) return new precondition(message, init);
    // The server failed while handling the call: what JSON-RPC says with
    // -32603, gRPC servers say with INTERNAL, or UNKNOWN for a handler that
    // threw. Not from a gateway, whose 5xx stays a ServerError (transient).
    if ((code === GRPC.INTERNAL || code === GRPC.UNKNOWN) && !isGatewayStatus(facts.httpStatus)) return new InternalError(message, init);
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

// Node's socket and TLS errors, found anywhere in the `cause` chain of a
// failed fetch or node:http request.
const SOCKET_CODES: Record<string, ConnectionFailure> = {
  ECONNREFUSED: "refused",
  ECONNRESET: "reset",
  EPIPE: "reset",
  UND_ERR_SOCKET: "reset",
  ENOTFOUND: "dns",
  EAI_AGAIN: "dns",
  EHOSTUNREACH: "network",
  ETIMEDOUT: "network",
};

// TLS failures (kind "network"): OpenSSL's and Node's codes, and the certificate checks'
// (CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT, UNABLE_TO_VERIFY_LEAF_SIGNATURE, ...).
const TLS_CODE = /^(ERR_SSL_|ERR_TLS_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_)|^EPROTO$/;

/** What a message says of a connection that failed with `code` (TLS codes are of kind "network"). */
function connectionFailed(kind: ConnectionFailure, code: string): string {
  return `${TLS_CODE.test(code) ? "TLS" : "connection"} ${kind === "dns" ? "failed: host not found" : kind === "network" ? "failed" : kind} (${code})`;
}

function socketFailure(e: unknown): { kind: ConnectionFailure; code: string } | undefined {
  for (let cur = e, depth = 0; isRecord(cur) && depth < 8; cur = cur.cause, depth++) {
    const code = cur.code;
    if (typeof code === "string" && (code in SOCKET_CODES || TLS_CODE.test(code))) {
      return { kind: SOCKET_CODES[code] ?? "network", code };
    }
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
 * path only) in the messages of failures below the protocol, and a
 * connection that failed names the host and port it went to. What the
 * causes quote is left as it is: a call's runner masks what the request
 * carried after this (http/run-call.ts), and the toolkit's `toA2AError`
 * (http/masked-a2a-error.ts) every URL they name.
 */
export function toA2AError(e: unknown, binding?: Binding, url?: string): A2AError {
  const found = foundA2AError(e);
  if (found) return found;
  if (isConnectError(e)) return fromConnectError(e, binding);
  if (isRecord(e) && (e.name === "AbortError" || e.name === "TimeoutError")) {
    return e.name === "TimeoutError"
      ? new CallTimeoutError("the call timed out", { binding, cause: e })
      : new AbortedError("the call was aborted", { binding, cause: e });
  }
  const where = url === undefined ? "" : ` (${safeUrl(url)})`;
  const to = url === undefined ? "" : ` to ${hostPort(url)}${where}`;
  const parser = parserFailure(e);
  if (parser === CUT_HTTP) {
    return new ConnectionError(`connection cut inside the response (${parser})${to}`, { binding, kind: "reset", cause: e });
  }
  if (parser !== undefined) {
    return new ProtocolError(`malformed HTTP response (${parser})${where}`, { binding, cause: e });
  }
  const socket = socketFailure(e);
  if (socket) {
    return new ConnectionError(`${connectionFailed(socket.kind, socket.code)}${to}`, {
      binding,
      kind: socket.kind,
      cause: e,
    });
  }
  if (e instanceof TypeError) {
    // A port the Fetch standard blocks (undici's "bad port"): fetch sends
    // nothing, so it never arrived, as a refused connection has not.
    if (isRecord(e.cause) && e.cause.message === "bad port") {
      return new ConnectionError(`connection refused by fetch: a port the Fetch standard blocks ("bad port")${to}`, {
        binding,
        kind: "refused",
        cause: e,
      });
    }
    // fetch reports every network failure as a TypeError ("Failed to fetch",
    // "fetch failed", "terminated").
    return new ConnectionError(`network error: ${e.message}${to}${corsHint(url)}`, { binding, kind: "network", cause: e });
  }
  const message = e instanceof Error ? e.message : String(e);
  return new A2AError(message, { binding, cause: e });
}

/**
 * What code above the wire threw while a call ran (an interceptor of the
 * application's, or a bug), as an A2AError that says it failed in the
 * client, quoting the thrown error's name and message and keeping it as
 * `cause`: the same class on every binding. The bindings turn what their
 * HTTP client and the wire throw into A2AErrors where they meet it, so
 * anything else reaching a call's runner came from above. Read as the server's, it would be an InternalError (JSON-RPC,
 * HTTP+JSON) or a malformed gRPC response; read as fetch's network
 * TypeError, a transient ConnectionError, retried and resumed. Returned as
 * it is: an A2AError or a ConnectError (an interceptor's word, classified as
 * any other), an abort or timeout, a socket or HTTP parser failure found in
 * its causes (an interceptor's own request that failed), and `undefined`.
 */
export function clientFault(e: unknown): unknown {
  if (e === undefined || e instanceof A2AError || isConnectError(e) || socketFailure(e) || parserFailure(e)) return e;
  if (isRecord(e) && (e.name === "AbortError" || e.name === "TimeoutError")) return e;
  if (e instanceof Error) withoutRefusedHeader(e);
  const what = e instanceof Error ? `${e.name}: ${e.message}` : typeof e === "string" ? e : describeThrown(e);
  return new A2AError(`the call failed in the client, not on the network: ${what}`, { cause: e });
}

/** A thrown value that is neither an Error nor a string, for a message: `a number (7)`, `an object`. */
function describeThrown(e: unknown): string {
  if (e === null) return "null was thrown";
  if (typeof e === "object") return "an object that is no Error was thrown";
  return `a ${typeof e} was thrown (${String(e).slice(0, 100)})`;
}

/**
 * Node's Headers quotes the value (or name) it refuses in its TypeError: a
 * header value is a credential until known otherwise (http/sent-secrets.ts),
 * and this one never reached the request the error path masks, so it is
 * masked here, in the error's message and stack, in place.
 */
function withoutRefusedHeader(e: Error): void {
  const refused = /"([\s\S]+)" is an invalid header (?:value|name)/.exec(e.message)?.[1];
  if (refused === undefined) return;
  const mask = (text: string) => text.split(refused).join("***");
  e.message = mask(e.message);
  if (typeof e.stack === "string") e.stack = mask(e.stack);
}

/**
 * In a page or a worker, a request to another origin that its CORS rules
 * refuse fails as a bare network error (the browser tells the page nothing
 * more): the message says so, naming the page's origin and the origin whose
 * rules to check, which is not always the agent's (a key set's, a token
 * endpoint's). Nothing where there is no page (Node) or the request stays
 * on the page's origin.
 */
function corsHint(url: string | undefined): string {
  const page = (globalThis as { location?: { origin?: unknown } }).location?.origin;
  const to = url === undefined ? undefined : parsedUrl(url)?.origin;
  if (typeof page !== "string" || !page.startsWith("http") || to === undefined || to === page) return "";
  return `; from a page on ${page}, this is also how a browser reports a request that the CORS rules of ${to} refuse (its Access-Control-Allow-Origin and Access-Control-Allow-Headers must allow this origin and the request's headers)`;
}

/**
 * Whether `e` is a ConnectError, told by its shape (an Error named
 * "ConnectError" with a numeric code, metadata, details, its raw message and
 * a cause), which is how connect's own `instanceof ConnectError` tells one
 * made by another copy of connect. The classification tells it so rather
 * than with the class: importing the class would bring connect's error
 * module and, through its `findDetails`, protobuf-es's binary reader into
 * the chunk that every app's start shares with the classification, where
 * only the gRPC transports, which load them themselves, make ConnectErrors.
 * The gRPC binding's naming of failures (bindings/grpc/failures.ts), which
 * every app's bundle holds as a chunk of its own, tells it so too.
 */
export function isConnectError(e: unknown): e is ConnectError {
  return (
    e instanceof Error &&
    e.name === "ConnectError" &&
    typeof (e as { code?: unknown }).code === "number" &&
    "metadata" in e &&
    Array.isArray((e as { details?: unknown }).details) &&
    typeof (e as { rawMessage?: unknown }).rawMessage === "string" &&
    "cause" in e
  );
}

/**
 * gRPC errors arrive as ConnectErrors, as do the aborts and deadlines of
 * connect's own call runner (gRPC-web's) and an interceptor's own word. `info` is the `google.rpc.ErrorInfo` of
 * a gRPC error status: the gRPC transports decode it from the status details
 * (which takes the google.rpc schema, so only they carry that code) and
 * classify their errors here, with the name of the `method` called.
 */
export function fromConnectError(
  e: ConnectError,
  binding: Binding | undefined,
  info?: Pick<ErrorInfo, "reason" | "domain" | "metadata">,
  retryAfterMs?: number,
  method?: string,
): A2AError {
  // A grpc-status that is not a code (`abc`, `99`) states nothing.
  const stated = /^(\d|1[0-6])$/.test(e.metadata.get("grpc-status") ?? "");
  // CANCELLED and DEADLINE_EXCEEDED without a status are the call's own abort
  // and deadline; stated by the server, they are its answer, classified as
  // every other status is (its ErrorInfo reason first, its message kept).
  if (!stated) {
    // The cause is what aborted the call, as the runners keep it (the caller's signal's reason).
    if (e.code === GRPC.CANCELLED) return new AbortedError("the call was aborted", { binding, grpcCode: e.code, cause: e.cause ?? e });
    if (e.code === GRPC.DEADLINE_EXCEEDED) {
      // The runners' message names the URL and the deadline.
      return new CallTimeoutError(e.rawMessage || "the call timed out", { binding, kind: "deadline", cause: e });
    }
  }
  // connect reports what it could not decode (a bad frame, a wrong content
  // type) as Internal or Unknown errors without a grpc-status from the server.
  // RESOURCE_EXHAUSTED without a status is the client's own readMaxBytes: a
  // size limit exceeded, as on the HTTP bindings, and no use trying again.
  const limit = e.code === GRPC.RESOURCE_EXHAUSTED;
  if (binding === "GRPC" && (limit || e.code === GRPC.INTERNAL || e.code === GRPC.UNKNOWN) && !stated) {
    return new ProtocolError(`${limit ? "gRPC response refused" : "malformed gRPC response"}: ${e.rawMessage}`, {
      binding,
      grpcCode: e.code,
      cause: e,
    });
  }
  const socket = socketFailure(e.cause);
  if (socket && e.code === GRPC.UNAVAILABLE) {
    return new ConnectionError(connectionFailed(socket.kind, socket.code), { binding, kind: socket.kind, grpcCode: e.code, cause: e });
  }
  return errorFromServer({
    message: e.rawMessage,
    binding,
    grpcCode: e.code,
    retryAfterMs,
    method,
    reason: info?.reason || undefined,
    details: info ? [{ "@type": ERROR_INFO_TYPE, reason: info.reason, domain: info.domain, metadata: info.metadata }] : [],
    cause: e,
  });
}
