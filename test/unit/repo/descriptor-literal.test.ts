// The generated descriptors are object literals (scripts/descriptor-literal.ts,
// run by scripts/protoc-gen-es-lean.ts) where protoc-gen-es embeds base64 for
// protobuf-es's fileDesc(): each generated file's descriptor must be the one
// fileDesc() gives for the base64 protoc-gen-es would embed. beforeAll runs
// buf.gen.yaml's protoc-gen-es-lean again, with descriptors=base64, into a
// temporary directory; each file of gen/ is compared with its counterpart
// there: the FileDescriptorProto byte for byte and property by property (own
// properties, prototypes, every field read, set or not), and every
// descriptor protobuf-es derives from it. Our copies of the well-known types
// must equal protobuf-es's own, and their messages pass for each other's.

import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { promisify } from "node:util";
import {
  create,
  createRegistry,
  type DescField,
  type DescFile,
  type DescMessage,
  equals,
  fromBinary,
  isFieldSet,
  isMessage,
  type Message,
  toBinary,
  toJson,
} from "@bufbuild/protobuf";
import { embedFileDesc, fileDesc, type GenFile } from "@bufbuild/protobuf/codegenv2";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import * as wkt from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import * as OurAny from "../../../gen/google/protobuf/any_pb.js";
import * as OurDuration from "../../../gen/google/protobuf/duration_pb.js";
import * as OurEmpty from "../../../gen/google/protobuf/empty_pb.js";
import * as OurStruct from "../../../gen/google/protobuf/struct_pb.js";
import * as OurTimestamp from "../../../gen/google/protobuf/timestamp_pb.js";
import { repoRoot } from "../../../scripts/size.js";

const bufCli = join(repoRoot, "node_modules", "@bufbuild", "buf", "bin", "buf");

/** Every generated file with a descriptor, relative to gen/. */
const FILES = readdirSync(join(repoRoot, "gen"), { recursive: true, withFileTypes: true })
  .filter((d) => d.isFile() && d.name.endsWith("_pb.ts"))
  .map((d) => relative(join(repoRoot, "gen"), join(d.parentPath, d.name)).split(sep).join("/"))
  .sort();

interface Embedded {
  /** What protoc-gen-es passes fileDesc(). */
  base64: string;
  /** The name the file exports its descriptor as. */
  exported: string;
}

let tmp = "";
/** The same files generated with protoc-gen-es's base64, by path relative to gen/. */
const embedded = new Map<string, Embedded>();

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "a2a-descriptors-"));
  const config = parse(await readFile(join(repoRoot, "buf.gen.yaml"), "utf8")) as {
    plugins: Array<{ local: string[]; out: string; opt: string[] }>;
  };
  const lean = config.plugins.filter((p) => p.local.includes("scripts/protoc-gen-es-lean.ts"));
  expect(lean).toHaveLength(1);
  const template = {
    ...config,
    clean: false,
    plugins: [{ ...lean[0], out: join(tmp, "gen"), opt: [...lean[0]!.opt, "descriptors=base64"] }],
  };
  await writeFile(join(tmp, "buf.gen.yaml"), stringify(template));
  await promisify(execFile)(process.execPath, [bufCli, "generate", "--template", join(tmp, "buf.gen.yaml")], { cwd: repoRoot });
  for (const path of FILES) {
    const text = await readFile(join(tmp, "gen", path), "utf8").catch(() => "");
    const base64 = /fileDesc\("([A-Za-z0-9+/]*)"/.exec(text)?.[1];
    const exported = /^export const (file_\w+): GenFile/m.exec(text)?.[1];
    if (base64 !== undefined && exported !== undefined) embedded.set(path, { base64, exported });
  }
}, 120_000);

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** A field's value as the comparison prints it. */
function shown(value: unknown): string {
  if (value instanceof Uint8Array) return `bytes[${value.join(",")}]`;
  if (typeof value === "bigint") return `${value}n`;
  return JSON.stringify(value);
}

/** What `create` leaves on the prototype of `message`, as the comparison prints it. */
function prototypeOf(message: object): string[] {
  const prototype = Object.getPrototypeOf(message) as object;
  return prototype === Object.prototype ? [] : Object.entries(prototype).map(([k, v]) => `${k}=${shown(v)}`);
}

