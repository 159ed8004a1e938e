/**
 * Credentials the application sends itself (a transport's `headers`, a
 * call's `headers`, its own interceptors, user info or a key in the base
 * URL) are masked on a failed call's error as the auth interceptors mask
 * theirs (errors/redact.ts): an agent may echo any of them back.
 *
 * The rule for headers is by exclusion, so that a credential under any name
 * (an API key header the card names, `X-Tenant-Secret`, ...) is covered:
 * the value of every request header is masked except the headers the
 * protocol itself sets, whose values are not secret and are ordinary words
 * that would otherwise be masked in every message (`application/json`,
 * `1.0`). In the URL, the user name, the password and every query
 * parameter value are masked, except the parameters HTTP+JSON makes of the
 * request message's own fields on a GET (`historyLength`, `pageSize`, `status`, ...):
 * those are the caller's data, and masking them would garble the messages
 * that name them. In the request message, the credentials it hands the
 * agent are masked: a push config's `token`, its authentication
 * `credentials`, and the user info and query values of its webhook `url`.
 *
 * Loaded on the error path only (run-call.ts): nothing here runs for a call
 * that succeeds. The `a2a` CLI uses the same rules for what it prints.
 */
import type { DescMethod } from "@bufbuild/protobuf";
import { redactSecrets } from "../errors/redact.js";
import { isRecord } from "../base/is-record.js";

/** Request headers that carry the protocol's own values, never credentials (lower case). */
const PROTOCOL_HEADERS: ReadonlySet<string> = new Set([
  "accept",
  "accept-encoding",
  "accept-language",
  "content-encoding",
  "content-length",
  "content-type",
  "user-agent",
  "te",
  "a2a-version",
  "a2a-extensions",
  "x-a2a-extensions",
  "last-event-id",
  "traceparent",
  "tracestate",
  "grpc-timeout",
  "grpc-encoding",
  "grpc-accept-encoding",
  "x-grpc-web",
  "x-user-agent",
  "connect-protocol-version",
  "connect-timeout-ms",
]);

/** Whether request header `name` carries one of the protocol's own values, never a credential. */
export function isProtocolHeader(name: string): boolean {
  return PROTOCOL_HEADERS.has(name.toLowerCase());
}

/**
 * `e` with every credential the request (its final headers and URL, and
 * what its message hands the agent) carried masked, in place as
 * redactSecrets does.
 */
export function redactSent<E>(e: E, header: Headers | undefined, url: string | undefined, method?: DescMethod, message?: unknown): E {
  return redactSecrets(e, [...sentSecrets(header, url, method), ...messageSecrets(message)]);
}

/** The values of `header` and `url` that may be credentials, with the parts a server may echo alone. */
export function sentSecrets(header: Headers | undefined, url: string | undefined, method?: DescMethod): string[] {
  const out: string[] = [];
  header?.forEach((value, name) => {
    if (isProtocolHeader(name)) return;
    out.push(value);
    // `<scheme> <credentials>`: the credentials alone, and what Basic encodes.
    const scheme = /^([A-Za-z][\w.+-]*)\s+(\S.*)$/.exec(value);
    if (scheme) {
      out.push(scheme[2]!);
      if (scheme[1]!.toLowerCase() === "basic") out.push(...basicParts(scheme[2]!));
    }
    // gRPC binary metadata goes as base64: the server reads, and may echo, what it decodes to.
    if (name.endsWith("-bin")) {
      const decoded = base64Text(value);
      if (decoded !== undefined) out.push(decoded);
    }
    // Cookies (and any `a=b; c=d` list): each value, as sent and decoded.
    if (name === "cookie" || value.includes("=")) {
      for (const pair of value.split(/[;,]/)) {
        const at = pair.indexOf("=");
        if (at >= 0) out.push(...asSentAndDecoded(pair.slice(at + 1).trim()));
      }
    }
  });
  if (url !== undefined) out.push(...urlSecrets(url, method));
  return out;
}

