/**
 * ProtoJSON written over the descriptors: what protobuf-es `toJson(schema,
 * message)` writes with its default options, key order included (fields by
 * number), for the field kinds and well-known types our schemas use (the
 * same as json-read.ts's; test/unit/protocol/json-codec-kinds.test.ts). Card
 * verification's canonical form is made from it, so it must not differ by a
 * byte; differential tests hold it to `toJson`.
 *
 * Fields with implicit presence are left out at their zero value, those
 * with explicit presence written when set; enums by name (an unknown number
 * as itself), NullValue as null, bytes as padded standard base64,
 * timestamps as RFC 3339 in UTC with 0, 3, 6 or 9 fraction digits. It
 * throws where `toJson` throws (a value of the wrong type, a Value with no
 * kind or a non-finite number, a timestamp out of range), naming the field
 * and its JSON path, never the value; the first words are protobuf-es's,
 * which `failedField` reads.
 */
import { ScalarType, type DescField, type DescMessage, type JsonObject, type JsonValue, type MessageShape } from "@bufbuild/protobuf";
import { base64Encode } from "@bufbuild/protobuf/wire";
import { isJsonObject, setOwn } from "../base/is-record.js";
import { inTimestampRange, isStructJson, TIMESTAMP_RANGE } from "./json-read.js";
import { isWellKnown, WKT } from "./well-known.js";

type Fields = Record<string, unknown>;

/** protobuf-es's FeatureSet.FieldPresence.IMPLICIT. */
const IMPLICIT = 2;

/** `message` (of type `schema`) as ProtoJSON, a new value each call. Throws where `toJson` throws. */
export function writeJson<S extends DescMessage>(schema: S, message: MessageShape<S>): JsonValue {
  return writeMessage(schema, message as unknown as Fields, "");
}

function fail(what: unknown, path: string, reason: string): Error {
  return new Error(`cannot encode ${String(what)} to JSON${path === "" ? "" : ` at ${path}`}: ${reason}`);
}

// Fields in the order toJson writes them: by number.
const ordered = new WeakMap<DescMessage, DescField[]>();

function fieldsOf(desc: DescMessage): DescField[] {
  let fields = ordered.get(desc);
  if (fields === undefined) ordered.set(desc, (fields = desc.fields.concat().sort((a, b) => a.number - b.number)));
  return fields;
}

function writeMessage(desc: DescMessage, m: Fields, path: string): JsonValue {
  const type = desc.typeName;
  if (m.$typeName !== type && desc.fields.length > 0) throw fail(desc, path, "a message of another type");
  if (type === `${WKT}Timestamp`) return writeTimestamp(m, path);
  if (type === `${WKT}Value`) return writeValue(m, path);
  if (type === `${WKT}Struct`) return writeStruct(m, path);
  if (type === `${WKT}ListValue`) return writeList(m, path);
  if (isWellKnown(desc) && type !== `${WKT}Empty`) throw fail(desc, path, "this well-known type is not supported");
  const json: JsonObject = {};
  for (const f of fieldsOf(desc)) {
    const at = path === "" ? f.jsonName : `${path}.${f.jsonName}`;
    let v = m[f.localName];
    if (f.fieldKind === "list") {
      const items = v as unknown[];
      if (items.length === 0) continue;
      const out: JsonValue[] = [];
      for (let i = 0; i < items.length; i++) out.push(writeItem(f, f.listKind, items[i], `${at}[${i}]`));
      json[f.jsonName] = out;
      continue;
    }
    if (f.fieldKind === "map") {
      const record = v as Fields;
      const keys = Object.keys(record);
      if (keys.length === 0) continue;
      const out: JsonObject = {};
      for (const k of keys) setOwn(out, k, writeItem(f, f.mapKind, record[k], at));
      json[f.jsonName] = out;
      continue;
    }
    if (f.oneof !== undefined) {
      const chosen = m[f.oneof.localName] as { case?: string; value?: unknown };
      if (chosen.case !== f.localName) continue;
      v = chosen.value;
    } else if (f.presence !== IMPLICIT) {
      if (v === undefined || !Object.hasOwn(m, f.localName)) continue;
    } else if (isZero(f, v)) continue;
    json[f.jsonName] = writeItem(f, f.fieldKind, v, at);
  }
  return json;
}

