/**
 * The error an HTTP answer's body describes, as the HTTP bindings read
 * them: a `google.rpc.Status` (HTTP+JSON's error body, and gateways' in
 * front of any binding), a JSON-RPC error object (JSON-RPC's, and a 0.3
 * server's bare one on HTTP+JSON), an error a 0.3 server names in a form
 * of its own, or a body that is no A2A error at all.
 */
import type { A2AError } from "../errors/family.js";
import { errorFromServer, type ErrorClass } from "../errors/classify.js";
import { isRecord } from "../base/is-record.js";
import { safeUrl } from "../base/urls.js";
import type { ResponseFacts } from "./codec.js";

/** JSON-RPC's codes, the A2A errors' included, are negative (-32768 to -32000); HTTP statuses and google.rpc.Status codes are not. */
export function isJsonRpcCode(code: unknown): code is number {
  return typeof code === "number" && Number.isInteger(code) && code < 0;
}

/**
 * The error a JSON-RPC error object describes (`{code, message, data?}`):
 * its code, its message, and its `data` as the error's details (an array
 * as it is, anything else as the one detail).
 */
export function jsonRpcError(error: Readonly<Record<string, unknown>>, f: ResponseFacts): A2AError {
  const data = error.data;
  return errorFromServer({
    ...f,
    message: typeof error.message === "string" ? error.message : "",
    jsonRpcCode: typeof error.code === "number" ? error.code : undefined,
    details: Array.isArray(data) ? data : data === undefined || data === null ? [] : [data],
  });
}

/**
 * The error a `google.rpc.Status` object describes (`{code, status, message,
 * details}`, the `error` of an HTTP+JSON error body): its `code` is the HTTP
 * status, `status` the gRPC code's name. Gateways answer so in front of any
 * binding.
 */
export function rpcStatusError(e: Readonly<Record<string, unknown>>, f: ResponseFacts): A2AError {
  // Inside a stream (an `event: error` after a 200) the response's status
  // says nothing of the error; the Status's `code` is the HTTP status it
  // has as an answer of its own, so a rate limit in a stream is the same
  // transient 429 as before it.
  const stated = typeof e.code === "number" && Number.isInteger(e.code) && e.code >= 400 && e.code < 600 ? e.code : undefined;
  const httpStatus = f.httpStatus >= 200 && f.httpStatus < 300 ? (stated ?? f.httpStatus) : f.httpStatus;
  return errorFromServer({
    ...f,
    httpStatus,
    message: typeof e.message === "string" ? e.message : "",
    details: Array.isArray(e.details) ? e.details : [],
    rpcStatus: typeof e.status === "string" ? e.status : undefined,
  });
}

/**
 * What tells the A2A error a body names in a form of its own, as our class
 * of it: a 0.3 Java server's `{"error": "io.a2a.spec.TaskNotFoundError",
 * "message"}` (v0_3/error-names.ts). Undefined for any other body.
 */
export type ErrorNames = (json: unknown) => ErrorClass | undefined;

/**
 * The error of an HTTP+JSON answer: `{"error": google.rpc.Status}` per spec
 * 11.6, or an RFC 9457 problem document, or a 0.3 server's bare `{code,
 * message, data?}` with a JSON-RPC error code, or, where `names` is given
 * (the 0.3 wire), an error it names, or anything else a proxy may have sent.
 */
export function restError(json: unknown, f: ResponseFacts, names?: ErrorNames): A2AError {
  if (!isRecord(json)) return genericHttpError(json, f);
  if (isRecord(json.error)) return rpcStatusError(json.error, f);
  if (isJsonRpcCode(json.code)) return jsonRpcError(json, f);
  if (typeof json.type === "string" || typeof json.title === "string") {
    return errorFromServer({
      ...f,
      message: String(json.detail ?? json.title ?? ""),
      problemType: typeof json.type === "string" ? json.type : undefined,
      details: Array.isArray(json.details) ? json.details : [],
    });
  }
  // Its message is the server's: `names` knows the body has one.
  const named = names?.(json);
  if (named) return errorFromServer({ ...f, message: json.message as string, named });
  return genericHttpError(json, f);
}

/**
 * Error facts from a server error response that is not a JSON error
 * document; `unreadOver`: its body was over this many bytes and not read.
 */
export function genericHttpError(json: unknown, f: ResponseFacts, unreadOver?: number): A2AError {
  // What a framework's or gateway's JSON says (`{"message": "quota exceeded"}`).
  const said = isRecord(json) && typeof json.message === "string" && json.message !== "" ? `: ${json.message}` : "";
  // An `event: error` inside a stream came with the stream's 200, which says nothing of it.
  const inStream = f.httpStatus >= 200 && f.httpStatus < 300;
  const message = inStream
    ? `the stream from ${safeUrl(f.url)} sent an error event without an A2A error${said}`
    : unreadOver !== undefined
      ? `HTTP ${f.httpStatus} with a body over ${unreadOver} bytes (maxResponseBytes), not read`
      : json === undefined
        ? `HTTP ${f.httpStatus} without an A2A error body`
        : `HTTP ${f.httpStatus}${said}`;
  return statusOnlyError(message, f);
}

/** What of an answer the error of a status without an A2A error carries. */
export type StatusFacts = Pick<ResponseFacts, "binding" | "httpStatus" | "challenge" | "retryAfterMs" | "url">;

/**
 * The error of an HTTP status that came without an A2A error (a gateway's
 * page or rate limit, a login wall, a proxy's 404), on every binding:
 * classified by the status alone, with the challenge and `Retry-After` it
 * came with, so that a 429, a 503 or a 401 is the same error whatever the
 * binding. Not by the method: nothing the agent said names an error.
 */
export function statusOnlyError(message: string, f: StatusFacts): A2AError {
  return errorFromServer({
    message,
    binding: f.binding,
    httpStatus: f.httpStatus,
    challenge: f.challenge,
    retryAfterMs: f.retryAfterMs,
    url: f.url,
  });
}
