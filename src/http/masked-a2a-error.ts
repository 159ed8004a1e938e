/**
 * `toA2AError` as the toolkit exports it: the classification (errors/classify.ts,
 * which the core calls under the same name) with every URL the error names
 * masked of its user info and query values. A call's error is masked so by
 * its runner (run-call.ts, sent-secrets.ts); code of one's own that
 * classifies what it caught has no runner after it, and fetch quotes a URL
 * it refuses whole. Kept apart from the classification so that only the
 * toolkit carries the masking code.
 */
import type { A2AError } from "../errors/family.js";
import { toA2AError as classify } from "../errors/classify.js";
import type { Binding } from "../base/bindings.js";
import { redactSecrets } from "../errors/redact.js";
import { isRecord } from "../base/is-record.js";
import { sentSecrets } from "./sent-secrets.js";

/**
 * Turns anything thrown while making a call into an A2AError. Errors that
 * are already A2AErrors pass through, also when wrapped as a `cause` (connect
 * wraps what a transport throws). `url`, when given, is named (origin and
 * path only) in the messages of failures below the protocol, and a
 * connection that failed names the host and port it went to. The user info
 * and query values of `url`, and of every URL the error and its causes
 * quote (fetch names the URL it refuses whole), are masked (`***`) in the
 * error returned and its causes, in place, as a failed call's are.
 * @example
 * ```ts
 * import { toA2AError } from "a2a-connect/toolkit";
 *
 * try {
 *   await fetch("https://agent.example.com/a2a/jsonrpc", { method: "POST" });
 * } catch (e) {
 *   const error = toA2AError(e, "JSONRPC", "https://agent.example.com/a2a/jsonrpc");
 *   console.log(error.code, error.message); // e.g. CONNECTION_FAILED
 * }
 * ```
 * @category For tool authors
 */
export function toA2AError(e: unknown, binding?: Binding, url?: string): A2AError {
  const urls = url === undefined ? quotedUrls(e) : [url, ...quotedUrls(e)];
  return redactSecrets(
    classify(e, binding, url),
    urls.flatMap((u) => sentSecrets(undefined, u)),
  );
}

/** A URL in text: a scheme, `://`, and what follows up to a space, a quote or a bracket. */
const URL_IN_TEXT = /[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>()[\]{}]+/gi;

/**
 * The URLs that `e` and its causes name in their text fields (message,
 * Node's `input` of an invalid URL, ...) or hold as URL objects, as deep as
 * toA2AError looks for causes.
 */
function quotedUrls(e: unknown): string[] {
  const out: string[] = [];
  const scan = (value: unknown) => {
    if (typeof value === "string") out.push(...(value.match(URL_IN_TEXT) ?? []));
    else if (value instanceof URL) out.push(value.href);
  };
  scan(e);
  for (let cur = e, depth = 0; isRecord(cur) && depth < 8; cur = cur.cause, depth++) {
    for (const name of Object.getOwnPropertyNames(cur)) {
      if (name !== "stack" && name !== "cause") scan((cur as Record<string, unknown>)[name]);
    }
  }
  return out;
}
