/**
 * The HTTP+JSON binding of A2A 0.3 behind the 1.0 service's interface:
 * routes from the 0.3 proto's `google.api.http` options (`/v1/message:send`,
 * `/v1/tasks/{id}`, ...), bodies in the ProtoJSON of the 0.3 messages, errors
 * as 0.3 servers send them (`{code, message, data?}` with JSON-RPC codes, or
 * the Java SDK's `{error: <class name>, message}`).
 */
import type { DescMethod, JsonObject, JsonValue } from "@bufbuild/protobuf";
import { HTTP_RULES } from "../../../gen/a2a/v1/a2a_facts.js";
import * as V03 from "../../../gen/a2a/v1/a2a_pb.js";
import type { HttpRuleJson } from "../../../gen/google/api/http_pb.js";
import type { HttpTransportOptions } from "../../call/options.js";
import type { GeneratedJson } from "../../protocol/proto-json.js";
import type { MethodRoutes } from "./routes.js";
import type { A2ATransport } from "../../call/transport.js";
import { adaptV03Transport } from "../../v0_3/adapter.js";
import type { Interceptor } from "@connectrpc/connect";
import type { V03Kit } from "../v0_3-kit.js";
import { isRecord } from "../../base/is-record.js";
import { javaErrorClass } from "../../v0_3/error-names.js";

/**
 * A transport for 1.0 calls to an agent that speaks A2A 0.3 over HTTP+JSON.
 * `baseUrl` is the interface URL, without the `/v1` the routes add.
 * `protocolVersion` defaults to "0.3" (sent as `A2A-Version`). Operations
 * 0.3 lacks (ListTasks) fail with `UnsupportedOperationError` without a
 * request. Interceptors see the 1.0 messages. With the `generated` code
 * where given, as the 1.0 one (it has none for the 0.3 messages). `kit` is
 * the code of the start it is built on (bindings/v0_3-kit.ts).
 */
export function createRestTransportV03(kit: V03Kit, options: HttpTransportOptions, generated?: GeneratedJson): A2ATransport {
  const settings: HttpTransportOptions = { ...options, protocolVersion: options.protocolVersion ?? "0.3" };
  // GET first for SubscribeToTask: the 0.3 proto's verb, what 0.3 clients
  // send, and all some 0.3 servers route; POST is tried once where it fails.
  // The route is chosen below the caller's interceptors: a URL they change (a key in the query) is
  // applied to it, and the URL it went to is noted for them (call/target.ts), when there are any.
  const routing = options.interceptors?.length ? [routeUrlFromAbove(kit, options.baseUrl), kit.noteSentUrl] : [];
  // The body CreateTaskPushNotificationConfig is sent with, learned per transport (see wholeRequestOnRefusal).
  const shape: ConfigBodyShape = { wholeRequest: false };
  const below = [wholeRequestOnRefusal(shape), ...routing];
  const routes = (method: DescMethod) => routesV03(kit, method, shape);
  // Errors as the Java SDK's 0.3 servers name them are read too (v0_3/error-names.ts).
  const inner = kit.createRestTransportWithRoutes({ ...settings, interceptors: below }, routes, "GET", generated, javaErrorClass);
  const base = options.baseUrl.replace(/\/+$/, "");
  return adaptV03Transport(kit, inner, {
    interceptors: options.interceptors,
    defaults: kit.serviceHeaders(settings),
    describe: (method) => ({ url: base, requestMethod: routes(method).plain.verb }),
  });
}

// The 0.3.0 proto routes CreateTaskPushNotificationConfig to
// `/v1/{parent=task/*/pushNotificationConfigs}`: `task` where its own
// comment, every other route and the servers say `tasks/{id}`. Our proto
// keeps the route as the specification wrote it (it is compared with it);
// requests go where ListTaskPushNotificationConfig's route already points.
const CREATE_PUSH_CONFIG_RULE: HttpRuleJson = { post: "/v1/{parent=tasks/*}/pushNotificationConfigs", body: "config" };

let createPushConfigRoutes: MethodRoutes | undefined;

/** Which body a transport sends CreateTaskPushNotificationConfig with. */
interface ConfigBodyShape {
  /** The request alone (`parent`, `config`), once the server refused the config's fields beside it. */
  wholeRequest: boolean;
}

