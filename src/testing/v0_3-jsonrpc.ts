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
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { A2AService } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { isRecord } from "../base/is-record.js";
import type { AgentResponse } from "./exchange.js";
import { answerJsonRpcIn, type JsonRpcDialect } from "./jsonrpc.js";
import type { SurfaceCall } from "./surface.js";
import { errorObjectV03 } from "./v0_3-errors.js";
import { eventV03, resultV03, V03_METHODS } from "./v0_3-json.js";

/** A2A 0.3: its method names, params read into 1.0 requests, results and events in 0.3's JSON. */
const V03_DIALECT: JsonRpcDialect = {
  version: "0.3",
  method(name) {
    const v03 = V03_METHODS.get(name);
    const method = v03 && A2AService.methods.find((m) => m.name === v03.operation);
    return v03 && method ? { method, params: (params) => v03.request(isRecord(params) ? params : {}) as JsonValue } : undefined;
  },
  errorObject: (kind, message): JsonObject => errorObjectV03(kind, message),
  result: resultV03,
  event: eventV03,
};

/** Answers one JSON-RPC 0.3 request. */
export function answerJsonRpcV03(call: SurfaceCall): Promise<AgentResponse> {
  return answerJsonRpcIn(call, V03_DIALECT);
}
