/**
 * The test agent's JSON-RPC 0.3 surface (specification 0.3, sections 3.2.1
 * and 7): a POST of a request object naming a 0.3 method (`message/send`,
 * `tasks/resubscribe`, ...), run as the 1.0 operation it carries on the
 * same store and scripts as the 1.0 surface, answered in 0.3's JSON
 * (v0_3-json.ts) with errors in 0.3's codes (v0_3-errors.ts); the
 * streaming methods answer with SSE whose events are response objects
 * too, an error included. What the agent saw is noted as on 1.0: the
 * operation by its proto name and the request as the specification's JSON.
 */
import { toJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { A2AService } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { messageFromJson } from "../protocol/proto-json.js";
import { isRecord } from "../base/is-record.js";
import { writeReply, type BindingWriter } from "./answer.js";
import { AgentAnswerError, type TestErrorKind } from "./errors.js";
import type { AgentResponse } from "./exchange.js";
import { OPERATIONS } from "./operations.js";
import { bodyJson, callContext, type SurfaceCall } from "./surface.js";
import { errorObjectV03 } from "./v0_3-errors.js";
import { eventV03, resultV03, V03_METHODS } from "./v0_3-json.js";

type Id = string | number | null;

function writerFor(id: Id): BindingWriter {
  const error = (kind: TestErrorKind, message: string): JsonObject => ({ jsonrpc: "2.0", id, error: errorObjectV03(kind, message) });
  return {
    result: (schema, message) => ({ jsonrpc: "2.0", id, result: resultV03(schema, message) }),
    // JSON-RPC answers errors with HTTP 200: the error is in the response object.
    error: (kind, message) => ({ status: 200, body: error(kind, message) }),
    event: (event) => ({ jsonrpc: "2.0", id, result: eventV03(event) }),
    errorEvent: error,
  };
}

/** Answers one JSON-RPC 0.3 request. */
export async function answerJsonRpcV03(call: SurfaceCall): Promise<AgentResponse> {
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
  const v03 = V03_METHODS.get(name);
  const method = v03 && A2AService.methods.find((m) => m.name === v03.operation);
  if (envelope.jsonrpc !== "2.0" || !v03 || !method) {
    call.note("JSONRPC", v03?.operation ?? name, undefined);
    return envelope.jsonrpc !== "2.0"
      ? refuse(id, "INVALID_REQUEST", 'jsonrpc must be "2.0"')
      : refuse(id, "METHOD_NOT_FOUND", `no method ${name}`);
  }
  let message;
  try {
    const params = isRecord(envelope.params) ? envelope.params : {};
    message = messageFromJson(method.input, v03.request(params) as JsonValue);
  } catch (e) {
    call.note("JSONRPC", method.name, undefined);
    return refuse(id, "INVALID_PARAMS", `params are not a 0.3 ${name} request: ${e instanceof Error ? e.message : String(e)}`);
  }
  call.note("JSONRPC", method.name, toJson(method.input, message));
  try {
    const reply = await OPERATIONS[method.name]!(agent, message, callContext(request));
    return await writeReply(reply, writerFor(id), request.signal);
  } catch (e) {
    if (e instanceof AgentAnswerError) return refuse(id, e.kind, e.message);
    throw e;
  }
}
