// Descriptor facts and naming helpers shared by our code generators
// (protoc-gen-json-readers.ts, protoc-gen-json-writers.ts, protoc-gen-facts.ts):
// what a field holds, which types are well-known, what the REQUIRED markers
// and HTTP rules say, and how generated names stay unique.

import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import type { Schema } from "@bufbuild/protoplugin";

// protoplugin hands over the descriptors of its own copy of @bufbuild/protobuf:
// their types are taken from it, not from this project's copy.
export type DescFile = Schema["files"][number];
export type DescType = ReturnType<Schema["typesInFile"]> extends Iterable<infer T> ? T : never;
export type DescMessage = Extract<DescType, { kind: "message" }>;
export type DescEnum = Extract<DescType, { kind: "enum" }>;
export type DescField = DescMessage["fields"][number];
export type DescOneof = DescMessage["oneofs"][number];

// Numbers from descriptor.proto and protobuf-es, stable facts of the format.
export const EDITION_PROTO2 = 998;
export const EDITION_PROTO3 = 999;
export const PRESENCE_IMPLICIT = 2;
export const SCALAR = {
  DOUBLE: 1,
  FLOAT: 2,
  INT64: 3,
  UINT64: 4,
  INT32: 5,
  FIXED64: 6,
  FIXED32: 7,
  BOOL: 8,
  STRING: 9,
  BYTES: 12,
  UINT32: 13,
  SFIXED32: 15,
  SFIXED64: 16,
  SINT32: 17,
  SINT64: 18,
} as const;
// The extension number of (pb.enumvalue.json), a custom JSON name for an enum value.
export const ENUM_VALUE_JSON_NAME_EXTENSION = 998;

export function isWellKnown(message: DescMessage): boolean {
  return message.typeName.startsWith("google.protobuf.");
}

// The extension number of (google.api.field_behavior), a repeated enum, and its REQUIRED value.
const FIELD_BEHAVIOR_EXTENSION = 1052;
const FIELD_BEHAVIOR_REQUIRED = 2;

/**
 * Whether the proto marks `field` REQUIRED (google.api.field_behavior),
 * read from the raw option: generation cannot import the generated
 * field_behavior extension it is about to write.
 */
export function isRequiredField(field: DescField): boolean {
  for (const unknown of field.proto.options?.$unknown ?? []) {
    if (unknown.no !== FIELD_BEHAVIOR_EXTENSION) continue;
    const reader = new BinaryReader(unknown.data);
    if (unknown.wireType === WireType.Varint) {
      if (reader.int32() === FIELD_BEHAVIOR_REQUIRED) return true;
      continue;
    }
    // Packed: one length-delimited run of varints.
    const packed = new BinaryReader(reader.bytes());
    while (packed.pos < packed.len) if (packed.int32() === FIELD_BEHAVIOR_REQUIRED) return true;
  }
  return false;
}

// The extension number of (google.api.http), an HttpRule on a method.
const HTTP_EXTENSION = 72295728;

/**
 * A google.api.http rule in its ProtoJSON form (google.api.HttpRuleJson),
 * with the fields a client routes by: the pattern, the body and the
 * additional bindings.
 */
export interface HttpRuleJson {
  get?: string;
  put?: string;
  post?: string;
  delete?: string;
  patch?: string;
  body?: string;
  custom?: { kind?: string; path?: string };
  additionalBindings?: HttpRuleJson[];
}

type DescMethod = DescFile["services"][number]["methods"][number];

/**
 * The (google.api.http) rule of `method`, or undefined, read from the raw
 * option as isRequiredField reads its own.
 */
export function httpRuleOf(method: DescMethod): HttpRuleJson | undefined {
  const parts = (method.proto.options?.$unknown ?? []).filter((u) => u.no === HTTP_EXTENSION && u.wireType === WireType.LengthDelimited);
  if (parts.length === 0) return undefined;
  // A message field given more than once is the merge of its parts, which is
  // what reading their concatenated bytes gives.
  const bytes = parts.map((u) => new BinaryReader(u.data).bytes());
  const joined = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of bytes) {
    joined.set(b, at);
    at += b.length;
  }
  return readHttpRule(joined);
}

// HttpRule's field numbers (google/api/http.proto).
const HTTP_RULE_PATTERNS = { 2: "get", 3: "put", 4: "post", 5: "delete", 6: "patch" } as const;
const HTTP_RULE_BODY = 7;
const HTTP_RULE_CUSTOM = 8;
const HTTP_RULE_ADDITIONAL_BINDINGS = 11;
const CUSTOM_PATTERN_KIND = 1;
const CUSTOM_PATTERN_PATH = 2;

