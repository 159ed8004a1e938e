/**
 * The test agent's JSON-RPC 2.0 surface (specification section 9): a POST
 * of a request object naming the operation by its proto name, answered
 * with a response object carrying the request's id; the streaming
 * operations answer with SSE whose events are response objects too, an
 * error included.
 */
import { toJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { A2AService, StreamResponseSchema } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { messageFromJson } from "../protocol/proto-json.js";
import { isRecord } from "../base/is-record.js";
import { writeReply, type BindingWriter } from "./answer.js";
import { AgentAnswerError, jsonRpcErrorObject, type TestErrorKind } from "./errors.js";
import type { AgentResponse } from "./exchange.js";
import { OPERATIONS } from "./operations.js";
import { bodyJson, callContext, type SurfaceCall } from "./surface.js";

type Id = string | number | null;

function writerFor(id: Id): BindingWriter {
  const error = (kind: TestErrorKind, message: string): JsonObject => ({ jsonrpc: "2.0", id, error: jsonRpcErrorObject(kind, message) });
  return {
    result: (schema, message) => ({ jsonrpc: "2.0", id, result: toJson(schema, message) }),
    // JSON-RPC answers errors with HTTP 200: the error is in the response object.
    error: (kind, message) => ({ status: 200, body: error(kind, message) }),
    event: (event) => ({ jsonrpc: "2.0", id, result: toJson(StreamResponseSchema, event) }),
    errorEvent: error,
  };
}

/** Answers one JSON-RPC request. */
export async function answerJsonRpc(call: SurfaceCall): Promise<AgentResponse> {
  const { request, agent } = call;
  const refuse = (id: Id, kind: TestErrorKind, message: string) =>
    writeReply({ kind: "fault", fault: { kind: "error", error: kind, message } }, writerFor(id), request.signal);
  if (request.method !== "POST") return { status: 405, headers: new Headers({ allow: "POST" }), body: (async function* () {})() };
  const parsed = bodyJson(request.body);
  if (!parsed || !isRecord(parsed.json)) {
    call.note("JSONRPC", "", undefined);
    return refuse(null, parsed ? "INVALID_REQUEST" : "PARSE_ERROR", parsed ? "not a JSON-RPC request object" : "the body is not JSON");
  }
  const envelope = parsed.json;
  const id: Id = typeof envelope.id === "string" || typeof envelope.id === "number" ? envelope.id : null;
  const name = typeof envelope.method === "string" ? envelope.method : "";
  const method = A2AService.methods.find((m) => m.name === name);
  const operation = OPERATIONS[name];
  if (envelope.jsonrpc !== "2.0" || !method || !operation) {
    call.note("JSONRPC", name, undefined);
    return envelope.jsonrpc !== "2.0"
      ? refuse(id, "INVALID_REQUEST", 'jsonrpc must be "2.0"')
      : refuse(id, "METHOD_NOT_FOUND", `no method ${name}`);
  }
  let message;
  try {
    message = messageFromJson(method.input, (envelope.params ?? {}) as JsonValue);
  } catch (e) {
    call.note("JSONRPC", name, undefined);
    return refuse(id, "INVALID_PARAMS", `params are not a ${method.input.typeName}: ${e instanceof Error ? e.message : String(e)}`);
  }
  call.note("JSONRPC", name, toJson(method.input, message));
  try {
    const reply = await operation(agent, message, callContext(request));
    return await writeReply(reply, writerFor(id), request.signal);
  } catch (e) {
    if (e instanceof AgentAnswerError) return refuse(id, e.kind, e.message);
    throw e;
  }
}