/**
 * Where `ours` differs from `theirs`, two messages of descriptor.proto's type
 * `schema`: `$typeName`, the own properties and their order, the prototype,
 * and each field of the type, whether set and its value (unset ones read
 * through the prototype), message fields compared the same way.
 */
function differences(ours: Message, theirs: Message, schema: DescMessage, path: string): string[] {
  const found: string[] = [];
  const a = ours as unknown as Record<string, unknown>;
  const b = theirs as unknown as Record<string, unknown>;
  if (a.$typeName !== b.$typeName || a.$typeName !== schema.typeName)
    found.push(`${path}: $typeName ${shown(a.$typeName)} != ${shown(b.$typeName)}`);
  if (Object.keys(a).join() !== Object.keys(b).join())
    found.push(`${path}: own properties ${Object.keys(a).join()} != ${Object.keys(b).join()}`);
  if (prototypeOf(a).join() !== prototypeOf(b).join())
    found.push(`${path}: prototype ${prototypeOf(a).join()} != ${prototypeOf(b).join()}`);
  for (const field of schema.fields) {
    const at = `${path}.${field.localName}`;
    if (isFieldSet(ours, field) !== isFieldSet(theirs, field))
      found.push(`${at}: set ${isFieldSet(ours, field)} != ${isFieldSet(theirs, field)}`);
    found.push(...valueDifferences(a[field.localName], b[field.localName], field, at));
  }
  return found;
}

function valueDifferences(a: unknown, b: unknown, field: DescField, at: string): string[] {
  if (field.fieldKind === "message") {
    if (a === undefined || b === undefined) return a === b ? [] : [`${at}: ${shown(a)} != ${shown(b)}`];
    return differences(a as Message, b as Message, field.message, at);
  }
  if (field.fieldKind === "list") {
    const [x, y] = [a as unknown[], b as unknown[]];
    if (x.length !== y.length) return [`${at}: ${x.length} items != ${y.length}`];
    return x.flatMap((item, i) =>
      field.listKind === "message"
        ? differences(item as Message, y[i] as Message, field.message, `${at}[${i}]`)
        : shown(item) === shown(y[i])
          ? []
          : [`${at}[${i}]: ${shown(item)} != ${shown(y[i])}`],
    );
  }
  return shown(a) === shown(b) ? [] : [`${at}: ${shown(a)} != ${shown(b)}`];
}

/** What protobuf-es derives from a file's FileDescriptorProto, as plain values. */
function derived(file: DescFile): unknown {
  const field = (f: DescField) => {
    // The properties each kind of field has, read from any of them.
    const g = f as unknown as Record<string, unknown> & {
      message?: DescMessage;
      enum?: { typeName: string };
      getDefaultValue?: () => unknown;
    };
    return {
      name: f.name,
      number: f.number,
      localName: f.localName,
      jsonName: f.jsonName,
      fieldKind: f.fieldKind,
      scalar: g.scalar,
      listKind: g.listKind,
      mapKind: g.mapKind,
      mapKey: g.mapKey,
      message: g.message?.typeName,
      enum: g.enum?.typeName,
      presence: f.presence,
      oneof: f.oneof?.name,
      packed: g.packed,
      delimitedEncoding: g.delimitedEncoding,
      longAsString: g.longAsString,
      default: typeof g.getDefaultValue === "function" ? shown(g.getDefaultValue()) : undefined,
      deprecated: f.deprecated,
    };
  };
  const types = [...nestedTypes(file)].map((type) => {
    switch (type.kind) {
      case "message":
        return {
          kind: type.kind,
          typeName: type.typeName,
          fields: type.fields.map(field),
          oneofs: type.oneofs.map((o) => ({ name: o.name, localName: o.localName, fields: o.fields.map((f) => f.name) })),
          members: type.members.map((m) => m.localName),
          deprecated: type.deprecated,
        };
      case "enum":
        return {
          kind: type.kind,
          typeName: type.typeName,
          open: type.open,
          sharedPrefix: type.sharedPrefix,
          values: type.values.map((v) => ({ name: v.name, localName: v.localName, number: v.number })),
        };
      case "service":
        return {
          kind: type.kind,
          typeName: type.typeName,
          methods: type.methods.map((m) => ({
            name: m.name,
            localName: m.localName,
            methodKind: m.methodKind,
            input: m.input.typeName,
            output: m.output.typeName,
            idempotency: m.idempotency,
          })),
        };
      case "extension":
        return { kind: type.kind, typeName: type.typeName, extendee: type.extendee.typeName, ...field(type as unknown as DescField) };
    }
  });
  return { name: file.name, edition: file.edition, dependencies: file.dependencies.map((d) => d.name), deprecated: file.deprecated, types };
}

