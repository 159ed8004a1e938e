/** A non-null object (arrays included): something whose fields can be read. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}

/**
 * Sets `obj[key]` as an own, enumerable member, `__proto__` included, which
 * plain assignment would take as the object's prototype (a JSON object or a
 * map may have a member of that name).
 */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/** A JSON object: a non-null object that is not an array. */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
