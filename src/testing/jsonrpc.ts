/**
 * The test agent's JSON-RPC 2.0 surface (specification section 9): a POST
 * of a request object naming the operation by its proto name, answered
 * with a response object carrying the request's id; the streaming
 * operations answer with SSE whose events are response objects too, an
 * error included.
 */
import {
  toJson,
  type DescMessage,
  type DescMethod,
  type JsonObject,
  type JsonValue,
  type Message as ProtoMessage,
} from "@bufbuild/protobuf";
import { A2AService, StreamResponseSchema, type StreamResponse } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { messageFromJson } from "../protocol/proto-json.js";
import { isRecord } from "../base/is-record.js";
import { writeError, writeReply, type BindingWriter } from "./answer.js";
import { jsonRpcErrorObject, type TestErrorKind } from "./errors.js";
import type { AgentResponse } from "./exchange.js";
import { OPERATIONS, type Reply } from "./operations.js";
import { bodyJson, callContext, runOperation, type SurfaceCall } from "./surface.js";

type Id = string | number | null;

/**
 * What a version of the protocol makes of the JSON-RPC surface: how a
 * method name and its params read as an operation's request, and how
 * results, events and errors are written. The envelope, its checks and the
 * answering are the same for every version.
 */
export interface JsonRpcDialect {
  /** The protocol version ("1.0", "0.3"): an INVALID_PARAMS message names a 0.3 request by its method. */
  readonly version: string;
  /** The operation a method name calls, and its params as the 1.0 request's JSON; undefined for an unknown method. */
  method(name: string): { readonly method: DescMethod; readonly params: (params: JsonValue | undefined) => JsonValue } | undefined;
  errorObject(kind: TestErrorKind, message: string): JsonObject;
  result(schema: DescMessage, message: ProtoMessage): JsonValue;
  event(event: StreamResponse): JsonValue;
}

/** A2A 1.0: methods by their proto names, results and events as ProtoJSON. */
const V1_DIALECT: JsonRpcDialect = {
  version: "1.0",
  method(name) {
    const method = A2AService.methods.find((m) => m.name === name);
    return method && OPERATIONS[name] ? { method, params: (params) => params ?? {} } : undefined;
  },
  errorObject: jsonRpcErrorObject,
  result: (schema, message) => toJson(schema, message),
  event: (event) => toJson(StreamResponseSchema, event),
};

function writerFor(id: Id, dialect: JsonRpcDialect): BindingWriter {
  const error = (kind: TestErrorKind, message: string): JsonObject => ({ jsonrpc: "2.0", id, error: dialect.errorObject(kind, message) });
  return {
    result: (schema, message) => ({ jsonrpc: "2.0", id, result: dialect.result(schema, message) }),
    // JSON-RPC answers errors with HTTP 200: the error is in the response object.
    error: (kind, message) => ({ status: 200, body: error(kind, message) }),
    event: (event) => ({ jsonrpc: "2.0", id, result: dialect.event(event) }),
    errorEvent: error,
  };
}

/** Answers one JSON-RPC request of A2A 1.0. */
export function answerJsonRpc(call: SurfaceCall): Promise<AgentResponse> {
  return answerJsonRpcIn(call, V1_DIALECT);
}

/** Answers one JSON-RPC request in `dialect`. */
export async function answerJsonRpcIn(call: SurfaceCall, dialect: JsonRpcDialect): Promise<AgentResponse> {
  const { request } = call;
  const refuse = (id: Id, kind: TestErrorKind, message: string) => writeError(kind, message, writerFor(id, dialect), request.signal);
  if (request.method !== "POST") return { status: 405, headers: new Headers({ allow: "POST" }), body: (async function* () {})() };
  const parsed = bodyJson(request.body);
  if (!parsed || !isRecord(parsed.json)) {
    call.note("JSONRPC", "", undefined);
    return refuse(null, parsed ? "INVALID_REQUEST" : "PARSE_ERROR", parsed ? "not a JSON-RPC request object" : "the body is not JSON");
  }
  const envelope = parsed.json;
  const id: Id = typeof envelope.id === "string" || typeof envelope.id === "number" ? envelope.id : null;
  const name = typeof envelope.method === "string" ? envelope.method : "";
  const found = dialect.method(name);
  if (envelope.jsonrpc !== "2.0" || !found) {
    call.note("JSONRPC", found?.method.name ?? name, undefined);
    return envelope.jsonrpc !== "2.0"
      ? refuse(id, "INVALID_REQUEST", 'jsonrpc must be "2.0"')
      : refuse(id, "METHOD_NOT_FOUND", `no method ${name}`);
  }
  const { method } = found;
  let message;
  try {
    message = messageFromJson(method.input, found.params(envelope.params as JsonValue | undefined));
  } catch (e) {
    call.note("JSONRPC", method.name, undefined);
    const what = dialect.version === "1.0" ? `a ${method.input.typeName}` : `a ${dialect.version} ${name} request`;
    return refuse(id, "INVALID_PARAMS", `params are not ${what}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const write = (reply: Reply) => writeReply(reply, writerFor(id, dialect), request.signal);
  return runOperation(call, "JSONRPC", method, message, callContext(request), write, (kind, text) => refuse(id, kind, text));
}
