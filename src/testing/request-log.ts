/**
 * What the test agent saw: every request it received, for a test to assert
 * on, with the credentials it carried masked. A credential is a header
 * named for one (`Authorization`, `Cookie`, anything with key, token,
 * secret, password, session or auth in its name) or named by an API key
 * scheme of the card, and a query parameter named so; its value is shown
 * as `***`, after the scheme word of an `Authorization` (`Bearer ***`), so
 * a test can assert that one was sent, and how, without a log of secrets;
 * so are the token and credentials of a push notification config.
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { Binding } from "../base/bindings.js";
import { isJsonObject } from "../base/is-record.js";

/** One request the test agent received. @category Testing */
export interface ReceivedRequest {
  /** The binding it came on; undefined for the card and for a request that named no A2A operation. */
  readonly binding: Binding | undefined;
  /** The operation by its proto name (`SendMessage`), `AgentCard` for the card, `KeySet` for the key set of a signed card, or `""` when it named none. */
  readonly method: string;
  /** The `A2A-Version` it announced (header, else query parameter). */
  readonly version: string | undefined;
  /** The HTTP method. */
  readonly httpMethod: string;
  /** Path and query, credentials in the query masked. */
  readonly path: string;
  /** Its headers by lower-case name, credentials masked. */
  readonly headers: Readonly<Record<string, string>>;
  /** The request message as the specification's JSON (`SendMessageRequest` for SendMessage), when it could be read. */
  readonly request: JsonValue | undefined;
  /** When it arrived, as `Date.now()` (a fake clock's time under fake timers): how far apart a client's polls or retries were. */
  readonly receivedAt: number;
}

/** What a masked credential shows in `agent.requests`. @category Testing */
export const MASK = "***";

const CREDENTIAL_NAME = /authorization|cookie|key|token|secret|passw|session|auth|credential/i;

/** Whether a header or query parameter named `name` carries a credential, `named` being those the card's API key schemes name. */
function isCredential(name: string, named: ReadonlySet<string>): boolean {
  return CREDENTIAL_NAME.test(name) || named.has(name.toLowerCase());
}

/** `Bearer abc` -> `Bearer ***`; anything else -> `***`. */
function masked(name: string, value: string): string {
  const scheme = /^(\S+)\s+\S/.exec(value);
  return /authorization/i.test(name) && scheme ? `${scheme[1]} ${MASK}` : MASK;
}

/** Headers by lower-case name, credentials masked. */
export function maskedHeaders(headers: Headers, named: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name] = isCredential(name, named) ? masked(name, value) : value;
  });
  return out;
}

/** Path and query of `url`, the values of credential parameters masked. */
export function maskedPath(url: URL, named: ReadonlySet<string>): string {
  const query = new URLSearchParams(url.search);
  for (const name of new Set(query.keys())) {
    if (isCredential(name, named)) query.set(name, MASK);
  }
  const q = query.toString();
  return url.pathname + (q ? `?${q}` : "");
}

/**
 * The request message as logged: the secrets of a push notification config
 * (its `token`, its authentication's `credentials`) masked, in the config
 * CreateTaskPushNotificationConfig sends and in the one a message carries.
 */
export function maskedRequest(method: string, json: JsonValue | undefined): JsonValue | undefined {
  if (!isObject(json)) return json;
  if (method === "CreateTaskPushNotificationConfig") return maskedPushConfig(json);
  const configuration = json.configuration;
  if ((method === "SendMessage" || method === "SendStreamingMessage") && isObject(configuration)) {
    const config = configuration.taskPushNotificationConfig;
    if (isObject(config)) return { ...json, configuration: { ...configuration, taskPushNotificationConfig: maskedPushConfig(config) } };
  }
  return json;
}

const isObject = (v: JsonValue | undefined): v is JsonObject => isJsonObject(v);

function maskedPushConfig(config: JsonObject): JsonObject {
  const masked: JsonObject = { ...config };
  if (typeof masked.token === "string") masked.token = MASK;
  const auth = masked.authentication;
  if (isObject(auth) && typeof auth.credentials === "string") masked.authentication = { ...auth, credentials: MASK };
  return masked;
}
