/**
 * `Retry-After` (RFC 9110 section 10.2.3): seconds, or an HTTP date.
 * Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const RETRY_INFO_TYPE = "type.googleapis.com/google.rpc.RetryInfo";

/**
 * The `retryDelay` of a `google.rpc.RetryInfo` among an error's JSON
 * details (a ProtoJSON duration such as "1.5s"), in milliseconds: how
 * gRPC-style servers say when to try again, where HTTP says Retry-After.
 */
export function retryDelayFromDetails(details: readonly unknown[]): number | undefined {
  for (const d of details) {
    if (typeof d !== "object" || d === null || (d as { "@type"?: unknown })["@type"] !== RETRY_INFO_TYPE) continue;
    const delay = (d as { retryDelay?: unknown }).retryDelay;
    const m = typeof delay === "string" ? /^(\d{1,12})(\.\d{1,9})?s$/.exec(delay) : null;
    if (m) return Number(m[1]) * 1000 + Math.round(Number(`0${m[2] ?? ""}`) * 1000);
  }
  return undefined;
}
