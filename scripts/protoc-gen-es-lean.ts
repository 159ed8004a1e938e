// protoc-gen-es-lean: protoc-gen-es, with the uses of some custom options left
// out of the descriptors it embeds, the descriptors written as object literals
// rather than base64, and our own copies of the well-known types they import.
//
// protoc-gen-es embeds each file's descriptor, options included, and makes the
// generated file load the descriptors of every file it imports. An option
// read only by code generation (REQUIRED markers, HTTP routes: our facts
// plugin writes them out, protoc-gen-facts.ts) would otherwise make every app
// load the files that declare it. buf's type filter cannot do this here: an
// input-level `exclude_types` hides the options from our own plugins too, and
// a plugin-level one applies to each input on its own (it fails on an input
// without the option) and drops the extensions' declarations from the
// generated google/api files, which scripts/spec-diff.ts reads.
//
// This plugin removes, from the files it is asked to generate, every use of
// the named extensions on fields and methods, and the imports that were there
// only for them; it then runs protoc-gen-es on that request. The files that
// declare the extensions are generated unchanged.
//
// protoc-gen-es's `fileDesc("<base64>")` decodes each descriptor at load with
// descriptor.proto's own schemas, which every app then loads: each such call
// is replaced by the same descriptor written as an object literal
// (scripts/descriptor-literal.ts, with the module it imports, written into the
// output's root). The base64 is decoded here, with protobuf-es's fromBinary,
// so the literal is the message protoc-gen-es embeds. protobuf-es's own
// well-known types call fileDesc too: the ones named are generated here as
// well (into google/protobuf/), the same way, and the generated files load
// their descriptors from there. Their types are still imported from
// "@bufbuild/protobuf/wkt": the generated types are protobuf-es's own.
//
// Options (buf.gen.yaml `opt`): leave_out=<full extension name>, one entry per
// extension (of google.protobuf.FieldOptions or MethodOptions);
// own_wkt=<file>, one entry per well-known type to copy (a file of
// google/protobuf/, copied when a generated file imports it);
// descriptors=base64 keeps protoc-gen-es's base64 (what the test of the
// literals compares them with; literal when not given); target=ts and
// import_extension go to protoc-gen-es with every other option, as they are.
//
// Run by `buf generate` as a local plugin: node --import tsx <this file>.

