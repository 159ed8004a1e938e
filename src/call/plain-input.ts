/**
 * Requests written as plain JavaScript: the init shape of the generated
 * types (`{ content: { case: "text", value } }`, `Role.USER`), the spec's
 * JSON shape (`{ text }`, `"ROLE_USER"`, RFC 3339 timestamps, base64
 * bytes), or a mix, as code typed `any` or read from a file writes them.
 * Each is read into the init shape that `create()` takes, so a part
 * written as `{ text: "hi" }` is sent with its text, not as an empty part.
 * What matches neither shape fails here, before anything is sent, with an
 * InvalidParamsError naming the field's path (`message.parts[0].text`) and
 * never its value, which may be a credential.
 *
 * Cost: a value that already is a message of its type (`create()`,
 * `userMessage`, `text()`) is taken as it is, without a walk; a plain
 * object is walked once per call, as `create()` walks it anyway, and is
 * copied only where something had to be read differently.
 */
import type { DescEnum, DescField, DescMessage, JsonValue } from "@bufbuild/protobuf";
import type { isMessage as IsMessage } from "@bufbuild/protobuf";
import type { messageFromJson as MessageFromJson } from "../protocol/proto-json.js";
import type { base64Decode as Base64Decode } from "@bufbuild/protobuf/wire";
import type { InvalidParamsError } from "../errors/family.js";

type Plain = Record<string, unknown>;

/**
 * What this module needs of protobuf-es, of the ProtoJSON reader and of the error family, given by
 * its one caller (call/request.ts) instead of imported: the module loads
 * on demand, and imports it shared with the core bundle would split that
 * bundle into more chunks, each gzipped on its own.
 */
export interface PlainInputTools {
  messageFromJson: typeof MessageFromJson;
  isMessage: typeof IsMessage;
  base64Decode: typeof Base64Decode;
  invalid: (message: string) => InvalidParamsError;
}

let tools: PlainInputTools;

/** `plainInput` with the tools it works with (see PlainInputTools). */
export function plainInputWith(given: PlainInputTools): typeof plainInput {
  tools = given;
  return plainInput;
}

/**
 * `value` as an init shape of `schema`, `path` naming it in errors (a
 * request's top level: ""). The value itself when nothing needs reading.
 *
 * @throws InvalidParamsError naming the path of the first field that is of neither shape.
 */
export function plainInput(schema: DescMessage, value: unknown, path = ""): unknown {
  if (tools.isMessage(value, schema)) return value;
  if (!isPlainObject(value)) throw wrong(path, `is not a ${schema.typeName}`);
  const given = value.$typeName;
  if (given !== undefined && given !== schema.typeName) throw wrong(path, `is a ${String(given).slice(0, 100)}, not a ${schema.typeName}`);
  let out: Plain | undefined;
  // Which key set each oneof: a second one for the same oneof is an error, whichever shape either has.
  let chosen: Map<string, string> | undefined;
  const choose = (group: string, key: string, at: string) => {
    const before = (chosen ??= new Map()).get(group);
    if (before !== undefined) throw wrong(at, `and ${before} are both set, but only one of ${group} may be`);
    chosen.set(group, key);
  };
  const set = (key: string, v: unknown, drop?: string) => {
    out ??= { ...value };
    if (drop !== undefined) delete out[drop];
    out[key] = v;
  };
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (key === "$typeName" || v === undefined) continue;
    const at = path ? `${path}.${key}` : key;
    const oneof = schema.oneofs.find((o) => o.localName === key);
    if (oneof) {
      // The init shape of a oneof: { case, value }.
      if (!isPlainObject(v)) throw wrong(at, "is not a { case, value } object");
      if (v.case === undefined) continue;
      const member = oneof.fields.find((f) => f.localName === v.case);
      if (!member) throw wrong(`${at}.case`, `names no field of ${oneof.name}`);
      choose(key, key, at);
      const read = fieldValue(member, v.value, `${at}.value`);
      if (read !== v.value) set(key, { case: v.case, value: read });
      continue;
    }
    const field = fieldNamed(schema, key);
    if (!field) throw wrong(at, `is not a field of ${schema.typeName}`);
    if (field.oneof) {
      // The spec's JSON writes a oneof's member as a field of its own: { text: "hi" }.
      const group = field.oneof.localName;
      choose(group, key, at);
      set(group, { case: field.localName, value: fieldValue(field, v, at) }, key);
      continue;
    }
    const read = fieldValue(field, v, at);
    if (read !== v || key !== field.localName) set(field.localName, read, key);
  }
  return out ?? value;
}

