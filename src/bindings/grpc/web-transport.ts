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
 * what this reader refuses does not, and says what it refused.
 */
import { fromBinary, toBinary, type DescMessage, type DescMethod, type MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createContextValues, type Interceptor, type Transport } from "@connectrpc/connect";
import {
  compressedFlag,
  createEnvelopeReadableStream,
  createMethodUrl,
  encodeEnvelope,
  runStreamingCall,
  runUnaryCall,
} from "@connectrpc/connect/protocol";
import { requestHeader, trailerFlag, trailerParse } from "@connectrpc/connect/protocol-grpc-web";
import { answerStatus, checkTrailer } from "./web-status.js";

/** What the wire needs: where calls go, the fetch that sends them, and the interceptors around each. */
export interface GrpcWebWireOptions {
  baseUrl: string;
  fetch: typeof fetch;
  interceptors: Interceptor[];
}

/** What a call's `next` sends: the request as the interceptors left it. */
interface Sent {
  url: string;
  requestMethod: string;
  header: Headers;
  signal: AbortSignal;
}

/** The answer's headers, and whether they hold its status (a trailers-only answer: no frames follow). */
interface Answer {
  response: Response;
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
    // Throws on a status other than 2xx; an error status in the headers ends the call here.
    const { error, trailersOnly } = answerStatus(response.status, response.headers);
    if (error !== undefined) throw error;
    if (!trailersOnly && response.body === null) throw new ConnectError("missing response body", Code.Unknown);
    return { response, trailersOnly };
  };
  const request = (method: DescMethod, timeoutMs: number | undefined, header: HeadersInit | undefined) => ({
    service: method.parent,
    requestMethod: "POST",
    url: createMethodUrl(options.baseUrl, method),
    header: requestHeader(true, timeoutMs, header, false),
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
          const { response, trailersOnly } = await send(req, frameOf(method.input, req.message));
          // A trailers-only answer's headers are its trailers.
          const trailer = trailersOnly ? response.headers : new Headers();
          let message: MessageShape<typeof method.output> | undefined;
          // A unary answer of other than one message is malformed, as over HTTP/2 (reply.ts), whatever its status says.
          for await (const bytes of framesOf(response, trailersOnly, trailer, req.signal)) {
            if (message !== undefined) throw new ConnectError("protocol error: more than one message for a unary method", Code.Internal);
            message = decoded(method.output, bytes);
          }
          if (message === undefined) throw new ConnectError("protocol error: no message for a unary method", Code.Internal);
          return { stream: false, service: method.parent, method, header: response.headers, message, trailer };
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
          const { response, trailersOnly } = await send(req, frameOf(method.input, first.value));
          // Filled when the trailers frame arrives.
          const trailer = new Headers();
          const messages = async function* () {
            for await (const bytes of framesOf(response, trailersOnly, trailer, req.signal)) yield decoded(method.output, bytes);
          };
          return { stream: true, service: method.parent, method, header: response.headers, trailer, message: messages() };
        },
      });
    },
  };
}

/** connect's convention: no timeout, or one of 0 or less, sends no deadline. */
function callTimeout(timeoutMs: number | undefined): number | undefined {
  return timeoutMs === undefined || timeoutMs <= 0 ? undefined : timeoutMs;
}

/** The request's one message frame. */
function frameOf<I extends DescMessage>(schema: I, message: MessageShape<I>): Uint8Array<ArrayBuffer> {
  let bytes: Uint8Array;
  try {
    bytes = toBinary(schema, message);
  } catch (e) {
    throw new ConnectError(`serialize binary: ${e instanceof Error ? e.message : String(e)}`, Code.Internal);
  }
  // A new array of its own (typed as any Uint8Array), which fetch takes as a body.
  return encodeEnvelope(0, bytes) as Uint8Array<ArrayBuffer>;
}

/** A message's bytes decoded; bytes that do not decode are the server's protocol error. */
function decoded<O extends DescMessage>(schema: O, bytes: Uint8Array): MessageShape<O> {
  try {
    return fromBinary(schema, bytes);
  } catch (e) {
    throw new ConnectError(`parse binary: ${e instanceof Error ? e.message : String(e)}`, Code.Internal);
  }
}

/**
 * The message frames of an answer, as they arrive; its trailers frame,
 * once read, fills `trailer` and is checked for the server's status (an
 * error status throws). A trailers-only answer may carry no frame at all.
 * A compressed frame is refused (none was asked for), as are a second
 * trailers frame, a message after the trailers, and a body that ends
 * before them: its status never came.
 */
async function* framesOf(response: Response, trailersOnly: boolean, trailer: Headers, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  const reader = response.body === null ? undefined : createEnvelopeReadableStream(response.body).getReader();
  let trailed = false;
  for (;;) {
    const next = await reader?.read();
    if (next === undefined || next.done) break;
    if (trailersOnly) throw new ConnectError("extra data for trailers-only", Code.Unknown);
    const { flags, data } = next.value;
    if ((flags & compressedFlag) === compressedFlag) {
      throw new ConnectError("protocol error: received unsupported compressed output", Code.Internal);
    }
    if ((flags & trailerFlag) === trailerFlag) {
      if (trailed) throw new ConnectError("extra trailer", Code.Unknown);
      trailed = true;
      const fields = trailerParse(data);
      checkTrailer(fields, response.headers);
      fields.forEach((value, key) => trailer.set(key, value));
      continue;
    }
    if (trailed) throw new ConnectError("extra message", Code.Unknown);
    yield data;
  }
  // A body read after its call was aborted can end quietly (undici, when the abort came before the read began);
  // connect's runner reports an aborted call by its signal's reason, whatever is thrown here.
  if (signal.aborted) throw new ConnectError("the call was aborted", Code.Canceled);
  if (!trailed && !trailersOnly) throw new ConnectError("missing trailer", Code.Unknown);
}
