/**
 * `a2a -v`: a log of every exchange on stderr, as curl -v shows it (`>`
 * sent, `<` received, `*` the A2A operation), with what the repository
 * masks on errors masked here too (http/sent-secrets.ts): the value of
 * every request header but the protocol's own, the URL's user info and
 * query values, and, wherever they show up again (an echoing server's
 * headers, an error message), those values in every encoding
 * (errors/redact.ts). Bodies are not logged; their size and timing are.
 *
 * Three hooks cover every request the CLI makes: `fetch` (cards and key
 * sets), the HTTP client (JSON-RPC and HTTP+JSON calls) and an interceptor
 * (every call's operation and outcome, and gRPC's headers, which go over
 * HTTP/2 without that client).
 */
import type { Interceptor } from "@connectrpc/connect";
import type { UniversalClientFn, UniversalClientResponse } from "@connectrpc/connect/protocol";
import { secretMasker } from "../errors/redact.js";
import { isProtocolHeader, sentSecrets } from "../http/sent-secrets.js";

const MASK = "***";

/** `text` without control characters: what a server sends must not drive the terminal (escape sequences). */
function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "?");
}

/** Response headers whose value is a credential the server hands out. */
const CREDENTIAL_RESPONSE_HEADERS: ReadonlySet<string> = new Set(["set-cookie", "set-cookie2", "authorization", "proxy-authorization"]);

/** The hooks that log one command's exchanges. */
export interface WireLog {
  /** A `fetch` that logs: for the card and key set requests. */
  fetch: typeof fetch;
  /** `inner`, logging each request, its response and the end of its body. */
  httpClient(inner: UniversalClientFn): UniversalClientFn;
  /** Logs each call's operation and outcome, and gRPC's request and response headers. */
  interceptor: Interceptor;
}

/** One request under way: what its lines are masked of, and when it started. */
interface Exchange {
  /** `text` without the request's credentials. */
  mask(text: string): string;
  /** Milliseconds since the request was sent. */
  elapsed(): string;
}

/** The wire log writing each line with `write` (Output.error, which masks the command line's secrets on top). */
export function createWireLog(write: (line: string) => void, now: () => number = () => performance.now()): WireLog {
  const begin = (method: string, url: string, header: Headers, note = ""): Exchange => {
    const mask = secretMasker(sentSecrets(header, url));
    const start = now();
    write(`> ${method} ${mask(url)}${note}`);
    header.forEach((value, name) => write(`> ${name}: ${isProtocolHeader(name) ? mask(value) : MASK}`));
    return { mask, elapsed: () => `${(now() - start).toFixed(1)} ms` };
  };
  const received = (x: Exchange, first: string, header: Headers): void => {
    write(`< ${first} (${x.elapsed()})`);
    header.forEach((value, name) => write(`< ${name}: ${CREDENTIAL_RESPONSE_HEADERS.has(name) ? MASK : printable(x.mask(value))}`));
  };
  const failed = (x: Exchange, e: unknown): void => {
    const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    write(`< failed after ${x.elapsed()}: ${printable(x.mask(message))}`);
  };

  const loggedFetch: typeof fetch = async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const header = new Headers(input instanceof Request ? input.headers : init?.headers);
    const x = begin(init?.method ?? (input instanceof Request ? input.method : "GET"), url, header);
    try {
      const res = await fetch(input, init);
      received(x, `${res.status} ${res.statusText}`.trimEnd(), res.headers);
      return res;
    } catch (e) {
      failed(x, e);
      throw e;
    }
  };

  const httpClient = (inner: UniversalClientFn): UniversalClientFn => {
    return async (req) => {
      const x = begin(req.method, req.url, req.header);
      let res: UniversalClientResponse;
      try {
        res = await inner(req);
      } catch (e) {
        failed(x, e);
        throw e;
      }
      received(x, String(res.status), res.header);
      const done = (what: string) => write(`< body ${x.mask(what)} after ${x.elapsed()}`);
      return { ...res, body: watched(res.body, (chunk) => chunk.byteLength, "bytes", done) };
    };
  };

  const interceptor: Interceptor = (next) => async (req) => {
    const operation = `${req.method.name}${req.stream ? " (stream)" : ""}`;
    write(`* ${operation}`);
    // gRPC goes over HTTP/2 without the HTTP client above: its headers are logged here.
    const grpc = /^application\/grpc/i.test(req.header.get("content-type") ?? "");
    const x = grpc ? begin("POST", req.url, req.header, " (gRPC)") : undefined;
    const start = now();
    try {
      const res = await next(req);
      if (!x) return res;
      received(x, "gRPC response headers", res.header);
      const trailers = () => res.trailer.forEach((value, name) => write(`< ${name}: ${printable(x.mask(value))}`));
      if (!res.stream) {
        trailers();
        return res;
      }
      // A stream's trailers (grpc-status) come after its last message.
      const done = (what: string) => {
        write(`< stream ${x.mask(what)} after ${x.elapsed()}`);
        trailers();
      };
      return { ...res, message: watched(res.message, () => 1, "messages", done) };
    } catch (e) {
      const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      const mask = x?.mask ?? secretMasker(sentSecrets(req.header, req.url));
      write(`* ${operation} failed after ${(now() - start).toFixed(1)} ms: ${printable(mask(message))}`);
      throw e;
    }
  };

  return { fetch: loggedFetch, httpClient, interceptor };
}

/** `items`, telling `done` how many `unit` went by once they ended, failed or were left unread. */
async function* watched<T>(
  items: AsyncIterable<T>,
  size: (item: T) => number,
  unit: string,
  done: (what: string) => void,
): AsyncIterable<T> {
  let total = 0;
  let outcome = "closed by the client";
  try {
    for await (const item of items) {
      total += size(item);
      yield item;
    }
    outcome = "ended";
  } catch (e) {
    outcome = `failed (${e instanceof Error ? e.message : String(e)})`;
    throw e;
  } finally {
    done(`${outcome}: ${total} ${unit}`);
  }
}