/** The field `key` names: its local name (init shape), JSON name or proto name (the spec's JSON). */
function fieldNamed(schema: DescMessage, key: string): DescField | undefined {
  return schema.field[key] ?? schema.fields.find((f) => f.jsonName === key || f.name === key);
}

/** One element of a list field, or one value of a map field, read by the kind of what the field holds. */
function elementValue(field: DescField & { fieldKind: "list" | "map" }, e: unknown, at: string): unknown {
  const kind = field.fieldKind === "list" ? field.listKind : field.mapKind;
  // Which of these the field has follows from `kind`, which TypeScript cannot see through.
  const held = field as { scalar?: number; enum?: DescEnum; message?: DescMessage };
  if (kind === "scalar") return scalar(held.scalar!, e, at);
  if (kind === "enum") return enumValue(held.enum!, e, at);
  return messageValue(held.message!, e, at);
}

/** One field's value, read from either shape. */
function fieldValue(field: DescField, v: unknown, at: string): unknown {
  switch (field.fieldKind) {
    case "scalar":
      return scalar(field.scalar, v, at);
    case "enum":
      return enumValue(field.enum, v, at);
    case "message":
      return messageValue(field.message, v, at);
    case "list": {
      if (!Array.isArray(v)) throw wrong(at, "is not a list");
      let list: unknown[] | undefined;
      v.forEach((e: unknown, i) => {
        const read = elementValue(field, e, `${at}[${i}]`);
        if (read !== e) (list ??= [...v])[i] = read;
      });
      return list ?? v;
    }
    case "map": {
      if (!isPlainObject(v)) throw wrong(at, "is not an object");
      let map: Plain | undefined;
      for (const [k, e] of Object.entries(v)) {
        const read = elementValue(field, e, `${at}.${k}`);
        if (read !== e) (map ??= { ...v })[k] = read;
      }
      return map ?? v;
    }
  }
}

function messageValue(schema: DescMessage, v: unknown, at: string): unknown {
  switch (schema.typeName) {
    // Struct fields are JSON objects in both shapes.
    case "google.protobuf.Struct":
      if (!isPlainObject(v)) throw wrong(at, "is not a JSON object");
      checkJson(v, at);
      return v;
    case "google.protobuf.Value":
      // Any JSON (a data part's), unless a Value message was made for it (`data()`).
      return tools.isMessage(v, schema) ? v : fromJsonAt(schema, v, at);
    case "google.protobuf.Timestamp": {
      if (typeof v === "string") return fromJsonAt(schema, v, at);
      const read = plainInput(schema, v, at);
      checkTimestamp(read, at);
      return read;
    }
  }
  return plainInput(schema, v, at);
}

/** RFC 3339 can write 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z, and nothing else. */
function checkTimestamp(t: unknown, at: string): void {
  const { seconds = 0n, nanos = 0 } = t as { seconds?: bigint; nanos?: number };
  if (seconds < -62135596800n || seconds > 253402300799n || !(nanos >= 0 && nanos <= 999_999_999)) {
    throw wrong(at, "is outside the range of a timestamp (years 1 to 9999, nanos 0 to 999999999)");
  }
}

/** Deepest JSON a Struct may hold: protobuf-es reads no deeper. */
const MAX_JSON_DEPTH = 100;

/**
 * Refuses, naming its path, what a Struct cannot carry: a number that is
 * not finite, `undefined`, a bigint, a function or symbol, an object that
 * is not plain (a Date, a Map), a cycle, or nesting past 100 levels. Walked
 * with a stack of its own, so depth cannot overflow the call stack.
 */
