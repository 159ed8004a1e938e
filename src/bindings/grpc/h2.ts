/**
 * A connect `Transport` speaking gRPC over `node:http2` (Node only), for the
 * gRPC binding (transport.ts). It exists for its cost: connect-node's
 * gRPC transport spent about twice the client CPU of grpc-js per unary call
 * (async-iterable pipes, two AbortControllers and a DOMException per call,
 * Headers conversions). Here a unary call is one HTTP/2 stream read with
 * event listeners, a stream one read with back-pressure; calls run through
 * our own runner (run-call.ts), which keeps connect's interceptor and abort
 * semantics.
 *
 * Only what A2A needs: unary and server-streaming calls with binary
 * protobuf, no compression. Errors follow wire.ts: a status from the
 * server carries `grpc-status` in its metadata; a stream or connection lost
 * before the status is `Unavailable`. The binding names them (`classify`)
 * where they are met, before the interceptors, which see what the caller
 * gets; an aborted call fails with its abort's error.
 */
import { create, type DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor, type Transport } from "@connectrpc/connect";
import type { ClientHttp2Stream, OutgoingHttpHeaders } from "node:http2";
import type { SecureContext, SecureContextOptions } from "node:tls";
import { InvalidParamsError } from "../../errors/family.js";
import { runStreaming, runUnary } from "../../http/run-call.js";
import { callRequest } from "../../http/call-request.js";
import { SessionKeeper, nodeHttp2 } from "./h2-session.js";
import type { GrpcTlsOptions } from "./url.js";
import { mapRequests, onlyValue } from "../../base/iterables.js";
import { parsedUrl } from "../../base/urls.js";
import { decodeMessage } from "./frames.js";
import { requestFrame } from "./request-frame.js";
import { metadataOf } from "./wire.js";
import { StreamReply, readUnary } from "./reply.js";

export interface H2GrpcTransportOptions {
  /** `http(s)://host:port`, maybe with a path prefix. */
  baseUrl: string;
  /** For an `https:` base URL: whom to trust and the client's certificate; Node's defaults without. */
  tls?: GrpcTlsOptions | undefined;
  interceptors?: Interceptor[] | undefined;
  /** Largest message accepted from the server, in bytes. */
  readMaxBytes: number;
  /** PING interval while streams are open (Infinity: none), and how long an answer may take. */
  pingIntervalMs: number;
  pingTimeoutMs: number;
  /** What a call of `method` that failed with `e` (a ConnectError of wire.ts) reports; without it, `e`. */
  classify?: ((e: unknown, method: DescMethod) => unknown) | undefined;
}

/** Headers HTTP/2 forbids (RFC 9113 8.2.2); Node throws on them, so they are never forwarded. */
const CONNECTION_HEADERS = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host", "te"]);

export function createH2GrpcTransport(options: H2GrpcTransportOptions): Transport {
  const url = parsedUrl(options.baseUrl);
  // Named without its text, which may hold credentials (user info, a key in the query).
  if (url === undefined) throw new TypeError("the gRPC transport's baseUrl is not a URL (host:port, or http(s)://host:port)");
  const origin = url.origin;
  const base = origin + url.pathname.replace(/\/+$/, "");
  const sessions = new SessionKeeper(origin, { ...options, ...tlsSettings(url.protocol === "https:" ? options.tls : undefined) });
  const { interceptors, readMaxBytes, classify } = options;
  const originSlash = origin + "/";
  const urlOf = (method: DescMethod) => `${base}/${method.parent.typeName}/${method.name}`;
  /**
   * What a call of `method` on `signal` fails with when it failed with `e`:
   * once aborted, the abort's error (the runner's, whatever the HTTP/2
   * stream made of the abort), else `e` as the binding names it.
   */
  const failed = (signal: AbortSignal, method: DescMethod, e: unknown): unknown =>
    signal.aborted ? signal.reason : classify ? classify(e, method) : e;

  /** Opens the call's stream and sends its one request message. */
  async function send(reqUrl: string, header: Headers, body: Uint8Array, signal: AbortSignal): Promise<ClientHttp2Stream> {
    if (!reqUrl.startsWith(originSlash)) {
      throw new ConnectError(`cannot call ${reqUrl}: the transport is for ${origin}`, Code.InvalidArgument);
    }
    const wire: OutgoingHttpHeaders = { ":method": "POST", ":path": reqUrl.slice(origin.length) };
    header.forEach((value, key) => {
      if (!CONNECTION_HEADERS.has(key)) wire[key] = value;
    });
    wire.te = "trailers";
    const stream = await sessions.request(wire, signal);
    const cancel = () => {
      if (!stream.closed) stream.close(nodeHttp2().constants.NGHTTP2_CANCEL);
    };
    if (signal.aborted) cancel();
    else signal.addEventListener("abort", cancel);
    stream.end(body);
    return stream;
  }

  // The gRPC binding above (common.ts) gives each call what is left of its
  // deadline, undefined for none (call/deadline.ts); here it is taken as given.
  return {
    unary(method, signal, timeoutMs, header, input, contextValues) {
      return runUnary({
        binding: "GRPC",
        interceptors,
        signal,
        timeoutMs,
        req: callRequest(
          false,
          method,
          "POST",
          urlOf(method),
          requestHeader(header, timeoutMs),
          contextValues,
          create(method.input, input),
        ),
        next: async (req) => {
          try {
            const body = requestFrame(method.input, req.message);
            const reply = await unlessRefused(
              () => send(req.url, req.header, body, req.signal),
              (stream) => readUnary(stream, readMaxBytes, req.url),
            );
            return {
              stream: false,
              service: method.parent,
              method,
              header: metadataOf(reply.header),
              trailer: metadataOf(reply.trailer ?? {}),
              message: decodeMessage(method.output, reply.message),
            };
          } catch (e) {
            throw failed(req.signal, method, e);
          }
        },
      });
    },

    stream(method, signal, timeoutMs, header, input, contextValues) {
      return runStreaming({
        binding: "GRPC",
        interceptors,
        signal,
        timeoutMs,
        req: callRequest(
          true,
          method,
          "POST",
          urlOf(method),
          requestHeader(header, timeoutMs),
          contextValues,
          mapRequests(input, (m) => create(method.input, m)),
        ),
        next: async (req) => {
          const fail = (e: unknown) => failed(req.signal, method, e);
          try {
            // A2A's streaming methods are server-streaming: one request message.
            const only = await onlyValue(req.message);
            const body = requestFrame(method.input, create(method.input, only));
            const { reply, headers } = await unlessRefused(
              () => send(req.url, req.header, body, req.signal),
              async (stream) => {
                const reply = new StreamReply(stream, readMaxBytes, req.url);
                return { reply, headers: await reply.response() };
              },
            );
            return {
              stream: true,
              service: method.parent,
              method,
              header: metadataOf(headers),
              trailer: reply.trailer,
              message: reply.messages(method.output, fail),
            };
          } catch (e) {
            throw fail(e);
          }
        },
      });
    },
  } satisfies Transport;
}

