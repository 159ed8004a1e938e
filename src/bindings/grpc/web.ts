/**
 * gRPC-web: the gRPC binding for browsers, which cannot speak HTTP/2 gRPC.
 * Calls go through a gRPC-web (or Connect) proxy in front of the agent's
 * gRPC server, such as Envoy's grpc_web filter, on connect-web's gRPC-web
 * transport over fetch. What the binding adds to connect's transport is
 * shared with HTTP/2 gRPC (common.ts).
 */
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { createGrpcWebTransport as createConnectGrpcWebTransport } from "@connectrpc/connect-web";
import { A2AError, ConnectionError, ProtocolError, RedirectRefusedError } from "../../errors/family.js";
import { a2aGrpcTransport, connectionFailure } from "./common.js";
import { grpcBaseUrl } from "./url.js";
import { readableStatusFields } from "./status-fields.js";
import { checkGrpcBaseUrl, checkTransportOptions } from "../../call/option-checks.js";
import { isRedirectStatus, redirectTarget } from "../../http/redirect-target.js";
import { rejectWithoutSent } from "../../http/run-call.js";
import type { TransportOptions } from "../../call/options.js";
import type { A2ATransport } from "../../call/transport.js";
import { safeUrl } from "../../util.js";

/** Options of `createGrpcWebTransport`. @category Transports */
export interface GrpcWebTransportOptions extends TransportOptions {
  /**
   * The gRPC-web endpoint: the proxy's URL, under which methods are served
   * as `/{service}/{method}`. A bare `host:port` is accepted as for gRPC.
   */
  baseUrl: string;
  /** Use TLS for a bare `host:port`. Default: true, except on a loopback address. */
  tls?: boolean | undefined;
  /** The fetch to use. Default: the global `fetch`. */
  fetch?: typeof fetch | undefined;
  /** Largest message (or trailers frame) accepted from the proxy, in bytes. Default 16 MiB. */
  readMaxBytes?: number | undefined;
}

/**
 * A transport for the gRPC binding over gRPC-web. Calls carry
 * `A2A-Version`, extensions and headers as on every binding; the proxy must
 * pass them on and, across origins, allow them in CORS. gRPC-web has unary
 * and server-streaming calls, which is all A2A uses.
 * @example
 * ```ts
 * import { A2AClient, connect, createGrpcWebTransport } from "a2a-connect";
 *
 * // A gRPC agent from a browser, through a gRPC-web proxy:
 * const client = new A2AClient(createGrpcWebTransport({ baseUrl: "https://agent.example.com/grpc-web" }));
 * // or let connect() use the card's GRPC interfaces over gRPC-web:
 * const session = await connect("https://agent.example.com", { grpcWeb: createGrpcWebTransport });
 * ```
 * @category Transports
 */
export function createGrpcWebTransport(options: GrpcWebTransportOptions): A2ATransport {
  checkTransportOptions(options, checkGrpcBaseUrl);
  const baseUrl = grpcBaseUrl(options.baseUrl, options.tls);
  const inner = createConnectGrpcWebTransport({
    baseUrl,
    // Innermost, so that it sees the request as sent.
    interceptors: [...(options.interceptors ?? []), withoutSentCredentials],
    // Looked up at call time, so a fetch replaced later is used.
    fetch: refusingRedirects(options.fetch ?? ((input, init) => globalThis.fetch(input, init)), options.readMaxBytes ?? 16 * 1024 * 1024),
  });
  // connect runs these calls, over a fetch that may ignore its signal: the binding races them.
  return a2aGrpcTransport(inner, options, cutConnection, { url: baseUrl, guarded: false });
}

/**
 * connect runs these calls and their interceptors, not our call runner
 * (run-call.ts): this masks the credentials of the request as sent on what
 * the call and its stream fail with, as the runner does on the other
 * bindings.
 */
const withoutSentCredentials: Interceptor = (next) => async (req) => {
  const res = await next(req).catch((e: unknown) => rejectWithoutSent(e, req.header, req.url));
  if (!res.stream) return res;
  return { ...res, message: cleanFailures(res.message, req.header, req.url) };
};

async function* cleanFailures<T>(messages: AsyncIterable<T>, header: Headers, url: string): AsyncGenerator<T> {
  try {
    yield* messages;
  } catch (e) {
    return await rejectWithoutSent(e, header, url);
  }
}

/** What a gRPC-web response's content type is (connect-web does not look: it reads any body as frames). */
const GRPC_WEB_CONTENT_TYPE = /^application\/grpc-web(\+proto)?\s*(;|$)/i;

/**
 * connect-web asks fetch for `redirect: "error"`, which fails as a bare
 * TypeError ("fetch failed"). Asked for "manual", a redirect is refused by
 * name, as on the other HTTP bindings; none is followed, since a gRPC-web
 * call goes to its proxy's URL only. A successful answer that is not
 * gRPC-web (a proxy's HTML page) is refused by its content type before
 * connect-web reads its bytes as frames; the others are read within
 * `readMaxBytes`.
 */