import { posix } from "node:path";
import { create, fromBinary } from "@bufbuild/protobuf";
import { protocGenEs } from "@bufbuild/protoc-gen-es/dist/cjs/src/protoc-gen-es-plugin.js";
import { type Plugin, runNodeJs } from "@bufbuild/protoplugin";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { CodeGeneratorResponse_FileSchema, FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { fileLiteral, RUNTIME_FILE, runtimeImport, runtimeModule } from "./descriptor-literal.js";

type Request = Parameters<Plugin["run"]>[0];
type Response = ReturnType<Plugin["run"]>;
type FileProto = Request["protoFile"][number];
type MessageProto = FileProto["messageType"][number];

interface Options {
  /** leave_out: full names of extensions. */
  leaveOut: string[];
  /** own_wkt: files of google/protobuf/. */
  ownWkt: string[];
  /** descriptors: literal (the default) or base64. */
  literal: boolean;
  /** What protoc-gen-es ends relative imports with (its import_extension). */
  importExtension: string;
  /** The options protoc-gen-es takes. */
  rest: string;
}

interface Extension {
  /** The file that declares it. */
  file: string;
  number: number;
  extendee: ".google.protobuf.FieldOptions" | ".google.protobuf.MethodOptions";
}

const WKT_MODULE = "@bufbuild/protobuf/wkt";

const protocGenEsLean: Plugin = {
  name: "protoc-gen-es-lean",
  version: protocGenEs.version,
  run(request) {
    const options = parseOptions(request.parameter);
    // buf runs the plugin once per input: an input that does not declare an
    // extension cannot use it either.
    const extensions = options.leaveOut.flatMap((name) => findExtension(request, name) ?? []);
    const generated = new Set(request.fileToGenerate);
    // The descriptors protoc-gen-es reads (with source-retention options) and
    // those it embeds (without).
    for (const file of [...request.protoFile, ...request.sourceFileDescriptors]) {
      if (generated.has(file.name)) leaveOut(file, extensions, request);
    }
    request.parameter = options.rest;
    // The copies are generated in the run of the files that import them, as
    // files of their own request: in the request of the files that import
    // them, protoc-gen-es would import their types from the copies too.
    const copies = options.ownWkt.filter((wkt) => request.protoFile.some((f) => generated.has(f.name) && f.dependency.includes(wkt)));
    const response = protocGenEs.run(request);
    if (copies.length > 0) response.file.push(...protocGenEs.run({ ...request, fileToGenerate: copies }).file);
    for (const file of response.file) {
      let content = loadCopies(file.name, file.content, copies, options.importExtension);
      if (options.literal) content = withLiteral(file.name, content, options.importExtension);
      file.content = content;
    }
    if (options.literal) addRuntime(response);
    return response;
  },
};

function parseOptions(parameter: string): Options {
  const options: Options = { leaveOut: [], ownWkt: [], literal: true, importExtension: "", rest: "" };
  const rest: string[] = [];
  for (const entry of parameter.split(",").filter((e) => e !== "")) {
    const [key, value = ""] = entry.split("=", 2);
    if (key === "leave_out" && value) options.leaveOut.push(value);
    else if (key === "own_wkt" && /^google\/protobuf\/[a-z_]+\.proto$/.test(value)) options.ownWkt.push(value);
    else if (key === "descriptors" && (value === "literal" || value === "base64")) options.literal = value === "literal";
    else {
      if (key === "target" && value !== "ts") throw new Error("target=ts only: the descriptors and imports are rewritten in TypeScript");
      if (key === "import_extension") options.importExtension = value === "none" ? "" : `.${value}`;
      rest.push(entry);
    }
  }
  if (options.leaveOut.length === 0) throw new Error("expected at least one leave_out=<full extension name>");
  if (!rest.includes("target=ts")) throw new Error("expected target=ts");
  options.rest = rest.join(",");
  return options;
}

/** The import of `target` (a generated file, without extension) from the generated file `from`. */
function relativeImport(from: string, target: string, extension: string): string {
  const path = posix.relative(posix.dirname(from), target);
  return `${path.startsWith(".") ? "" : "./"}${path}${extension}`;
}

/**
 * `content` (a generated file) loading the descriptors of the well-known types
 * in `copies` from our copies rather than from protobuf-es: protoc-gen-es
 * imports a file's descriptor by its name, `file_google_protobuf_struct` for
 * google/protobuf/struct.proto, in a value import of its own (types come in
 * `import type` lines, which stay).
 */
function loadCopies(name: string, content: string, copies: readonly string[], extension: string): string {
  if (copies.length === 0) return content;
  const copied = new Map(copies.map((wkt) => [`file_${wkt.replace(/\.proto$/, "").replaceAll("/", "_")}`, wkt.replace(/\.proto$/, "_pb")]));
  const line = new RegExp(`^import \\{ ([^}]+) \\} from "${WKT_MODULE}";$`, "m");
  return content.replace(line, (_, names: string) => {
    const kept: string[] = [];
    const lines: string[] = [];
    for (const symbol of names.split(", ")) {
      const target = copied.get(symbol);
      if (target === undefined) kept.push(symbol);
      else lines.push(`import { ${symbol} } from "${relativeImport(name, target, extension)}";`);
    }
    if (kept.length > 0) lines.unshift(`import { ${kept.join(", ")} } from "${WKT_MODULE}";`);
    return lines.join("\n");
  });
}

/**
 * `content` (a generated file) with its `fileDesc("<base64>", [imports])` call
 * replaced by the same descriptor as a literal, and imports to match.
 */
function withLiteral(name: string, content: string, extension: string): string {
  const call = /fileDesc\("([A-Za-z0-9+/]*)"(?:, (\[[^\]]*\]))?\)/;
  const found = call.exec(content);
  if (!found) {
    if (name.endsWith("_pb.ts")) throw new Error(`${name}: no fileDesc("...") call`);
    return content;
  }
  const proto = fromBinary(FileDescriptorProtoSchema, base64Decode(found[1]!));
  const codegen = /^import \{ ([^}]+) \} from "@bufbuild\/protobuf\/codegenv2";$/m;
  return content
    .replace(call, () => fileLiteral(proto, found[2]))
    .replace(codegen, (_, names: string) => {
      const kept = names.split(", ").filter((n) => n !== "fileDesc");
      const runtime = runtimeImport(name, extension);
      return kept.length > 0 ? `import { ${kept.join(", ")} } from "@bufbuild/protobuf/codegenv2";\n${runtime}` : runtime;
    });
}

