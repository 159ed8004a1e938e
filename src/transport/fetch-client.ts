/**
 * A `UniversalClientFn` on `fetch`, for browsers and any runtime with fetch.
 *
 * connect's own fetch client streams the request body, which Node's fetch
 * only accepts with `duplex: "half"`; A2A request bodies are small JSON
 * documents, so they are sent as one buffer instead.
 */
import type { UniversalClientFn, UniversalClientResponse } from "@connectrpc/connect/protocol";
import { concatBytes } from "../util.js";

/**
 * An HTTP client for connect transports on `fetch` (the global one, or the
 * one given), sending each request body as one buffer.
 */
export function createFetchHttpClient(fetchFn: typeof fetch = (input, init) => globalThis.fetch(input, init)): UniversalClientFn {
  return async (req): Promise<UniversalClientResponse> => {
    const res = await fetchFn(req.url, {
      method: req.method,
      headers: req.header,
      body: req.body === undefined ? undefined : await concatBytes(req.body),
      signal: req.signal,
      // Credentials are not sent to wherever a redirect leads.
      redirect: "follow",
      credentials: "same-origin",
    });
    return { status: res.status, header: res.headers, body: readerIterable(res.body), trailer: new Headers() };
  };
}

/**
 * Reads a body with `getReader()` (some browsers cannot iterate a
 * ReadableStream) and cancels it when the consumer stops early, so the
 * connection is released.
 */
export function readerIterable(body: ReadableStream<Uint8Array> | null): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]() {
      const reader = body?.getReader();
      return {
        async next() {
          if (!reader) return { done: true, value: undefined };
          const r = await reader.read();
          return r.done ? { done: true, value: undefined } : { done: false, value: r.value };
        },
        async return() {
          await reader?.cancel().catch(() => {});
          return { done: true, value: undefined };
        },
      };
    },
  };
}