describe.each(FILES)("the descriptor of gen/%s", (path) => {
  /** The file as generated, and as fileDesc() makes it from protoc-gen-es's base64. */
  async function both(): Promise<{ ours: GenFile; theirs: GenFile; base64: string }> {
    const found = embedded.get(path);
    if (!found) throw new Error(`${path}: protoc-gen-es-lean with descriptors=base64 did not generate it with a fileDesc call`);
    // Each generated file, by the path buf.gen.yaml writes it to.
    const module = (await import(/* @vite-ignore */ join(repoRoot, "gen", path))) as Record<string, GenFile>;
    const ours = module[found.exported]!;
    return { ours, theirs: fileDesc(found.base64, ours.dependencies), base64: found.base64 };
  }

  it("embeds back to protoc-gen-es's base64, and is fileDesc()'s FileDescriptorProto byte for byte", async () => {
    const { ours, theirs, base64 } = await both();
    expect(embedFileDesc(ours.proto).base64()).toBe(base64);
    expect(toBinary(wkt.FileDescriptorProtoSchema, ours.proto)).toEqual(toBinary(wkt.FileDescriptorProtoSchema, theirs.proto));
    expect(equals(wkt.FileDescriptorProtoSchema, ours.proto, theirs.proto)).toBe(true);
  });

  it("is fileDesc()'s message: own properties in order, prototypes with create()'s values, every field read", async () => {
    const { ours, theirs } = await both();
    expect(differences(ours.proto, theirs.proto, wkt.FileDescriptorProtoSchema, "file")).toEqual([]);
  });

  it("gives protobuf-es the same messages, enums, services and extensions, field by field", async () => {
    const { ours, theirs } = await both();
    expect(derived(ours)).toEqual(derived(theirs));
  });
});

describe("the comparison", () => {
  it("names a field set as an own property where fileDesc() reads it through the prototype, and the reverse", () => {
    const decoded = fromBinary(
      wkt.FileDescriptorProtoSchema,
      toBinary(wkt.FileDescriptorProtoSchema, OurEmpty.file_google_protobuf_empty.proto),
    );
    const copy = fromBinary(wkt.FileDescriptorProtoSchema, toBinary(wkt.FileDescriptorProtoSchema, decoded));
    expect(differences(copy, decoded, wkt.FileDescriptorProtoSchema, "file")).toEqual([]);
    copy.edition = 0;
    expect(differences(copy, decoded, wkt.FileDescriptorProtoSchema, "file")).toEqual([
      expect.stringMatching(/^file: own properties .*,edition != /),
      "file.edition: set true != false",
    ]);
    delete (decoded.options as unknown as Record<string, unknown>).javaPackage;
    expect(differences(copy, decoded, wkt.FileDescriptorProtoSchema, "file")).toContain(
      'file.options.javaPackage: "com.google.protobuf" != ""',
    );
  });
});

