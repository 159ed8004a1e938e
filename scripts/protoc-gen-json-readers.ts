// protoc-gen-json-readers: generates fast ProtoJSON readers for a few messages.
//
// Decoding a stream event with protobuf-es `fromJson` walks the schema at run
// time and allocates as it goes. This plugin writes that walk out ahead of
// time: for each proto file that declares one of the `roots`, it generates
// <name>_json_readers.ts next to protoc-gen-es's <name>_pb.ts, with one reader
// for every message reachable from the roots through message fields (lists,
// map values and oneof members included; well-known types excepted).
//
// A reader takes a value from JSON.parse and returns either exactly what
// `fromJson(schema, json, { ignoreUnknownFields: true })` returns (equal
// values, same own keys in the same order at every level), or undefined when
// the JSON is outside the plain, common case: unknown keys, fields under their
// proto name, null, enum numbers, numbers as strings, bytes, 64-bit integers,
// timestamps with offsets, and so on. On undefined the caller calls fromJson,
// so every edge case, and every error, stays protobuf-es's.
//
// A reader also gives up where a value the proto marks REQUIRED
// (google.api.field_behavior) is absent: a string empty, a message unset, in
// any message it reads; and a root's oneof unset. What it returns is then a
// whole response, which the client's check of REQUIRED fields
// (src/protocol/response-shape.ts) would pass, so the client skips that
// check; on undefined the check runs on fromJson's message and names what
// is missing.
//
// Options (buf.gen.yaml `opt`), besides protoplugin's target and
// import_extension:
//   roots=<full message name>   one entry per root message. buf joins `opt`
//                               entries with commas, and commas separate
//                               options, so a list cannot share one entry.
//
// Run by `buf generate` as a local plugin: node --import tsx <this file>.

import {
  createEcmaScriptPlugin,
  runNodeJs,
  type GeneratedFile,
  type ImportSymbol,
  type Printable,
  type Schema,
} from "@bufbuild/protoplugin";
import {
  type DescEnum,
  type DescField,
  type DescFile,
  type DescMessage,
  type DescOneof,
  EDITION_PROTO2,
  EDITION_PROTO3,
  enumHasCustomJsonNames,
  isRequiredField,
  isWellKnown,
  literalKey,
  lowerFirst,
  fullNamesOption,
  NameScope,
  PRESENCE_IMPLICIT,
  property,
  SCALAR,
  typeNameInFile,
  upperFirst,
  type ValueKind,
  valueKind,
} from "./proto-plugin-shared.js";

interface Options {
  roots: string[];
}

const PLUGIN_NAME = "protoc-gen-json-readers";
// Printed in the header of every generated file.
const PLUGIN_VERSION = "v1";

// fromJson's default recursion limit.
const RECURSION_LIMIT = 100;

const protocGenJsonReaders = createEcmaScriptPlugin<Options>({
  name: PLUGIN_NAME,
  version: PLUGIN_VERSION,
  parseOptions,
  generateTs,
});

function parseOptions(rawOptions: { key: string; value: string }[]): Options {
  return { roots: fullNamesOption(rawOptions, "roots", "message", "lf.a2a.v1.StreamResponse") };
}

function generateTs(schema: Schema<Options>): void {
  const rootsByFile = new Map<DescFile, DescMessage[]>();
  for (const typeName of schema.options.roots) {
    const root = findRoot(schema, typeName);
    if (root === undefined) continue;
    const roots = rootsByFile.get(root.file) ?? [];
    roots.push(root);
    rootsByFile.set(root.file, roots);
  }
  // In request order, so that output does not depend on the order of options.
  for (const file of schema.files) {
    const roots = rootsByFile.get(file);
    if (roots !== undefined) new ReaderFile(schema, file, roots).generate();
  }
}

/**
 * buf runs the plugin once for each input and directory, so most requests hold
 * none of the roots; but a root must be in a request that holds its package.
 */
