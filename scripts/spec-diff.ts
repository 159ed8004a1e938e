// Compares two builds of the A2A schema and lists every difference that can
// change what goes over the wire (binary protobuf, ProtoJSON, gRPC method
// paths, HTTP+JSON routes) or what the schema promises callers (field
// behaviours, deprecation). Both sides are compiled by buf into descriptor
// sets first, so formatting, ordering inside the file and comments can never
// produce a difference: only compiled facts are compared.
//
// Lines read `<kind> <full name>: <what> <ours> != <spec>`, or
// `<kind> <full name>: only in ours|spec`.

import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  create,
  createFileRegistry,
  fromBinary,
  getExtension,
  hasExtension,
  isFieldSet,
  toJson,
  type FileRegistry,
} from "@bufbuild/protobuf";
import {
  Edition,
  FeatureSet_FieldPresence,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FieldDescriptorProtoSchema,
  FileDescriptorSetSchema,
  FileOptionsSchema,
  MethodOptions_IdempotencyLevel,
  type DescriptorProto,
  type EnumDescriptorProto,
  type FieldDescriptorProto,
  type FileDescriptorProto,
  type FileDescriptorSet,
  type MethodDescriptorProto,
} from "@bufbuild/protobuf/wkt";
import { http } from "../gen/google/api/annotations_pb.js";
import { method_signature } from "../gen/google/api/client_pb.js";
import { FieldBehavior, field_behavior } from "../gen/google/api/field_behavior_pb.js";
import type { HttpRule } from "../gen/google/api/http_pb.js";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/**
 * Where our schema lives (under proto/), and where a spec copy is placed so
 * both share a file name. The 1.0 schema is the default; the functions below
 * take another schema's file name (e.g. "a2a/v1/a2a.proto", the 0.3 one).
 */
export const schemaFile = "lf/a2a/v1/a2a.proto";
export const ourProto = join(repoRoot, "proto", schemaFile);

export interface SpecDiff {
  /** Differences that matter on the wire or to callers: these decide the exit code. */
  wire: string[];
  /** File options (go_package, java_package, ...) and imports: informative only. */
  nonWire: string[];
}

// ---------------------------------------------------------------------------
// Building descriptor sets with buf (offline: googleapis come from node_modules)

const run = promisify(execFile);
// The npm package's launcher is a Node script; calling it through the current
// node avoids depending on PATH or on `npx` (which costs ~1 s per call).
const bufCli = join(repoRoot, "node_modules", "@bufbuild", "buf", "bin", "buf");

