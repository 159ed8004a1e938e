// protoc-gen-json-writers: generates fast ProtoJSON writers for the requests of services.
//
// Writing a request with protobuf-es `toJson` walks the schema at run time,
// and keeps toJson's reflection code in every bundle that sends a request.
// This plugin writes the walk out ahead of time: for each proto file that
// declares one of the `services`, it generates <name>_json_writers.ts with one
// writer for the input message of every method and for every message reachable
// from them through message fields.
//
// A writer returns exactly what `toJson(schema, message)` returns with default
// options (same keys in the same order, field-number order, equal values), or
// undefined when the message is outside the plain case: a wrong type anywhere,
// a value held by a prototype, a "__proto__" key, nesting past a depth limit,
// a Timestamp out of range, a non-finite Value number, other well-known types,
// enums with custom JSON names. On undefined the caller calls toJson, so every
// edge case, and every error, stays protobuf-es's.
//
// Options (buf.gen.yaml `opt`), besides protoplugin's target and import_extension:
//   services=<full service name>   one entry per service.
//
// Run by `buf generate` as a local plugin: node --import tsx <this file>.

import { createEcmaScriptPlugin, type GeneratedFile, runNodeJs, type Schema } from "@bufbuild/protoplugin";
import { HELPER_NAMES, printHelpers } from "./json-writer-helpers.js";
import {
  type DescEnum,
  type DescField,
  type DescFile,
  type DescMessage,
  enumHasCustomJsonNames,
  isWellKnown,
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
  services: string[];
}

type DescService = Schema["files"][number]["services"][number];

const protocGenJsonWriters = createEcmaScriptPlugin<Options>({
  name: "protoc-gen-json-writers",
  version: "v1",
  parseOptions,
  generateTs,
});

function parseOptions(rawOptions: { key: string; value: string }[]): Options {
  return { services: fullNamesOption(rawOptions, "services", "service", "lf.a2a.v1.A2AService") };
}

function generateTs(schema: Schema<Options>): void {
  for (const file of schema.files) {
    const services = file.services.filter((service) => schema.options.services.includes(service.typeName));
    if (services.length > 0) new WriterFile(schema, file, services).generate();
  }
}

/** Well-known types that the generated helpers write; any other one gives up. */
const WRITTEN_WELL_KNOWN = new Set(["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.Timestamp"]);