function findRoot(schema: Schema<Options>, typeName: string): DescMessage | undefined {
  for (const file of schema.files) {
    for (const desc of schema.typesInFile(file)) {
      if (desc.kind === "message" && desc.typeName === typeName) return desc;
    }
  }
  const packageName = typeName.substring(0, typeName.lastIndexOf("."));
  if (packageName !== "" && schema.files.some((file) => file.proto.package === packageName)) {
    throw new Error(`roots=${typeName}: no such message in package ${packageName}`);
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// What the generated code can read. Everything else gives up when present.

/** Why a message gets a reader that always gives up, or undefined. */
function messageUnsupportedReason(message: DescMessage): string | undefined {
  if (needsPrototypeChain(message)) {
    return "create() gives it a prototype for field presence";
  }
  const jsonNames = new Set(message.fields.map((field) => field.jsonName));
  for (const field of message.fields) {
    if (field.name !== field.jsonName && jsonNames.has(field.name)) {
      return `the proto name of ${field.name} is the JSON name of another field`;
    }
    if (field.localName === "__proto__") return "a field is named __proto__";
  }
  for (const oneof of message.oneofs) {
    if (oneof.localName === "__proto__") return "a oneof is named __proto__";
  }
  return undefined;
}

/** Mirrors create(): proto2, and editions with explicit presence, use a prototype. */
function needsPrototypeChain(message: DescMessage): boolean {
  switch (message.file.edition as number) {
    case EDITION_PROTO3:
      return false;
    case EDITION_PROTO2:
      return true;
    default:
      return message.fields.some(
        (field) => field.presence !== PRESENCE_IMPLICIT && field.fieldKind !== "message" && field.oneof === undefined,
      );
  }
}

/** Why values of this kind are left to fromJson, or undefined. */
function valueUnsupportedReason(kind: ValueKind): string | undefined {
  switch (kind.kind) {
    case "scalar":
      switch (kind.scalar) {
        case SCALAR.BYTES:
          return "it decodes base64";
        case SCALAR.INT64:
        case SCALAR.UINT64:
        case SCALAR.SINT64:
        case SCALAR.FIXED64:
        case SCALAR.SFIXED64:
          return "it converts 64-bit integers";
      }
      return undefined;
    case "enum":
      return enumHasCustomJsonNames(kind.desc) ? `${kind.desc.typeName} has custom JSON names` : undefined;
    case "message":
      return !isWellKnown(kind.desc) && messageUnsupportedReason(kind.desc) !== undefined
        ? `${kind.desc.typeName} has no reader`
        : undefined;
  }
}

function fieldUnsupportedReason(field: DescField): string | undefined {
  if (field.fieldKind === "map" && field.mapKey !== SCALAR.STRING) {
    return "it converts map keys other than strings";
  }
  return valueUnsupportedReason(valueKind(field));
}

/** Messages with a generated reader, in declaration order of their files. */
function reachableMessages(schema: Schema<Options>, roots: readonly DescMessage[]): DescMessage[] {
  const reached = new Set<DescMessage>();
  const pending = [...roots];
  for (let message = pending.pop(); message !== undefined; message = pending.pop()) {
    if (reached.has(message)) continue;
    reached.add(message);
    if (messageUnsupportedReason(message) !== undefined) continue;
    for (const field of message.fields) {
      if (fieldUnsupportedReason(field) !== undefined) continue;
      const kind = valueKind(field);
      if (kind.kind === "message" && !isWellKnown(kind.desc)) pending.push(kind.desc);
    }
  }
  const ordered: DescMessage[] = [];
  for (const file of schema.allFiles) {
    for (const desc of schema.typesInFile(file)) {
      if (desc.kind === "message" && reached.has(desc)) ordered.push(desc);
    }
  }
  return ordered;
}

// ---------------------------------------------------------------------------
// Names in the generated code.

// Local names of every reader; field variables steer clear of them.
const READER_LOCALS = ["json", "depth", "keys", "lateKeys", "message", "value", "item", "i", "key"];

/** `key: value` in an object literal, or the shorthand `key`. */
function propertyAssignment(key: string, value: string): string {
  return key === value ? key : `${literalKey(key)}: ${value}`;
}

/** Reads a JSON key. Keys that Object.prototype has must be own keys. */
function readKey(key: string): string {
  return key in Object.prototype
    ? `Object.hasOwn(json, ${JSON.stringify(key)}) ? ${property("json", key)} : undefined`
    : property("json", key);
}

/** Whether the JSON has a key. */
function hasKey(key: string): string {
  return key in Object.prototype ? `Object.hasOwn(json, ${JSON.stringify(key)})` : `${property("json", key)} !== undefined`;
}

// ---------------------------------------------------------------------------
// Helpers printed into the generated file, only those it uses.

type HelperName =
  | "RECURSION_LIMIT"
  | "JsonFields"
  | "isJsonObject"
  | "countKeys"
  | "keysInOrder"
  | "isWellFormedString"
  | "isInt32"
  | "isUint32"
  | "isBoolean"
  | "isDouble"
  | "isFloat"
  | "readTimestampAtDepth"
  | "readStructAtDepth"
  | "readValueAtDepth"
  | "readWellKnownAtDepth";

const HELPER_DEPENDENCIES: Readonly<Record<HelperName, readonly HelperName[]>> = {
  RECURSION_LIMIT: [],
  JsonFields: [],
  isJsonObject: ["JsonFields"],
  countKeys: ["JsonFields"],
  keysInOrder: ["JsonFields"],
  isWellFormedString: [],
  isInt32: [],
  isUint32: [],
  isBoolean: [],
  isDouble: [],
  isFloat: ["isDouble"],
  readTimestampAtDepth: ["RECURSION_LIMIT"],
  readStructAtDepth: ["RECURSION_LIMIT", "JsonFields", "isJsonObject"],
  readValueAtDepth: ["RECURSION_LIMIT", "JsonFields"],
  readWellKnownAtDepth: ["RECURSION_LIMIT"],
};

// Also the order in which helpers are printed.
const HELPER_NAMES = Object.keys(HELPER_DEPENDENCIES) as HelperName[];

// Module-level names the helpers declare besides their own name.
const HELPER_INNER_NAMES = [
  "nativeIsWellFormed",
  "LONE_SURROGATE",
  "int64Supported",
  "lastHour",
  "lastHourSeconds",
  "lastSeconds",
  "lastSecondsBigInt",
  "readHour",
  "readTwoDigits",
  "daysInMonth",
  "daysSinceEpoch",
  "copyJsonObject",
  "copyJsonArray",
  "copyJsonValue",
  "toValue",
  "toStruct",
  "toListValue",
];

function printHelper(f: GeneratedFile, name: HelperName): void {
  const wkt = "@bufbuild/protobuf/wkt";
  const protobuf = "@bufbuild/protobuf";
  switch (name) {
    case "RECURSION_LIMIT":
      f.print`// fromJson's default recursion limit: a reader gives up where fromJson would throw.`;
      f.print`const RECURSION_LIMIT = ${RECURSION_LIMIT};`;
      break;
    case "JsonFields":
      f.print`/** An object from JSON.parse: its own enumerable keys are its JSON keys. */`;
      f.print`type JsonFields = { readonly [key: string]: unknown };`;
      break;
    case "isJsonObject":
      f.print`function isJsonObject(json: unknown): json is JsonFields {`;
      f.print`  return typeof json === "object" && json !== null && !Array.isArray(json);`;
      f.print`}`;
      break;
    case "countKeys":
      f.print`/**`;
      f.print` * A reader counts the keys it reads. A different count means an unknown key,`;
      f.print` * or a field under its proto name: fromJson decides.`;
      f.print` */`;
      f.print`function countKeys(json: JsonFields): number {`;
      f.print`  let count = 0;`;
      f.print`  for (const _ in json) count++;`;
      f.print`  return count;`;
      f.print`}`;
      break;
    case "keysInOrder":
      f.print`/**`;
      f.print` * Late keys are the fields a new message does not have: message fields and`;
      f.print` * fields with explicit presence. fromJson adds them in the order of the JSON,`;
      f.print` * a reader in declaration order: it gives up on two of them in another order.`;
      f.print` */`;
      f.print`function keysInOrder(json: JsonFields, lateKeys: readonly string[]): boolean {`;
      f.print`  let next = 0;`;
      f.print`  for (const key in json) {`;
      f.print`    const index = lateKeys.indexOf(key);`;
      f.print`    if (index === -1) continue;`;
      f.print`    if (index < next) return false;`;
      f.print`    next = index + 1;`;
      f.print`  }`;
      f.print`  return true;`;
      f.print`}`;
      break;
    case "isWellFormedString":
      f.print`// String.prototype.isWellFormed is ES2024; without it, a regular expression in`;
      f.print`// Unicode mode finds lone surrogates (category Cs), which pairs never match.`;
      f.print`const nativeIsWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;`;
      f.print`const LONE_SURROGATE = /\\p{Cs}/u;`;
      f.print``;
      f.print`/** fromJson rejects a string field with a lone surrogate: it has no UTF-8 form. */`;
      f.print`function isWellFormedString(json: unknown): json is string {`;
      f.print`  if (typeof json !== "string") return false;`;
      f.print`  return nativeIsWellFormed !== undefined ? nativeIsWellFormed.call(json) : !LONE_SURROGATE.test(json);`;
      f.print`}`;
      break;
    case "isInt32":
      f.print`/** int32, sint32, sfixed32: fromJson also reads strings, which give up here. */`;
      f.print`function isInt32(json: unknown): json is number {`;
      f.print`  return typeof json === "number" && (json | 0) === json;`;
      f.print`}`;
      break;
    case "isUint32":
      f.print`/** uint32, fixed32: fromJson also reads strings, which give up here. */`;
      f.print`function isUint32(json: unknown): json is number {`;
      f.print`  return typeof json === "number" && json >>> 0 === json;`;
      f.print`}`;
      break;
    case "isBoolean":
      f.print`function isBoolean(json: unknown): json is boolean {`;
      f.print`  return typeof json === "boolean";`;
      f.print`}`;
      break;
    case "isDouble":
      f.print`/** JSON.parse reads a number too large for a double as Infinity, which fromJson rejects. */`;
      f.print`function isDouble(json: unknown): json is number {`;
      f.print`  return typeof json === "number" && Number.isFinite(json);`;
      f.print`}`;
      break;
    case "isFloat":
      f.print`function isFloat(json: unknown): json is number {`;
      f.print`  return isDouble(json) && Number.isFinite(Math.fround(json));`;
      f.print`}`;
      break;
    case "readTimestampAtDepth": {
      const timestamp = f.import("Timestamp", wkt, true);
      const protoInt64 = f.import("protoInt64", protobuf);
      f.print`// Without BigInt, 64-bit integers are strings: timestamps are left to fromJson.`;
      f.print`const int64Supported = ${protoInt64}.supported;`;
      f.print``;
      f.print`/**`;
      f.print` * Reads the common form of RFC 3339, "2026-01-01T00:00:00Z" with 0 to 9`;
      f.print` * fraction digits, from 0001 to 9999 like fromJson. Offsets, lowercase`;
      f.print` * letters, leap seconds and dates that do not exist give up.`;
      f.print` */`;
      f.print`function readTimestampAtDepth(json: unknown, depth: number): ${timestamp} | undefined {`;
      f.print`  if (typeof json !== "string" || depth > RECURSION_LIMIT || !int64Supported) return undefined;`;
      f.print`  const length = json.length;`;
      f.print`  if (length !== 20 && (length < 22 || length > 30)) return undefined;`;
      f.print`  if (json.charCodeAt(16) !== 0x3a || json.charCodeAt(length - 1) !== 0x5a) return undefined; // : Z`;
      f.print`  const hourSeconds = json.startsWith(lastHour) ? lastHourSeconds : readHour(json);`;
      f.print`  // NaN for a non-digit, which fails every range check below.`;
      f.print`  const minute = readTwoDigits(json, 14);`;
      f.print`  const second = readTwoDigits(json, 17);`;
      f.print`  if (!(minute <= 59 && second <= 59) || Number.isNaN(hourSeconds)) return undefined;`;
      f.print`  let nanos = 0;`;
      f.print`  if (length > 20) {`;
      f.print`    if (json.charCodeAt(19) !== 0x2e) return undefined; // .`;
      f.print`    // The digits between "." and "Z", then zeros up to nine digits.`;
      f.print`    for (let i = 20; i < 29; i++) {`;
      f.print`      const digit = i < length - 1 ? json.charCodeAt(i) - 0x30 : 0;`;
      f.print`      if (digit < 0 || digit > 9) return undefined;`;
      f.print`      nanos = nanos * 10 + digit;`;
      f.print`    }`;
      f.print`  }`;
      f.print`  const seconds = hourSeconds + minute * 60 + second;`;
      f.print`  if (seconds !== lastSeconds) {`;
      f.print`    lastSeconds = seconds;`;
      f.print`    lastSecondsBigInt = BigInt(seconds);`;
      f.print`  }`;
      f.print`  return { $typeName: "google.protobuf.Timestamp", seconds: lastSecondsBigInt, nanos };`;
      f.print`}`;
      f.print``;
      f.print`// The timestamps of one stream mostly share their hour, and often their second.`;
      f.print`// Reading the date takes most of a timestamp's time, so the last hour read is`;
      f.print`// kept ("2026-01-01T10:", as written, and its seconds since the epoch), and the`;
      f.print`// last seconds' bigint, which is immutable. What they hold is a function of`;
      f.print`// the text alone: a reader's result never depends on what it read before.`;
      f.print`// Until a first hour is read, no timestamp starts with a NUL.`;
      f.print`let lastHour = "\\0";`;
      f.print`let lastHourSeconds = NaN;`;
      f.print`let lastSeconds = NaN;`;
      f.print`let lastSecondsBigInt = BigInt(0);`;
      f.print``;
      f.print`/** Seconds since the epoch at the hour that begins \`text\` ("2026-01-01T10:"), or NaN; kept as the last hour. */`;
      f.print`function readHour(text: string): number {`;
      f.print`  if (`;
      f.print`    text.charCodeAt(4) !== 0x2d || // -`;
      f.print`    text.charCodeAt(7) !== 0x2d ||`;
      f.print`    text.charCodeAt(10) !== 0x54 || // T`;
      f.print`    text.charCodeAt(13) !== 0x3a // :`;
      f.print`  ) {`;
      f.print`    return NaN;`;
      f.print`  }`;
      f.print`  const year = readTwoDigits(text, 0) * 100 + readTwoDigits(text, 2);`;
      f.print`  const month = readTwoDigits(text, 5);`;
      f.print`  const day = readTwoDigits(text, 8);`;
      f.print`  const hour = readTwoDigits(text, 11);`;
      f.print`  if (!(year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) && hour <= 23)) return NaN;`;
      f.print`  lastHour = text.slice(0, 14);`;
      f.print`  lastHourSeconds = daysSinceEpoch(year, month, day) * 86400 + hour * 3600;`;
      f.print`  return lastHourSeconds;`;
      f.print`}`;
      f.print``;
      f.print`function readTwoDigits(text: string, start: number): number {`;
      f.print`  const tens = text.charCodeAt(start) - 0x30;`;
      f.print`  const ones = text.charCodeAt(start + 1) - 0x30;`;
      f.print`  return tens >= 0 && tens <= 9 && ones >= 0 && ones <= 9 ? tens * 10 + ones : NaN;`;
      f.print`}`;
      f.print``;
      f.print`function daysInMonth(year: number, month: number): number {`;
      f.print`  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;`;
      f.print`  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;`;
      f.print`}`;
      f.print``;
      f.print`/**`;
      f.print` * Days from 1970-01-01 in the proleptic Gregorian calendar, as Date.parse`;
      f.print` * counts them. Years start in March here, so that February 29 ends a year, and`;
      f.print` * repeat every 400 years (146097 days).`;
      f.print` */`;
      f.print`function daysSinceEpoch(year: number, month: number, day: number): number {`;
      f.print`  const marchYear = month > 2 ? year : year - 1;`;
      f.print`  const era = Math.floor(marchYear / 400);`;
      f.print`  const yearOfEra = marchYear - era * 400;`;
      f.print`  const monthFromMarch = month > 2 ? month - 3 : month + 9;`;
      f.print`  // Month lengths from March run 31, 30, 31, 30, 31, 31, 30, 31, 30, 31, 31.`;
      f.print`  const dayOfYear = Math.floor((153 * monthFromMarch + 2) / 5) + day - 1;`;
      f.print`  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;`;
      f.print`  // 1970-03-01 is day 719468 from 0000-03-01.`;
      f.print`  return era * 146097 + dayOfEra - 719468;`;
      f.print`}`;
      break;
    }
    case "readStructAtDepth": {
      const jsonObject = f.import("JsonObject", protobuf, true);
      const jsonValue = f.import("JsonValue", protobuf, true);
      f.print`/**`;
      f.print` * A google.protobuf.Struct field holds a JsonObject: a copy of the JSON, with`;
      f.print` * the depth fromJson counts, one more for the Struct and one for each value.`;
      f.print` */`;
      f.print`function readStructAtDepth(json: unknown, depth: number): ${jsonObject} | undefined {`;
      f.print`  if (!isJsonObject(json) || depth > RECURSION_LIMIT) return undefined;`;
      f.print`  return copyJsonObject(json, depth + 1);`;
      f.print`}`;
      f.print``;
      f.print`function copyJsonObject(json: JsonFields, valueDepth: number): ${jsonObject} | undefined {`;
      f.print`  const copy: ${jsonObject} = {};`;
      f.print`  for (const key in json) {`;
      f.print`    // Assigning "__proto__" would set the prototype, not a key.`;
      f.print`    if (key === "__proto__") return undefined;`;
      f.print`    const value = copyJsonValue(json[key], valueDepth);`;
      f.print`    if (value === undefined) return undefined;`;
      f.print`    copy[key] = value;`;
      f.print`  }`;
      f.print`  return copy;`;
      f.print`}`;
      f.print``;
      f.print`function copyJsonArray(json: readonly unknown[], itemDepth: number): ${jsonValue}[] | undefined {`;
      f.print`  const copy: ${jsonValue}[] = [];`;
      f.print`  for (let i = 0; i < json.length; i++) {`;
      f.print`    const item = copyJsonValue(json[i], itemDepth);`;
      f.print`    if (item === undefined) return undefined;`;
      f.print`    copy.push(item);`;
      f.print`  }`;
      f.print`  return copy;`;
      f.print`}`;
      f.print``;
      f.print`function copyJsonValue(json: unknown, depth: number): ${jsonValue} | undefined {`;
      f.print`  if (depth > RECURSION_LIMIT) return undefined;`;
      f.print`  switch (typeof json) {`;
      f.print`    case "string":`;
      f.print`    case "number":`;
      f.print`    case "boolean":`;
      f.print`      return json;`;
      f.print`    case "object":`;
      f.print`      if (json === null) return null;`;
      f.print`      if (Array.isArray(json)) return copyJsonArray(json, depth + 1);`;
      f.print`      return copyJsonObject(json as JsonFields, depth + 1);`;
      f.print`  }`;
      f.print`  return undefined;`;
      f.print`}`;
      break;
    }
    case "readValueAtDepth": {
      const value = f.import("Value", wkt, true);
      const struct = f.import("Struct", wkt, true);
      const listValue = f.import("ListValue", wkt, true);
      const nullValue = f.import("NullValue", wkt);
      f.print`/**`;
      f.print` * A google.protobuf.Value field, with the depth fromJson counts: one for the`;
      f.print` * field's message and one for each value. A null field gives up: fromJson`;
      f.print` * reads it as NULL_VALUE, a corner not worth a fast path.`;
      f.print` */`;
      f.print`function readValueAtDepth(json: unknown, depth: number): ${value} | undefined {`;
      f.print`  if (json === null || depth > RECURSION_LIMIT) return undefined;`;
      f.print`  return toValue(json, depth + 1);`;
      f.print`}`;
      f.print``;
      f.print`function toValue(json: unknown, depth: number): ${value} | undefined {`;
      f.print`  if (depth > RECURSION_LIMIT) return undefined;`;
      f.print`  switch (typeof json) {`;
      f.print`    case "number":`;
      f.print`      return { $typeName: "google.protobuf.Value", kind: { case: "numberValue", value: json } };`;
      f.print`    case "string":`;
      f.print`      return { $typeName: "google.protobuf.Value", kind: { case: "stringValue", value: json } };`;
      f.print`    case "boolean":`;
      f.print`      return { $typeName: "google.protobuf.Value", kind: { case: "boolValue", value: json } };`;
      f.print`    case "object": {`;
      f.print`      if (json === null) {`;
      f.print`        return { $typeName: "google.protobuf.Value", kind: { case: "nullValue", value: ${nullValue}.NULL_VALUE } };`;
      f.print`      }`;
      f.print`      if (Array.isArray(json)) {`;
      f.print`        const listValue = toListValue(json, depth + 1);`;
      f.print`        if (listValue === undefined) return undefined;`;
      f.print`        return { $typeName: "google.protobuf.Value", kind: { case: "listValue", value: listValue } };`;
      f.print`      }`;
      f.print`      const struct = toStruct(json as JsonFields, depth + 1);`;
      f.print`      if (struct === undefined) return undefined;`;
      f.print`      return { $typeName: "google.protobuf.Value", kind: { case: "structValue", value: struct } };`;
      f.print`    }`;
      f.print`  }`;
      f.print`  return undefined;`;
      f.print`}`;
      f.print``;
      f.print`function toStruct(json: JsonFields, valueDepth: number): ${struct} | undefined {`;
      f.print`  const struct: ${struct} = { $typeName: "google.protobuf.Struct", fields: {} };`;
      f.print`  for (const key in json) {`;
      f.print`    // Assigning "__proto__" would set the prototype, not a key.`;
      f.print`    if (key === "__proto__") return undefined;`;
      f.print`    const value = toValue(json[key], valueDepth);`;
      f.print`    if (value === undefined) return undefined;`;
      f.print`    struct.fields[key] = value;`;
      f.print`  }`;
      f.print`  return struct;`;
      f.print`}`;
      f.print``;
      f.print`function toListValue(json: readonly unknown[], itemDepth: number): ${listValue} | undefined {`;
      f.print`  const listValue: ${listValue} = { $typeName: "google.protobuf.ListValue", values: [] };`;
      f.print`  for (let i = 0; i < json.length; i++) {`;
      f.print`    const value = toValue(json[i], itemDepth);`;
      f.print`    if (value === undefined) return undefined;`;
      f.print`    listValue.values.push(value);`;
      f.print`  }`;
      f.print`  return listValue;`;
      f.print`}`;
      break;
    }
    case "readWellKnownAtDepth": {
      const fromJson = f.import("fromJson", protobuf);
      const descMessage = f.import("DescMessage", protobuf, true);
      const messageShape = f.import("MessageShape", protobuf, true);
      const jsonValue = f.import("JsonValue", protobuf, true);
      f.print`/**`;
      f.print` * Other well-known types are rare in these messages: fromJson reads them, with`;
      f.print` * the recursion budget left at this depth. Null gives up: it clears a field,`;
      f.print` * and fails in a list or a map.`;
      f.print` */`;
      f.print`function readWellKnownAtDepth<Desc extends ${descMessage}>(`;
      f.print`  schema: Desc,`;
      f.print`  json: unknown,`;
      f.print`  depth: number,`;
      f.print`): ${messageShape}<Desc> | undefined {`;
      f.print`  if (json === null) return undefined;`;
      f.print`  const recursionLimit = RECURSION_LIMIT - depth + 1;`;
      f.print`  if (recursionLimit < 1) return undefined;`;
      f.print`  try {`;
      f.print`    return ${fromJson}(schema, json as ${jsonValue}, { ignoreUnknownFields: true, recursionLimit });`;
      f.print`  } catch {`;
      f.print`    return undefined;`;
      f.print`  }`;
      f.print`}`;
      break;
    }
  }
}

// ---------------------------------------------------------------------------
// One generated file.

type Line = Printable[];

class ReaderFile {
  private readonly f: GeneratedFile;
  private readonly messages: DescMessage[];
  private readonly usedHelpers = new Set<HelperName>();
  private readonly moduleNames: NameScope;
  private readonly readerNames = new Map<DescMessage, { readonly exported: string; readonly atDepth: string }>();
  private readonly enumReaders = new Map<DescEnum, string>();
  private readonly lateKeyLists: { name: string; keys: string[] }[] = [];

  constructor(
    schema: Schema<Options>,
    private readonly file: DescFile,
    private readonly roots: readonly DescMessage[],
  ) {
    this.f = schema.generateFile(`${file.name}_json_readers.ts`);
    this.messages = reachableMessages(schema, roots);
    this.moduleNames = new NameScope([...HELPER_NAMES, ...HELPER_INNER_NAMES, "jsonReaders", "JsonReader", ...this.importedNames()]);
    for (const message of this.messages) {
      const name = upperFirst(typeNameInFile(message, file));
      this.readerNames.set(message, {
        exported: this.moduleNames.claim(`read${name}`),
        atDepth: this.moduleNames.claim(`read${name}AtDepth`),
      });
    }
  }

  /** Names that imports may bring into the module. */
  private importedNames(): string[] {
    const names = ["Message", "JsonObject", "JsonValue", "DescMessage", "MessageShape", "fromJson", "protoInt64"];
    names.push("Timestamp", "Value", "Struct", "ListValue", "NullValue");
    for (const message of this.messages) {
      names.push(this.f.importShape(message).name);
      for (const field of message.fields) {
        const kind = valueKind(field);
        if (kind.kind !== "scalar") names.push(this.f.importShape(kind.desc).name);
        if (kind.kind === "message" && isWellKnown(kind.desc)) names.push(this.f.importSchema(kind.desc).name);
      }
    }
    return names;
  }

  generate(): void {
    const f = this.f;
    // Generated before printing, so that the enum readers and helpers they use are known.
    const readers = this.messages.map((message) => this.messageReader(message));

    f.preamble(this.file);
    f.print`// Generated by scripts/protoc-gen-json-readers.ts (buf generate): do not edit.`;
    f.print`// Change the plugin, or its roots in buf.gen.yaml, and run \`npm run generate\`.`;
    f.print`//`;
    f.print`// Fast ProtoJSON readers for these messages and the messages they hold:`;
    for (const root of this.roots) f.print`//   ${root.typeName}`;
    f.print`// A reader turns a value from JSON.parse into what fromJson(schema, json,`;
    f.print`// { ignoreUnknownFields: true }) returns (same values, same keys in the same`;
    f.print`// order), or returns undefined when the JSON is outside the plain, common`;
    f.print`// case. Then call fromJson: it keeps every edge case, and every error.`;
    f.print``;
    this.printLookup();
    for (const message of this.messages) {
      f.print``;
      this.printPublicReader(message);
    }
    for (const reader of readers) {
      f.print``;
      for (const line of reader) f.print(...line);
    }
    this.printEnumReaders();
    this.printLateKeyLists();
    this.printHelpers();
  }

  private printLookup(): void {
    const f = this.f;
    const message = f.import("Message", "@bufbuild/protobuf", true);
    f.print`/** Reads a message from a value of JSON.parse, or returns undefined: then use fromJson. */`;
    f.print(f.export("type", "JsonReader"), ` = (json: unknown) => `, message, ` | undefined;`);
    f.print``;
    f.print`/** The readers by full type name, for a caller that holds a schema. */`;
    f.print(f.export("const", "jsonReaders"), `: Readonly<Record<string, JsonReader | undefined>> = Object.freeze(`);
    f.print`  Object.assign(Object.create(null) as Record<string, JsonReader>, {`;
    for (const desc of this.messages) {
      f.print`    ${JSON.stringify(desc.typeName)}: ${this.publicReaderName(desc)},`;
    }
    f.print`  }),`;
    f.print`);`;
  }

  private publicReaderName(message: DescMessage): string {
    return this.readerNamesOf(message).exported;
  }

  private depthReaderName(message: DescMessage): string {
    return this.readerNamesOf(message).atDepth;
  }

  private readerNamesOf(message: DescMessage): { readonly exported: string; readonly atDepth: string } {
    const names = this.readerNames.get(message);
    if (names === undefined) throw new Error(`${message.typeName} has no reader`);
    return names;
  }

  private printPublicReader(message: DescMessage): void {
    const f = this.f;
    f.print`/** Reads ${message.typeName}, or returns undefined: then use fromJson. */`;
    f.print(f.export("function", this.publicReaderName(message)), `(json: unknown): `, f.importShape(message), ` | undefined {`);
    f.print`  return ${this.depthReaderName(message)}(json, 1);`;
    f.print`}`;
  }

  private use(helper: HelperName): string {
    if (!this.usedHelpers.has(helper)) {
      this.usedHelpers.add(helper);
      for (const dependency of HELPER_DEPENDENCIES[helper]) this.use(dependency);
    }
    return helper;
  }

  // -------------------------------------------------------------------------
  // A message reader.

  private messageReader(message: DescMessage): Line[] {
    const shape = this.f.importShape(message);
    const lines: Line[] = [];
    lines.push([`/** ${message.typeName} at a depth that fromJson counts from 1. */`]);
    lines.push([`function ${this.depthReaderName(message)}(json: unknown, depth: number): `, shape, ` | undefined {`]);
    const unsupported = messageUnsupportedReason(message);
    if (unsupported !== undefined) {
      lines.push([`  // Left to fromJson: ${unsupported}.`]);
      lines.push([`  return undefined;`]);
      lines.push([`}`]);
      return lines;
    }
    lines.push([`  if (!${this.use("isJsonObject")}(json) || depth > ${this.use("RECURSION_LIMIT")}) return undefined;`]);
    lines.push([`  let keys = 0;`]);
    const lateKeys = message.fields
      .filter((field) => field.oneof === undefined && isLate(field) && fieldUnsupportedReason(field) === undefined)
      .map((field) => field.jsonName);
    const countLateKeys = lateKeys.length > 1;
    const scope = new NameScope([...READER_LOCALS]);
    // The literal holds what create() sets; late fields follow in declaration order.
    const literal: Line[] = [];
    const late: Line[] = [];
    const body: Line[] = [];
    for (const member of message.members) {
      if (member.kind === "oneof") {
        const variable = scope.claim(member.localName);
        body.push(...this.oneofReader(message, member, variable, scope));
        // A response's payload: one of its members must be set (the caller's check names the oneof).
        if (this.roots.includes(message)) body.push([`  if (${variable} === undefined) return undefined;`]);
        literal.push([`    ${literalKey(member.localName)}: ${variable} ?? { case: undefined },`]);
        continue;
      }
      const field = member;
      const reason = fieldUnsupportedReason(field);
      if (reason !== undefined) {
        body.push([]);
        body.push([`  // ${field.name} is left to fromJson: ${reason}.`]);
        body.push([`  if (${hasKey(field.jsonName)}) return undefined;`]);
        if (!isLate(field)) literal.push([`    ${literalKey(field.localName)}: `, this.zeroValue(field), `,`]);
        continue;
      }
      const variable = scope.claim(field.localName);
      const jsonVariable = scope.claim(`${field.localName}Json`);
      const isLateField = isLate(field);
      body.push(...this.fieldReader(field, variable, jsonVariable, isLateField, countLateKeys));
      const absent = requiredAbsence(field, variable);
      if (absent !== undefined) body.push([`  if (${absent}) return undefined; // REQUIRED`]);
      if (isLateField) {
        late.push([`  if (${variable} !== undefined) ${property("message", field.localName)} = ${variable};`]);
      } else {
        literal.push([`    ${propertyAssignment(field.localName, variable)},`]);
      }
    }
    if (countLateKeys) lines.push([`  let lateKeys = 0;`]);
    lines.push(...body);
    lines.push([]);
    lines.push([`  if (keys !== ${this.use("countKeys")}(json)) return undefined;`]);
    if (countLateKeys) {
      const list = this.lateKeyList(message, lateKeys);
      lines.push([`  if (lateKeys > 1 && !${this.use("keysInOrder")}(json, ${list})) return undefined;`]);
    }
    const opening = late.length > 0 ? [`  const message: `, shape, ` = {`] : [`  return {`];
    lines.push(opening);
    lines.push([`    $typeName: ${JSON.stringify(message.typeName)},`]);
    lines.push(...literal);
    lines.push([`  };`]);
    if (late.length > 0) {
      lines.push(...late);
      lines.push([`  return message;`]);
    }
    lines.push([`}`]);
    return lines;
  }

  private lateKeyList(message: DescMessage, keys: string[]): string {
    const name = this.moduleNames.claim(`${lowerFirst(typeNameInFile(message, this.file))}LateKeys`);
    this.lateKeyLists.push({ name, keys });
    return name;
  }

  /** Reads one field into `variable`; for a late field, leaves it undefined when absent. */
  private fieldReader(field: DescField, variable: string, jsonVariable: string, late: boolean, countLateKeys: boolean): Line[] {
    const lines: Line[] = [[]];
    lines.push([`  const ${jsonVariable} = ${readKey(field.jsonName)};`]);
    if (field.fieldKind === "list") {
      lines.push([`  const ${variable}: `, this.valueType(valueKind(field)), `[] = [];`]);
    } else if (field.fieldKind === "map") {
      lines.push([`  const ${variable}: { [key: string]: `, this.valueType(valueKind(field)), ` } = {};`]);
    } else if (late) {
      lines.push([`  let ${variable}: `, this.valueType(valueKind(field)), ` | undefined;`]);
    } else {
      lines.push([`  let ${variable}: `, this.valueType(valueKind(field)), ` = `, this.zeroValue(field), `;`]);
    }
    lines.push([`  if (${jsonVariable} !== undefined) {`]);
    const indent = "    ";
    switch (field.fieldKind) {
      case "list":
        lines.push([`${indent}if (!Array.isArray(${jsonVariable})) return undefined;`]);
        lines.push([`${indent}for (let i = 0; i < ${jsonVariable}.length; i++) {`]);
        lines.push([`${indent}  const item: unknown = ${jsonVariable}[i];`]);
        lines.push(...this.valueRead(valueKind(field), "item", `${indent}  `, (result) => [`${variable}.push(${result});`]));
        lines.push([`${indent}}`]);
        break;
      case "map":
        lines.push([`${indent}if (!${this.use("isJsonObject")}(${jsonVariable})) return undefined;`]);
        lines.push([`${indent}for (const key in ${jsonVariable}) {`]);
        lines.push([`${indent}  // Map keys are strings, checked like string fields; "__proto__" would set the prototype.`]);
        lines.push([`${indent}  if (key === "__proto__" || !${this.use("isWellFormedString")}(key)) return undefined;`]);
        lines.push([`${indent}  const item = ${jsonVariable}[key];`]);
        lines.push(...this.valueRead(valueKind(field), "item", `${indent}  `, (result) => [`${variable}[key] = ${result};`]));
        lines.push([`${indent}}`]);
        break;
      default:
        lines.push(...this.valueRead(valueKind(field), jsonVariable, indent, (result) => [`${variable} = ${result};`]));
    }
    lines.push([`${indent}keys++;`]);
    if (late && countLateKeys) lines.push([`${indent}lateKeys++;`]);
    lines.push([`  }`]);
    return lines;
  }

  private oneofReader(message: DescMessage, oneof: DescOneof, variable: string, scope: NameScope): Line[] {
    const shape = this.f.importShape(message);
    const lines: Line[] = [[]];
    lines.push([`  let ${variable}: `, shape, `[${JSON.stringify(oneof.localName)}] | undefined;`]);
    let membersRead = 0;
    for (const field of oneof.fields) {
      const reason = fieldUnsupportedReason(field);
      if (reason !== undefined) {
        lines.push([]);
        lines.push([`  // ${field.name} is left to fromJson: ${reason}.`]);
        lines.push([`  if (${hasKey(field.jsonName)}) return undefined;`]);
        continue;
      }
      const jsonVariable = scope.claim(`${field.localName}Json`);
      lines.push([]);
      lines.push([`  const ${jsonVariable} = ${readKey(field.jsonName)};`]);
      lines.push([`  if (${jsonVariable} !== undefined) {`]);
      if (membersRead++ > 0) {
        lines.push([`    // fromJson rejects a second member of the oneof.`]);
        lines.push([`    if (${variable} !== undefined) return undefined;`]);
      }
      lines.push(
        ...this.valueRead(valueKind(field), jsonVariable, "    ", (result) => [
          `${variable} = { case: ${JSON.stringify(field.localName)}, ${propertyAssignment("value", result)} };`,
        ]),
      );
      lines.push([`    keys++;`]);
      lines.push([`  }`]);
    }
    return lines;
  }

  /**
   * Statements that read the JSON value in `json` or return undefined, then
   * hand the result to `store`.
   */
  private valueRead(kind: ValueKind, json: string, indent: string, store: (result: string) => Line): Line[] {
    const guard = (helper: HelperName): Line[] => [
      [`${indent}if (!${this.use(helper)}(${json})) return undefined;`],
      [indent, ...store(json)],
    ];
    const call = (read: Printable[]): Line[] => [
      [`${indent}const value = `, ...read, `;`],
      [`${indent}if (value === undefined) return undefined;`],
      [indent, ...store("value")],
    ];
    switch (kind.kind) {
      case "scalar":
        switch (kind.scalar) {
          case SCALAR.STRING:
            return guard("isWellFormedString");
          case SCALAR.BOOL:
            return guard("isBoolean");
          case SCALAR.INT32:
          case SCALAR.SINT32:
          case SCALAR.SFIXED32:
            return guard("isInt32");
          case SCALAR.UINT32:
          case SCALAR.FIXED32:
            return guard("isUint32");
          case SCALAR.DOUBLE:
            return guard("isDouble");
          case SCALAR.FLOAT:
            return guard("isFloat");
        }
        throw new Error(`unexpected scalar type ${kind.scalar}`);
      case "enum":
        return call([`${this.enumReader(kind.desc)}(${json})`]);
      case "message": {
        const depth = "depth + 1";
        switch (kind.desc.typeName) {
          case "google.protobuf.Timestamp":
            return call([`${this.use("readTimestampAtDepth")}(${json}, ${depth})`]);
          case "google.protobuf.Struct":
            return call([`${this.use("readStructAtDepth")}(${json}, ${depth})`]);
          case "google.protobuf.Value":
            return call([`${this.use("readValueAtDepth")}(${json}, ${depth})`]);
        }
        if (isWellKnown(kind.desc)) {
          const schemaSymbol = this.f.importSchema(kind.desc);
          const read = [`${this.use("readWellKnownAtDepth")}(`, schemaSymbol, `, ${json}, ${depth})`];
          return call(kind.unwrap ? [...read, `?.value`] : read);
        }
        return call([`${this.depthReaderName(kind.desc)}(${json}, ${depth})`]);
      }
    }
  }

  /** The TypeScript type of a value, as protoc-gen-es declares it. */
  private valueType(kind: ValueKind): Printable {
    switch (kind.kind) {
      case "scalar":
        switch (kind.scalar) {
          case SCALAR.STRING:
            return "string";
          case SCALAR.BOOL:
            return "boolean";
          case SCALAR.BYTES:
            return "Uint8Array";
          case SCALAR.INT64:
          case SCALAR.UINT64:
          case SCALAR.SINT64:
          case SCALAR.FIXED64:
          case SCALAR.SFIXED64:
            return kind.longAsString ? "string" : "bigint";
          default:
            return "number";
        }
      case "enum":
        return this.f.importShape(kind.desc);
      case "message":
        if (kind.desc.typeName === "google.protobuf.Struct") {
          return this.f.import("JsonObject", "@bufbuild/protobuf", true);
        }
        if (kind.unwrap) {
          const valueField = kind.desc.fields[0];
          if (valueField === undefined || valueField.fieldKind !== "scalar") {
            throw new Error(`unexpected wrapper ${kind.desc.typeName}`);
          }
          return this.valueType({ kind: "scalar", scalar: valueField.scalar, longAsString: valueField.longAsString });
        }
        return this.f.importShape(kind.desc);
    }
  }

  /** What create() sets for a field that a new message has. */
  private zeroValue(field: DescField): Printable {
    switch (field.fieldKind) {
      case "list":
        return "[]";
      case "map":
        return "{}";
      case "enum": {
        const zero = field.enum.values[0];
        if (zero === undefined) throw new Error(`${field.enum.typeName} has no values`);
        return [this.enumValue(field.enum), `.${zero.localName}`];
      }
      case "scalar":
        switch (field.scalar) {
          case SCALAR.STRING:
            return `""`;
          case SCALAR.BOOL:
            return "false";
          case SCALAR.BYTES:
            return "new Uint8Array(0)";
          case SCALAR.INT64:
          case SCALAR.UINT64:
          case SCALAR.SINT64:
          case SCALAR.FIXED64:
          case SCALAR.SFIXED64:
            return field.longAsString ? `"0"` : [this.f.import("protoInt64", "@bufbuild/protobuf"), ".zero"];
          default:
            return "0";
        }
      case "message":
        throw new Error(`${field.toString()} is absent from a new message`);
    }
  }

  private enumValue(desc: DescEnum): ImportSymbol {
    const shape = this.f.importShape(desc);
    return this.f.import(shape.name, shape.from);
  }

  private enumReader(desc: DescEnum): string {
    let name = this.enumReaders.get(desc);
    if (name === undefined) {
      name = this.moduleNames.claim(`${lowerFirst(typeNameInFile(desc, this.file))}FromName`);
      this.enumReaders.set(desc, name);
    }
    return name;
  }

  private printEnumReaders(): void {
    const f = this.f;
    for (const [desc, name] of this.enumReaders) {
      const enumValue = this.enumValue(desc);
      f.print``;
      // A switch rather than a Map: a name fresh from JSON.parse has no hash yet,
      // and comparing it with each name is cheaper than hashing it.
      f.print`/** ${desc.typeName} by name. Numbers, unknown names and null are left to fromJson. */`;
      f.print`function ${name}(json: unknown): ${f.importShape(desc)} | undefined {`;
      f.print`  switch (json) {`;
      for (const value of desc.values) {
        f.print`    case ${JSON.stringify(value.name)}:`;
        f.print`      return ${enumValue}.${value.localName};`;
      }
      f.print`  }`;
      f.print`  return undefined;`;
      f.print`}`;
    }
  }

  private printLateKeyLists(): void {
    for (const { name, keys } of this.lateKeyLists) {
      this.f.print``;
      this.f.print`const ${name}: readonly string[] = [${keys.map((key) => JSON.stringify(key)).join(", ")}];`;
    }
  }

  private printHelpers(): void {
    for (const helper of HELPER_NAMES) {
      if (!this.usedHelpers.has(helper)) continue;
      this.f.print``;
      printHelper(this.f, helper);
    }
  }
}

/**
 * How a REQUIRED field read into `variable` is found absent, where the
 * caller's check of a response would find it so: a string empty, a message
 * not set (lists, maps, numbers, booleans and enums cannot be told from
 * their zero values, which are legal). The reader then gives up, and the
 * caller's check names the field. Every message read is held to this,
 * reached through a REQUIRED field or not: a message the reader returns is
 * one the check passes.
 */
function requiredAbsence(field: DescField, variable: string): string | undefined {
  if (field.oneof !== undefined || !isRequiredField(field)) return undefined;
  if (field.fieldKind === "message") return `${variable} === undefined`;
  if (field.fieldKind === "scalar" && field.scalar === SCALAR.STRING) return `${variable} === ""`;
  return undefined;
}

/** Message and oneof fields are absent from a new message, and so are fields with explicit presence. */
function isLate(field: DescField): boolean {
  if (field.fieldKind === "message") return true;
  if (field.fieldKind === "list" || field.fieldKind === "map") return false;
  return field.presence !== PRESENCE_IMPLICIT;
}

runNodeJs(protocGenJsonReaders);
