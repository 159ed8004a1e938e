/**
 * The HTTP+JSON binding (spec section 11): verbs and paths from the proto's
 * `google.api.http` options, GET/DELETE parameters as camelCase query
 * parameters (11.5), SSE for the streaming methods.
 */
import { toJson, type DescMessage, type DescMethod, type JsonObject, type MessageShape } from "@bufbuild/protobuf";
import { errorFromServer, isRecord, type A2AError } from "../errors.js";
import { createHttpBindingTransport, genericHttpError, type BindingCodec, type HttpPlan, type ResponseFacts } from "./http-binding.js";
import type { HttpTransportOptions } from "./options.js";
import { expandPath, routesOf, type MethodRoutes } from "./routes.js";
import type { A2ATransport } from "./transport.js";

/** Options of the HTTP+JSON transport; `baseUrl` is the interface URL the routes go under. */
export type RestTransportOptions = HttpTransportOptions;

/** A transport for an A2A 1.0 HTTP+JSON interface. */
export function createRestTransport(options: RestTransportOptions): A2ATransport {
  return createRestTransportWithRoutes(options, routesOf);
}

/**
 * The HTTP+JSON binding for any service's methods, with their routes from
 * `routes` (normally the methods' own `google.api.http` options).
 */
export function createRestTransportWithRoutes(options: RestTransportOptions, routes: (method: DescMethod) => MethodRoutes): A2ATransport {
  return createHttpBindingTransport(options, restCodec(options.baseUrl, routes));
}

function restCodec(baseUrl: string, routesOf: (method: DescMethod) => MethodRoutes): BindingCodec {
  const base = baseUrl.replace(/\/+$/, "");
  // Methods this server only accepts as POST (see onMethodNotAllowed).
  const postOnly = new Set<DescMethod>();
  const codec: BindingCodec = {
    binding: "HTTP+JSON",
    contentType: "application/json",
    accept: "application/a2a+json, application/json",
    plan(method: DescMethod, message: MessageShape<DescMessage>): HttpPlan {
      const fields = message as unknown as Record<string, unknown>;
      const routes = routesOf(method);
      const route = fields.tenant && routes.tenant ? routes.tenant : routes.plain;
      const verb = postOnly.has(method) ? "POST" : route.verb;
      const path = expandPath(route, fields);
      const json = toJson(method.input, message) as JsonObject;
      for (const f of route.pathFields) delete json[f.jsonName];
      if (verb !== "POST") {
        const query = toQuery(json);
        return { url: base + path + (query ? `?${query}` : ""), method: verb };
      }
      const body = route.body === "*" || postOnly.has(method) ? json : route.body ? (json[jsonNameOf(method, route.body)] ?? {}) : undefined;
      return { url: base + path, method: verb, body };
    },
    // The proto routes SubscribeToTask as GET; the specification's text says
    // POST, and servers differ. Try GET, and on 405 use POST from then on.
    onMethodNotAllowed(method, message) {
      if (method.methodKind !== "server_streaming" || routesOf(method).plain.verb === "POST" || postOnly.has(method)) {
        return undefined;
      }
      postOnly.add(method);
      return codec.plan(method, message);
    },
    result(json: unknown, _plan: HttpPlan, facts: ResponseFacts): unknown {
      // Some servers put an error object into a stream frame.
      if (isRecord(json) && isRecord(json.error) && Object.keys(json).length === 1) throw restError(json, facts);
      return json;
    },
    error: restError,
  };
  return codec;
}

function jsonNameOf(method: DescMethod, protoName: string): string {
  return method.input.fields.find((f) => f.name === protoName)?.jsonName ?? protoName;
}

/** Top-level scalar and repeated fields; nested objects cannot be queried (11.5). */
function toQuery(json: JsonObject): string {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(json)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v === null || typeof v === "object") throw new TypeError(`field "${key}" cannot be sent as a query parameter`);
      q.append(key, String(v));
    }
  }
  return q.toString();
}

/**
 * `{"error": google.rpc.Status}` per spec 11.6, or an RFC 9457 problem
 * document, or a 0.3 server's bare `{code, message, data?}` with a JSON-RPC
 * error code, or anything else a proxy may have sent.
 */
function restError(json: unknown, facts: ResponseFacts): A2AError {
  if (isRecord(json) && isRecord(json.error)) {
    const e = json.error;
    return errorFromServer({
      ...facts,
      message: typeof e.message === "string" ? e.message : "",
      details: Array.isArray(e.details) ? e.details : [],
      rpcStatus: typeof e.status === "string" ? e.status : undefined,
    });
  }
  // JSON-RPC codes are negative (-32768 to -32000); google.rpc.Status codes are not.
  if (isRecord(json) && typeof json.code === "number" && Number.isInteger(json.code) && json.code < 0) {
    const data = json.data;
    return errorFromServer({
      ...facts,
      message: typeof json.message === "string" ? json.message : "",
      jsonRpcCode: json.code,
      details: Array.isArray(data) ? data : data === undefined || data === null ? [] : [data],
    });
  }
  if (isRecord(json) && (typeof json.type === "string" || typeof json.title === "string")) {
    return errorFromServer({
      ...facts,
      message: String(json.detail ?? json.title ?? ""),
      problemType: typeof json.type === "string" ? json.type : undefined,
      details: Array.isArray(json.details) ? json.details : [],
    });
  }
  return genericHttpError(json, facts);
}