/**
 * The credentials a request message hands the agent, for it to use later:
 * those of a push config, sent alone (CreateTaskPushNotificationConfig) or
 * with a message (`configuration.taskPushNotificationConfig`).
 */
function messageSecrets(message: unknown): string[] {
  if (!isRecord(message)) return [];
  const configuration = isRecord(message.configuration) ? message.configuration : undefined;
  const configs = [message.$typeName === PUSH_CONFIG ? message : undefined, configuration?.taskPushNotificationConfig];
  const out: string[] = [];
  for (const config of configs) {
    if (!isRecord(config)) continue;
    if (typeof config.token === "string") out.push(config.token);
    const auth = config.authentication;
    if (isRecord(auth) && typeof auth.credentials === "string") {
      out.push(auth.credentials);
      if (typeof auth.scheme === "string" && auth.scheme.toLowerCase() === "basic") out.push(...basicParts(auth.credentials));
    }
    if (typeof config.url === "string") out.push(...urlSecrets(config.url, undefined));
  }
  return out;
}

const PUSH_CONFIG = "lf.a2a.v1.TaskPushNotificationConfig";

/** User name, password and query values of `url` (but those of `method`'s request fields), as written and decoded. */
function urlSecrets(url: string, method: DescMethod | undefined): string[] {
  const u = urlParts(url);
  const out: string[] = [];
  if (u.username || u.password) {
    out.push(`${u.username}:${u.password}`, `${safeDecode(u.username)}:${safeDecode(u.password)}`);
    out.push(...asSentAndDecoded(u.username), ...asSentAndDecoded(u.password));
  }
  // Each value as written and decoded; redactSecrets adds the other encodings.
  for (const pair of u.search.slice(1).split("&")) {
    const at = pair.indexOf("=");
    if (at < 0 || isRequestField(method, safeDecode(pair.slice(0, at)))) continue;
    out.push(...asSentAndDecoded(pair.slice(at + 1)));
  }
  return out;
}

/**
 * The user info and query of `url` as written. A URL that does not parse
 * (a port out of range, a space in the host) is read as text: the failure
 * may quote it whole (Node's "Invalid URL" keeps it as `input`), user info
 * and key included.
 */
function urlParts(url: string): { username: string; password: string; search: string } {
  try {
    const u = new URL(url);
    return { username: u.username, password: u.password, search: u.search };
  } catch {
    const authority = /^[^:/?#]+:\/\/([^/?#]*)/.exec(url)?.[1] ?? "";
    const info = authority.slice(0, Math.max(0, authority.lastIndexOf("@")));
    const colon = info.indexOf(":");
    const query = url.indexOf("?");
    return {
      username: colon < 0 ? info : info.slice(0, colon),
      password: colon < 0 ? "" : info.slice(colon + 1),
      search: query < 0 ? "" : url.slice(query).split("#")[0]!,
    };
  }
}

/** Whether query parameter `name` (`field` or `field.sub`) is one of the request message's fields, by JSON or proto name. */
function isRequestField(method: DescMethod | undefined, name: string): boolean {
  if (method === undefined) return false;
  const top = name.split(".")[0];
  return method.input.fields.some((f) => f.jsonName === top || f.name === top);
}

/** `user:password` and the password of a Basic value, when it decodes. */
function basicParts(encoded: string): string[] {
  const decoded = base64Text(encoded);
  if (decoded === undefined) return [];
  const colon = decoded.indexOf(":");
  return colon < 0 ? [decoded] : [decoded, decoded.slice(colon + 1)];
}

/** The UTF-8 text that base64 `encoded` holds, or undefined when it is neither. */
function base64Text(encoded: string): string | undefined {
  try {
    const bytes = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** `value`, and what it decodes to as a URL component and as form data (`+` as a space). */
function asSentAndDecoded(value: string): string[] {
  const out = new Set([value, safeDecode(value), safeDecode(value.replace(/\+/g, " "))]);
  return [...out];
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
