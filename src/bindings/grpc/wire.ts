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
import { httpAnswerError } from "./http-answer.js";
import { parseRetryAfter } from "../../errors/retry-after.js";
import { decodeGrpcMessage } from "./status-fields.js";
import { safeUrl } from "../../base/urls.js";

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
 * boundaries. A message whole in its chunk is a view into it; one that
 * spans chunks is copied into a buffer of its own as its bytes arrive,
 * grown by doubling up to the length its prefix states, so a large message
 * in many small chunks costs no repeated copying, and a server sending a
 * message a byte per DATA frame costs its bytes, not a Buffer object per
 * byte (some 200 bytes each, which took a 16 MiB message to gigabytes).
 */
export class FrameReader {
  /** A prefix cut short by a chunk's end, and how much of it has arrived. */
  private readonly prefix = new Uint8Array(5);
  private prefixAt = 0;
  /** The message spanning chunks: its length, the bytes so far in `partial`, and how many. */
  private partialLength = 0;
  private partial: Uint8Array | undefined;
  private partialAt = 0;

  constructor(
    private readonly maxBytes: number,
    /** The call's URL, named (origin and path) by the error of a message over the limit. */
    private readonly url: string,
  ) {}

  /** The messages completed by `chunk`; throws on a frame we cannot accept. */
  push(chunk: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    // The messages whole in this chunk are decoded from views of it, and their bytes fields are views too:
    // of a copy, made once per chunk, so that they are plain Uint8Arrays over this response's bytes alone,
    // not Node Buffers over memory shared with the rest of what was read (as on every other binding).
    let own: Uint8Array | undefined;
    let pos = 0;
    while (pos < chunk.byteLength) {
      if (this.partial !== undefined) {
        const n = Math.min(this.partialLength - this.partialAt, chunk.byteLength - pos);
        this.append(chunk.subarray(pos, pos + n));
        pos += n;
        if (this.partialAt === this.partialLength) {
          out.push(this.partial);
          this.partial = undefined;
        }
        continue;
      }
      let length: number;
      if (this.prefixAt === 0 && chunk.byteLength - pos >= 5) {
        length = this.frameLength(chunk, pos);
        pos += 5;
      } else {
        const n = Math.min(5 - this.prefixAt, chunk.byteLength - pos);
        this.prefix.set(chunk.subarray(pos, pos + n), this.prefixAt);
        this.prefixAt += n;
        pos += n;
        if (this.prefixAt < 5) break;
        this.prefixAt = 0;
        length = this.frameLength(this.prefix, 0);
      }
      if (chunk.byteLength - pos >= length) {
        own ??= new Uint8Array(chunk);
        out.push(own.subarray(pos, pos + length));
        pos += length;
      } else {
        this.partialLength = length;
        this.partial = new Uint8Array(0);
        this.partialAt = 0;
      }
    }
    return out;
  }

  /** Adds `bytes` to the message spanning chunks, growing its buffer by doubling, never past its length. */
  private append(bytes: Uint8Array): void {
    const need = this.partialAt + bytes.byteLength;
    if (need > this.partial!.byteLength) {
      const grown = new Uint8Array(Math.min(this.partialLength, Math.max(need, this.partial!.byteLength * 2, 16 * 1024)));
      grown.set(this.partial!.subarray(0, this.partialAt));
      this.partial = grown;
    }
    this.partial!.set(bytes, this.partialAt);
    this.partialAt = need;
  }

  /** The error of a response that ended inside a frame. */
  end(): ConnectError | undefined {
    return this.prefixAt > 0 || this.partial !== undefined
      ? new ConnectError("protocol error: the response ended inside a message frame", Code.Internal)
      : undefined;
  }

  private frameLength(buf: Uint8Array, pos: number): number {
    const flags = buf[pos]!;
    if (flags !== 0) {
      // Compression is never asked for, so a compressed frame is as wrong as an unknown flag.
      const what = flags === 1 ? "a compressed message, but no compression was asked for" : `invalid frame flags 0x${flags.toString(16)}`;
      throw new ConnectError(`protocol error: ${what}`, Code.Internal);
    }
    const length = new DataView(buf.buffer, buf.byteOffset + pos + 1, 4).getUint32(0);
    if (length > this.maxBytes) {
      throw new ConnectError(
        `message size ${length} from ${safeUrl(this.url)} is larger than the configured readMaxBytes ${this.maxBytes}`,
        Code.ResourceExhausted,
      );
    }
    return length;
  }
}

const GRPC_CONTENT_TYPE = /^application\/grpc(\+proto)?\s*(;|$)/i;

/**
 * Why the response headers show this is not a gRPC answer we can read, or
 * that it is an error status without messages; undefined when the messages
 * may follow. A status other than 200 is gRPC's code for it, with the
 * response headers as metadata and, as the cause, the error the call
 * reports (http-answer.ts): what was said, by the HTTP status.
 */
export function responseError(headers: IncomingHttpHeaders & IncomingHttpStatusHeader, url: string): ConnectError | undefined {
  const status = headers[":status"] ?? 0;
  if (status !== 200) {
    // gRPC reads a non-200 answer by its HTTP status alone (PROTOCOL-HTTP2.md), whatever status it names.
    const metadata = metadataOf(headers);
    metadata.delete("grpc-status");
    return new ConnectError(
      `HTTP ${status}`,
      codeFromHttpStatus(status),
      metadata,
      undefined,
      httpAnswerError(status, metadata, url, parseRetryAfter(metadata.get("retry-after"))),
    );
  }
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
      for (const any of fromBinary(StatusSchema, new Uint8Array(Buffer.from(details, "base64"))).details) {
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
