/**
 * What the trust modules take values to be: a Web Crypto key,
 * a positive number option (checked, or its default).
 */

/** A Web Crypto key, also one from another realm (a worker's, Node's `webcrypto`). */
export function isCryptoKey(v: unknown): v is CryptoKey {
  return (typeof CryptoKey !== "undefined" && v instanceof CryptoKey) || Object.prototype.toString.call(v) === "[object CryptoKey]";
}

/** A number option: `fallback` when absent, a TypeError naming `option` when not a positive number (or zero, where `allowZero`). */
export function positive(value: number | undefined, fallback: number, option: string, allowZero = false): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) throw new TypeError(`${option} must be a positive number`);
  return value;
}
