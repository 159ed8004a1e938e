/**
 * Reading the body of an HTTP binding's response where it is not a result
 * (binding-transport.ts's `readJson` reads those): an error answer's, whole
 * or given up past the limit; one nobody reads, closed; and what a failure
 * below the binding (the network, the HTTP client) is reported as.
 */
import { readFailure } from "./failure-reading.js";
import type { Binding } from "../base/bindings.js";
import { concatBytes } from "../base/bytes.js";

/** The decoder of whole bodies: decoded in one go, so one serves every call. */
export const utf8 = new TextDecoder();

/** Closes a body nobody reads. */
export async function discard(body: AsyncIterable<Uint8Array>): Promise<void> {
  await body[Symbol.asyncIterator]().return?.();
}

const OVER_LIMIT = new RangeError("over the limit");

/**
 * A whole body as text, or undefined past `maxBytes` (read no further, and
 * given up): for an error answer, whose status still says what happened
 * when its body is too large to read.
 */
export async function readTextWithin(
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
  binding: Binding,
  url: string,
): Promise<string | undefined> {
  try {
    return utf8.decode(await concatBytes(body, maxBytes, () => OVER_LIMIT));
  } catch (e) {
    if (e === OVER_LIMIT) return undefined;
    throw await readFailure(e, binding, url);
  }
}

/** Whether a body of no JSON content type still looks like a JSON document. */
export function looksLikeJson(text: string): boolean {
  const c = text.trimStart()[0];
  return c === "{" || c === "[";
}

/** The JSON value of `text`, or undefined when it is not JSON. */
export function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
