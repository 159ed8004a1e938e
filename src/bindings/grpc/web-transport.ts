/**
 * gRPC-web's wire (PROTOCOL-WEB.md) over fetch, as connect's `Transport`:
 * a request is one message frame, an answer is message frames then a
 * trailers frame, or its status alone in the headers (trailers-only).
 * connect's call runners run the interceptors, the deadline and the abort;
 * messages are protobuf-es's binary encoding, the only one gRPC-web is
 * spoken in here. (connect-web's transport builds a ProtoJSON serializer
 * for every call whatever the format, which kept protobuf-es's JSON code,
 * and descriptor.proto's schemas with it, in every app using gRPC-web.)
 *
 * Errors are ConnectErrors, for web.ts to name as the binding does: the
 * server's status (web-status.ts) carries `grpc-status` in its metadata;
 * what this reader refuses does not, and says what it refused. A request
 * that cannot be written is the caller's InvalidParamsError already
 * (request-frame.ts), as on every binding.
 *
 * Of connect, only what it keeps to semantic versioning is used (the call
 * runners, createMethodUrl): the frames (frames.ts, shared with HTTP/2
 * gRPC), the request's headers and the trailers are read and written here,
 * as connect's gRPC-web parts are internal and may change in any 2.x.
 */
import type { DescMethod, MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createContextValues, type Interceptor, type Transport } from "@connectrpc/connect";
import { createMethodUrl, runStreamingCall, runUnaryCall } from "@connectrpc/connect/protocol";
import { FrameReader, decodeMessage } from "./frames.js";
import { requestFrame } from "./request-frame.js";
import { readableStatusFields } from "./status-fields.js";
import { answerStatus, checkTrailer } from "./web-status.js";

/** What the wire needs: where calls go, the fetch that sends them, the interceptors around each, the largest frame read. */
export interface GrpcWebWireOptions {
  baseUrl: string;
  fetch: typeof fetch;
  interceptors: Interceptor[];
  readMaxBytes: number;
}

/** What a call's `next` sends: the request as the interceptors left it. */
interface Sent {
  url: string;
  requestMethod: string;
  header: Headers;
  signal: AbortSignal;
}

/** The answer, its headers (its status fields made readable), and whether they hold its status (a trailers-only answer: no frames follow). */
interface Answer {
  response: Response;
  header: Headers;
  trailersOnly: boolean;
}

/** A gRPC-web transport over `options.fetch`, binary only. */
export function createGrpcWebWire(options: GrpcWebWireOptions): Transport {
  const send = async (req: Sent, body: Uint8Array<ArrayBuffer>): Promise<Answer> => {
    // No redirect is followed: the call goes to its proxy's URL. Mode and credentials are fetch's defaults.
    const response = await options.fetch(req.url, {
      method: req.requestMethod,
      headers: req.header,
      signal: req.signal,
      body,
      redirect: "error",
    });
    // A status in the headers (trailers-only) is read as HTTP/2 gRPC reads it (status-fields.ts),
    // in a copy: a fetched response's headers cannot be changed.
    const header = new Headers(response.headers);
    if (header.has("grpc-status")) readableStatusFields(header);
    // Throws on a status other than 2xx; an error status in the headers ends the call here.
    const { error, trailersOnly } = answerStatus(response.status, header);
    if (error !== undefined) throw error;
    if (!trailersOnly && response.body === null) throw new ConnectError("missing response body", Code.Unknown);
    return { response, header, trailersOnly };
  };
  const request = (method: DescMethod, timeoutMs: number | undefined, header: HeadersInit | undefined) => ({
    service: method.parent,
    requestMethod: "POST",
    url: createMethodUrl(options.baseUrl, method),
    header: requestHeader(timeoutMs, header),
  });
  return {
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      const timeout = callTimeout(timeoutMs);
      return await runUnaryCall({
        interceptors: options.interceptors,
        signal,
        timeoutMs: timeout,
        req: {
          ...request(method, timeout, header),
          stream: false,
          method,
          contextValues: contextValues ?? createContextValues(),
          message: input,
        },
        next: async (req) => {
          const answer = await send(req, requestFrame(method.input, req.message));
          // A trailers-only answer's headers are its trailers.
          const trailer = answer.trailersOnly ? answer.header : new Headers();
          let message: MessageShape<typeof method.output> | undefined;
          // A unary answer of other than one message is malformed, as over HTTP/2 (reply.ts), whatever its status says.
          for await (const bytes of framesOf(answer, trailer, req, options.readMaxBytes)) {
            if (message !== undefined) throw new ConnectError("protocol error: more than one message for a unary method", Code.Internal);
            message = decodeMessage(method.output, bytes);
          }
          if (message === undefined) throw new ConnectError("protocol error: no message for a unary method", Code.Internal);
          return { stream: false, service: method.parent, method, header: answer.header, message, trailer };
        },
      });
    },
    async stream(method, signal, timeoutMs, header, input, contextValues) {
      const timeout = callTimeout(timeoutMs);
      return await runStreamingCall({
        interceptors: options.interceptors,
        signal,
        timeoutMs: timeout,
        req: {
          ...request(method, timeout, header),
          stream: true,
          method,
          contextValues: contextValues ?? createContextValues(),
          message: input,
        },
        next: async (req) => {
          // fetch sends a body whole: of the streaming kinds, gRPC-web carries server streams only.
          if (method.methodKind !== "server_streaming") {
            throw new ConnectError(`gRPC-web over fetch cannot send a ${method.methodKind} request`, Code.Unimplemented);
          }
          const first = await req.message[Symbol.asyncIterator]().next();
          if (first.done === true) throw new ConnectError("missing request message", Code.Unknown);
          const answer = await send(req, requestFrame(method.input, first.value));
          // Filled when the trailers frame arrives.
          const trailer = new Headers();
          const messages = async function* () {
            for await (const bytes of framesOf(answer, trailer, req, options.readMaxBytes)) yield decodeMessage(method.output, bytes);
          };
          return { stream: true, service: method.parent, method, header: answer.header, trailer, message: messages() };
        },
      });
    },
  };
}

