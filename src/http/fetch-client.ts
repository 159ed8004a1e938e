/**
 * A `UniversalClientFn` on `fetch`, for browsers and any runtime with fetch.
 *
 * connect's own fetch client streams the request body, which Node's fetch
 * only accepts with `duplex: "half"`; A2A request bodies are small JSON
 * documents, so they are sent as one buffer instead.
 *
 * Redirects are not followed here (`redirect: "manual"`): the bindings
 * decide from the 3xx answer (http/redirects.ts), so that credentials
 * and the body never go to an origin the caller did not name.
 */
import type { UniversalClientFn, UniversalClientResponse } from "@connectrpc/connect/protocol";
import { RedirectRefusedError } from "../errors/family.js";
import { ByteSink, concatBytes, GATHER, type Gathering } from "../base/bytes.js";
import { singleValue } from "../base/iterables.js";
import { withoutUserInfo } from "./url-credentials.js";

let emptyTrailer: Headers | undefined;

/**
 * The trailer of every response of this package's clients (fetch exposes
 * none, and the node:http client reads none): one empty Headers
 * that nobody can change, as the Fetch standard's immutable headers (those
 * of `Response.error()`), so sharing it lets no call touch another's, and no
 * response pays for a Headers object of its own.
 */
export function noTrailer(): Headers {
  emptyTrailer ??= Response.error().headers;
  return emptyTrailer;
}

/**
 * An HTTP client for connect transports on `fetch` (the one given, or the
 * global one as it is at each call), sending each request body as one buffer.
 * @category Transports
 */
export function createFetchHttpClient(fetchFn?: typeof fetch): UniversalClientFn {
  return async (req): Promise<UniversalClientResponse> => {
    const { url, header } = withoutUserInfo(req.url, req.header);
    // The bindings' body of one chunk is sent as it is: reading it would cost
    // an await and its turns. fetch takes no view of a SharedArrayBuffer.
    const only = req.body === undefined ? undefined : singleValue(req.body);
    const body =
      req.body === undefined || only?.buffer instanceof ArrayBuffer
        ? (only as Uint8Array<ArrayBuffer> | undefined)
        : await concatBytes(req.body);
    const init: RequestInit = {
      method: req.method,
      headers: header,
      body,
      signal: req.signal,
      redirect: "manual",
      credentials: "same-origin",
    };
    const res = await (fetchFn ? fetchFn(url, init) : globalThis.fetch(url, init));
    if (res.type === "opaqueredirect") {
      // Browsers hide where a manual redirect leads; following it blind
      // could send the credentials anywhere.
      throw new RedirectRefusedError(
        `${new URL(req.url).origin} answered with a redirect whose target the browser does not reveal; A2A calls follow no redirect they cannot check`,
      );
    }
    return { status: res.status, header: res.headers, body: readerIterable(res.body), trailer: noTrailer() };
  };
}

/**
 * Reads a body with `getReader()` (some browsers cannot iterate a
 * ReadableStream) and cancels it when the consumer stops early, so the
 * connection is released. Read whole (`concatBytes`), it is read in one
 * loop over the reader, without the iterator protocol's objects and turns.
 */
export function readerIterable(body: ReadableStream<Uint8Array> | null): AsyncIterable<Uint8Array> & Gathering {
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
    async [GATHER](maxBytes: number, tooLarge: () => Error) {
      const sink = new ByteSink(maxBytes);
      const reader = body?.getReader();
      for (let r = await reader?.read(); r !== undefined && !r.done; r = await reader!.read()) {
        if (!sink.add(r.value)) {
          // Read no further, and release the connection.
          await reader!.cancel().catch(() => {});
          throw tooLarge();
        }
      }
      return sink.bytes();
    },
  };
}
