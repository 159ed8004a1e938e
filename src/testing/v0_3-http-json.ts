/**
 * The test agent's HTTP+JSON 0.3 surface (specification 0.3, sections
 * 3.2.3 and 3.5.6): the routes of 0.3's table under `/v1`, bodies in the
 * 0.3 proto's JSON (v0_3-proto.ts), run as the 1.0 operations on the same
 * store and scripts as the 1.0 surface; errors as 0.3 servers send them,
 * `{code, message}` with the JSON-RPC code under the HTTP status of the
 * error (v0_3-errors.ts), and in a stream as an `event: error`. The routes
 * are 0.3's table rather than its proto's http rules, whose push config
 * route says `task/` for `tasks/` (bindings/http-json/v0_3.ts); subscribe
 * is routed on GET, as the proto says, and on POST, as the table says.
 */
import { create, type DescMessage, type JsonValue, type MessageShape } from "@bufbuild/protobuf";
import { A2AService } from "../../gen/lf/a2a/v1/a2a_pb.js";
import * as V1 from "../../gen/lf/a2a/v1/a2a_pb.js";
import { writeError, writeReply, type BindingWriter } from "./answer.js";
import { unrouted } from "./http-json.js";
import type { TestErrorKind } from "./errors.js";
import type { AgentRequest, AgentResponse } from "./exchange.js";
import type { Reply } from "./operations.js";
import { bodyJson, callContext, runOperation, type SurfaceCall } from "./surface.js";
import { errorObjectV03, httpJsonErrorV03 } from "./v0_3-errors.js";
import { createPushConfigV1, eventV03, getTaskRequestV1, resultV03, sendRequestV1 } from "./v0_3-proto.js";

const WRITER: BindingWriter = {
  result: resultV03,
  error: httpJsonErrorV03,
  event: eventV03,
  errorEvent: errorObjectV03,
  errorEventName: "error",
};

/** One route of 0.3's table: the 1.0 operation, and its request made of the path's ids, the query and the body. */
interface Route {
  readonly verbs: readonly string[];
  readonly pattern: RegExp;
  readonly operation: string;
  request(ids: readonly string[], request: AgentRequest, body: JsonValue): MessageShape<DescMessage>;
}

const TASK = "/v1/tasks/([^/:]+)";
const CONFIGS = `${TASK}/pushNotificationConfigs`;
const route = (verbs: string[], path: string, operation: string, request: Route["request"]): Route => ({
  verbs,
  pattern: new RegExp(`^${path}$`),
  operation,
  request,
});

const ROUTES: readonly Route[] = [
  route(["POST"], "/v1/message:send", "SendMessage", (_, __, body) => sendRequestV1(body)),
  route(["POST"], "/v1/message:stream", "SendStreamingMessage", (_, __, body) => sendRequestV1(body)),
  route(["GET"], TASK, "GetTask", ([id], r) => getTaskRequestV1(id!, r.url.searchParams.get("historyLength"))),
  route(["POST"], `${TASK}:cancel`, "CancelTask", ([id]) => create(V1.CancelTaskRequestSchema, { id })),
  route(["GET", "POST"], `${TASK}:subscribe`, "SubscribeToTask", ([id]) => create(V1.SubscribeToTaskRequestSchema, { id })),
  route(["POST"], CONFIGS, "CreateTaskPushNotificationConfig", ([taskId], _, body) => createPushConfigV1(taskId!, body)),
  route(["GET"], CONFIGS, "ListTaskPushNotificationConfigs", ([taskId]) =>
    create(V1.ListTaskPushNotificationConfigsRequestSchema, { taskId }),
  ),
  route(["GET"], `${CONFIGS}/([^/:]+)`, "GetTaskPushNotificationConfig", ([taskId, id]) =>
    create(V1.GetTaskPushNotificationConfigRequestSchema, { taskId, id }),
  ),
  route(["DELETE"], `${CONFIGS}/([^/:]+)`, "DeleteTaskPushNotificationConfig", ([taskId, id]) =>
    create(V1.DeleteTaskPushNotificationConfigRequestSchema, { taskId, id }),
  ),
  route(["GET"], "/v1/card", "GetExtendedAgentCard", () => create(V1.GetExtendedAgentCardRequestSchema)),
];

/** The route of a path and verb; `allowed` lists the verbs of the routes the path matches under another verb. */
function match(path: string, verb: string): { found: Route; ids: string[] } | { allowed: string[] } {
  const allowed: string[] = [];
  for (const r of ROUTES) {
    const m = r.pattern.exec(path);
    if (!m) continue;
    if (r.verbs.includes(verb)) return { found: r, ids: m.slice(1).map(decodeURIComponent) };
    allowed.push(...r.verbs);
  }
  return { allowed };
}

/** Answers one HTTP+JSON 0.3 request. */
export async function answerHttpJsonV03(call: SurfaceCall): Promise<AgentResponse> {
  const { request } = call;
  const refuse = (kind: TestErrorKind, message: string) => writeError(kind, message, WRITER, request.signal);
  const matched = match(call.path, request.method);
  if ("allowed" in matched) return unrouted(call, matched.allowed, refuse);
  const { found, ids } = matched;
  const method = A2AService.methods.find((m) => m.name === found.operation)!;
  const parsed = request.method === "POST" ? bodyJson(request.body) : { json: undefined };
  if (!parsed) {
    call.note("HTTP+JSON", method.name, undefined);
    return refuse("PARSE_ERROR", "the body is not JSON");
  }
  let message: MessageShape<DescMessage>;
  try {
    message = found.request(ids, request, (parsed.json ?? {}) as JsonValue);
  } catch (e) {
    call.note("HTTP+JSON", method.name, undefined);
    return refuse("INVALID_PARAMS", `not a 0.3 ${method.name} request: ${e instanceof Error ? e.message : String(e)}`);
  }
  const write = (reply: Reply) => writeReply(reply, WRITER, request.signal);
  return runOperation(call, "HTTP+JSON", method, message, callContext(request), write, refuse);
}
