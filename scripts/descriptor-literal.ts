// Descriptors as object literals, for scripts/protoc-gen-es-lean.ts.
//
// protoc-gen-es embeds each file's FileDescriptorProto as base64, which
// protobuf-es's `fileDesc` decodes at load with `FileDescriptorProtoSchema`:
// every app of generated code loads descriptor.proto's own descriptor and
// schemas (`descriptor_pb.js`, 24 KB minified) to read the others. Here the
// same message is written out as TypeScript: one call per message of
// descriptor.proto (`$literal.DescriptorProto({ ... })`), each made by a small
// module generated beside the code (RUNTIME_FILE) from protobuf-es's own
// schemas of descriptor.proto, and `$literal.fileDesc` hands the result to
// protobuf-es's public `createFileRegistry`, as `fileDesc` hands its own.
//
// What a call makes is the message `fileDesc` decodes, so that `DescFile.proto`
// stays a FileDescriptorProto (`toBinary`, `getOption`, reflection): the fields
// the binary sets are own properties, in the order decoding sets them, every
// list field an own (empty) array, `$typeName` first; the fields it leaves
// unset read through a prototype holding the values `create` gives them
// (descriptor.proto is proto2: its `create` keeps its zero values and defaults
// on a prototype, and `isFieldSet` looks at own properties). Field JSON names
// and the list of imports are restored at load as `fileDesc` restores them.
// test/unit/repo/descriptor-literal.test.ts holds each generated file to the
// descriptor `fileDesc` gives for the base64 protoc-gen-es would embed.
//
// Each call is marked pure, and the module's makers are constants marked
// pure: a bundler drops a descriptor nothing uses, and the makers of the
// messages no descriptor of the app holds (most of descriptor.proto's).

