/** Bytes: gathering a body under a limit, SHA-256 (base64 is base64.ts). */
/**
 * Chunks gathered into one buffer as they arrive, under a limit. One chunk
 * is kept as it is until a second one comes; more are copied into one
 * buffer, grown by doubling (never past the limit): kept as a list until the
 * end, a body sent a byte per chunk held an object of some 200 bytes per
 * byte, gigabytes within a 16 MiB limit.
 */
export class ByteSink {
  /** The first chunk, kept as it is until a second one comes. */
  private only: Uint8Array | undefined;
  private buffer: Uint8Array<ArrayBuffer> | undefined;
  private size = 0;

  constructor(private readonly maxBytes = Infinity) {}

  /** Adds `chunk`; false, and nothing of it kept, when it would take the total past the limit. */
  add(chunk: Uint8Array): boolean {
    const need = this.size + chunk.byteLength;
    if (need > this.maxBytes) return false;
    if (this.size === 0 && this.buffer === undefined) {
      this.only = chunk;
      this.size = need;
      return true;
    }
    let buffer = this.buffer;
    if (buffer === undefined || need > buffer.byteLength) {
      const grown = new Uint8Array(Math.min(Math.max(need, (buffer?.byteLength ?? this.size) * 2, 16 * 1024), this.maxBytes));
      if (buffer !== undefined) grown.set(buffer.subarray(0, this.size));
      else if (this.only !== undefined) grown.set(this.only);
      this.buffer = buffer = grown;
      this.only = undefined;
    }
    buffer.set(chunk, this.size);
    this.size = need;
    return true;
  }

  /** Everything added, in one buffer: the one chunk as it is, where it is all there is. */
  bytes(): Uint8Array<ArrayBuffer> {
    if (this.buffer !== undefined) return this.buffer.subarray(0, this.size);
    const only = this.only;
    if (only !== undefined && only.buffer instanceof ArrayBuffer) return only as Uint8Array<ArrayBuffer>;
    return only === undefined ? new Uint8Array(0) : new Uint8Array(only);
  }
}

/**
 * Where a body (an async iterable of bytes) may offer to gather itself,
 * without the iterator protocol's objects and turns per chunk: an HTTP
 * client's response body, read whole by `concatBytes`.
 */
export const GATHER = Symbol("gather");

/** A body that gathers itself (see `GATHER`): as `concatBytes` does, reading no further once past `maxBytes`. */
export interface Gathering {
  [GATHER](maxBytes: number, tooLarge: () => Error): Promise<Uint8Array<ArrayBuffer>>;
}

/**
 * All chunks of a body in one buffer (a `ByteSink`'s); past `maxBytes`, the
 * error `tooLarge()` makes, the rest not read. A body that gathers itself
 * (`GATHER`) is asked to.
 */
export function concatBytes(
  chunks: AsyncIterable<Uint8Array>,
  maxBytes = Infinity,
  tooLarge: () => Error = () => new RangeError(`more than ${maxBytes} bytes`),
): Promise<Uint8Array<ArrayBuffer>> {
  // Returned as it is: an async function would wait turns of its own for it.
  const gather = (chunks as Partial<Gathering>)[GATHER];
  return gather !== undefined ? gather.call(chunks, maxBytes, tooLarge) : iterated(chunks, maxBytes, tooLarge);
}

async function iterated(chunks: AsyncIterable<Uint8Array>, maxBytes: number, tooLarge: () => Error): Promise<Uint8Array<ArrayBuffer>> {
  const sink = new ByteSink(maxBytes);
  // Leaving the loop early cancels the source (and frees its connection).
  for await (const c of chunks) if (!sink.add(c)) throw tooLarge();
  return sink.bytes();
}

/** The SHA-256 digest of `bytes` (text: of its UTF-8), in lowercase hex, by Web Crypto. */
export async function sha256Hex(bytes: Uint8Array<ArrayBuffer> | string): Promise<string> {
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  let hex = "";
  for (const b of digest) hex += b.toString(16).padStart(2, "0");
  return hex;
}
