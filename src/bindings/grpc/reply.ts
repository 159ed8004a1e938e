/**
 * Reading a gRPC response off an HTTP/2 stream: a unary call's one message,
 * or a server stream's messages as they arrive, then the status. What the
 * response shows is told apart as wire.ts says: the server's status,
 * a response that is not gRPC, or a stream lost before its status.
 */
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ClientHttp2Stream, IncomingHttpHeaders } from "node:http2";
import { nodeHttp2 } from "./h2-session.js";
import { FrameReader, decodeMessage } from "./frames.js";
import { connectionLost, metadataOf, responseError, statusError } from "./wire.js";

/**
 * The outcome of a response that has ended: its error status, or the error
 * of an ending without a status. Node also ends a stream destroyed with its
 * connection; only a stream the server closed cleanly has NO_ERROR.
 */
function endError(
  stream: ClientHttp2Stream,
  header: IncomingHttpHeaders | undefined,
  trailers: IncomingHttpHeaders | undefined,
  frames: FrameReader,
  cause: unknown,
): ConnectError | undefined {
  if (trailers) return frames.end() ?? statusError(trailers, header);
  if (header?.["grpc-status"] !== undefined) return frames.end() ?? statusError(header);
  if (header && stream.rstCode === nodeHttp2().constants.NGHTTP2_NO_ERROR)
    return new ConnectError("protocol error: missing grpc-status", Code.Internal);
  return connectionLost(cause);
}

interface UnaryReply {
  header: IncomingHttpHeaders;
  trailer: IncomingHttpHeaders | undefined;
  message: Uint8Array;
}

/**
 * Reads a unary call's response: one message and an OK status. Listeners
 * rather than async iteration: the whole response is wanted at once, and a
 * frame over readMaxBytes is refused before it is buffered. `url`, the
 * call's, is named by the error of an answer that is not gRPC.
 */
export function readUnary(stream: ClientHttp2Stream, readMaxBytes: number, url: string): Promise<UnaryReply> {
  return new Promise((resolve, reject) => {
    const frames = new FrameReader(readMaxBytes, url);
    let header: IncomingHttpHeaders | undefined;
    let trailer: IncomingHttpHeaders | undefined;
    let message: Uint8Array | undefined;
    let settled = false;
    const fail = (e: ConnectError) => {
      if (settled) return;
      settled = true;
      reject(e);
      if (!stream.closed) stream.close(nodeHttp2().constants.NGHTTP2_CANCEL);
    };
    stream.on("response", (h) => {
      header = h;
      const e = responseError(h, url);
      if (e) fail(e);
    });
    stream.on("trailers", (t) => (trailer = t));
    stream.on("data", (chunk: Buffer) => {
      try {
        for (const m of frames.push(chunk)) {
          if (message) throw new ConnectError("protocol error: more than one message for a unary method", Code.Internal);
          message = m;
        }
      } catch (e) {
        fail(e as ConnectError);
      }
    });
    stream.on("end", () => {
      if (settled) return;
      const e = endError(stream, header, trailer, frames, undefined);
      if (e) return fail(e);
      if (!message) return fail(new ConnectError("protocol error: no message for a unary method", Code.Internal));
      settled = true;
      resolve({ header: header!, trailer, message });
    });
    stream.on("error", (e) => fail(connectionLost(e)));
    // After 'end' on every call that succeeds: no error is made for nothing.
    stream.on("close", () => settled || fail(connectionLost(undefined)));
  });
}

/** A server stream's response: its headers, then its messages as they arrive, then its status. */
export class StreamReply {
  /** Filled when the stream has ended. */
  readonly trailer = new Headers();
  private header: IncomingHttpHeaders | undefined;
  private trailers: IncomingHttpHeaders | undefined;
  private error: unknown;

  constructor(
    private readonly stream: ClientHttp2Stream,
    private readonly readMaxBytes: number,
    /** The call's URL, named by the error of an answer that is not gRPC or over the limit. */
    private readonly url: string,
  ) {
    stream.on("trailers", (t) => (this.trailers = t));
    // Kept for good: the stream may fail before anyone reads it.
    stream.on("error", (e) => (this.error ??= e));
  }

  /** The response headers, once they show a gRPC response that may carry messages. */
  response(): Promise<IncomingHttpHeaders> {
    const stream = this.stream;
    return new Promise((resolve, reject) => {
      const onResponse = (h: IncomingHttpHeaders) => {
        stream.off("close", onClose);
        this.header = h;
        const e = responseError(h, this.url);
        if (!e) return resolve(h);
        reject(e);
        if (!stream.closed) stream.close(nodeHttp2().constants.NGHTTP2_CANCEL);
      };
      const onClose = () => {
        stream.off("response", onResponse);
        reject(connectionLost(this.error));
      };
      stream.once("response", onResponse);
      stream.once("close", onClose);
    });
  }

  /**
   * The messages, read with back-pressure; a reader that stops early cancels
   * the stream. What the stream fails with is reported as `failed` names it.
   */
  async *messages<O extends DescMessage>(schema: O, failed: (e: unknown) => unknown = same): AsyncGenerator<MessageShape<O>> {
    const stream = this.stream;
    const frames = new FrameReader(this.readMaxBytes, this.url);
    const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    let complete = false;
    try {
      for (;;) {
        let next: IteratorResult<Buffer>;
        try {
          next = await chunks.next();
        } catch (e) {
          throw connectionLost(this.error ?? e);
        }
        if (next.done) break;
        for (const bytes of frames.push(next.value)) yield decodeMessage(schema, bytes);
      }
      complete = true;
    } catch (e) {
      throw failed(e);
    } finally {
      if (!complete) {
        if (!stream.closed) stream.close(nodeHttp2().constants.NGHTTP2_CANCEL);
        chunks.return?.().catch(() => {});
      }
    }
    const e = endError(stream, this.header, this.trailers, frames, this.error);
    if (e) throw failed(e);
    metadataOf(this.trailers ?? {}).forEach((value, key) => this.trailer.append(key, value));
  }
}

function same(e: unknown): unknown {
  return e;
}
