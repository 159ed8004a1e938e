// The helpers printed at the end of every file of protoc-gen-json-writers.ts:
// the plain-object test, and the writers of the well-known types the requests
// hold (Struct as a JsonObject, Value, Timestamp), each returning undefined
// where toJson would throw or where the input is outside the plain case.

import type { GeneratedFile } from "@bufbuild/protoplugin";

/** Module-level names the helpers declare; generated names steer clear of them. */
export const HELPER_NAMES = [
  "DEPTH_LIMIT",
  "isPlainObject",
  "isInt64",
  "writeJsonObject",
  "writeJsonValue",
  "writeValueMessage",
  "writeTimestamp",
];

export function printHelpers(f: GeneratedFile): void {
  const base64Encode = f.import("base64Encode", "@bufbuild/protobuf/wire");
  const jsonValue = f.import("JsonValue", "@bufbuild/protobuf", true);
  f.print`const toBase64: (bytes: Uint8Array) => string = ${base64Encode};`;
  f.print``;
  f.print`// Past this depth a writer gives up (toJson has no limit, so it decides).`;
  f.print`const DEPTH_LIMIT = 100;`;
  f.print``;
  f.print`type Fields = { readonly [key: string]: unknown };`;
  f.print``;
  f.print`/** An object whose prototype is Object.prototype: a message from create(), or JSON from a literal. */`;
  f.print`function isPlainObject(value: unknown): value is Fields {`;
  f.print`  return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;`;
  f.print`}`;
  f.print``;
  f.print`function isInt64(value: unknown): boolean {`;
  f.print`  return typeof value === "bigint" || typeof value === "string" || Number.isInteger(value);`;
  f.print`}`;
  f.print``;
  f.print`/** A JsonObject (a Struct field) copied as toJson writes it, or undefined. */`;
  f.print`function writeJsonObject(value: unknown, depth: number): JsonObject | undefined {`;
  f.print`  if (!isPlainObject(value) || depth > DEPTH_LIMIT) return undefined;`;
  f.print`  const json: JsonObject = {};`;
  f.print`  for (const key of Object.keys(value)) {`;
  f.print`    if (key === "__proto__") return undefined;`;
  f.print`    const item = writeJsonValue(value[key], depth + 1);`;
  f.print`    if (item === undefined) return undefined;`;
  f.print`    json[key] = item;`;
  f.print`  }`;
  f.print`  return json;`;
  f.print`}`;
  f.print``;
  f.print`function writeJsonValue(value: unknown, depth: number): ${jsonValue} | undefined {`;
  f.print`  switch (typeof value) {`;
  f.print`    case "string":`;
  f.print`    case "boolean":`;
  f.print`      return value;`;
  f.print`    case "number":`;
  f.print`      // A Struct holds no NaN or infinity: toJson throws.`;
  f.print`      return Number.isFinite(value) ? value : undefined;`;
  f.print`    case "object":`;
  f.print`      if (value === null) return null;`;
  f.print`      if (Array.isArray(value)) {`;
  f.print`        if (depth > DEPTH_LIMIT) return undefined;`;
  f.print`        const items: JsonValue[] = [];`;
  f.print`        for (let i = 0; i < value.length; i++) {`;
  f.print`          const item = writeJsonValue(value[i], depth + 1);`;
  f.print`          if (item === undefined) return undefined;`;
  f.print`          items.push(item);`;
  f.print`        }`;
  f.print`        return items;`;
  f.print`      }`;
  f.print`      return writeJsonObject(value, depth);`;
  f.print`  }`;
  f.print`  return undefined;`;
  f.print`}`;
  f.print``;
  f.print`/** A google.protobuf.Value message (with its Struct and ListValue messages), or undefined. */`;
  f.print`function writeValueMessage(value: unknown, depth: number): JsonValue | undefined {`;
  f.print`  if (!isPlainObject(value) || value.$typeName !== "google.protobuf.Value" || depth > DEPTH_LIMIT) return undefined;`;
  f.print`  const kind = value.kind;`;
  f.print`  if (!isPlainObject(kind)) return undefined;`;
  f.print`  const inner = kind.value;`;
  f.print`  switch (kind.case) {`;
  f.print`    case "nullValue":`;
  f.print`      return null;`;
  f.print`    case "numberValue":`;
  f.print`      return typeof inner === "number" && Number.isFinite(inner) ? inner : undefined;`;
  f.print`    case "boolValue":`;
  f.print`      return typeof inner === "boolean" ? inner : undefined;`;
  f.print`    case "stringValue":`;
  f.print`      return typeof inner === "string" ? inner : undefined;`;
  f.print`    case "structValue": {`;
  f.print`      if (!isPlainObject(inner) || inner.$typeName !== "google.protobuf.Struct" || !isPlainObject(inner.fields)) return undefined;`;
  f.print`      const json: JsonObject = {};`;
  f.print`      for (const key of Object.keys(inner.fields)) {`;
  f.print`        if (key === "__proto__") return undefined;`;
  f.print`        const item = writeValueMessage(inner.fields[key], depth + 1);`;
  f.print`        if (item === undefined) return undefined;`;
  f.print`        json[key] = item;`;
  f.print`      }`;
  f.print`      return json;`;
  f.print`    }`;
  f.print`    case "listValue": {`;
  f.print`      if (!isPlainObject(inner) || inner.$typeName !== "google.protobuf.ListValue" || !Array.isArray(inner.values)) return undefined;`;
  f.print`      const items: JsonValue[] = [];`;
  f.print`      for (let i = 0; i < inner.values.length; i++) {`;
  f.print`        const item = writeValueMessage(inner.values[i], depth + 1);`;
  f.print`        if (item === undefined) return undefined;`;
  f.print`        items.push(item);`;
  f.print`      }`;
  f.print`      return items;`;
  f.print`    }`;
  f.print`  }`;
  f.print`  return undefined;`;
  f.print`}`;
  f.print``;
  f.print`// toJson's range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.`;
  f.print`const TIMESTAMP_MS_MIN = -62135596800000;`;
  f.print`const TIMESTAMP_MS_MAX = 253402300799000;`;
  f.print``;
  f.print`/** A google.protobuf.Timestamp in RFC 3339 with 0, 3, 6 or 9 fraction digits, or undefined. */`;
  f.print`function writeTimestamp(value: unknown): string | undefined {`;
  f.print`  if (!isPlainObject(value) || value.$typeName !== "google.protobuf.Timestamp") return undefined;`;
  f.print`  const { seconds, nanos } = value;`;
  f.print`  if (typeof seconds !== "bigint" || typeof nanos !== "number" || !Number.isInteger(nanos)) return undefined;`;
  f.print`  const ms = Number(seconds) * 1000;`;
  f.print`  if (ms < TIMESTAMP_MS_MIN || ms > TIMESTAMP_MS_MAX || nanos < 0 || nanos > 999999999) return undefined;`;
  f.print`  let zone = "Z";`;
  f.print`  if (nanos > 0) {`;
  f.print`    const digits = String(nanos + 1000000000).substring(1);`;
  f.print`    const fraction = digits.endsWith("000000") ? digits.substring(0, 3) : digits.endsWith("000") ? digits.substring(0, 6) : digits;`;
  f.print`    zone = \`.\${fraction}Z\`;`;
  f.print`  }`;
  f.print`  return new Date(ms).toISOString().replace(".000Z", zone);`;
  f.print`}`;
}
