// protoc-gen-es-lean: protoc-gen-es, with the uses of some custom options left
// out of the descriptors it embeds.
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
// Options (buf.gen.yaml `opt`): leave_out=<full extension name>, one entry per
// extension (of google.protobuf.FieldOptions or MethodOptions); every other
// option goes to protoc-gen-es as it is.
//
// Run by `buf generate` as a local plugin: node --import tsx <this file>.

import { protocGenEs } from "@bufbuild/protoc-gen-es/dist/cjs/src/protoc-gen-es-plugin.js";
import { type Plugin, runNodeJs } from "@bufbuild/protoplugin";

type Request = Parameters<Plugin["run"]>[0];
type FileProto = Request["protoFile"][number];
type MessageProto = FileProto["messageType"][number];

const OPTION = "leave_out";

interface Extension {
  /** The file that declares it. */
  file: string;
  number: number;
  extendee: ".google.protobuf.FieldOptions" | ".google.protobuf.MethodOptions";
}

const protocGenEsLean: Plugin = {
  name: "protoc-gen-es-lean",
  version: protocGenEs.version,
  run(request) {
    const { names, rest } = splitParameter(request.parameter);
    // buf runs the plugin once per input: an input that does not declare an
    // extension cannot use it either.
    const extensions = names.flatMap((name) => findExtension(request, name) ?? []);
    const generated = new Set(request.fileToGenerate);
    // The descriptors protoc-gen-es reads (with source-retention options) and
    // those it embeds (without).
    for (const file of [...request.protoFile, ...request.sourceFileDescriptors]) {
      if (generated.has(file.name)) leaveOut(file, extensions, request);
    }
    request.parameter = rest;
    return protocGenEs.run(request);
  },
};

function splitParameter(parameter: string): { names: string[]; rest: string } {
  const names: string[] = [];
  const rest: string[] = [];
  for (const entry of parameter.split(",").filter((e) => e !== "")) {
    const [key, value] = entry.split("=", 2);
    if (key === OPTION && value) names.push(value);
    else rest.push(entry);
  }
  if (names.length === 0) throw new Error(`expected at least one ${OPTION}=<full extension name>`);
  return { names, rest: rest.join(",") };
}

function findExtension(request: Request, name: string): Extension | undefined {
  for (const file of request.protoFile) {
    const prefix = file.package === "" ? "" : `${file.package}.`;
    const found = file.extension.find((x) => prefix + x.name === name);
    if (!found) continue;
    if (found.extendee !== ".google.protobuf.FieldOptions" && found.extendee !== ".google.protobuf.MethodOptions") {
      throw new Error(`${OPTION}=${name}: only options of fields and methods can be left out, not of ${found.extendee}`);
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
