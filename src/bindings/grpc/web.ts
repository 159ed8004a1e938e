/**
 * gRPC-web: the gRPC binding for browsers, which cannot speak HTTP/2 gRPC.
 * Calls go through a gRPC-web (or Connect) proxy in front of the agent's
 * gRPC server, such as Envoy's grpc_web filter, on our gRPC-web transport
 * over fetch (web-transport.ts, binary only). What the binding adds to
 * connect's transport is shared with HTTP/2 gRPC (common.ts).
 */
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { A2AError, ConnectionError, InvalidParamsError, ProtocolError, RedirectRefusedError } from "../../errors/family.js";
import { a2aGrpcTransport, namedFailure } from "./common.js";
import { createGrpcWebWire } from "./web-transport.js";
import { grpcBaseUrl, type GrpcTlsOptions } from "./url.js";
import { parseRetryAfter } from "../../errors/retry-after.js";
import { readableStatusFields } from "./status-fields.js";
import { checkGrpcBaseUrl, checkTlsOption, checkTransportOptions } from "../../call/option-checks.js";
import { isRedirectStatus, redirectTarget } from "../../http/redirect-target.js";
import { rejectWithoutSent } from "../../http/run-call.js";
import { withoutUserInfo } from "../../http/url-credentials.js";
import type { TransportOptions } from "../../call/options.js";
import type { A2ATransport } from "../../call/transport.js";
import { safeUrl } from "../../base/urls.js";