import { create, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";

/** The module generated beside the code, relative to the output root. */
export const RUNTIME_FILE = "descriptor_literal.ts";

/** The name under which generated code imports RUNTIME_FILE: `$` keeps it apart from every name protoc-gen-es derives from a proto. */
const NS = "$literal";

const PURE = "/*@__PURE__*/ ";

/** The exported name of a descriptor.proto message's maker: protobuf-es's name of its type (google.protobuf.A.B is A_B). */
function makerName(message: DescMessage): string {
  return message.typeName.replace(/^google\.protobuf\./, "").replaceAll(".", "_");
}

/** descriptor.proto's messages that a FileDescriptorProto can hold, itself first, in the order its fields reach them. */
function descriptorMessages(): DescMessage[] {
  const found: DescMessage[] = [];
  const visit = (message: DescMessage) => {
    if (found.includes(message)) return;
    found.push(message);
    for (const field of message.fields) {
      if (field.fieldKind === "message" || (field.fieldKind === "list" && field.listKind === "message")) visit(field.message);
    }
  };
  visit(FileDescriptorProtoSchema);
  return found;
}

/** A value of a descriptor.proto field as TypeScript. */
function scalarLiteral(value: unknown, where: string): string {
  switch (typeof value) {
    case "number":
      // JSON has no NaN or Infinity (a double field's value could be one).
      if (!Number.isFinite(value)) throw new Error(`${where}: no literal for ${value}`);
      return JSON.stringify(value);
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "bigint":
      return `${value}n`;
    default:
      if (value instanceof Uint8Array && value.length === 0) return `${PURE}new Uint8Array(0)`;
      throw new Error(`${where}: no literal for ${String(value)}`);
  }
}

/**
 * What `create` gives a message of `message`'s type, split as the makers need
 * it: the list fields (own properties, in create's order) and the prototype's
 * values. Read from protobuf-es's `create` itself, so the literal's messages
 * match it whatever it does.
 */
function shapeOf(message: DescMessage): { lists: string[]; defaults: Array<[string, unknown]> } {
  const made = create(message) as unknown as Record<string, unknown>;
  const lists: string[] = [];
  for (const key of Object.keys(made)) {
    if (key === "$typeName") continue;
    if (!Array.isArray(made[key])) throw new Error(`${message.typeName}.${key}: create() sets it, and it is not a list`);
    lists.push(key);
  }
  const prototype = Object.getPrototypeOf(made) as Record<string, unknown>;
  const defaults = prototype === Object.prototype ? [] : Object.entries(prototype);
  return { lists, defaults };
}

/**
 * The module the literals import (RUNTIME_FILE): a maker per message of
 * descriptor.proto that a FileDescriptorProto can hold, and `fileDesc`. The
 * same for every request, so every run of the plugin writes the same file.
 */
export function runtimeModule(header: string): string {
  const lines = [
    header,
    "//",
    "// The makers of the descriptor literals in the generated _pb.ts files (see",
    "// scripts/descriptor-literal.ts): a FileDescriptorProto built from them is the",
    "// message protobuf-es's fileDesc() decodes from the base64 protoc-gen-es embeds.",
    "/* eslint-disable */",
    "",
    'import { createFileRegistry, type Message } from "@bufbuild/protobuf";',
    'import type { GenFile } from "@bufbuild/protobuf/codegenv2";',
    'import { protoCamelCase } from "@bufbuild/protobuf/reflect";',
    'import type * as pb from "@bufbuild/protobuf/wkt";',
    "",
    "/** A message's own properties, as a literal gives them. */",
    'type Init<T extends Message> = { [K in Exclude<keyof T, "$typeName" | "$unknown">]?: T[K] };',
    "",
    "/**",
    " * A maker of messages of one type: `$typeName` and an empty array for each",
    " * list field, then the literal's fields, over a prototype with the values",
    " * of the fields it leaves unset (what `create` gives a proto2 message).",
    " */",
    'function maker<T extends Message>(typeName: T["$typeName"], lists: readonly string[], defaults: object): (init: Init<T>) => T {',
    "  return (init) => {",
    "    const message = Object.create(defaults) as Record<string, unknown>;",
    "    message.$typeName = typeName;",
    "    for (const list of lists) message[list] = [];",
    "    return Object.assign(message, init) as T;",
    "  };",
    "}",
    "",
  ];
  for (const message of descriptorMessages()) {
    const { lists, defaults } = shapeOf(message);
    const name = makerName(message);
    const values = defaults.map(([k, v]) => `${k}: ${scalarLiteral(v, `${message.typeName}.${k}`)}`).join(", ");
    lines.push(
      `export const ${name} = ${PURE}maker<pb.${name}>(${JSON.stringify(message.typeName)}, ${JSON.stringify(lists)}, { ${values} });`,
    );
  }
  lines.push(
    "",
    "/** Fields without a JSON name in the literal get protoc's, as fileDesc() gives them. */",
    "function restoreJsonNames(message: pb.DescriptorProto): void {",
    "  for (const field of message.field) {",
    '    if (!Object.prototype.hasOwnProperty.call(field, "jsonName") || field.jsonName === undefined) field.jsonName = protoCamelCase(field.name);',
    "  }",
    "  message.nestedType.forEach(restoreJsonNames);",
    "}",
    "",
    "/**",
    " * The file of a descriptor literal, with the files it imports: as",
    " * protobuf-es's fileDesc() makes it from base64, through its public",
    " * createFileRegistry.",
    " */",
    "export function fileDesc(proto: pb.FileDescriptorProto, imports?: readonly GenFile[]): GenFile {",
    "  proto.messageType.forEach(restoreJsonNames);",
    "  proto.dependency = imports?.map((f) => f.proto.name) ?? [];",
    "  const registry = createFileRegistry(proto, (name) => imports?.find((f) => f.proto.name === name));",
    "  return registry.getFile(proto.name)!;",
    "}",
    "",
  );
  return lines.join("\n");
}

/** `proto` (a message of descriptor.proto, as fromBinary gives it) as a call of its maker, indented by `indent`. */
function messageLiteral(proto: Message, schema: DescMessage, indent: string): string {
  const record = proto as unknown as Record<string, unknown>;
  if (record.$unknown !== undefined) throw new Error(`${schema.typeName}: unknown fields have no literal`);
  const inner = `${indent}  `;
  const entries: string[] = [];
  let nested = false;
  // The maker sets every list field before the literal's fields, so only the
  // order of the others counts: they come first, in the order decoding set
  // them, and the lists after them, where they read best.
  const keys = Object.keys(record).filter((k) => k !== "$typeName");
  const isList = (key: string) => Array.isArray(record[key]);
  for (const key of [...keys.filter((k) => !isList(k)), ...keys.filter(isList)]) {
    const field = schema.fields.find((f) => f.localName === key);
    if (!field) throw new Error(`${schema.typeName}.${key}: not a field`);
    const value = record[key];
    const literal = fieldLiteral(value, field, inner);
    if (literal === undefined) continue;
    nested ||= literal.includes("\n");
    entries.push(`${key}: ${literal}`);
  }
  const call = `${PURE}${NS}.${makerName(schema)}`;
  if (entries.length === 0) return `${call}({})`;
  // A message holding messages is written one field a line; one holding
  // none, on its own line.
  if (!nested && entries.every((e) => !e.includes(PURE))) return `${call}({ ${entries.join(", ")} })`;
  return `${call}({\n${entries.map((e) => `${inner}${e},\n`).join("")}${indent}})`;
}

/** A set field's value; undefined for an empty list, which the maker sets already. */
function fieldLiteral(value: unknown, field: DescField, indent: string): string | undefined {
  const where = `${field.parent.typeName}.${field.name}`;
  switch (field.fieldKind) {
    case "scalar":
    case "enum":
      return scalarLiteral(value, where);
    case "message":
      return messageLiteral(value as Message, field.message, indent);
    case "list": {
      const items = value as unknown[];
      if (items.length === 0) return undefined;
      if (field.listKind !== "message") return `[${items.map((v) => scalarLiteral(v, where)).join(", ")}]`;
      const inner = `${indent}  `;
      return `[\n${items.map((item) => `${inner}${messageLiteral(item as Message, field.message, inner)},\n`).join("")}${indent}]`;
    }
    default:
      throw new Error(`${where}: a ${field.fieldKind} field has no literal`);
  }
}

/**
 * `file` (the FileDescriptorProto protoc-gen-es embeds, decoded) as a call of
 * `$literal.fileDesc`, with the generated names of its imports.
 */
export function fileLiteral(file: Message, imports: string | undefined): string {
  const proto = messageLiteral(file, FileDescriptorProtoSchema, "    ");
  return `${NS}.fileDesc(\n    ${proto}${imports === undefined ? "" : `,\n    ${imports}`},\n  )`;
}

/** The import of RUNTIME_FILE from a generated file at `path`, for the plugin's `import_extension`. */
export function runtimeImport(path: string, extension: string): string {
  const depth = path.split("/").length - 1;
  const base = depth === 0 ? "./" : "../".repeat(depth);
  return `import * as ${NS} from "${base}${RUNTIME_FILE.replace(/\.ts$/, extension)}";`;
}
