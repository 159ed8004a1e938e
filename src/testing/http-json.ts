/**
 * The test agent's HTTP+JSON surface (specification section 11): the
 * routes the proto's `google.api.http` options declare (the same table the
 * client's binding reads, bindings/http-json/routes.ts), the request
 * message made of the path's fields, the query's (GET) or the body (POST);
 * results as JSON, errors as `{"error": google.rpc.Status}` under the
 * table's HTTP status, streams as SSE of StreamResponse objects.
 * SubscribeToTask is routed on GET, as the proto says, and on POST, as the
 * specification's table and the official clients say.
 */
import { ScalarType, toJson, type DescField, type DescMethod, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { A2AService, StreamResponseSchema } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { messageFromJson } from "../protocol/proto-json.js";
import { isRecord } from "../base/is-record.js";
import { routesOf, type Route } from "../bindings/http-json/routes.js";
import { writeError, writeReply, type BindingWriter } from "./answer.js";
import { httpJsonError, type TestErrorKind } from "./errors.js";
import type { AgentResponse } from "./exchange.js";
import type { Reply } from "./operations.js";
import { bodyJson, callContext, runOperation, type SurfaceCall } from "./surface.js";

const WRITER: BindingWriter = {
  result: (schema, message) => toJson(schema, message),
  error: httpJsonError,
  event: (event) => toJson(StreamResponseSchema, event),
  errorEvent: (kind, message) => httpJsonError(kind, message).body,
};

/** A route as a pattern over the path, with the fields its groups bind. */
interface CompiledRoute {
  method: DescMethod;
  route: Route;
  pattern: RegExp;
  fields: DescField[];
}

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Every route of the service, tenant routes included; a one-segment variable takes neither `/` nor `:` (the client escapes both). */
const ROUTES: readonly CompiledRoute[] = A2AService.methods.flatMap((method) => {
  const { plain, tenant } = routesOf(method);
  return [plain, ...(tenant ? [tenant] : [])].map((route) => {
    const fields: DescField[] = [];
    const source = route.segments
      .map((s) => {
        if (typeof s === "string") return literal(s);
        fields.push(s.field);
        return s.multiSegment ? "(.+?)" : "([^/:]+)";
      })
      .join("");
    return { method, route, pattern: new RegExp(`^${source}$`), fields };
  });
});

/** The route of a path and verb; `allowed` lists the verbs of the routes the path matches under another verb. */
function match(path: string, verb: string): { found: CompiledRoute; values: string[] } | { allowed: string[] } {
  const allowed: string[] = [];
  for (const r of ROUTES) {
    const m = r.pattern.exec(path);
    if (!m) continue;
    const verbs = r.method.name === "SubscribeToTask" ? ["GET", "POST"] : [r.route.verb];
    if (verbs.includes(verb)) return { found: r, values: m.slice(1) };
    allowed.push(...verbs);
  }
  return { allowed };
}

/** A query parameter as the JSON of its field: booleans and numbers as such (ProtoJSON takes 64-bit integers and the rest as strings). */
function queryValue(field: DescField | undefined, value: string): JsonValue {
  if (field?.fieldKind !== "scalar") return value;
  if (field.scalar === ScalarType.BOOL) return value === "true";
  return value;
}

/**
 * The answer to an HTTP+JSON request no route takes: 405 with the verbs its
 * path is routed under, or METHOD_NOT_FOUND where no route has its path.
 */
export function unrouted(
  call: SurfaceCall,
  allowed: readonly string[],
  refuse: (kind: TestErrorKind, message: string) => Promise<AgentResponse>,
): Promise<AgentResponse> {
  call.note("HTTP+JSON", "", undefined);
  if (allowed.length === 0) return refuse("METHOD_NOT_FOUND", `no route ${call.request.method} ${call.path}`);
  return Promise.resolve({ status: 405, headers: new Headers({ allow: allowed.join(", ") }), body: (async function* () {})() });
}

/** Answers one HTTP+JSON request. */
export async function answerHttpJson(call: SurfaceCall): Promise<AgentResponse> {
  const { request } = call;
  const refuse = (kind: TestErrorKind, message: string) => writeError(kind, message, WRITER, request.signal);
  const matched = match(call.path, request.method);
  if ("allowed" in matched) return unrouted(call, matched.allowed, refuse);
  const { found, values } = matched;
  const json: JsonObject = {};
  if (request.method === "POST") {
    const parsed = bodyJson(request.body);
    if (!parsed || (parsed.json !== undefined && !isRecord(parsed.json))) {
      call.note("HTTP+JSON", found.method.name, undefined);
      return refuse("PARSE_ERROR", "the body is not a JSON object");
    }
    Object.assign(json, parsed.json ?? {});
  } else {
    for (const [key, value] of request.url.searchParams) {
      const field = found.method.input.fields.find((f) => f.jsonName === key || f.name === key);
      if (field) json[field.jsonName] = queryValue(field, value);
    }
  }
  found.fields.forEach((field, i) => {
    json[field.jsonName] = decodeURIComponent(values[i]!);
  });
  let message;
  try {
    message = messageFromJson(found.method.input, json);
  } catch (e) {
    call.note("HTTP+JSON", found.method.name, undefined);
    return refuse("INVALID_PARAMS", `not a ${found.method.input.typeName}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const write = (reply: Reply) => writeReply(reply, WRITER, request.signal);
  return runOperation(call, "HTTP+JSON", found.method, message, callContext(request), write, refuse);
}