function readHttpRule(data: Uint8Array): HttpRuleJson {
  const rule: HttpRuleJson = {};
  const bindings: HttpRuleJson[] = [];
  const reader = new BinaryReader(data);
  while (reader.pos < reader.len) {
    const [no, wireType] = reader.tag();
    if (no in HTTP_RULE_PATTERNS) {
      // The pattern is a oneof: the last one read is the one set.
      for (const other of Object.values(HTTP_RULE_PATTERNS)) delete rule[other];
      delete rule.custom;
      rule[HTTP_RULE_PATTERNS[no as keyof typeof HTTP_RULE_PATTERNS]] = reader.string();
    } else if (no === HTTP_RULE_BODY) {
      rule.body = reader.string();
    } else if (no === HTTP_RULE_CUSTOM) {
      for (const other of Object.values(HTTP_RULE_PATTERNS)) delete rule[other];
      const custom: { kind?: string; path?: string } = {};
      const inner = new BinaryReader(reader.bytes());
      while (inner.pos < inner.len) {
        const [n, w] = inner.tag();
        if (n === CUSTOM_PATTERN_KIND) custom.kind = inner.string();
        else if (n === CUSTOM_PATTERN_PATH) custom.path = inner.string();
        else inner.skip(w);
      }
      rule.custom = custom;
    } else if (no === HTTP_RULE_ADDITIONAL_BINDINGS) {
      bindings.push(readHttpRule(reader.bytes()));
    } else {
      reader.skip(wireType);
    }
  }
  // ProtoJSON leaves out an empty string and an empty list.
  if (rule.body === "") delete rule.body;
  if (bindings.length > 0) rule.additionalBindings = bindings;
  return rule;
}

/** An enum value with a custom JSON name is read by another name: fromJson decides. */
export function enumHasCustomJsonNames(desc: DescEnum): boolean {
  return desc.values.some((value) => (value.proto.options?.$unknown ?? []).some((field) => field.no === ENUM_VALUE_JSON_NAME_EXTENSION));
}

/** The kind of one value: a singular field's, a list item's or a map value's. */
export type ValueKind =
  | { readonly kind: "scalar"; readonly scalar: number; readonly longAsString: boolean }
  | { readonly kind: "enum"; readonly desc: DescEnum }
  | { readonly kind: "message"; readonly desc: DescMessage; readonly unwrap: boolean };

export function valueKind(field: DescField): ValueKind {
  switch (field.fieldKind) {
    case "scalar":
      return { kind: "scalar", scalar: field.scalar, longAsString: field.longAsString };
    case "enum":
      return { kind: "enum", desc: field.enum };
    case "message":
      // Wrapper types in a singular field outside a oneof hold the bare value.
      return { kind: "message", desc: field.message, unwrap: field.oneof === undefined && isWrapper(field.message) };
    case "list":
      switch (field.listKind) {
        case "scalar":
          return { kind: "scalar", scalar: field.scalar, longAsString: field.longAsString };
        case "enum":
          return { kind: "enum", desc: field.enum };
        case "message":
          return { kind: "message", desc: field.message, unwrap: false };
      }
      break;
    case "map":
      switch (field.mapKind) {
        case "scalar":
          // Map values never use the longAsString option.
          return { kind: "scalar", scalar: field.scalar, longAsString: false };
        case "enum":
          return { kind: "enum", desc: field.enum };
        case "message":
          return { kind: "message", desc: field.message, unwrap: false };
      }
  }
  throw new Error("unexpected field kind");
}

export function isWrapper(message: DescMessage): boolean {
  return (
    message.typeName.startsWith("google.protobuf.") &&
    message.typeName.endsWith("Value") &&
    message.file.name === "google/protobuf/wrappers"
  );
}

export const RESERVED_WORDS = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for " +
    "function if import in instanceof new null return super switch this throw true try typeof var void while with " +
    "yield let static implements interface package private protected public await arguments eval undefined NaN " +
    "Infinity Object Array Number Math String Date BigInt Map globalThis"
  ).split(" "),
);

export function isIdentifier(name: string): boolean {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) && !RESERVED_WORDS.has(name);
}

/** `json.name`, or `json["name"]` for a key that is no identifier. */
export function property(object: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${object}.${key}` : `${object}[${JSON.stringify(key)}]`;
}

/** A key in an object literal. */
export function literalKey(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : JSON.stringify(key);
}

export function upperFirst(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

export function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/** Hands out names unique within one scope. */
export class NameScope {
  private readonly taken: Set<string>;
  constructor(taken: Iterable<string>) {
    this.taken = new Set(taken);
  }
  claim(wanted: string): string {
    let name = isIdentifier(wanted) ? wanted : `${wanted.replace(/[^A-Za-z0-9_$]/g, "_")}_`;
    while (this.taken.has(name) || RESERVED_WORDS.has(name)) name += "_";
    this.taken.add(name);
    return name;
  }
}

/** The name of a type relative to the package of the generated file, dots as underscores. */
export function typeNameInFile(desc: DescMessage | DescEnum, file: DescFile): string {
  const prefix = file.proto.package === "" ? "" : `${file.proto.package}.`;
  const name = desc.typeName.startsWith(prefix) ? desc.typeName.slice(prefix.length) : desc.typeName;
  return name.replace(/\./g, "_");
}

/**
 * The values of the one plugin option `key`, each a full proto name (a
 * message or a service, as `what` says, `example` shown on error), in order,
 * without repeats. buf joins `opt` entries with commas, which also separate
 * options: a list needs one `key=` entry per name.
 */
export function fullNamesOption(rawOptions: { key: string; value: string }[], key: string, what: string, example: string): string[] {
  const names: string[] = [];
  for (const { key: k, value } of rawOptions) {
    if (k !== key) {
      throw new Error(
        `unknown option "${k}"` + (k.includes(".") ? `: give each name its own ${key}= entry, buf joins entries with commas` : ""),
      );
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(value)) {
      throw new Error(`${key}=${value}: expected a full ${what} name, like ${example}`);
    }
    if (!names.includes(value)) names.push(value);
  }
  if (names.length === 0) throw new Error(`expected at least one ${key}=<full ${what} name>`);
  return names;
}
