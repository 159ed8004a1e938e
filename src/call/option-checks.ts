/**
 * Options checked when they are given, so that a wrong one fails at once
 * with an InvalidParamsError naming it rather than later as something else:
 * a NaN or a string switches a size limit or a deadline off without a word
 * (`size > NaN` is never true), a size limit of 0 or less refuses every
 * answer, and a base URL that is not an http(s) URL fails every call as a
 * "connection" failure, which retries and failover take for a passing one.
 */
import { InvalidParamsError } from "../errors/family.js";
import { parsedUrl } from "../base/urls.js";

/**
 * A duration in milliseconds where 0 (or Infinity) means none: absent, or a
 * number. As in connect, one below 0 means none too.
 */
export function checkDuration(value: unknown, name: string): void {
  if (value !== undefined && (typeof value !== "number" || Number.isNaN(value))) throw invalid(name, "a number of milliseconds", value);
}

/** A size or count limit: absent, or a number above 0 (Infinity: none). */
export function checkLimit(value: unknown, name: string): void {
  if (value !== undefined && !(typeof value === "number" && value > 0)) throw invalid(name, "a number above 0", value);
}

/**
 * An absolute http or https URL, the only kind an HTTP binding can call.
 * The value is not quoted: its query or user info may hold a credential.
 */
export function checkHttpUrl(value: unknown, name: string): void {
  const protocol = typeof value === "string" ? parsedUrl(value)?.protocol : undefined;
  if (protocol !== "http:" && protocol !== "https:") throw new InvalidParamsError(`${name} must be an absolute http or https URL`);
}

/** What an HTTP binding takes as `baseUrl`. */
export function checkHttpBaseUrl(url: unknown): void {
  checkHttpUrl(url, "baseUrl");
}

/**
 * What the gRPC bindings take as `baseUrl`: an http(s) or grpc(s) URL, or
 * a bare `host:port`, checked as the http(s) URL it becomes (grpc/url.ts).
 */
export function checkGrpcBaseUrl(url: unknown): void {
  checkHttpBaseUrl(typeof url !== "string" || /^\w+:\/\//.test(url) ? String(url).replace(/^grpc/i, "http") : `http://${url}`);
}

/**
 * Refuses, when a transport is made, the options that would make its calls
 * fail later or run without the limits asked for: a `baseUrl` of the wrong
 * kind (`checkUrl`: the binding's own rule), a number option that is not one.
 */
export function checkTransportOptions(options: { baseUrl?: unknown }, checkUrl: (url: unknown) => void): void {
  checkUrl(options.baseUrl);
  checkTransportNumbers(options);
}

/**
 * The number options of every transport that carry a duration or a limit;
 * `where` prefixes their names (`connect()`'s `transport.`). A PING
 * interval or timeout of 0 would ping without pause or fail every PING,
 * so those are limits: above 0 (Infinity: no PINGs).
 */
export function checkTransportNumbers(options: object, where = ""): void {
  const given = options as Record<string, unknown>;
  for (const name of [
    "timeoutMs",
    "idleTimeoutMs",
    "maxResponseBytes",
    "maxEventBytes",
    "readMaxBytes",
    "pingIntervalMs",
    "pingTimeoutMs",
  ]) {
    (name.endsWith("Ms") && !name.startsWith("ping") ? checkDuration : checkLimit)(given[name], where + name);
  }
}

/** The fields of gRPC's TLS options (grpc/url.ts: GrpcTlsOptions). */
const TLS_FIELDS = ["ca", "cert", "key", "servername"];

/**
 * gRPC's `tls`: absent, a boolean, or TLS options of the right kinds. A
 * field we do not apply (`rejectUnauthorized`, a misspelling) is refused
 * rather than ignored, so nobody believes it in force. Values are never
 * quoted: a key is a secret.
 */
export function checkTlsOption(value: unknown, name: string): void {
  if (value === undefined || typeof value === "boolean") return;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "a list" : `a ${typeof value}`;
    throw new InvalidParamsError(`${name} must be true, false or TLS options { ${TLS_FIELDS.join(", ")} }, got ${kind}`);
  }
  const pem = (v: unknown) => typeof v === "string" || v instanceof Uint8Array;
  for (const [field, v] of Object.entries(value)) {
    if (!TLS_FIELDS.includes(field)) {
      throw new InvalidParamsError(`${name}.${field.slice(0, 40)} is not a TLS option of the gRPC transport (${TLS_FIELDS.join(", ")})`);
    }
    if (v === undefined) continue;
    const ok = field === "servername" ? typeof v === "string" : pem(v) || (Array.isArray(v) && v.every(pem));
    if (!ok)
      throw new InvalidParamsError(
        `${name}.${field} must be ${field === "servername" ? "a string" : "PEM text or bytes, or a list of them"}`,
      );
  }
}

/** The error for a wrong number option. */
function invalid(name: string, rule: string, value: unknown): InvalidParamsError {
  return new InvalidParamsError(`${name} must be ${rule}, got ${shownValue(value)}`);
}

/**
 * A wrong option's value as an error shows it: a number, a boolean, null
 * or undefined as it is; anything else by its kind, since a string where a
 * number belongs may be a mistyped secret. `words`: an option whose values
 * are words (`jitter: "full"`) shows a string it refuses.
 */
export function shownValue(value: unknown, words = false): string {
  if (typeof value === "string") return words ? JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value) : "a string";
  if (value === null || typeof value === "number" || typeof value === "boolean" || value === undefined) return String(value);
  return Array.isArray(value) ? "an array" : `a ${typeof value}`;
}
