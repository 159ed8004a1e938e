/**
 * Base64 without `Buffer` (browsers have none), for Basic credentials and
 * the forms of a secret that masking looks for. A module apart from the
 * gathering of bodies (bytes.ts), which the start runs: code on demand that
 * sends or masks credentials (the auth interceptors, the masking of a
 * failed call's error) uses base64, a module that code on demand imports
 * leaves the start's chunk for a chunk shared with it (docs/size.md, "Where
 * the bytes go"), and while the two were one module the body code went
 * with it.
 */
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