/** The module the literals import: the same in every run, whichever files it generates. */
function addRuntime(response: Response): void {
  const header = "// @generated by protoc-gen-es-lean (scripts/protoc-gen-es-lean.ts)";
  response.file.push(create(CodeGeneratorResponse_FileSchema, { name: RUNTIME_FILE, content: runtimeModule(header) }));
}

function findExtension(request: Request, name: string): Extension | undefined {
  for (const file of request.protoFile) {
    const prefix = file.package === "" ? "" : `${file.package}.`;
    const found = file.extension.find((x) => prefix + x.name === name);
    if (!found) continue;
    if (found.extendee !== ".google.protobuf.FieldOptions" && found.extendee !== ".google.protobuf.MethodOptions") {
      throw new Error(`leave_out=${name}: only options of fields and methods can be left out, not of ${found.extendee}`);
    }
    return { file: file.name, number: found.number, extendee: found.extendee };
  }
  return undefined;
}

function leaveOut(file: FileProto, extensions: readonly Extension[], request: Request): void {
  const numbers = (extendee: Extension["extendee"]) => new Set(extensions.filter((x) => x.extendee === extendee).map((x) => x.number));
  const fieldOptions = numbers(".google.protobuf.FieldOptions");
  const methodOptions = numbers(".google.protobuf.MethodOptions");
  for (const message of allMessages(file.messageType)) {
    for (const field of message.field) field.options = without(field.options, fieldOptions);
  }
  for (const service of file.service) {
    for (const method of service.method) method.options = without(method.options, methodOptions);
  }
  // An import that declared only what was left out is no longer used.
  const declaring = new Set(extensions.map((x) => x.file));
  const used = typesUsedBy(file);
  file.dependency = file.dependency.filter((dep) => {
    if (!declaring.has(dep)) return true;
    const declared = request.protoFile.find((f) => f.name === dep);
    return declared !== undefined && typesDeclaredBy(declared).some((t) => used.has(t));
  });
}

/** Options without the unknown fields `numbers` (extensions are unknown fields to the plugin); unset once nothing is left. */
function without<T extends { $unknown?: Array<{ no: number }> }>(options: T | undefined, numbers: ReadonlySet<number>): T | undefined {
  if (options?.$unknown === undefined || numbers.size === 0) return options;
  options.$unknown = options.$unknown.filter((u) => !numbers.has(u.no));
  if (options.$unknown.length > 0) return options;
  delete options.$unknown;
  // Any known option still set keeps the message (options are proto2: an
  // unset field is no own property, an unset list an empty one).
  const known = Object.entries(options).some(([k, v]) => k !== "$typeName" && v !== undefined && !(Array.isArray(v) && v.length === 0));
  return known ? options : undefined;
}

function allMessages(messages: readonly MessageProto[]): MessageProto[] {
  return messages.flatMap((m) => [m, ...allMessages(m.nestedType)]);
}

/** Full names (with a leading dot) of the message and enum types `file` refers to. */
function typesUsedBy(file: FileProto): Set<string> {
  const used = new Set<string>();
  for (const message of allMessages(file.messageType)) for (const field of message.field) if (field.typeName) used.add(field.typeName);
  for (const service of file.service) for (const method of service.method) used.add(method.inputType).add(method.outputType);
  return used;
}

/** Full names (with a leading dot) of the message and enum types `file` declares. */
function typesDeclaredBy(file: FileProto): string[] {
  const names: string[] = [];
  const walk = (scope: string, messages: readonly MessageProto[], enums: ReadonlyArray<{ name: string }>) => {
    for (const e of enums) names.push(`${scope}.${e.name}`);
    for (const m of messages) {
      names.push(`${scope}.${m.name}`);
      walk(`${scope}.${m.name}`, m.nestedType, m.enumType);
    }
  };
  walk(file.package === "" ? "" : `.${file.package}`, file.messageType, file.enumType);
  return names;
}

runNodeJs(protocGenEsLean);