function refusingRedirects(fetchFn: typeof fetch, readMaxBytes: number): typeof fetch {
  return async (input, init) => {
    const res = await fetchFn(input, { ...init, redirect: "manual" });
    const type = res.headers.get("Content-Type");
    // A status in the headers is the server's answer, whatever the content type (as over HTTP/2).
    if (res.status >= 200 && res.status < 300 && !res.headers.has("grpc-status") && !GRPC_WEB_CONTENT_TYPE.test(type ?? "")) {
      await res.body?.cancel().catch(() => {});
      const url = input instanceof Request ? input.url : String(input);
      throw new ProtocolError(`expected a gRPC-web response from ${safeUrl(url)}, got content type "${type ?? "none"}"`, {
        binding: "GRPC",
        httpStatus: res.status,
      });
    }
    if (res.type !== "opaqueredirect" && !isRedirectStatus(res.status)) return withFrameLimit(res, readMaxBytes);
    await res.body?.cancel().catch(() => {});
    const from = new URL(input instanceof Request ? input.url : String(input));
    const location = res.headers.get("Location");
    const to = location === null ? "a location the browser does not reveal" : redirectTarget(location, from).origin;
    throw new RedirectRefusedError(`${from.origin} answered a gRPC-web call with a redirect to ${to}; gRPC-web calls follow no redirect`, {
      binding: "GRPC",
      httpStatus: res.status || undefined,
    });
  };
}

/**
 * The response with its body watched frame by frame: a frame (a message or
 * the trailers) whose length prefix is over `maxBytes` fails the body
 * there, and cancels it, before connect-web buffers it: connect-web takes
 * frames of up to 4 GiB, so a proxy announcing one and sending without
 * end would grow the client's memory without bound. The chunks pass
 * through as they are.
 */
function withFrameLimit(res: Response, maxBytes: number): Response {
  // A trailers-only answer carries its status in the headers.
  const headers = new Headers(res.headers);
  const statusChanged = headers.has("grpc-status") && readableStatusFields(headers);
  if (res.body === null) return statusChanged ? new Response(null, { status: res.status, statusText: res.statusText, headers }) : res;
  // Where the reading is: in a 5-byte prefix (`prefixAt` of its bytes read, the length so far), or in a frame's payload.
  let prefixAt = 0;
  let length = 0;
  let payloadLeft = 0;
  // The trailers frame being read, held to be made readable (its bytes, prefix included).
  let trailers: Uint8Array[] | undefined;
  const watch = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      // The bytes of this chunk from `from` on are neither passed on nor held yet.
      let from = 0;
      const pass = (to: number) => {
        if (to > from) controller.enqueue(chunk.subarray(from, to));
        from = to;
      };
      const hold = (to: number) => {
        if (to > from) trailers!.push(chunk.subarray(from, to));
        from = to;
      };
      const trailersRead = (at: number) => {
        hold(at);
        controller.enqueue(readableTrailers(trailers!));
        trailers = undefined;
      };
      for (let i = 0; i < chunk.length; ) {
        if (payloadLeft > 0) {
          const n = Math.min(payloadLeft, chunk.length - i);
          payloadLeft -= n;
          i += n;
          if (payloadLeft === 0 && trailers) trailersRead(i);
          continue;
        }
        // Byte 0 of a prefix holds the flags (0x80: trailers); bytes 1 to 4 the length, big-endian.
        if (prefixAt === 0 && (chunk[i]! & 0x80) !== 0) {
          pass(i);
          trailers = [];
        }
        if (prefixAt > 0) length = length * 256 + chunk[i]!;
        i++;
        if (++prefixAt < 5) continue;
        if (length > maxBytes) {
          controller.error(
            new ConnectError(`message size ${length} is larger than the configured readMaxBytes ${maxBytes}`, Code.ResourceExhausted),
          );
          return;
        }
        payloadLeft = length;
        prefixAt = length = 0;
        if (payloadLeft === 0 && trailers) trailersRead(i);
      }
      if (trailers) hold(chunk.length);
      else pass(chunk.length);
    },
  });
  return new Response(res.body.pipeThrough(watch), { status: res.status, statusText: res.statusText, headers });
}

/** A whole trailers frame (prefix included), with its status fields made readable (status-fields.ts). */
function readableTrailers(parts: readonly Uint8Array[]): Uint8Array {
  const frame = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    frame.set(p, at);
    at += p.length;
  }
  // The trailers are HTTP/1 header lines; a line that is not one is left to connect-web to refuse.
  const fields = new Headers();
  try {
    for (const line of utf8.decode(frame.subarray(5)).split("\r\n")) {
      const colon = line.indexOf(":");
      if (colon > 0) fields.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
  } catch {
    return frame;
  }
  if (!readableStatusFields(fields)) return frame;
  let text = "";
  fields.forEach((value, key) => {
    text += `${key}: ${value}\r\n`;
  });
  const payload = utf8Encoder.encode(text);
  const out = new Uint8Array(5 + payload.length);
  out[0] = frame[0]!;
  new DataView(out.buffer).setUint32(1, payload.length);
  out.set(payload, 5);
  return out;
}

const utf8 = new TextDecoder();
const utf8Encoder = new TextEncoder();

/**
 * fetch reports a connection that failed or broke as a TypeError, which
 * connect passes on as the cause of an error without a gRPC status; a body
 * that ends before the trailers that carry the status was cut short too.
 */
function cutConnection(e: unknown, url: string): A2AError | undefined {
  if (!(e instanceof ConnectError) || e.metadata.has("grpc-status")) return undefined;
  // What the fetch wrapper refused (a redirect, a content type) is reported as it said.
  if (e.cause instanceof A2AError) return e.cause;
  if (e.cause instanceof TypeError) return connectionFailure(e.cause, url);
  // connect-web's code for a body that ends inside a frame is INVALID_ARGUMENT, which would read as the caller's error.
  if (e.rawMessage === "protocol error: incomplete envelope") {
    return new ProtocolError("malformed gRPC response: the gRPC-web response ended inside a message frame", {
      binding: "GRPC",
      grpcCode: e.code,
      cause: e,
    });
  }
  if (e.rawMessage === "missing trailer") {
    return new ConnectionError("the gRPC-web response ended before its status", {
      binding: "GRPC",
      kind: "reset",
      grpcCode: e.code,
      cause: e,
    });
  }
  return undefined;
}