function checkJson(root: Plain, at: string): void {
  const pending: Array<[unknown, string, number]> = [[root, at, 0]];
  const open = new Set<unknown>();
  while (pending.length > 0) {
    const [v, path, depth] = pending.pop()!;
    if (v === null || typeof v === "string" || typeof v === "boolean") continue;
    if (typeof v === "number") {
      if (Number.isFinite(v)) continue;
      throw wrong(path, "is not a finite number, which JSON cannot carry");
    }
    if (!(Array.isArray(v) || isPlainObject(v)))
      throw wrong(
        path,
        `is ${v === undefined ? "undefined" : `a ${typeof v === "object" ? "non-plain object" : typeof v}`}, which JSON cannot carry`,
      );
    if (depth >= MAX_JSON_DEPTH) throw wrong(path, `nests deeper than ${MAX_JSON_DEPTH} levels`);
    if (open.has(v)) throw wrong(path, "refers back to itself");
    open.add(v);
    for (const [k, e] of Object.entries(v)) pending.push([e, Array.isArray(v) ? `${path}[${k}]` : `${path}.${k}`, depth + 1]);
  }
}

function enumValue(desc: DescEnum, v: unknown, at: string): number {
  if (typeof v === "number" && Number.isInteger(v)) return v;
  // The spec's JSON names the value: "ROLE_USER", "TASK_STATE_WORKING".
  const named = typeof v === "string" ? desc.values.find((e) => e.name === v) : undefined;
  if (named) return named.number;
  throw wrong(at, `is not a value of ${desc.typeName} (a number or a name such as ${(desc.values[1] ?? desc.values[0])?.name})`);
}

// protobuf's scalar type numbers (ScalarType), written out: see PlainInputTools for why nothing is imported.
const DOUBLE = 1;
const FLOAT = 2;
const BOOL = 8;
const STRING = 9;
const BYTES = 12;
const INT64: ReadonlySet<number> = new Set([3, 4, 6, 16, 18]);
const INTEGER = /^-?\d+$/;

function scalar(type: number, v: unknown, at: string): unknown {
  switch (type) {
    case STRING:
      if (typeof v === "string") return v;
      throw wrong(at, "is not a string");
    case BOOL:
      if (typeof v === "boolean") return v;
      throw wrong(at, "is not a boolean");
    case BYTES:
      if (v instanceof Uint8Array) return v;
      // The spec's JSON carries bytes as base64.
      if (typeof v === "string") {
        try {
          return tools.base64Decode(v);
        } catch {
          // Reported below.
        }
      }
      throw wrong(at, "is neither bytes (Uint8Array) nor base64");
    case DOUBLE:
    case FLOAT:
      if (typeof v === "number") return v;
      throw wrong(at, "is not a number");
  }
  // Whole numbers in the range of the type's bits: a value past it would be cut short on the wire, or refused there.
  const [min, max] = INTEGER_RANGES[type] ?? [-(2n ** 31n), 2n ** 31n - 1n];
  const n =
    typeof v === "bigint"
      ? v
      : (typeof v === "number" && Number.isInteger(v)) || (typeof v === "string" && INTEGER.test(v))
        ? BigInt(v)
        : undefined;
  if (n === undefined) throw wrong(at, "is not an integer");
  if (n < min || n > max)
    throw wrong(at, `is outside the range of a ${INT64.has(type) ? 64 : 32}-bit ${min < 0n ? "" : "unsigned "}integer`);
  return INT64.has(type) ? n : Number(n);
}

/** The range of each integer type but the signed 32-bit ones: uint32, fixed32, the 64-bit ones. */
const INTEGER_RANGES: Readonly<Record<number, readonly [bigint, bigint]>> = {
  3: [-(2n ** 63n), 2n ** 63n - 1n],
  4: [0n, 2n ** 64n - 1n],
  6: [0n, 2n ** 64n - 1n],
  7: [0n, 2n ** 32n - 1n],
  13: [0n, 2n ** 32n - 1n],
  16: [-(2n ** 63n), 2n ** 63n - 1n],
  18: [-(2n ** 63n), 2n ** 63n - 1n],
};

function fromJsonAt(schema: DescMessage, v: unknown, at: string): unknown {
  try {
    return tools.messageFromJson(schema, v as JsonValue);
  } catch {
    throw wrong(at, `is not a ${schema.typeName} in the spec's JSON`);
  }
}

/** An object written as a literal or parsed from JSON, not a class instance such as a Date or a Map. */
function isPlainObject(v: unknown): v is Plain {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

// The path and what is wrong, never the value: it may be a token or a secret.
function wrong(at: string, what: string): InvalidParamsError {
  return tools.invalid(`the request's ${at || "value"} ${what}`);
}