function routesV03(kit: V03Kit, method: DescMethod, shape: ConfigBodyShape): MethodRoutes {
  const create = V03.A2AService.method.createTaskPushNotificationConfig;
  if (method !== create) return kit.routesOf(method, HTTP_RULES);
  // The routes are shared; the body is written as the transport has learned.
  createPushConfigRoutes ??= kit.routesFromRule(create, CREATE_PUSH_CONFIG_RULE);
  const { plain, tenant } = createPushConfigRoutes;
  const writeBody = (request: JsonObject) => configBody(request, shape.wholeRequest);
  return { ...createPushConfigRoutes, plain: { ...plain, writeBody }, tenant: tenant && { ...tenant, writeBody } };
}

/**
 * The 0.3 proto has the config itself as the body (`body: "config"`), and
 * a2a-js 1.3's 0.3 server reads it so; the 0.3 specification's text shows
 * `{ config }`, and the Python and a2a-js 0.3 servers read the whole request
 * (`parent` and `config`). The body carries both: the config's fields, and
 * `parent` and `config` beside them. Their names differ, and each of these
 * servers ignores the fields it does not read. The Java SDK's 0.3 servers
 * read the whole request and refuse any other field: to them, once they
 * have said so, the request alone (`wholeRequest`).
 */
function configBody(request: JsonObject, wholeRequest: boolean): JsonValue {
  const config = request.config;
  return !wholeRequest && isRecord(config) && !Array.isArray(config) ? { ...config, ...request } : request;
}

/**
 * The Java SDK's refusal of a field beside the request's own (`name`, the
 * config's first): 422, "Failed to parse request body: Cannot find field:
 * name in message a2a.v1.CreateTaskPushNotificationConfigRequest".
 */
const REFUSED_FIELD = /Cannot find field: \w+ in message [\w.]*CreateTaskPushNotificationConfigRequest\b/;

/**
 * Below the caller's interceptors: where the server refuses the config's
 * fields beside the request (REFUSED_FIELD), the create is sent once more
 * with the request alone, and this transport sends that from then on. The
 * one resend is safe: the server parsed nothing, so created nothing. The
 * message handed on is a copy, which has the transport write the request
 * again (http/binding-transport.ts), now with the body learned.
 */
function wholeRequestOnRefusal(shape: ConfigBodyShape): Interceptor {
  return (next) => async (req) => {
    if (req.stream || req.method !== V03.A2AService.method.createTaskPushNotificationConfig || shape.wholeRequest) return next(req);
    try {
      return await next(req);
    } catch (e) {
      if (!(e instanceof Error) || (e as { httpStatus?: unknown }).httpStatus !== 422 || !REFUSED_FIELD.test(e.message)) throw e;
      shape.wholeRequest = true;
      return next({ ...req, message: { ...req.message } });
    }
  };
}

/**
 * The interceptors above were shown the interface's base URL, `base` (the
 * route is chosen here, below them): what they made of it (another path, a
 * query parameter such as an API key) is applied to the route's URL, as on
 * a 1.0 transport where they see the route's URL itself. The route's path
 * follows the new base's, and the new base's query comes before the
 * route's own.
 */
function routeUrlFromAbove(kit: V03Kit, base: string): Interceptor {
  return (next) => (req) => {
    const above = kit.urlAbove(req);
    if (above === undefined) return next(req);
    // Parsed here, not when the transport is made: its own checks name a base URL that is no URL.
    const described = new URL(base);
    const describedPath = described.pathname.replace(/\/+$/, "");
    const route = new URL(req.url);
    if (!route.pathname.startsWith(describedPath)) return next(req);
    const to = new URL(above);
    to.pathname = to.pathname.replace(/\/+$/, "") + route.pathname.slice(describedPath.length);
    const query = new URLSearchParams(to.search);
    const own = new URLSearchParams(route.search);
    for (const key of new URLSearchParams(described.search).keys()) own.delete(key);
    for (const [key, value] of own) query.append(key, value);
    to.search = query.toString();
    return next({ ...req, url: to.toString() });
  };
}
