/**
 * A string that names what a set of options means, for keying state shared
 * between callers (concurrent resolves, cached verifications, key sets).
 *
 * Comparing option objects by identity is fragile: two callers who build
 * equal options get no sharing, and one caller who mutates an object after
 * use would be served a result computed under the old values. So plain data
 * (strings, numbers, arrays, plain objects such as JWKs) is keyed by its
 * content, in a fixed key order. What has no content to compare (functions,
 * CryptoKeys, signals, instances of classes such as a JwksCache) is keyed by
 * identity: each object gets a number the first time it is seen, held in a
 * WeakMap so that keying never keeps an object alive.
 */

const ids = new WeakMap<object, number>();
let nextId = 1;

/** The per-process number of an object compared by identity. */
export function identityOf(value: object): number {
  let id = ids.get(value);
  if (id === undefined) {
    id = nextId++;
    ids.set(value, id);
  }
  return id;
}

/** The key of `value`: equal for equal plain data, distinct for distinct functions and class instances. */
export function optionsKey(value: unknown): string {
  return keyOf(value, 0);
}

// Options are shallow; a bound keeps a cyclic or absurdly deep value from recursing without end.
const MAX_DEPTH = 16;

function keyOf(value: unknown, depth: number): string {
  if (value === undefined) return "u";
  if (typeof value === "function" || (typeof value === "object" && value !== null)) {
    if (depth < MAX_DEPTH && Array.isArray(value)) return `[${value.map((v) => keyOf(v, depth + 1)).join(",")}]`;
    const proto = Object.getPrototypeOf(value) as unknown;
    if (depth < MAX_DEPTH && (proto === Object.prototype || proto === null)) {
      const record = value as Record<string, unknown>;
      const parts: string[] = [];
      for (const name of Object.keys(record).sort()) {
        if (record[name] !== undefined) parts.push(`${JSON.stringify(name)}:${keyOf(record[name], depth + 1)}`);
      }
      return `{${parts.join(",")}}`;
    }
    return `#${identityOf(value)}`;
  }
  // Strings quoted, so that "1" and 1 differ.
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}
