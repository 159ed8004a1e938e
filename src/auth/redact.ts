/**
 * Secrets never travel in what this package reports: errors that pass an
 * auth interceptor or a token provider have every known secret replaced in
 * their messages (a server may echo what it was sent), down the cause chain.
 */
import { ConnectError } from "@connectrpc/connect";

const MASK = "***";

/** `e` with each of `secrets` masked in its message and its causes' messages; returns `e`. */
export function redactSecrets<E>(e: E, secrets: readonly (string | undefined)[]): E {
  // As sent, and as they would appear in a URL or a form.
  const list = [
    ...new Set(
      secrets
        .filter((s): s is string => typeof s === "string" && s.length >= 3)
        .flatMap((s) => [s, encodeURIComponent(s), new URLSearchParams({ s }).toString().slice(2)]),
    ),
  ].sort((a, b) => b.length - a.length);
  if (list.length === 0) return e;
  const scrub = (text: string) => list.reduce((t, s) => t.split(s).join(MASK), text);
  for (let cur: unknown = e, depth = 0; cur instanceof Error && depth < 8; cur = cur.cause, depth++) {
    if (list.some((s) => cur instanceof Error && cur.message.includes(s))) {
      Object.defineProperty(cur, "message", { value: scrub(cur.message), writable: true, configurable: true, enumerable: false });
    }
    if (cur instanceof ConnectError && list.some((s) => cur instanceof ConnectError && cur.rawMessage.includes(s))) {
      Object.defineProperty(cur, "rawMessage", { value: scrub(cur.rawMessage), writable: true, configurable: true, enumerable: true });
    }
  }
  return e;
}

/** What an object holding secrets shows of itself in logs: its kind, never its values. */
export function opaque<T extends object>(target: T, description: string): T {
  const show = () => `[${description}]`;
  Object.defineProperties(target, {
    toString: { value: show, enumerable: false },
    toJSON: { value: () => show(), enumerable: false },
    [Symbol.for("nodejs.util.inspect.custom")]: { value: show, enumerable: false },
  });
  return target;
}
