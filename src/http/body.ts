/**
 * Reading the body of an HTTP binding's response: whole (bounded), or
 * given up; and what a failure below the binding (the network, the HTTP
 * client) is reported as.
 */
import { ProtocolError } from "../errors/family.js";
import { readFailure } from "./failure-reading.js";
import type { Binding } from "../base/bindings.js";
import { concatBytes } from "../base/bytes.js";
import { mediaTypeOf } from "../base/media-type.js";
import { safeUrl } from "../base/urls.js";

// Whole bodies are decoded in one go, so one decoder serves every call.
const utf8 = new TextDecoder();

/** Closes a body nobody reads. */
export async function discard(body: AsyncIterable<Uint8Array>): Promise<void> {
  await body[Symbol.asyncIterator]().return?.();
}

/** A whole body as text, failing with ProtocolError past `maxBytes`. */
export async function readText(body: AsyncIterable<Uint8Array>, maxBytes: number, binding: Binding, url: string): Promise<string> {
  try {
    const tooLarge = () => new ProtocolError(`response body from ${safeUrl(url)} larger than ${maxBytes} bytes`, { binding });
    return utf8.decode(await concatBytes(body, maxBytes, tooLarge));
  } catch (e) {
    // A connection lost in the middle of the body is a ConnectionError, as
    // one lost before the response is.
    throw await readFailure(e, binding, url);
  }
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

/** `application/problem+json`, with or without parameters. */
export function isProblemType(type: string): boolean {
  return mediaTypeOf(type) === "application/problem+json";
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
