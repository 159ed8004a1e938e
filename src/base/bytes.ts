/** Bytes: gathering a body under a limit, base64, SHA-256. */
/**
 * All chunks of a body in one buffer; past `maxBytes`, the error `tooLarge()`
 * makes. A body of one chunk is that chunk; a body of more is copied into
 * one buffer as its chunks arrive, grown by doubling (never past
 * `maxBytes`): kept as a list until the end, a body sent a byte per chunk
 * held an object of some 200 bytes per byte, gigabytes within a 16 MiB limit.
 */
export async function concatBytes(
  chunks: AsyncIterable<Uint8Array>,
  maxBytes = Infinity,
  tooLarge?: () => Error,
): Promise<Uint8Array<ArrayBuffer>> {
  // The first chunk, kept as it is until a second one comes.
  let only: Uint8Array | undefined;
  let buffer: Uint8Array<ArrayBuffer> | undefined;
  let size = 0;
  for await (const c of chunks) {
    // Leaving the loop early cancels the source (and frees its connection).
    if (size + c.byteLength > maxBytes) throw tooLarge?.() ?? new RangeError(`more than ${maxBytes} bytes`);
    if (buffer === undefined && only === undefined && size === 0) {
      only = c;
      size = c.byteLength;
      continue;
    }
    const need = size + c.byteLength;
    if (buffer === undefined || need > buffer.byteLength) {
      const grown = new Uint8Array(Math.min(Math.max(need, (buffer?.byteLength ?? size) * 2, 16 * 1024), maxBytes));
      if (buffer !== undefined) grown.set(buffer.subarray(0, size));
      else if (only !== undefined) grown.set(only);
      buffer = grown;
      only = undefined;
    }
    buffer.set(c, size);
    size = need;
  }
  if (buffer !== undefined) return buffer.subarray(0, size);
  if (only !== undefined && only.buffer instanceof ArrayBuffer) return only as Uint8Array<ArrayBuffer>;
  return only === undefined ? new Uint8Array(0) : new Uint8Array(only);
}

/** One character per byte (the "binary string" that `btoa` takes, and a way to search bytes as text). */
export function binaryString(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return text;
}

/** Standard base64 of `bytes`, without `Buffer` (browsers have none). */
export function base64(bytes: Uint8Array): string {
  return btoa(binaryString(bytes));
}

/** The SHA-256 digest of `bytes` (text: of its UTF-8), in lowercase hex, by Web Crypto. */
export async function sha256Hex(bytes: Uint8Array<ArrayBuffer> | string): Promise<string> {
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  let hex = "";
  for (const b of digest) hex += b.toString(16).padStart(2, "0");
  return hex;
}
