/**
 * What gRPC puts on an HTTP/2 stream (gRPC over HTTP/2, PROTOCOL-HTTP2.md):
 * length-prefixed message frames, and a status in the trailers (or in the
 * headers of a response without messages). Errors are `ConnectError`s shaped
 * for the binding's classification (transport.ts, errors/classify.ts): a status from the
 * server carries `grpc-status` in its metadata; nothing else does.
 */
import { fromBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { IncomingHttpHeaders, IncomingHttpStatusHeader } from "node:http2";
import { StatusSchema } from "../../../gen/google/rpc/status_pb.js";
import { decodeGrpcMessage } from "./status-fields.js";

/** One uncompressed message frame: flag byte 0, big-endian length, the message. */
export function encodeFrame(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + message.byteLength);
  out[0] = 0;
  out.writeUInt32BE(message.byteLength, 1);
  out.set(message, 5);
  return out;
}

/**
 * Splits the bytes of a response into messages, whatever the DATA chunks'
 * boundaries. A frame that spans chunks is joined once, when its last byte
 * is in: a large message in many small chunks costs no repeated copying.
 * Messages are views into the chunks they came in.
 */
export class FrameReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes needed before `pending` holds something to parse: a whole prefix, then a whole frame. */
  private needed = 0;

  constructor(private readonly maxBytes: number) {}

  /** The messages completed by `chunk`; throws on a frame we cannot accept. */
  push(chunk: Buffer): Uint8Array[] {
    if (this.pendingBytes > 0) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.byteLength;
      if (this.pendingBytes < this.needed) return [];
      chunk = Buffer.concat(this.pending, this.pendingBytes);
      this.pending = [];
      this.pendingBytes = 0;
    }
    const out: Uint8Array[] = [];
    let pos = 0;
    while (chunk.byteLength - pos >= 5) {
      const end = pos + 5 + this.frameLength(chunk, pos);
      if (end > chunk.byteLength) break;
      out.push(chunk.subarray(pos + 5, end));
      pos = end;
    }
    if (pos < chunk.byteLength) {
      const rest = chunk.subarray(pos);
      this.pending.push(rest);
      this.pendingBytes = rest.byteLength;
      this.needed = rest.byteLength < 5 ? 5 : 5 + this.frameLength(rest, 0);
    }
    return out;
  }

  /** The error of a response that ended inside a frame. */
  end(): ConnectError | undefined {
    return this.pendingBytes > 0 ? new ConnectError("protocol error: the response ended inside a message frame", Code.Internal) : undefined;
  }

  private frameLength(buf: Buffer, pos: number): number {
    const flags = buf[pos]!;
    if (flags !== 0) {
      // Compression is never asked for, so a compressed frame is as wrong as an unknown flag.
      const what = flags === 1 ? "a compressed message, but no compression was asked for" : `invalid frame flags 0x${flags.toString(16)}`;
      throw new ConnectError(`protocol error: ${what}`, Code.Internal);
    }
    const length = buf.readUInt32BE(pos + 1);
    if (length > this.maxBytes) {
      throw new ConnectError(`message size ${length} is larger than the configured readMaxBytes ${this.maxBytes}`, Code.ResourceExhausted);
    }
    return length;
  }
}

const GRPC_CONTENT_TYPE = /^application\/grpc(\+proto)?\s*(;|$)/i;

/**
 * Why the response headers show this is not a gRPC answer we can read, or
 * that it is an error status without messages; undefined when the messages
 * may follow.
 */
export function responseError(headers: IncomingHttpHeaders & IncomingHttpStatusHeader): ConnectError | undefined {
  const status = headers[":status"] ?? 0;
  if (status !== 200) return new ConnectError(`HTTP ${status}`, codeFromHttpStatus(status));
  // A status in the headers is the server's answer, whatever the content type.
  if (headers["grpc-status"] !== undefined) return statusError(headers);
  const type = headers["content-type"];
  if (type === undefined || !GRPC_CONTENT_TYPE.test(type)) {
    return new ConnectError(`unsupported content type ${type ?? "(none)"}`, Code.Internal);
  }
  return undefined;
}

/**
 * The call's status from trailers, or from the headers when they carried it:
 * undefined for OK, else the server's error, with these fields (and the
 * response headers before trailers) as metadata and the details of
 * `grpc-status-details-bin`.
 */
export function statusError(fields: IncomingHttpHeaders, header?: IncomingHttpHeaders): ConnectError | undefined {
  const status = one(fields["grpc-status"]);
  if (status === "0") return undefined;
  if (status === undefined) return new ConnectError("protocol error: missing grpc-status", Code.Internal);
  const code = /^\d{1,2}$/.test(status) ? Number(status) : NaN;
  const metadata = metadataOf(fields);
  if (header) metadataOf(header).forEach((value, key) => metadata.append(key, value));
  if (!(code > 0 && code <= Code.Unauthenticated)) return new ConnectError(`invalid grpc-status: ${status}`, Code.Internal, metadata);
  const error = new ConnectError(decodeGrpcMessage(one(fields["grpc-message"]) ?? ""), code, metadata);
  const details = one(fields["grpc-status-details-bin"]);
  if (details !== undefined) {
    try {
      for (const any of fromBinary(StatusSchema, Buffer.from(details, "base64")).details) {
        error.details.push({ type: any.typeUrl.slice(any.typeUrl.lastIndexOf("/") + 1), value: any.value });
      }
    } catch {
      // Undecodable details leave the status as grpc-status and grpc-message give it.
    }
  }
  return error;
}

/** Response headers or trailers as connect's Headers, without HTTP/2 pseudo-headers. */
export function metadataOf(fields: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const key in fields) {
    if (key.startsWith(":")) continue;
    const value = fields[key];
    if (Array.isArray(value)) for (const v of value) out.append(key, v);
    else if (value !== undefined) out.append(key, String(value));
  }
  return out;
}

/**
 * A call that ended without a status because its stream or connection went
 * away (reset, closed, destroyed): `Unavailable`, with the Node error as the
 * cause. Our own errors (a PING that timed out) pass through.
 */
export function connectionLost(cause: unknown): ConnectError {
  if (cause instanceof ConnectError) return cause;
  const why = cause instanceof Error ? `: ${cause.message}` : "";
  return new ConnectError(`the HTTP/2 stream closed before the call's status${why}`, Code.Unavailable, undefined, undefined, cause);
}

/** A field that should occur once; Node gives a repeated one as an array. */
function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The gRPC code for an HTTP status other than 200 (http-grpc-status-mapping.md). */
function codeFromHttpStatus(status: number): Code {
  switch (status) {
    case 401:
      return Code.Unauthenticated;
    case 403:
      return Code.PermissionDenied;
    case 404:
      return Code.Unimplemented;
    case 429:
    case 502:
    case 503:
    case 504:
      return Code.Unavailable;
    default:
      return Code.Unknown;
  }
}
