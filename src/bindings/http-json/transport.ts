/**
 * The HTTP+JSON binding (spec section 11): settleVerbs and paths from the proto's
 * `google.api.http` options, GET/DELETE parameters as camelCase query
 * parameters (11.5), SSE for the streaming methods.
 */
import type { DescMessage, DescMethod, JsonObject, MessageShape } from "@bufbuild/protobuf";
import { messageToJson, type GeneratedJson } from "../../protocol/proto-json.js";
import { isRecord } from "../../base/is-record.js";
import { createHttpBindingTransport } from "../../http/binding-transport.js";
import { UnreadError } from "../../http/failure-reading.js";
import type { ErrorNames } from "../../http/error-bodies.js";
import type { BindingCodec, HttpPlan, ResponseFacts, VerbChoice } from "../../http/codec.js";
import type { HttpTransportOptions } from "../../call/options.js";
import { expandPath, routesOf, type MethodRoutes, type Verb } from "./routes.js";
import { checkHttpBaseUrl, checkTransportOptions } from "../../call/option-checks.js";
import type { A2ATransport } from "../../call/transport.js";

/** Options of the HTTP+JSON transport; `baseUrl` is the interface URL the routes go under. @category Transports */
export type RestTransportOptions = HttpTransportOptions;

/**
 * A transport for an A2A 1.0 HTTP+JSON interface.
 * @example
 * ```ts
 * import { A2AClient, createRestTransport } from "a2a-connect";
 *
 * const client = new A2AClient(createRestTransport({ baseUrl: "https://agent.example.com/a2a/rest", idleTimeoutMs: 60_000 }));
 * ```
 * @category Transports
 */
export function createRestTransport(options: RestTransportOptions): A2ATransport {
  return restTransport(options);
}

/** The HTTP+JSON 1.0 transport, with the `generated` ProtoJSON readers and writers where given (the Node entry's). */
export function restTransport(options: RestTransportOptions, generated?: GeneratedJson): A2ATransport {
  // POST first for SubscribeToTask: what the official clients send, so every
  // server they work with routes it; a GET-only server costs one request once.
  return createRestTransportWithRoutes(options, routesOf, "POST", generated);
}

/**
 * The HTTP+JSON binding for any service's methods, with their routes from
 * `routes` (normally the methods' own `google.api.http` options).
 * `subscribeVerb` is the verb tried first for a server-streaming method
 * routed as GET (SubscribeToTask), whose verb servers disagree on.
 * Requests are written and results read with the `generated` code where
 * given. `names` reads the errors a server names in a form of its own (the
 * 0.3 wire's), in an error answer and as a stream's event.
 */
export function createRestTransportWithRoutes(
  options: RestTransportOptions,
  routes: (method: DescMethod) => MethodRoutes,
  subscribeVerb: "GET" | "POST",
  generated?: GeneratedJson,
  names?: ErrorNames,
): A2ATransport {
  checkTransportOptions(options, checkHttpBaseUrl);
  return createHttpBindingTransport(options, restCodec(options.baseUrl, routes, subscribeVerb, generated?.writers, names), generated);
}

/** How many tenants' learned subscribe settleVerbs one transport keeps; the oldest goes beyond that. */
const MAX_LEARNED_VERBS = 64;

function restCodec(
  baseUrl: string,
  routesOf: (method: DescMethod) => MethodRoutes,
  subscribeVerb: Verb,
  writers: GeneratedJson["writers"] | undefined,
  names: ErrorNames | undefined,
): BindingCodec {
  // A base URL may carry a query (an API key a gateway asks for): routes go
  // under its path, and its query goes in front of the route's own.
  const [root, baseQuery = ""] = baseUrl.replace(/#.*$/, "").split(/\?(.*)/s, 2);
  const base = root!.replace(/\/+$/, "");
  // The proto routes SubscribeToTask as GET; the specification's table and
  // the official clients say POST, and servers route one or the other or
  // both. The verb that worked is kept per method and tenant (a gateway may
  // route tenants to different servers), so only a first call, or one after
  // the server changed, costs a second request (verb-fallback.ts).
  const learned = new Map<string, Verb>();
  const keyOf = (method: DescMethod, message: MessageShape<DescMessage>) =>
    `${method.name} ${String((message as unknown as Record<string, unknown>).tenant ?? "")}`;

  /** The request of a call, sent with `verbOverride` where given (the other verb of a disputed method). */
  function plan(method: DescMethod, message: MessageShape<DescMessage>, verbOverride?: Verb): HttpPlan {
    const fields = message as unknown as Record<string, unknown>;
    const routes = routesOf(method);
    const route = fields.tenant && routes.tenant ? routes.tenant : routes.plain;
    const verb = verbOverride ?? (routes.streamsOnGet ? (learned.get(keyOf(method, message)) ?? subscribeVerb) : route.verb);
    const path = route.path ?? expandPath(route, fields);
    const json = messageToJson(method.input, message, writers) as JsonObject;
    const written = verb === "POST" && route.writeBody ? route.writeBody({ ...json }) : undefined;
    // A body that is the whole request ("*") keeps the ids the path binds,
    // as the official clients send it: servers may read them from the body
    // (1.0.0-beta.0 takes CreateTaskPushNotificationConfig's task id only
    // from there). The tenant is the path's alone.
    const wholeBody = verb === "POST" && route.verb === "POST" && route.body === "*";
    for (const f of route.pathFields) if (!wholeBody || f.name === "tenant") delete json[f.jsonName];
    // A GET or DELETE sends the remaining fields as its query (a POST, in its body).
    const query = verb === "POST" ? "" : toQuery(json);
    const q = baseQuery && query ? `${baseQuery}&${query}` : baseQuery || query;
    const url = base + path + (q ? `?${q}` : "");
    if (verb !== "POST") return { url, method: verb };
    // A GET route sent as POST carries its query fields in the body.
    const body =
      written ??
      (route.body === "*" || route.verb !== "POST" ? json : route.body ? (json[jsonNameOf(method, route.body)] ?? {}) : undefined);
    return { url, method: verb, body };
  }

  const codec: BindingCodec = {
    binding: "HTTP+JSON",
    contentType: "application/json",
    accept: "application/a2a+json, application/json",
    plan,
    verbChoice(method, message, httpPlan): VerbChoice | undefined {
      if (!routesOf(method).streamsOnGet) return undefined;
      const key = keyOf(method, message);
      return {
        learned: learned.get(key) === httpPlan.method,
        other: () => plan(method, message, httpPlan.method === "POST" ? "GET" : "POST"),
        remember(verb) {
          learned.delete(key);
          if (learned.size >= MAX_LEARNED_VERBS) learned.delete(learned.keys().next().value!);
          learned.set(key, verb);
        },
        forget() {
          learned.delete(key);
        },
      };
    },
    // Loaded on demand: only a server that refuses the verb tried first needs it.
    verbFallback: () => import("./verb-fallback.js"),
    result(json: unknown, _plan: HttpPlan, facts: ResponseFacts): unknown {
      // Some servers put an error object into a stream frame; a 0.3 Java server, the error it names.
      if ((isRecord(json) && isRecord(json.error) && Object.keys(json).length === 1) || names?.(json)) {
        throw new UnreadError((m) => m.restError(json, facts, names));
      }
      return json;
    },
    // Read with the code loaded on failure (http/error-bodies.ts).
    error: (json, facts, m) => m.restError(json, facts, names),
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