/** Each of our copies of a well-known type, with protobuf-es's file and a message of each of its types. */
const COPIES = [
  {
    ours: OurStruct.file_google_protobuf_struct,
    theirs: wkt.file_google_protobuf_struct,
    samples: {
      "google.protobuf.Struct": { fields: { a: { kind: { case: "numberValue", value: 1 } } } },
      "google.protobuf.Value": { kind: { case: "listValue", value: { values: [{ kind: { case: "stringValue", value: "x" } }] } } },
      "google.protobuf.ListValue": { values: [{ kind: { case: "boolValue", value: true } }, { kind: { case: "nullValue", value: 0 } }] },
    },
  },
  {
    ours: OurTimestamp.file_google_protobuf_timestamp,
    theirs: wkt.file_google_protobuf_timestamp,
    samples: { "google.protobuf.Timestamp": { seconds: 1_700_000_000n, nanos: 5 } },
  },
  {
    ours: OurDuration.file_google_protobuf_duration,
    theirs: wkt.file_google_protobuf_duration,
    samples: { "google.protobuf.Duration": { seconds: 3n, nanos: 1 } },
  },
  { ours: OurEmpty.file_google_protobuf_empty, theirs: wkt.file_google_protobuf_empty, samples: { "google.protobuf.Empty": {} } },
  {
    ours: OurAny.file_google_protobuf_any,
    theirs: wkt.file_google_protobuf_any,
    samples: { "google.protobuf.Any": { typeUrl: "type.googleapis.com/google.protobuf.Empty", value: new Uint8Array(0) } },
  },
];

describe.each(COPIES)("our copy of $theirs.name", ({ ours, theirs, samples }) => {
  it("is protobuf-es's descriptor: the same FileDescriptorProto, the same messages and enums", () => {
    expect(toBinary(wkt.FileDescriptorProtoSchema, ours.proto)).toEqual(toBinary(wkt.FileDescriptorProtoSchema, theirs.proto));
    expect(differences(ours.proto, theirs.proto, wkt.FileDescriptorProtoSchema, "file")).toEqual([]);
    expect(derived(ours)).toEqual(derived(theirs));
  });

  it("makes messages that pass for protobuf-es's: create, isMessage, binary and JSON both ways", () => {
    expect(ours.messages.map((m) => m.typeName).sort()).toEqual(Object.keys(samples).sort());
    for (const schema of ours.messages) {
      const other = theirs.messages.find((m) => m.typeName === schema.typeName)!;
      const init = samples[schema.typeName as keyof typeof samples] as Record<string, unknown>;
      const mine = create(schema, init);
      const its = create(other, init);
      expect(isMessage(mine, other) && isMessage(its, schema)).toBe(true);
      expect(create(other, mine)).toBe(mine);
      expect(toBinary(schema, its)).toEqual(toBinary(other, mine));
      expect(equals(other, fromBinary(other, toBinary(schema, mine)), its)).toBe(true);
      expect(equals(schema, fromBinary(schema, toBinary(other, its)), mine)).toBe(true);
      const registry = createRegistry(OurEmpty.file_google_protobuf_empty);
      expect(toJson(schema, its, { registry })).toEqual(toJson(other, mine, { registry }));
    }
  });
});

describe("our copies' types", () => {
  it("are assignable both ways with protobuf-es's (checked by the compiler, `npm run typecheck`)", () => {
    const init = { kind: { case: "stringValue" as const, value: "x" } };
    const values: [OurStruct.Value, wkt.Value] = [create(wkt.ValueSchema, init), create(OurStruct.ValueSchema, init)];
    const structs: [OurStruct.Struct, wkt.Struct] = [create(wkt.StructSchema), create(OurStruct.StructSchema)];
    const lists: [OurStruct.ListValue, wkt.ListValue] = [create(wkt.ListValueSchema), create(OurStruct.ListValueSchema)];
    const json: [OurStruct.ValueJson, wkt.ValueJson] = [toJson(wkt.ValueSchema, values[1]), toJson(OurStruct.ValueSchema, values[0])];
    const times: [OurTimestamp.Timestamp, wkt.Timestamp] = [create(wkt.TimestampSchema), create(OurTimestamp.TimestampSchema)];
    const durations: [OurDuration.Duration, wkt.Duration] = [create(wkt.DurationSchema), create(OurDuration.DurationSchema)];
    const empties: [OurEmpty.Empty, wkt.Empty] = [create(wkt.EmptySchema), create(OurEmpty.EmptySchema)];
    const anys: [OurAny.Any, wkt.Any] = [create(wkt.AnySchema), create(OurAny.AnySchema)];
    const schemas: [typeof wkt.ValueSchema, typeof OurStruct.ValueSchema] = [OurStruct.ValueSchema, wkt.ValueSchema];
    expect([values, structs, lists, json, times, durations, empties, anys, schemas].every((pair) => pair.length === 2)).toBe(true);
  });
});