/** Messages with a generated writer, in declaration order of their files. */
function reachableMessages(schema: Schema<Options>, services: readonly DescService[]): DescMessage[] {
  const reached = new Set<DescMessage>();
  const pending = services.flatMap((service) => service.methods.map((method) => method.input));
  for (let message = pending.pop(); message !== undefined; message = pending.pop()) {
    if (reached.has(message) || isWellKnown(message)) continue;
    reached.add(message);
    for (const field of message.fields) {
      const kind = valueKind(field);
      if (kind.kind === "message") pending.push(kind.desc);
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

/** Why a field is left to toJson whenever it is set, or undefined. */
function fieldUnsupportedReason(field: DescField): string | undefined {
  if (field.fieldKind === "map" && field.mapKey !== SCALAR.STRING) return "it converts map keys other than strings";
  if (field.jsonName === "__proto__" || field.localName === "__proto__") return "it is named __proto__";
  const kind = valueKind(field);
  if (kind.kind === "enum" && enumHasCustomJsonNames(kind.desc)) return `${kind.desc.typeName} has custom JSON names`;
  if (kind.kind === "message" && isWellKnown(kind.desc) && !WRITTEN_WELL_KNOWN.has(kind.desc.typeName)) {
    return `${kind.desc.typeName} has its own JSON form`;
  }
  if (kind.kind === "message" && kind.desc.typeName === "google.protobuf.Value" && field.fieldKind !== "message") {
    return "lists and maps of Value are rare";
  }
  return undefined;
}

class WriterFile {
  private readonly f: GeneratedFile;
  private readonly messages: DescMessage[];
  private readonly names = new Map<DescMessage, { readonly exported: string; readonly atDepth: string }>();
  private readonly enumTables = new Map<DescEnum, string>();
  private readonly moduleNames: NameScope;

  constructor(
    schema: Schema<Options>,
    private readonly file: DescFile,
    private readonly services: readonly DescService[],
  ) {
    this.f = schema.generateFile(`${file.name}_json_writers.ts`);
    this.messages = reachableMessages(schema, services);
    this.moduleNames = new NameScope([
      ...HELPER_NAMES,
      "jsonWriters",
      "JsonWriter",
      "Fields",
      "JsonObject",
      "JsonValue",
      "base64Encode",
      "toBase64",
      "TIMESTAMP_MS_MIN",
      "TIMESTAMP_MS_MAX",
    ]);
    for (const message of this.messages) {
      const name = upperFirst(typeNameInFile(message, file));
      this.names.set(message, { exported: this.moduleNames.claim(`write${name}`), atDepth: this.moduleNames.claim(`write${name}AtDepth`) });
    }
  }

  generate(): void {
    const f = this.f;
    const writers = this.messages.map((message) => this.messageWriter(message));
    const jsonObject = f.import("JsonObject", "@bufbuild/protobuf", true);
    f.preamble(this.file);
    f.print`// Generated by scripts/protoc-gen-json-writers.ts (buf generate): do not edit.`;
    f.print`// Change the plugin, or its services in buf.gen.yaml, and run \`npm run generate\`.`;
    f.print`//`;
    f.print`// Fast ProtoJSON writers for the requests of:`;
    for (const service of this.services) f.print`//   ${service.typeName}`;
    f.print`// A writer returns what toJson(schema, message) returns (same keys in the`;
    f.print`// same order, equal values), or undefined when the message is outside the`;
    f.print`// plain case. Then call toJson: it keeps every edge case, and every error.`;
    f.print``;
    f.print`/** Writes a message as ProtoJSON, or returns undefined: then use toJson. */`;
    f.print(f.export("type", "JsonWriter"), ` = (message: unknown) => `, jsonObject, ` | undefined;`);
    f.print``;
    f.print`/** The writers by full type name, for a caller that holds a schema. */`;
    f.print(f.export("const", "jsonWriters"), `: Readonly<Record<string, JsonWriter | undefined>> = Object.freeze(`);
    f.print`  Object.assign(Object.create(null) as Record<string, JsonWriter>, {`;
    for (const message of this.messages) f.print`    ${JSON.stringify(message.typeName)}: ${this.nameOf(message).exported},`;
    f.print`  }),`;
    f.print`);`;
    for (const message of this.messages) {
      f.print``;
      f.print`/** Writes ${message.typeName}, or returns undefined: then use toJson. */`;
      f.print(f.export("function", this.nameOf(message).exported), `(message: unknown): `, jsonObject, ` | undefined {`);
      f.print`  return ${this.nameOf(message).atDepth}(message, 1);`;
      f.print`}`;
    }
    for (const writer of writers) {
      f.print``;
      for (const line of writer) f.print(line);
    }
    for (const [desc, name] of this.enumTables) {
      f.print``;
      f.print`// ${desc.typeName}: JSON names by number; an unknown number is written as the number.`;
      const entries = desc.values.map((value) => `[${value.number}, ${JSON.stringify(value.name)}]`).join(", ");
      f.print`const ${name}: ReadonlyMap<number, string> = new Map([${entries}]);`;
    }
    f.print``;
    printHelpers(f);
  }

  private nameOf(message: DescMessage): { readonly exported: string; readonly atDepth: string } {
    const names = this.names.get(message);
    if (names === undefined) throw new Error(`${message.typeName} has no writer`);
    return names;
  }

  private enumTable(desc: DescEnum): string {
    let name = this.enumTables.get(desc);
    if (name === undefined) {
      name = this.moduleNames.claim(`${typeNameInFile(desc, this.file).replace(/^./, (c) => c.toLowerCase())}Names`);
      this.enumTables.set(desc, name);
    }
    return name;
  }

  private messageWriter(message: DescMessage): string[] {
    const lines: string[] = [];
    lines.push(`/** ${message.typeName}; depth counts nested messages and JSON values from 1. */`);
    lines.push(`function ${this.nameOf(message).atDepth}(message: unknown, depth: number): JsonObject | undefined {`);
    lines.push(
      `  if (!isPlainObject(message) || message.$typeName !== ${JSON.stringify(message.typeName)} || depth > DEPTH_LIMIT) return undefined;`,
    );
    lines.push(`  const json: JsonObject = {};`);
    const scope = new NameScope(["message", "depth", "json", "value", "item", "items", "key", "keys", "i", "written", "oneof"]);
    const oneofVariables = new Map<string, string>();
    for (const oneof of message.oneofs) {
      const variable = scope.claim(oneof.localName);
      oneofVariables.set(oneof.localName, variable);
      lines.push(`  const ${variable} = ${ownRead(oneof.localName)};`);
      lines.push(`  if (!isPlainObject(${variable})) return undefined;`);
    }
    const fields = message.fields.concat().sort((a, b) => a.number - b.number);
    for (const field of fields) {
      const key = property("json", field.jsonName);
      const reason = fieldUnsupportedReason(field);
      if (field.oneof !== undefined) {
        const oneof = oneofVariables.get(field.oneof.localName) as string;
        lines.push(`  if (${oneof}.case === ${JSON.stringify(field.localName)}) {`);
        if (reason !== undefined) lines.push(`    return undefined; // ${field.name} is left to toJson: ${reason}.`);
        else lines.push(...this.valueWrite(valueKind(field), `${oneof}.value`, "    ", (result) => `${key} = ${result};`));
        lines.push(`  }`);
        continue;
      }
      const variable = scope.claim(field.localName);
      lines.push(`  const ${variable} = ${ownRead(field.localName)};`);
      if (reason !== undefined) {
        lines.push(`  // ${field.name} is left to toJson: ${reason}.`);
        lines.push(`  if (${variable} !== undefined) return undefined;`);
        continue;
      }
      lines.push(...this.fieldWrite(field, variable, key));
    }
    lines.push(`  return json;`);
    lines.push(`}`);
    return lines;
  }

  private fieldWrite(field: DescField, v: string, key: string): string[] {
    const kind = valueKind(field);
    if (field.fieldKind === "list") {
      return [
        `  if (!Array.isArray(${v})) return undefined;`,
        `  if (${v}.length > 0) {`,
        `    const items: JsonValue[] = [];`,
        `    for (let i = 0; i < ${v}.length; i++) {`,
        `      const item: unknown = ${v}[i];`,
        ...this.valueWrite(kind, "item", "      ", (result) => `items.push(${result});`),
        `    }`,
        `    ${key} = items;`,
        `  }`,
      ];
    }
    if (field.fieldKind === "map") {
      return [
        `  if (!isPlainObject(${v})) return undefined;`,
        `  const ${v}Keys = Object.keys(${v});`,
        `  if (${v}Keys.length > 0) {`,
        `    const items: JsonObject = {};`,
        `    for (const key of ${v}Keys) {`,
        `      // toJson keeps a "__proto__" key with setOwn: left to it.`,
        `      if (key === "__proto__") return undefined;`,
        `      const item: unknown = ${v}[key];`,
        ...this.valueWrite(kind, "item", "      ", (result) => `items[key] = ${result};`),
        `    }`,
        `    ${key} = items;`,
        `  }`,
      ];
    }
    if (field.fieldKind === "message" || field.presence !== PRESENCE_IMPLICIT) {
      return [`  if (${v} !== undefined) {`, ...this.valueWrite(kind, v, "    ", (result) => `${key} = ${result};`), `  }`];
    }
    // Implicit presence: the zero value is left out, with toJson's comparisons.
    const zeroTest = this.nonZeroTest(field, v);
    return [...this.typeGuard(kind, v, "  "), `  if (${zeroTest}) ${key} = ${this.scalarJson(kind, v)};`];
  }

  private nonZeroTest(field: DescField, v: string): string {
    if (field.fieldKind === "enum") return `${v} !== ${field.enum.values[0]?.number ?? 0}`;
    switch (field.fieldKind === "scalar" ? field.scalar : 0) {
      case SCALAR.STRING:
        return `${v} !== ""`;
      case SCALAR.BOOL:
        return v;
      case SCALAR.BYTES:
        return `${v}.byteLength > 0`;
      case SCALAR.DOUBLE:
      case SCALAR.FLOAT:
        // Object.is tells -0 from 0: toJson writes -0.
        return `!Object.is(${v}, 0)`;
      default:
        // Loose, like toJson's: 0, 0n and "0" are zero.
        return `${v} != 0`;
    }
  }

  /** Returns undefined from the writer unless `v` has the type toJson accepts. */
  private typeGuard(kind: ValueKind, v: string, indent: string): string[] {
    if (kind.kind === "enum") return [`${indent}if (typeof ${v} !== "number") return undefined;`];
    if (kind.kind !== "scalar") return [];
    switch (kind.scalar) {
      case SCALAR.STRING:
        return [`${indent}if (typeof ${v} !== "string") return undefined;`];
      case SCALAR.BOOL:
        return [`${indent}if (typeof ${v} !== "boolean") return undefined;`];
      case SCALAR.BYTES:
        return [`${indent}if (!(${v} instanceof Uint8Array)) return undefined;`];
      case SCALAR.INT64:
      case SCALAR.UINT64:
      case SCALAR.SINT64:
      case SCALAR.FIXED64:
      case SCALAR.SFIXED64:
        return [`${indent}if (!isInt64(${v})) return undefined;`];
      default:
        return [`${indent}if (typeof ${v} !== "number") return undefined;`];
    }
  }

  /** The JSON of a scalar or enum value that passed its type guard. */
  private scalarJson(kind: ValueKind, v: string): string {
    if (kind.kind === "enum") return `${this.enumTable(kind.desc)}.get(${v}) ?? ${v}`;
    if (kind.kind !== "scalar") throw new Error("not a scalar");
    switch (kind.scalar) {
      case SCALAR.BYTES:
        return `toBase64(${v})`;
      case SCALAR.DOUBLE:
      case SCALAR.FLOAT:
        // NaN and the infinities are written as the strings "NaN", "Infinity", "-Infinity".
        return `Number.isFinite(${v}) ? ${v} : String(${v})`;
      case SCALAR.INT64:
      case SCALAR.UINT64:
      case SCALAR.SINT64:
      case SCALAR.FIXED64:
      case SCALAR.SFIXED64:
        return `String(${v})`;
      default:
        return v;
    }
  }

  /** Statements that write the value in `v` or return undefined, then hand the JSON to `store`. */
  private valueWrite(kind: ValueKind, v: string, indent: string, store: (result: string) => string): string[] {
    if (kind.kind !== "message") return [...this.typeGuard(kind, v, indent), `${indent}${store(this.scalarJson(kind, v))}`];
    let call: string;
    switch (kind.desc.typeName) {
      case "google.protobuf.Struct":
        // A Struct field holds a JsonObject.
        call = `writeJsonObject(${v}, depth + 1)`;
        break;
      case "google.protobuf.Value":
        call = `writeValueMessage(${v}, depth + 1)`;
        break;
      case "google.protobuf.Timestamp":
        call = `writeTimestamp(${v})`;
        break;
      default:
        call = `${this.nameOf(kind.desc).atDepth}(${v}, depth + 1)`;
    }
    return [`${indent}const written = ${call};`, `${indent}if (written === undefined) return undefined;`, `${indent}${store("written")}`];
  }
}

/** Reads an own property of `message`: a key that Object.prototype has must be own. */
function ownRead(localName: string): string {
  return localName in Object.prototype
    ? `Object.hasOwn(message, ${JSON.stringify(localName)}) ? ${property("message", localName)} : undefined`
    : property("message", localName);
}

runNodeJs(protocGenJsonWriters);