/** The zero value of a field with implicit presence, which toJson leaves out. */
function isZero(f: DescField, v: unknown): boolean {
  if (f.fieldKind === "enum") return v === f.enum.values[0]!.number;
  switch (f.scalar) {
    case ScalarType.BOOL:
      return v === false;
    case ScalarType.STRING:
      return v === "";
    case ScalarType.BYTES:
      return v instanceof Uint8Array && v.byteLength === 0;
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return Object.is(v, 0);
    default:
      // As toJson compares: 0, 0n and "0" alike.
      // biome-ignore lint/suspicious/noDoubleEquals: the loose comparison is the point
      return v == 0;
  }
}

/** One value of field `f` (itself, a list's item or a map's value), of kind `kind`. */
function writeItem(f: DescField, kind: "scalar" | "enum" | "message", v: unknown, at: string): JsonValue {
  if (kind === "message") {
    if (isStructJson(f)) return writeStructJson(v, at);
    if (typeof v !== "object" || v === null) throw fail(f, at, "expected a message");
    return writeMessage(f.message!, v as Fields, at);
  }
  if (kind === "enum") {
    const e = f.enum!;
    if (typeof v !== "number") throw fail(e, at, "expected number");
    if (e.typeName === `${WKT}NullValue`) return null;
    return e.value[v]?.jsonName ?? v;
  }
  switch (f.scalar) {
    case ScalarType.STRING:
      if (typeof v === "string") return v;
      break;
    case ScalarType.BOOL:
      if (typeof v === "boolean") return v;
      break;
    case ScalarType.BYTES:
      if (v instanceof Uint8Array) return base64Encode(v);
      break;
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      // toJson checks the type only, not the range.
      if (typeof v === "number") return v;
      break;
    default:
      throw fail(f, at, "this scalar type is not supported");
  }
  throw fail(f, at, `expected ${ScalarType[f.scalar]!.toLowerCase()}`);
}

function writeValue(m: Fields, path: string): JsonValue {
  const kind = m.kind as { case?: string; value?: unknown };
  switch (kind.case) {
    case "nullValue":
      return null;
    case "numberValue":
      if (!Number.isFinite(kind.value)) throw valueError("cannot be NaN or Infinity", path);
      return kind.value as number;
    case "boolValue":
    case "stringValue":
      return kind.value as JsonValue;
    case "structValue":
      return writeStruct(kind.value as Fields, path);
    case "listValue":
      return writeList(kind.value as Fields, path);
    default:
      throw valueError("must have a value", path);
  }
}

/** What a Value cannot be written for, in toJson's own words, which failedField reads. */
function valueError(reason: string, path: string): Error {
  return new Error(`${WKT}Value ${reason} (at ${path || "the top"})`);
}

/** A Struct field's JSON object (see json-read.ts's `isStructJson`), as toJson writes it: anything else is an empty Struct. */
function writeStructJson(v: unknown, path: string): JsonObject {
  const json: JsonObject = {};
  if (isJsonObject(v)) for (const key of Object.keys(v)) setOwn(json, key, writeJsonValue(v[key], path));
  return json;
}

function writeJsonValue(v: unknown, path: string): JsonValue {
  switch (typeof v) {
    case "number":
      if (!Number.isFinite(v)) throw valueError("cannot be NaN or Infinity", path);
      return v;
    case "string":
    case "boolean":
      return v;
    case "object":
      if (v === null) return null;
      if (Array.isArray(v)) return v.map((item) => writeJsonValue(item, path));
      return writeStructJson(v, path);
    default:
      throw valueError("must have a value", path);
  }
}

function writeStruct(m: Fields, path: string): JsonObject {
  const fields = m.fields as Fields;
  const json: JsonObject = {};
  for (const key of Object.keys(fields)) setOwn(json, key, writeValue(fields[key] as Fields, path));
  return json;
}

function writeList(m: Fields, path: string): JsonValue[] {
  return (m.values as Fields[]).map((v) => writeValue(v, path));
}

/** toJson's range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z. */
function writeTimestamp(m: Fields, path: string): string {
  const what = `message ${WKT}Timestamp`;
  const ms = Number(m.seconds) * 1000;
  if (!inTimestampRange(ms)) throw fail(what, path, TIMESTAMP_RANGE);
  const nanos = m.nanos as number;
  if (nanos < 0) throw fail(what, path, "nanos must not be negative");
  if (nanos > 999999999) throw fail(what, path, "nanos must not be greater than 999999999");
  let fraction = "";
  if (nanos > 0) {
    // Nine digits, shortened to six or three where the rest are zeros.
    fraction = `.${String(nanos + 1e9).slice(1)}`;
    if (fraction.endsWith("000000")) fraction = fraction.slice(0, 4);
    else if (fraction.endsWith("000")) fraction = fraction.slice(0, 7);
  }
  return new Date(ms).toISOString().replace(".000Z", `${fraction}Z`);
}