/** Options of `createGrpcWebTransport`. @category Transports */
export interface GrpcWebTransportOptions extends TransportOptions {
  /**
   * The gRPC-web endpoint: the proxy's URL, under which methods are served
   * as `/{service}/{method}`. A bare `host:port` is accepted as for gRPC.
   */
  baseUrl: string;
  /**
   * Use TLS for a bare `host:port` or a `grpc://` URL. Default: true, except
   * on a loopback address. A URL that names TLS always uses it. TLS options
   * (`{ ca }`) are refused: what fetch trusts is the fetch's to decide.
   */
  tls?: boolean | GrpcTlsOptions | undefined;
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
  checkTlsOption(options.tls, "tls");
  if (typeof options.tls === "object") {
    throw new InvalidParamsError(
      "tls: TLS options (ca, cert, key, servername) are for gRPC over HTTP/2; gRPC-web trusts what its fetch trusts",
    );
  }
  const baseUrl = grpcBaseUrl(options.baseUrl, options.tls);
  const inner = createGrpcWebWire({
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
 * (run-call.ts): this names what the call and its stream fail with as the
 * binding does (the abort's error once aborted), so that the interceptors
 * above see the A2AError the caller gets, and masks the credentials of the
 * request as sent on it, as the runner does on the other bindings.
 */
const withoutSentCredentials: Interceptor = (next) => async (req) => {
  // The request message, which may hand the agent credentials (a push
  // config's): a stream's is noted as connect reads it.
  let message: unknown = req.stream ? undefined : req.message;
  const sent = req.stream ? { ...req, message: noting(req.message, (m) => (message = m)) } : req;
  // No method: gRPC puts none of the request's fields in the query, so every query value is masked.
  // Named with code loaded when a call first fails: the binding races the
  // call with its deadline and signal (common.ts), which bounds the wait.
  const clean = async (e: unknown) => {
    const failed = req.signal.aborted ? req.signal.reason : e;
    const named = await namedFailure(failed, (m) => m.grpcCallError(req.method, failed, cutConnection, req.url));
    return rejectWithoutSent(named, req.header, req.url, undefined, message);
  };
  const res = await next(sent).catch(clean);
  if (!res.stream) return res;
  return { ...res, message: cleanFailures(res.message, clean) };
};

async function* noting<T>(messages: AsyncIterable<T>, note: (m: T) => void): AsyncGenerator<T> {
  for await (const m of messages) {
    note(m);
    yield m;
  }
}

async function* cleanFailures<T>(messages: AsyncIterable<T>, clean: (e: unknown) => Promise<never>): AsyncGenerator<T> {
  try {
    yield* messages;
  } catch (e) {
    return await clean(e);
  }
}

/** What a gRPC-web response's content type is (the transport does not look: it reads any body as frames). */
const GRPC_WEB_CONTENT_TYPE = /^application\/grpc-web(\+proto)?\s*(;|$)/i;

/**
 * The transport asks fetch for `redirect: "error"`, which fails as a bare
 * TypeError ("fetch failed"). Asked for "manual", a redirect is refused by
 * name, as on the other HTTP bindings; none is followed, since a gRPC-web
 * call goes to its proxy's URL only. A successful answer that is not
 * gRPC-web (a proxy's HTML page) is refused by its content type before
 * the transport reads its bytes as frames; the others are read within
 * `readMaxBytes`. Any other status but 2xx, without a gRPC status, is what
 * the proxy, or something in front of it, said (http-answer.ts), and fails
 * the call as that.
 */
function refusingRedirects(fetchFn: typeof fetch, readMaxBytes: number): typeof fetch {
  return async (input, init) => {
    // The transport passes the URL as a string; one with user info cannot be a Request.
    const given = input instanceof Request ? input.url : String(input);
    const { url, header } = given.includes("@")
      ? withoutUserInfo(given, new Headers(init?.headers))
      : { url: given, header: init?.headers };
    let res: Response;
    try {
      res = await fetchFn(url === given ? input : url, { ...init, headers: header, redirect: "manual" });
    } catch (e) {
      // fetch's network failures are TypeErrors, told apart here, where fetch
      // is called, from what an interceptor throws (cutConnection).
      throw e instanceof TypeError ? await namedFailure(e, (m) => m.connectionFailure(e, url) || e) : e;
    }
    const redirect = res.type === "opaqueredirect" || isRedirectStatus(res.status);
    // A status in the headers is the server's answer, whatever the HTTP status or content type (as over HTTP/2).
    const stated = res.headers.has("grpc-status");
    const ok = res.status === 0 || (res.status >= 200 && res.status < 300);
    if (!redirect && (ok || stated)) {
      const type = res.headers.get("Content-Type");
      if (res.status !== 0 && !stated && !GRPC_WEB_CONTENT_TYPE.test(type ?? "")) {
        await res.body?.cancel().catch(() => {});
        throw new ProtocolError(`expected a gRPC-web response from ${safeUrl(url)}, got content type "${type ?? "none"}"`, {
          binding: "GRPC",
          httpStatus: res.status,
        });
      }
      return withFrameLimit(res, readMaxBytes, url);
    }
    await res.body?.cancel().catch(() => {});
    if (!redirect) {
      const retryAfterMs = parseRetryAfter(res.headers.get("retry-after"));
      throw await namedFailure(undefined, (m) => m.httpAnswerError(res.status, res.headers, url, retryAfterMs));
    }
    const from = new URL(url);
    const location = res.headers.get("Location");
    const to = location === null ? "a location the browser does not reveal" : redirectTarget(location, from).origin;
    throw new RedirectRefusedError(`${from.origin} answered a gRPC-web call with a redirect to ${to}; gRPC-web calls follow no redirect`, {
      binding: "GRPC",
      httpStatus: res.status || undefined,
    });
  };
}

/**
 * The response with its body read frame by frame, each frame handed on
 * whole: a frame (a message or the trailers) whose length prefix is over
 * `maxBytes` fails the body there, and cancels it, before connect's
 * envelope reader buffers it (it takes frames of up to 4 GiB); and a frame
 * arriving in many chunks is gathered here, in one buffer grown by
 * doubling, because that reader keeps a list of the chunks and sums their
 * lengths on every chunk: a frame sent a byte per chunk cost it an object per byte and time
 * in the square of their number. A frame whole in its chunk is handed on
 * as a view into it. Trailers are made readable on the way (status-fields.ts).
 */
function withFrameLimit(res: Response, maxBytes: number, url: string): Response {
  // A trailers-only answer carries its status in the headers.
  const headers = new Headers(res.headers);
  const statusChanged = headers.has("grpc-status") && readableStatusFields(headers);
  if (res.body === null) return statusChanged ? new Response(null, { status: res.status, statusText: res.statusText, headers }) : res;
  // A prefix cut short by a chunk's end, and how much of it has arrived.
  const head = new Uint8Array(5);
  let headAt = 0;
  // The frame spanning chunks, prefix included: its length, and its bytes so far.
  let frameLength = 0;
  let partial: Uint8Array | undefined;
  let partialAt = 0;
  const lengthOf = (bytes: Uint8Array, at: number): number => {
    // Bytes 1 to 4 of a prefix: the length, big-endian.
    const length = new DataView(bytes.buffer, bytes.byteOffset + at + 1, 4).getUint32(0);
    if (length > maxBytes) {
      throw new ConnectError(
        `message size ${length} from ${safeUrl(url)} is larger than the configured readMaxBytes ${maxBytes}`,
        Code.ResourceExhausted,
      );
    }
    return length;
  };
  const append = (bytes: Uint8Array) => {
    const need = partialAt + bytes.length;
    if (partial === undefined || need > partial.length) {
      const grown = new Uint8Array(Math.min(frameLength, Math.max(need, (partial?.length ?? 0) * 2, 16 * 1024)));
      if (partial !== undefined) grown.set(partial.subarray(0, partialAt));
      partial = grown;
    }
    partial.set(bytes, partialAt);
    partialAt = need;
  };
  const watch = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      // Byte 0 of a prefix holds the flags; 0x80 marks the trailers.
      const handOn = (frame: Uint8Array) => controller.enqueue((frame[0]! & 0x80) !== 0 ? readableTrailers(frame) : frame);
      try {
        for (let pos = 0; pos < chunk.length; ) {
          if (partial !== undefined || headAt > 0 || chunk.length - pos < 5) {
            if (frameLength === 0) {
              // Still in a prefix.
              const n = Math.min(5 - headAt, chunk.length - pos);
              head.set(chunk.subarray(pos, pos + n), headAt);
              headAt += n;
              pos += n;
              if (headAt < 5) break;
              frameLength = 5 + lengthOf(head, 0);
              headAt = 0;
              partialAt = 0;
              partial = undefined;
              append(head);
            } else {
              const n = Math.min(frameLength - partialAt, chunk.length - pos);
              append(chunk.subarray(pos, pos + n));
              pos += n;
            }
            if (partialAt === frameLength) {
              handOn(partial!);
              partial = undefined;
              frameLength = 0;
            }
            continue;
          }
          const end = pos + 5 + lengthOf(chunk, pos);
          if (end <= chunk.length) {
            handOn(chunk.subarray(pos, end));
            pos = end;
            continue;
          }
          frameLength = end - pos;
          partialAt = 0;
          partial = undefined;
          append(chunk.subarray(pos));
          pos = chunk.length;
        }
      } catch (e) {
        controller.error(e);
      }
    },
    flush(controller) {
      // A body that ends inside a frame: what there is goes on, for the transport to find it incomplete.
      if (headAt > 0) controller.enqueue(head.slice(0, headAt));
      if (partial !== undefined) controller.enqueue(partial.subarray(0, partialAt));
    },
  });
  return new Response(networkFailuresNamed(res.body, url).pipeThrough(watch), { status: res.status, statusText: res.statusText, headers });
}

/**
 * `body`, its read failures (fetch's TypeErrors: the connection cut
 * mid-body) turned into ConnectionErrors here, where they are known to be
 * the network's: connect's runner passes them on as the cause of its
 * error, as it does what an interceptor throws.
 */
function networkFailuresNamed(body: ReadableStream<Uint8Array>, url: string): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const r = await reader.read();
        if (r.done) controller.close();
        else controller.enqueue(r.value);
      } catch (e) {
        controller.error(e instanceof TypeError ? await namedFailure(e, (m) => m.connectionFailure(e, url) || e) : e);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** A whole trailers frame (prefix included), with its status fields made readable (status-fields.ts). */
function readableTrailers(frame: Uint8Array): Uint8Array {
  // The trailers are HTTP/1 header lines; a line that is not one is left to the transport to refuse.
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
 * A connection that failed or broke, as the fetch wrapper and the body
 * reader named it (connect passes it on as the cause of an error without a
 * gRPC status), or a body that ended before the trailers that carry the
 * status: the call was cut short.
 */
function cutConnection(e: unknown): A2AError | undefined {
  if (!(e instanceof ConnectError) || e.metadata.has("grpc-status")) return undefined;
  // What the fetch wrapper refused (a redirect, a content type) is reported as it said.
  if (e.cause instanceof A2AError) return e.cause;
  // connect's envelope reader's code for a body that ends inside a frame is INVALID_ARGUMENT, which would read as the caller's error.
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