/** Runs `buf build` in a workspace; `source` names the compiled file in errors. */
async function buildImage(cwd: string, out: string, source: string, schema: string): Promise<FileDescriptorSet> {
  // Source info holds only comments and locations; leaving it out keeps the
  // image small and makes "comments never matter" true by construction.
  const args = ["build", "--path", join("proto", schema), "--exclude-source-info", "-o", out];
  try {
    await run(process.execPath, [bufCli, ...args], { cwd, maxBuffer: 16 << 20 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`buf build failed for ${source} (reported as proto/${schema}):\n${(e.stderr || e.message).trim()}`);
  }
  return fromBinary(FileDescriptorSetSchema, await readFile(out));
}

/**
 * Compiles one a2a.proto file as `proto/{schema}`. Our own file of that name
 * is built in place from this repository's workspace; any other file is
 * copied to `proto/{schema}` of a temporary workspace that reuses our buf.yaml
 * (so the same google-proto-files module resolves its imports) with
 * node_modules linked in.
 */
export async function buildDescriptorSet(protoPath: string, schema: string = schemaFile): Promise<FileDescriptorSet> {
  const ours = join(repoRoot, "proto", schema);
  if (resolve(protoPath) !== ours) {
    return inTempDir(async (tmp) => {
      await mkdir(join(tmp, "proto", dirname(schema)), { recursive: true });
      await copyFile(protoPath, join(tmp, "proto", schema));
      await copyFile(join(repoRoot, "buf.yaml"), join(tmp, "buf.yaml"));
      await symlink(join(repoRoot, "node_modules"), join(tmp, "node_modules"), "dir");
      return buildImage(tmp, join(tmp, "image.binpb"), protoPath, schema);
    });
  }
  // Tests compare many edited copies with our proto: build it once per content.
  const key = `${schema}\n${await readFile(ours, "utf8")}`;
  let set = ourBuilds.get(key);
  if (!set) {
    set = inTempDir((tmp) => buildImage(repoRoot, join(tmp, "image.binpb"), ours, schema));
    ourBuilds.set(key, set);
    set.catch(() => ourBuilds.delete(key));
  }
  return set;
}

const ourBuilds = new Map<string, Promise<FileDescriptorSet>>();

async function inTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const tmp = await mkdtemp(join(tmpdir(), "a2a-spec-"));
  try {
    return await fn(tmp);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Builds both files (in parallel), each as `proto/{schema}`, and compares them. */
export async function diffProtoFiles(oursPath: string, specPath: string, schema: string = schemaFile): Promise<SpecDiff> {
  // allSettled, not all: when one build fails the other still finishes and
  // removes its temporary directory before the error is reported.
  const [ours, spec] = await Promise.allSettled([buildDescriptorSet(oursPath, schema), buildDescriptorSet(specPath, schema)]);
  if (ours.status === "rejected") throw ours.reason;
  if (spec.status === "rejected") throw spec.reason;
  return diffDescriptorSets(ours.value, spec.value, schema);
}

// ---------------------------------------------------------------------------
// Comparing

/** One compared side: the schema's files plus a registry for resolved facts (presence, packed). */
interface Side {
  files: FileDescriptorProto[];
  registry: FileRegistry;
}

/**
 * Compares the schema's files of two descriptor sets: those under the
 * schema's top two directories, `lf/a2a/...` by default (imports such as
 * google/api are tools, not part of the schema, and are skipped).
 */
export function diffDescriptorSets(ours: FileDescriptorSet, spec: FileDescriptorSet, schema: string = schemaFile): SpecDiff {
  const o = side(ours, schema);
  const s = side(spec, schema);
  const d = new Differ();

  for (const [name, fo, fs] of pair(o.files, s.files, (f) => f.name)) {
    const label = `file ${name}`;
    if (!fo || !fs) {
      d.wire.push(`${label}: only in ${fo ? "ours" : "spec"}`);
      continue;
    }
    d.attr(label, "package", fo.package, fs.package);
    // proto2/proto3/editions changes defaults for presence and packing.
    d.attr(label, "syntax", fo.syntax || "proto2", fs.syntax || "proto2");
    d.attr(label, "edition", Edition[fo.edition], Edition[fs.edition]);
    d.fileOptions(label, fo, fs);
  }

  d.services(o, s);
  d.messages(o, s);
  d.enums(o, s);
  d.extensions(o, s);
  return { wire: d.wire, nonWire: d.nonWire };
}

function side(set: FileDescriptorSet, schema: string): Side {
  const files = set.file.filter((f) => f.name.startsWith(dirname(dirname(schema)) + "/"));
  if (files.length === 0) throw new Error(`descriptor set has no ${schema}`);
  return { files, registry: createFileRegistry(set) };
}

/**
 * Pairs elements of two lists by key, in our order followed by spec-only
 * ones, so output is stable and reads top to bottom like our file.
 */
function pair<T>(ours: T[], spec: T[], key: (t: T) => string): [string, T | undefined, T | undefined][] {
  const specByKey = new Map(spec.map((t) => [key(t), t]));
  const out: [string, T | undefined, T | undefined][] = ours.map((t) => [key(t), t, specByKey.get(key(t))]);
  const ourKeys = new Set(ours.map(key));
  for (const t of spec) if (!ourKeys.has(key(t))) out.push([key(t), undefined, t]);
  return out;
}

/**
 * Like `pair` by name, but a name found on one side only is matched with an
 * unmatched element of the same number on the other side: a rename then reads
 * as one "name a != b" line instead of "only in ours" plus "only in spec".
 */
function pairByNameThenNumber<T extends { name: string; number: number }>(ours: T[], spec: T[]) {
  const pairs = pair(ours, spec, (t) => t.name);
  const lonelySpec = pairs.filter(([, a, b]) => !a && b).map(([, , b]) => b!);
  const used = new Set<T>();
  const out: [T | undefined, T | undefined][] = [];
  for (const [, a, b] of pairs) {
    if (a && !b) {
      const renamed = lonelySpec.find((t) => t.number === a.number && !used.has(t));
      if (renamed) used.add(renamed);
      out.push([a, renamed]);
    } else if (!(b && !a && used.has(b))) {
      out.push([a, b]);
    }
  }
  return out;
}

/** All messages (nested ones and map entries included) and enums, by full name. */
function walk(files: FileDescriptorProto[]) {
  const messages: { name: string; proto: DescriptorProto }[] = [];
  const enums: { name: string; proto: EnumDescriptorProto }[] = [];
  const extensions: { name: string; proto: FieldDescriptorProto }[] = [];
  const visit = (prefix: string, ms: DescriptorProto[], es: EnumDescriptorProto[], xs: FieldDescriptorProto[]) => {
    for (const e of es) enums.push({ name: prefix + e.name, proto: e });
    for (const x of xs) extensions.push({ name: prefix + x.name, proto: x });
    for (const m of ms) {
      messages.push({ name: prefix + m.name, proto: m });
      visit(`${prefix}${m.name}.`, m.nestedType, m.enumType, m.extension);
    }
  };
  for (const f of files) visit(f.package ? `${f.package}.` : "", f.messageType, f.enumType, f.extension);
  return { messages, enums, extensions };
}

const str = (v: unknown) => (Array.isArray(v) ? `[${v.join(", ")}]` : String(v));

class Differ {
  wire: string[] = [];
  nonWire: string[] = [];

  attr(label: string, what: string, ours: unknown, spec: unknown, to = this.wire) {
    if (str(ours) !== str(spec)) to.push(`${label}: ${what} ${str(ours)} != ${str(spec)}`);
  }

  fileOptions(label: string, fo: FileDescriptorProto, fs: FileDescriptorProto) {
    // Language package names only shape generated code for other languages.
    const json = (f: FileDescriptorProto) =>
      toJson(FileOptionsSchema, f.options ?? create(FileOptionsSchema), { useProtoFieldName: true }) as Record<string, unknown>;
    const jo = json(fo);
    const js = json(fs);
    for (const k of new Set([...Object.keys(jo), ...Object.keys(js)])) {
      this.attr(label, `option ${k}`, JSON.stringify(jo[k] ?? null), JSON.stringify(js[k] ?? null), this.nonWire);
    }
    // Imports follow from the types used; a type change is reported where it is used.
    this.attr(label, "imports", [...fo.dependency].sort(), [...fs.dependency].sort(), this.nonWire);
  }

  services(o: Side, s: Side) {
    const all = (side: Side) => side.files.flatMap((f) => f.service.map((sv) => ({ name: `${f.package}.${sv.name}`, sv })));
    for (const [name, a, b] of pair(all(o), all(s), (x) => x.name)) {
      const label = `service ${name}`;
      if (!a || !b) {
        this.wire.push(`${label}: only in ${a ? "ours" : "spec"}`);
        continue;
      }
      this.attr(label, "deprecated", a.sv.options?.deprecated ?? false, b.sv.options?.deprecated ?? false);
      for (const [mname, ma, mb] of pair(a.sv.method, b.sv.method, (m) => m.name)) {
        const mlabel = `method ${name}.${mname}`;
        if (!ma || !mb) this.wire.push(`${mlabel}: only in ${ma ? "ours" : "spec"}`);
        else this.method(mlabel, ma, mb);
      }
    }
  }

  method(label: string, a: MethodDescriptorProto, b: MethodDescriptorProto) {
    this.attr(label, "input_type", typeName(a.inputType), typeName(b.inputType));
    this.attr(label, "output_type", typeName(a.outputType), typeName(b.outputType));
    this.attr(label, "client_streaming", a.clientStreaming, b.clientStreaming);
    this.attr(label, "server_streaming", a.serverStreaming, b.serverStreaming);
    // The HTTP+JSON binding's verbs, paths and bodies, primary rule first and
    // then additional_bindings in order (a client tries them in that order).
    const ra = httpRules(a);
    const rb = httpRules(b);
    for (let i = 0; i < Math.max(ra.length, rb.length); i++) {
      this.attr(label, i === 0 ? "http" : `http additional_bindings[${i - 1}]`, ra[i] ?? "none", rb[i] ?? "none");
    }
    const sig = (m: MethodDescriptorProto) => (m.options ? getExtension(m.options, method_signature) : []);
    this.attr(
      label,
      "method_signature",
      sig(a).map((x) => `"${x}"`),
      sig(b).map((x) => `"${x}"`),
    );
    // Connect clients may use GET for NO_SIDE_EFFECTS methods.
    const idem = (m: MethodDescriptorProto) => MethodOptions_IdempotencyLevel[m.options?.idempotencyLevel ?? 0];
    this.attr(label, "idempotency_level", idem(a), idem(b));
    this.attr(label, "deprecated", a.options?.deprecated ?? false, b.options?.deprecated ?? false);
  }

  messages(o: Side, s: Side) {
    for (const [name, a, b] of pair(walk(o.files).messages, walk(s.files).messages, (m) => m.name)) {
      const label = `message ${name}`;
      if (!a || !b) {
        this.wire.push(`${label}: only in ${a ? "ours" : "spec"}`);
        continue;
      }
      // A map field and a repeated entry message encode alike in binary but
      // not in JSON (object vs array), so map_entry is a wire fact.
      this.attr(label, "map_entry", a.proto.options?.mapEntry ?? false, b.proto.options?.mapEntry ?? false);
      this.attr(label, "deprecated", a.proto.options?.deprecated ?? false, b.proto.options?.deprecated ?? false);
      for (const [fa, fb] of pairByNameThenNumber(a.proto.field, b.proto.field)) {
        const flabel = `field ${name}.${(fa ?? fb)!.name}`;
        if (!fa || !fb) this.wire.push(`${flabel}: only in ${fa ? "ours" : "spec"}`);
        else this.field(flabel, { name, proto: a.proto, side: o }, fa, { name, proto: b.proto, side: s }, fb);
      }
    }
  }

  field(label: string, pa: Parent, a: FieldDescriptorProto, pb: Parent, b: FieldDescriptorProto) {
    this.attr(label, "name", a.name, b.name);
    this.attr(label, "number", a.number, b.number);
    this.attr(label, "type", fieldType(a), fieldType(b));
    this.attr(label, "label", labelName(a), labelName(b));
    this.attr(label, "json_name", a.jsonName, b.jsonName);
    this.attr(label, "oneof", oneofName(pa.proto, a), oneofName(pb.proto, b));
    this.attr(label, "presence", presence(pa, a), presence(pb, b));
    this.attr(label, "packed", packed(pa, a), packed(pb, b));
    this.attr(label, "default", a.defaultValue || "none", b.defaultValue || "none");
    this.attr(label, "field_behavior", behaviours(a), behaviours(b));
    this.attr(label, "deprecated", a.options?.deprecated ?? false, b.options?.deprecated ?? false);
  }

  enums(o: Side, s: Side) {
    for (const [name, a, b] of pair(walk(o.files).enums, walk(s.files).enums, (e) => e.name)) {
      const label = `enum ${name}`;
      if (!a || !b) {
        this.wire.push(`${label}: only in ${a ? "ours" : "spec"}`);
        continue;
      }
      this.attr(label, "allow_alias", a.proto.options?.allowAlias ?? false, b.proto.options?.allowAlias ?? false);
      this.attr(label, "deprecated", a.proto.options?.deprecated ?? false, b.proto.options?.deprecated ?? false);
      // JSON carries enum values by name, binary by number: both matter.
      for (const [va, vb] of pairByNameThenNumber(a.proto.value, b.proto.value)) {
        const vlabel = `enum value ${name}.${(va ?? vb)!.name}`;
        if (!va || !vb) {
          this.wire.push(`${vlabel}: only in ${va ? "ours" : "spec"}`);
          continue;
        }
        this.attr(vlabel, "name", va.name, vb.name);
        this.attr(vlabel, "number", va.number, vb.number);
        this.attr(vlabel, "deprecated", va.options?.deprecated ?? false, vb.options?.deprecated ?? false);
      }
    }
  }

  extensions(o: Side, s: Side) {
    for (const [name, a, b] of pair(walk(o.files).extensions, walk(s.files).extensions, (x) => x.name)) {
      const label = `extension ${name}`;
      if (!a || !b) {
        this.wire.push(`${label}: only in ${a ? "ours" : "spec"}`);
        continue;
      }
      this.attr(label, "extendee", typeName(a.proto.extendee), typeName(b.proto.extendee));
      this.attr(label, "number", a.proto.number, b.proto.number);
      this.attr(label, "type", fieldType(a.proto), fieldType(b.proto));
      this.attr(label, "label", labelName(a.proto), labelName(b.proto));
    }
  }
}

interface Parent {
  name: string;
  proto: DescriptorProto;
  side: Side;
}

const typeName = (t: string | undefined) => (t ?? "").replace(/^\./, "");

/** `string`, `int32`, ... or `message lf.a2a.v1.Part` / `enum lf.a2a.v1.Role`. */
function fieldType(f: FieldDescriptorProto): string {
  const kind = FieldDescriptorProto_Type[f.type]?.toLowerCase() ?? String(f.type);
  return f.typeName ? `${kind} ${typeName(f.typeName)}` : kind;
}

/** `optional` (singular, whatever its presence), `repeated` or `required`. */
const labelName = (f: FieldDescriptorProto) => FieldDescriptorProto_Label[f.label]?.toLowerCase() ?? String(f.label);

/** The real oneof a field belongs to; proto3 `optional` (a synthetic oneof) is reported as presence. */
function oneofName(m: DescriptorProto, f: FieldDescriptorProto): string {
  // oneof_index has proto2 presence: unset reads as 0, so ask whether it is set.
  if (!isFieldSet(f, FieldDescriptorProtoSchema.field.oneofIndex) || f.proto3Optional) return "none";
  return m.oneofDecl[f.oneofIndex]?.name ?? `#${f.oneofIndex}`;
}

/**
 * Presence as resolved by protobuf-es (handles proto3 and editions alike),
 * marked "(optional)" when it comes from proto3's `optional` keyword. Map
 * entries are not in the registry: their key/value fields cannot be optional.
 */
function presence(p: Parent, f: FieldDescriptorProto): string {
  const field = p.side.registry.getMessage(p.name)?.fields.find((x) => x.number === f.number);
  const resolved = field ? FeatureSet_FieldPresence[field.presence].toLowerCase() : "n/a";
  return f.proto3Optional ? `${resolved} (optional)` : resolved;
}

/** Packed or not changes the binary encoding of repeated scalars. */
function packed(p: Parent, f: FieldDescriptorProto): string {
  const field = p.side.registry.getMessage(p.name)?.fields.find((x) => x.number === f.number);
  return field?.fieldKind === "list" && field.listKind !== "message" ? String(field.packed) : "n/a";
}

/** google.api.field_behavior values, sorted: their order carries no meaning. */
function behaviours(f: FieldDescriptorProto): string[] {
  const values = f.options ? getExtension(f.options, field_behavior) : [];
  return values.map((v) => FieldBehavior[v] ?? String(v)).sort();
}

/** The google.api.http rule and its additional_bindings, each as `VERB path body=... response_body=...`. */
function httpRules(m: MethodDescriptorProto): string[] {
  if (!m.options || !hasExtension(m.options, http)) return [];
  const rule = getExtension(m.options, http);
  return [rule, ...rule.additionalBindings].map(formatRule);
}

function formatRule(r: HttpRule): string {
  const p = r.pattern;
  const route =
    p.case === undefined ? "(no verb)" : p.case === "custom" ? `${p.value.kind} ${p.value.path}` : `${p.case.toUpperCase()} ${p.value}`;
  let s = route;
  if (r.body) s += ` body=${r.body}`;
  if (r.responseBody) s += ` response_body=${r.responseBody}`;
  return s;
}
