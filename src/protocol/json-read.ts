/**
 * ProtoJSON read over the descriptors: what protobuf-es `fromJson(schema,
 * json, { ignoreUnknownFields: true })` gives, for the field kinds and
 * well-known types our schemas use (test/unit/protocol/json-codec-kinds.test.ts
 * lists them, and fails when a schema starts using another). A message is
 * built with `create`, field by field as `fromJson` builds it, so the two
 * are equal in every member; differential tests hold them to it.
 *
 * It is ours rather than `fromJson` for the bundle: `fromJson` brings the
 * reflection API, extensions, `Any` and the well-known types' schemas (with
 * `descriptor_pb.js`), which stay at start in every app that calls it
 * anywhere (docs/size.md). What this leaves out (64-bit integers, floats,
 * `Any`, `Duration`, wrappers, closed enums, non-string map keys) is refused
 * with an error naming the field, never read differently.
 *
 * Its errors name the type or field and the JSON path where reading stopped
 * (`artifacts[0].parts[1].text`; a map's or a Struct's path ends at the field
 * holding it, as its keys are data), and never the value, which may be a
 * credential. Their first words are protobuf-es's (`cannot decode field
 * lf.a2a.v1.Part.text from JSON`), which `failedField` reads.
 */
import { create, ScalarType, type DescEnum, type DescField, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { isJsonObject, setOwn } from "../base/is-record.js";
import { isWellKnown, WKT } from "./well-known.js";

type Fields = Record<string, unknown>;

/** fromJson's recursionLimit: messages and Values nested deeper are refused. */
const MAX_DEPTH = 100;
/** What an unknown enum name reads as: nothing, as fromJson ignores it with ignoreUnknownFields. */
const IGNORED = Symbol();

/** The message of type `schema` that `json` (a value of `JSON.parse`) describes. Throws where `fromJson` throws. */
export function readJson<S extends DescMessage>(schema: S, json: unknown): MessageShape<S> {
  return readMessage(schema, json, { depth: 0 }, "") as MessageShape<S>;
}

interface Ctx {
  depth: number;
}

/**
 * Why a JSON value could not be read, and where: `path` is the JSON path
 * reading stopped at ("" for the whole value), which the message names too;
 * `problem` is the message without it, for a caller that names the path
 * itself.
 */
export class JsonReadError extends Error {
  readonly problem: string;

  constructor(
    what: unknown,
    readonly path: string,
    reason: string,
  ) {
    super(`cannot decode ${String(what)} from JSON${path === "" ? "" : ` at ${path}`}: ${reason}`);
    this.problem = `cannot decode ${String(what)} from JSON: ${reason}`;
  }
}

function fail(what: unknown, path: string, reason: string): JsonReadError {
  return new JsonReadError(what, path, reason);
}

function deeper(ctx: Ctx, what: string, path: string): void {
  if (++ctx.depth > MAX_DEPTH) throw fail(what, path, `maximum recursion depth of ${MAX_DEPTH} reached`);
}

function readMessage(desc: DescMessage, json: unknown, ctx: Ctx, path: string): Fields {
  deeper(ctx, String(desc), path);
  const m = create(desc) as Fields;
  const type = desc.typeName;
  if (type === `${WKT}Timestamp`) readTimestamp(m, json, path);
  else if (type === `${WKT}Value`) readValue(desc, m, json, ctx, path);
  else if (type === `${WKT}Struct`) readStruct(desc, m, json, ctx, path);
  else if (type === `${WKT}ListValue`) readList(desc, m, json, ctx, path);
  else if (isWellKnown(desc) && type !== `${WKT}Empty`) throw fail(desc, path, "this well-known type is not supported");
  else readFields(desc, m, json, ctx, path);
  ctx.depth--;
  return m;
}

// Fields by their JSON name and their proto name, per message type.
const byKey = new WeakMap<DescMessage, Map<string, DescField>>();

function fieldsByKey(desc: DescMessage): Map<string, DescField> {
  let map = byKey.get(desc);
  if (map === undefined) {
    map = new Map();
    for (const f of desc.fields) map.set(f.name, f).set(f.jsonName, f);
    byKey.set(desc, map);
  }
  return map;
}

/** A Value or a NullValue field, where JSON null is a value rather than "unset". */
function nullable(f: DescField): boolean {
  return (f.message ?? f.enum)?.typeName === (f.message ? `${WKT}Value` : `${WKT}NullValue`);
}

function readFields(desc: DescMessage, m: Fields, json: unknown, ctx: Ctx, path: string): void {
  if (!isJsonObject(json)) throw fail(desc, path, "expected an object");
  const fields = fieldsByKey(desc);
  const seen = new Set<DescField>();
  let oneofs: Map<unknown, DescField> | undefined;
  for (const key of Object.keys(json)) {
    const f = fields.get(key);
    if (f === undefined) continue;
    const v = json[key];
    const at = path === "" ? f.jsonName : `${path}.${f.jsonName}`;
    // Both names of one field, or two members of one oneof: fromJson refuses them.
    if (seen.has(f)) throw fail(f, at, "set multiple times");
    seen.add(f);
    if (f.oneof !== undefined) {
      if (v === null && f.fieldKind === "scalar") continue;
      const other = (oneofs ??= new Map()).get(f.oneof);
      if (other !== undefined) throw fail(f.oneof, at, `oneof set multiple times by ${other.name} and ${f.name}`);
      oneofs.set(f.oneof, f);
    }
    // A fresh message holds every field unset, so null (unset) leaves it as it is.
    if (v === null && !nullable(f)) continue;
    if (f.fieldKind === "list") {
      if (!Array.isArray(v)) throw fail(f, at, "expected an array");
      const items = m[f.localName] as unknown[];
      for (let i = 0; i < v.length; i++) {
        const item = readItem(f, f.listKind, v[i], ctx, `${at}[${i}]`);
        if (item !== IGNORED) items.push(item);
      }
    } else if (f.fieldKind === "map") {
      if (!isJsonObject(v)) throw fail(f, at, "expected an object");
      if (f.mapKey !== ScalarType.STRING) throw fail(f, at, "map keys other than strings are not supported");
      const record = m[f.localName] as Fields;
      for (const k of Object.keys(v)) {
        const value = readItem(f, f.mapKind, v[k], ctx, at);
        if (value === IGNORED) continue;
        if (!wellFormed(k)) throw fail(f, at, "invalid map key: invalid UTF8");
        setOwn(record, k, value);
      }
    } else {
      const value = readItem(f, f.fieldKind, v, ctx, at);
      if (value === IGNORED) continue;
      if (f.oneof === undefined) m[f.localName] = value;
      else m[f.oneof.localName] = { case: f.localName, value };
    }
  }
}

/** One value of field `f` (itself, a list's item or a map's value), of kind `kind`. */
function readItem(f: DescField, kind: "scalar" | "enum" | "message", v: unknown, ctx: Ctx, at: string): unknown {
  if (v === null && !nullable(f)) throw fail(f, at, "must not be null");
  if (kind === "message") return isStructJson(f) ? readStructJson(v, ctx, at) : readMessage(f.message!, v, ctx, at);
  if (kind === "enum") return readEnum(f, f.enum!, v, at);
  return readScalar(f, v, at);
}

function readEnum(f: DescField, e: DescEnum, v: unknown, at: string): unknown {
  if (!e.open) throw fail(f, at, "closed enums are not supported");
  if (v === null) return e.values[0]!.number;
  if (typeof v === "string") return e.values.find((x) => x.name === v || x.jsonName === v)?.number ?? IGNORED;
  if (typeof v !== "number" || !Number.isInteger(v)) throw fail(e, at, "expected an enum name or an integer");
  if (v > 0x7fffffff || v < -0x80000000) throw fail(f, at, "int32 out of range");
  return v;
}

function readScalar(f: DescField, v: unknown, at: string): unknown {
  switch (f.scalar) {
    case ScalarType.STRING:
      if (typeof v !== "string") break;
      if (!wellFormed(v)) throw fail(f, at, "invalid UTF8");
      return v;
    case ScalarType.BOOL:
      if (typeof v === "boolean") return v;
      break;
    case ScalarType.BYTES:
      if (typeof v !== "string") break;
      try {
        // base64 or base64url, padded or not, as fromJson takes it.
        return v === "" ? new Uint8Array(0) : base64Decode(v);
      } catch {
        throw fail(f, at, "invalid base64 string");
      }
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
    case ScalarType.UINT32:
    case ScalarType.FIXED32: {
      // A number, or a string of one without surrounding space.
      const n = typeof v === "string" && v !== "" && v.trim() === v ? Number(v) : v;
      if (typeof n !== "number" || !Number.isInteger(n)) break;
      const unsigned = f.scalar === ScalarType.UINT32 || f.scalar === ScalarType.FIXED32;
      if (unsigned ? n < 0 || n > 0xffffffff : n < -0x80000000 || n > 0x7fffffff) throw fail(f, at, "out of range");
      return n;
    }
    default:
      throw fail(f, at, "this scalar type is not supported");
  }
  throw fail(f, at, `expected ${ScalarType[f.scalar]!.toLowerCase()}`);
}

/** No lone surrogate: what protobuf-es checks of a string. */
function wellFormed(s: string): boolean {
  const native = (s as { isWellFormed?: () => boolean }).isWellFormed;
  if (native) return native.call(s);
  try {
    encodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
}

/** Why a timestamp outside what RFC 3339 can write is refused, read or written (protobuf-es's words). */
export const TIMESTAMP_RANGE = "must be from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z inclusive";

/** Whether `ms` (since the epoch) is within 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z. */
export function inTimestampRange(ms: number): boolean {
  return ms >= -62135596800000 && ms <= 253402300799000;
}

// RFC 3339 with a zone (Z or an offset) and up to 9 fraction digits, as fromJson takes it.
const RFC3339 = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/;

function readTimestamp(m: Fields, json: unknown, path: string): void {
  const what = `message ${WKT}Timestamp`;
  if (typeof json !== "string") throw fail(what, path, "expected a string");
  const parts = RFC3339.exec(json);
  const ms = parts === null ? NaN : Date.parse(parts[1]! + parts[3]!);
  if (Number.isNaN(ms)) throw fail(what, path, "invalid RFC 3339 string");
  if (!inTimestampRange(ms)) throw fail(what, path, TIMESTAMP_RANGE);
  m.seconds = BigInt(ms / 1000);
  if (parts![2] !== undefined) m.nanos = Number(parts![2].padEnd(9, "0"));
}

/** The schemas a Value refers to, by its fields: no import of protobuf-es's well-known types. */
function valueParts(value: DescMessage): { struct: DescMessage; list: DescMessage } {
  return { struct: value.field.structValue!.message!, list: value.field.listValue!.message! };
}

function readValue(desc: DescMessage, m: Fields, json: unknown, ctx: Ctx, path: string): void {
  deeper(ctx, `${WKT}Value`, path);
  let kind: { case: string; value: unknown };
  switch (typeof json) {
    case "number":
      kind = { case: "numberValue", value: json };
      break;
    case "string":
      kind = { case: "stringValue", value: json };
      break;
    case "boolean":
      kind = { case: "boolValue", value: json };
      break;
    case "object": {
      if (json === null) {
        kind = { case: "nullValue", value: 0 };
        break;
      }
      const { struct, list } = valueParts(desc);
      const inner = create(Array.isArray(json) ? list : struct) as Fields;
      if (Array.isArray(json)) readList(list, inner, json, ctx, path);
      else readStruct(struct, inner, json, ctx, path);
      kind = { case: Array.isArray(json) ? "listValue" : "structValue", value: inner };
      break;
    }
    default:
      throw fail(`message ${desc.typeName}`, path, "not a JSON value");
  }
  m.kind = kind;
  ctx.depth--;
}

/**
 * A Struct field (outside a Value) holds its JSON object itself, as
 * protobuf-es keeps it (`StructJson`): the same object `fromJson` makes,
 * checked and counted against the depth as it reads a Struct.
 */
export function isStructJson(f: DescField): boolean {
  return f.message?.typeName === `${WKT}Struct` && f.parent.typeName !== `${WKT}Value`;
}

function readStructJson(json: unknown, ctx: Ctx, path: string): Fields {
  deeper(ctx, `message ${WKT}Struct`, path);
  if (!isJsonObject(json)) throw fail(`message ${WKT}Struct`, path, "expected an object");
  const out: Fields = {};
  for (const key of Object.keys(json)) setOwn(out, key, copyValue(json[key], ctx, path));
  ctx.depth--;
  return out;
}

function copyValue(json: unknown, ctx: Ctx, path: string): unknown {
  deeper(ctx, `${WKT}Value`, path);
  let out: unknown = json;
  if (Array.isArray(json)) out = json.map((item) => copyValue(item, ctx, path));
  else if (isJsonObject(json)) {
    const copy: Fields = {};
    for (const key of Object.keys(json)) setOwn(copy, key, copyValue(json[key], ctx, path));
    out = copy;
  } else if (json !== null && typeof json !== "number" && typeof json !== "string" && typeof json !== "boolean") {
    throw fail(`message ${WKT}Value`, path, "not a JSON value");
  }
  ctx.depth--;
  return out;
}

function readStruct(desc: DescMessage, m: Fields, json: unknown, ctx: Ctx, path: string): void {
  if (!isJsonObject(json)) throw fail(desc, path, "expected an object");
  const value = desc.field.fields!.message!;
  const fields = m.fields as Fields;
  for (const key of Object.keys(json)) {
    const v = create(value) as Fields;
    readValue(value, v, json[key], ctx, path);
    setOwn(fields, key, v);
  }
}

function readList(desc: DescMessage, m: Fields, json: unknown, ctx: Ctx, path: string): void {
  if (!Array.isArray(json)) throw fail(desc, path, "expected an array");
  const value = desc.field.values!.message!;
  const values = m.values as unknown[];
  for (const item of json) {
    const v = create(value) as Fields;
    readValue(value, v, item, ctx, path);
    values.push(v);
  }
}