/** How many times one call is sent again after the server refused it unprocessed. */
const REFUSED_RETRIES = 3;

/**
 * Sends a call (`open`) and reads its answer (`read`); a call the server
 * refused before any processing (RST_STREAM REFUSED_STREAM, RFC 9113 8.7:
 * a stream over its concurrent streams limit, or one past the last stream
 * a GOAWAY lets finish) is sent again, as gRPC does, whatever its method:
 * on the connection in use, or on a new one when that one is going away.
 * Only the response's start is awaited, so no message is read twice.
 */
async function unlessRefused<T>(open: () => Promise<ClientHttp2Stream>, read: (stream: ClientHttp2Stream) => Promise<T>): Promise<T> {
  for (let retries = 0; ; retries++) {
    const stream = await open();
    try {
      return await read(stream);
    } catch (e) {
      if (retries === REFUSED_RETRIES || stream.rstCode !== nodeHttp2().constants.NGHTTP2_REFUSED_STREAM) throw e;
    }
  }
}

/**
 * The session settings of TLS options: one secure context for every
 * connection, made here so that a certificate or key that cannot be read
 * fails the transport's creation, naming the option, not each call as a
 * connection failure. The message is OpenSSL's reason, never the PEM.
 */
function tlsSettings(tls: GrpcTlsOptions | undefined): { secureContext?: SecureContext; servername?: string } {
  if (tls === undefined) return {};
  // Node takes the bytes of any ArrayBufferView where its types say Buffer.
  const { ca, cert, key, servername } = tls as Pick<SecureContextOptions, "ca" | "cert" | "key"> & { servername?: string };
  try {
    return { secureContext: process.getBuiltinModule("node:tls").createSecureContext({ ca, cert, key }), servername };
  } catch (e) {
    const reason = (e as { reason?: unknown }).reason;
    throw new InvalidParamsError(`tls: the certificates or key cannot be used${typeof reason === "string" ? ` (${reason})` : ""}`);
  }
}

/** The request's headers as interceptors see them: the caller's, and gRPC's own. */
function requestHeader(header: HeadersInit | undefined, deadlineMs: number | undefined): Headers {
  const h = new Headers(header);
  h.set("content-type", "application/grpc+proto");
  if (deadlineMs !== undefined) h.set("grpc-timeout", grpcTimeout(deadlineMs));
  return h;
}

/** A deadline as `grpc-timeout` writes it: at most 8 digits, in the finest unit that fits them. */
function grpcTimeout(ms: number): string {
  for (const [unit, perMs] of GRPC_TIMEOUT_UNITS) {
    const n = Math.ceil(ms / perMs);
    if (n < 1e8) return `${n}${unit}`;
  }
  return "99999999H";
}

const GRPC_TIMEOUT_UNITS: ReadonlyArray<[string, number]> = [
  ["m", 1],
  ["S", 1000],
  ["M", 60_000],
  ["H", 3_600_000],
];