/** connect's convention: no timeout, or one of 0 or less, sends no deadline. */
function callTimeout(timeoutMs: number | undefined): number | undefined {
  return timeoutMs === undefined || timeoutMs <= 0 ? undefined : timeoutMs;
}

/**
 * The message frames of an answer, as they arrive; its trailers frame,
 * once read, fills `trailer` and is checked for the server's status (an
 * error status throws). A trailers-only answer may carry no frame at all.
 * A frame over `readMaxBytes` is refused from its prefix; a compressed
 * frame is refused (none was asked for), as are a second trailers frame, a
 * message after the trailers, and a body that ends before them: its status
 * never came. Frames read before a refused one in the same chunk are
 * handed on first, in order.
 */
async function* framesOf(
  { response, header, trailersOnly }: Answer,
  trailer: Headers,
  { signal, url }: Sent,
  readMaxBytes: number,
): AsyncGenerator<Uint8Array> {
  const reader = response.body?.getReader();
  // The call's URL, which an error over readMaxBytes names (origin and path).
  const frames = new FrameReader(readMaxBytes, url);
  let trailed = false;
  for (;;) {
    const next = await reader?.read();
    if (next === undefined || next.done) break;
    const out: Uint8Array[] = [];
    const flags: number[] = [];
    let refused: unknown;
    try {
      frames.push(next.value, out, flags);
    } catch (e) {
      refused = e;
    }
    for (let i = 0; i < out.length; i++) {
      if (trailersOnly) throw new ConnectError("extra data for trailers-only", Code.Unknown);
      const data = out[i]!;
      if ((flags[i]! & COMPRESSED) === COMPRESSED) {
        throw new ConnectError("protocol error: received unsupported compressed output", Code.Internal);
      }
      if ((flags[i]! & TRAILERS) === TRAILERS) {
        if (trailed) throw new ConnectError("extra trailer", Code.Unknown);
        trailed = true;
        const fields = parseTrailers(data);
        // Read as HTTP/2 gRPC reads a status (status-fields.ts).
        readableStatusFields(fields);
        checkTrailer(fields, header);
        fields.forEach((value, key) => trailer.set(key, value));
        continue;
      }
      if (trailed) throw new ConnectError("extra message", Code.Unknown);
      yield data;
    }
    if (refused !== undefined) {
      await reader?.cancel().catch(() => {});
      throw refused;
    }
  }
  const cut = frames.end();
  if (cut !== undefined) throw cut;
  // A body read after its call was aborted can end quietly (undici, when the abort came before the read began);
  // connect's runner reports an aborted call by its signal's reason, whatever is thrown here.
  if (signal.aborted) throw new ConnectError("the call was aborted", Code.Canceled);
  if (!trailed && !trailersOnly) throw new ConnectError("missing trailer", Code.Unknown);
}

/** The flags of a gRPC-web frame (PROTOCOL-WEB.md): bit 0 a compressed one, bit 7 the trailers. */
const COMPRESSED = 0x01;
const TRAILERS = 0x80;

/**
 * A gRPC-web request's headers, as connect's gRPC-web client wrote them
 * (and so as proxies have been given them): the caller's, the binary
 * content type, `x-grpc-web: 1`, an `x-user-agent` (the caller's user
 * agent, else this package's name: a browser does not let a page set
 * `user-agent`, and the proxy's logs should name the client that called
 * rather than the library beneath it), and the deadline in milliseconds as
 * `grpc-timeout`.
 */
function requestHeader(timeoutMs: number | undefined, header: HeadersInit | undefined): Headers {
  const h = new Headers(header);
  h.set("content-type", "application/grpc-web+proto");
  h.set("x-grpc-web", "1");
  h.set("x-user-agent", h.get("user-agent") ?? h.get("x-user-agent") ?? "a2a-connect");
  if (timeoutMs !== undefined) h.set("grpc-timeout", `${timeoutMs}m`);
  return h;
}

/** A trailers frame's fields: HTTP/1-style `name: value` lines, CRLF between them; a line without a name is skipped. */
function parseTrailers(data: Uint8Array): Headers {
  const fields = new Headers();
  for (const line of new TextDecoder().decode(data).split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) fields.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return fields;
}
