/**
 * HTTP+JSON routes, from the `google.api.http` options that the proto
 * declares, as generation writes them out (gen/lf/a2a/v1/a2a_facts.ts). A spec
 * change that moves a route reaches the client through `npm run generate`
 * alone.
 */
import type { DescField, DescMethod, JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { HttpRuleJson } from "../../../gen/google/api/http_pb.js";
import { HTTP_RULES } from "../../../gen/lf/a2a/v1/a2a_facts.js";
import { InvalidParamsError } from "../../errors/family.js";

/** The HTTP methods A2A's HTTP+JSON routes use. */
export type Verb = "GET" | "POST" | "DELETE";

/**
 * A field bound by a path template: `{id}` or `{id=*}` is one path segment;
 * a template of several segments such as `{name=tasks/*}` takes a value
 * with slashes (`tasks/abc`) that stay unescaped.
 */
export interface PathVariable {
  /** The request field the variable binds. */
  field: DescField;
  /** Whether the value may contain slashes, kept unescaped. */
  multiSegment: boolean;
}

/** A path template such as `/{tenant}/tasks/{id=*}:cancel`, compiled. */
export interface Route {
  /** The HTTP method. */
  verb: Verb;
  /** Literal pieces and field references, in order. */
  segments: ReadonlyArray<string | PathVariable>;
  /** The whole path, when it binds no field: the same for every call. */
  path?: string | undefined;
  /** Fields the path binds; they are left out of the body and query. */
  pathFields: readonly DescField[];
  /** "*" (every remaining field), a field name, or "" (no body). */
  body: string;
  /**
   * The body made from the whole request's JSON (path fields included),
   * where `body` alone does not say what servers read: set for a route, not
   * read from the proto.
   */
  writeBody?: ((request: JsonObject) => JsonValue) | undefined;
}

/** The plain route and the `/{tenant}/...` variant of one method. */
export interface MethodRoutes {
  /** The route without a tenant. */
  plain: Route;
  /** The route with `/{tenant}` in front, when the method has one. */
  tenant: Route | undefined;
  /**
   * A server-streaming method routed as GET (SubscribeToTask): servers
   * disagree on its verb, which a transport learns per interface.
   */
  streamsOnGet: boolean;
}

const cache = new WeakMap<DescMethod, MethodRoutes>();

/**
 * The routes of a method of the 1.0 service, from its `google.api.http`
 * option (compiled once per method); `rules` are those of another schema's
 * file (the 0.3 one's).
 */
export function routesOf(method: DescMethod, rules = HTTP_RULES): MethodRoutes {
  let routes = cache.get(method);
  if (!routes) {
    routes = routesFromRule(method, rules[`${method.parent.typeName}.${method.name}`]);
    cache.set(method, routes);
  }
  return routes;
}

/** The routes of one `google.api.http` rule and its additional bindings. */
export function routesFromRule(method: DescMethod, rule: HttpRuleJson | undefined): MethodRoutes {
  const all = rule ? [rule, ...(rule.additionalBindings ?? [])].map((r) => compileRule(method, r)) : [];
  const plain = all.find((r) => !r.pathFields.some(isTenant));
  if (!plain) throw new Error(`${method.parent.typeName}.${method.name} has no google.api.http route`);
  return {
    plain,
    tenant: all.find((r) => r.pathFields.some(isTenant)),
    streamsOnGet: method.methodKind === "server_streaming" && plain.verb === "GET",
  };
}

function isTenant(f: DescField): boolean {
  return f.name === "tenant";
}

/** The patterns of a google.api.http rule that A2A's routes use. */
const VERBS = ["get", "post", "delete"] as const;

function compileRule(method: DescMethod, rule: HttpRuleJson): Route {
  const verb = VERBS.find((v) => rule[v] !== undefined);
  if (verb === undefined) {
    const other = ["put", "patch", "custom"].find((v) => v in rule);
    throw new Error(`${method.name}: unsupported HTTP verb in route (${String(other)})`);
  }
  const path = rule[verb] ?? "";
  const segments: Array<string | PathVariable> = [];
  const pathFields: DescField[] = [];
  // `{field}`, `{field=*}` or `{field=some/*/template}`.
  const re = /\{([a-z_][a-z0-9_]*)(?:=([^}]*))?\}/g;
  let last = 0;
  for (let m = re.exec(path); m; m = re.exec(path)) {
    const field = method.input.fields.find((f) => f.name === m![1]);
    if (!field) throw new Error(`${method.name}: route ${path} names unknown field ${m[1]}`);
    const template = m[2] ?? "*";
    segments.push(path.slice(last, m.index), { field, multiSegment: template !== "*" });
    pathFields.push(field);
    last = m.index + m[0].length;
  }
  segments.push(path.slice(last));
  return {
    verb: verb.toUpperCase() as Verb,
    segments: segments.filter((s) => s !== ""),
    path: pathFields.length ? undefined : path,
    pathFields,
    body: rule.body ?? "",
  };
}

/**
 * The path of a route for a message's field values. As google.api.http
 * says, a one-segment variable has every reserved character escaped, `/`
 * included; a multi-segment one keeps its slashes and escapes the rest.
 *
 * @throws InvalidParamsError for a value that is empty, or that would make
 * a whole segment `.` or `..` (or, in a multi-segment value, empty): URL
 * resolution drops or collapses such segments (escaping does not help,
 * `%2E` is a dot to it too), so the request would reach another route
 * (`GET /tasks/` is ListTasks, `/./tasks` loses the tenant).
 */
export function expandPath(route: Route, message: Readonly<Record<string, unknown>>): string {
  let path = "";
  const { segments } = route;
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    if (typeof s === "string") {
      path += s;
      continue;
    }
    const value = String(message[s.field.localName] ?? "");
    if (value === "") throw unsendable(s.field, "is empty");
    const parts = s.multiSegment ? value.split("/") : [value];
    // Whether the value's first and last parts are whole segments of the path, not parts of one (`{id}:cancel`).
    const next = segments[i + 1];
    const opens = path === "" || path.endsWith("/");
    const closes = next === undefined || (typeof next === "string" && next.startsWith("/"));
    for (let k = 0; k < parts.length; k++) {
      const part = parts[k]!;
      const whole = (k > 0 || opens) && (k < parts.length - 1 || closes);
      if (whole && (part === "" || part === "." || part === "..")) {
        throw unsendable(s.field, `(${JSON.stringify(value.slice(0, 100))}) would make a path segment ${JSON.stringify(part)}`);
      }
    }
    try {
      path += parts.map(encodeURIComponent).join("/");
    } catch {
      // encodeURIComponent's URIError names neither the field nor the cause.
      throw new InvalidParamsError(`the request's ${s.field.jsonName} is not well-formed Unicode (it holds a lone surrogate)`);
    }
  }
  return path;
}

function unsendable(field: DescField, what: string): InvalidParamsError {
  return new InvalidParamsError(`${field.jsonName} ${what}, which cannot be sent in an HTTP+JSON URL path`, { binding: "HTTP+JSON" });
}
