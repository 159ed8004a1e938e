/**
 * gRPC's length-prefixed frames, as both gRPC bindings put them on the wire
 * (HTTP/2, wire.ts; gRPC-web, web-transport.ts): a flags byte, the length
 * big-endian in four bytes, then that many bytes. Browser-safe: no Node
 * import, no Buffer, as gRPC-web runs in browsers.
 */
import { fromBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { safeUrl } from "../../base/urls.js";

/**
 * A frame's message decoded. Bytes that do not decode are the server's
 * protocol error (an INTERNAL status, which the bindings name
 * ProtocolError), not a cut connection.
 */
export function decodeMessage<O extends DescMessage>(schema: O, bytes: Uint8Array): MessageShape<O> {
  try {
    return fromBinary(schema, bytes);
  } catch (e) {
    throw new ConnectError(`cannot decode ${schema.typeName}: ${e instanceof Error ? e.message : String(e)}`, Code.Internal);
  }
}

/** One uncompressed message frame: flag byte 0, big-endian length, the message. */
export function encodeFrame(message: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(5 + message.byteLength);
  const n = message.byteLength;
  // Byte by byte: a DataView made for every request frame cost more than the writes.
  out[1] = n >>> 24;
  out[2] = (n >>> 16) & 0xff;
  out[3] = (n >>> 8) & 0xff;
  out[4] = n & 0xff;
  out.set(message, 5);
  return out;
}

/**
 * Splits the bytes of a response into frames, whatever the chunks'
 * boundaries. A frame whole in its chunk is a view into it; one that
 * spans chunks is copied into a buffer of its own as its bytes arrive,
 * grown by doubling up to the length its prefix states, so a large message
 * in many small chunks costs no repeated copying, and a server sending a
 * message a byte per chunk costs its bytes, not an object per byte (some
 * 200 bytes each for a Node Buffer, which took a 16 MiB message to
 * gigabytes). A frame whose prefix states more than `maxBytes` is refused
 * from its prefix, before any of it is buffered.
 */
export class FrameReader {
  /** A prefix cut short by a chunk's end, and how much of it has arrived. */
  private readonly prefix = new Uint8Array(5);
  private prefixAt = 0;
  /** The frame spanning chunks: its flags and length, the bytes so far in `partial`, and how many. */
  private partialFlags = 0;
  private partialLength = 0;
  private partial: Uint8Array | undefined;
  private partialAt = 0;

  constructor(
    private readonly maxBytes: number,
    /** The call's URL, named (origin and path) by the error of a message over the limit. */
    private readonly url: string,
  ) {}

  /**
   * The frames' bytes completed by `chunk`, added to `out`; throws on a
   * frame we cannot accept, leaving in `out` those before it. Given
   * `flags`, each frame's flags byte is added to it, for the caller to
   * judge (gRPC-web marks its trailers frame 0x80); without, any flag is
   * refused, as HTTP/2 gRPC sends none we asked for.
   */
  push(chunk: Uint8Array, out: Uint8Array[] = [], flags?: number[]): Uint8Array[] {
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
          flags?.push(this.partialFlags);
          out.push(this.partial);
          this.partial = undefined;
        }
        continue;
      }
      let length: number;
      let frameFlags: number;
      if (this.prefixAt === 0 && chunk.byteLength - pos >= 5) {
        frameFlags = chunk[pos]!;
        length = this.frameLength(chunk, pos, flags === undefined);
        pos += 5;
      } else {
        const n = Math.min(5 - this.prefixAt, chunk.byteLength - pos);
        this.prefix.set(chunk.subarray(pos, pos + n), this.prefixAt);
        this.prefixAt += n;
        pos += n;
        if (this.prefixAt < 5) break;
        this.prefixAt = 0;
        frameFlags = this.prefix[0]!;
        length = this.frameLength(this.prefix, 0, flags === undefined);
      }
      if (chunk.byteLength - pos >= length) {
        own ??= new Uint8Array(chunk);
        flags?.push(frameFlags);
        out.push(own.subarray(pos, pos + length));
        pos += length;
      } else {
        this.partialFlags = frameFlags;
        this.partialLength = length;
        this.partial = new Uint8Array(0);
        this.partialAt = 0;
      }
    }
    return out;
  }

  /** Adds `bytes` to the frame spanning chunks, growing its buffer by doubling, never past its length. */
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
    return this.prefixAt > 0 || this.partial !== undefined ? new ConnectError(ENDED_INSIDE, Code.Internal) : undefined;
  }

  private frameLength(buf: Uint8Array, pos: number, noFlags: boolean): number {
    const flags = buf[pos]!;
    if (noFlags && flags !== 0) {
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

/** What `end()` says of a response cut inside a frame; gRPC-web names it by it (web.ts). */
export const ENDED_INSIDE = "protocol error: the response ended inside a message frame";
