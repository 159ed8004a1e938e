// Our ProtoJSON reader and writer (src/protocol/json-read.ts, json-write.ts)
// against protobuf-es's fromJson and toJson, the reference: messages of
// every type of both schemas made by walking the descriptors with seeded
// pseudo-random values, variants of their JSON as other writers send it,
// and a corpus of edge and malformed inputs.
import { describe, expect, it } from "vitest";
import { create, fromJson, toJson, ScalarType, type DescField, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import { base64Encode } from "@bufbuild/protobuf/wire";
import { EmptySchema, ListValueSchema, StructSchema, TimestampSchema, ValueSchema } from "@bufbuild/protobuf/wkt";
import * as V1 from "../../../gen/lf/a2a/v1/a2a_pb.js";
import * as V03 from "../../../gen/a2a/v1/a2a_pb.js";
import { readJson } from "../../../src/protocol/json-read.js";
import { writeJson } from "../../../src/protocol/json-write.js";
import { seededRandom } from "../../support/seeded-random.js";

/** Every message type of a file, nested ones included. */
function messagesOf(file: { messages: DescMessage[] }): DescMessage[] {
  const out: DescMessage[] = [];
  const walk = (m: DescMessage) => {
    out.push(m);
    m.nestedMessages.forEach(walk);
  };
  file.messages.forEach(walk);
  return out;
}

const SCHEMAS = [
  ...messagesOf(V1.file_lf_a2a_v1_a2a),
  ...messagesOf(V03.file_a2a_v1_a2a),
  StructSchema,
  ValueSchema,
  ListValueSchema,
  TimestampSchema,
  EmptySchema,
];

type Rand = () => number;
const pick = <T>(r: Rand, items: readonly T[]): T => items[Math.floor(r() * items.length)]!;
const chance = (r: Rand, p: number) => r() < p;

const STRINGS = ["", "a", "hello world", "ünïcødé ✓", "😀 emoji", "line\nbreak", '"quoted"', "__proto__", "0", "s3cr3t"];

function randomString(r: Rand): string {
  return chance(r, 0.5) ? pick(r, STRINGS) : Math.floor(r() * 1e9).toString(36);
}

function randomJson(r: Rand, depth: number): JsonValue {
  const k = Math.floor(r() * (depth > 3 ? 4 : 6));
  switch (k) {
    case 0:
      return null;
    case 1:
      return pick(r, [0, -1, 1.5, 1e21, -0.25, 42, Number.MAX_SAFE_INTEGER]);
    case 2:
      return randomString(r);
    case 3:
      return chance(r, 0.5);
    case 4:
      return Array.from({ length: Math.floor(r() * 3) }, () => randomJson(r, depth + 1));
    default: {
      const o: Record<string, JsonValue> = {};
      for (let i = Math.floor(r() * 3); i > 0; i--) o[randomString(r)] = randomJson(r, depth + 1);
      return o;
    }
  }
}

function randomObject(r: Rand): Record<string, JsonValue> {
  return { a: randomJson(r, 1), [randomString(r)]: randomJson(r, 0) };
}

function randomTimestamp(r: Rand) {
  const seconds = BigInt(Math.floor(r() * 253402300799) - (chance(r, 0.2) ? 62135596800 : 0));
  const nanos = pick(r, [0, 0, 123_000_000, 456_000, 789, Math.floor(r() * 1e9)]);
  return create(TimestampSchema, { seconds, nanos });
}

function randomScalar(r: Rand, f: DescField & { scalar: ScalarType }): unknown {
  switch (f.scalar) {
    case ScalarType.STRING:
      return randomString(r);
    case ScalarType.BOOL:
      return chance(r, 0.5);
    case ScalarType.BYTES:
      return Uint8Array.from({ length: Math.floor(r() * 6) }, () => Math.floor(r() * 256));
    case ScalarType.INT32:
      return pick(r, [0, 1, -1, 2147483647, -2147483648, Math.floor(r() * 1000)]);
    default:
      throw new Error(`no generator for ${ScalarType[f.scalar]}`);
  }
}

/** A message of type `desc` with pseudo-random fields (every kind, some unset), `depth` deep. */
function randomMessage(r: Rand, desc: DescMessage, depth = 0): Record<string, unknown> {
  switch (desc.typeName) {
    case "google.protobuf.Timestamp":
      return randomTimestamp(r);
    case "google.protobuf.Value":
      return fromJson(ValueSchema, randomJson(r, 0));
    case "google.protobuf.Struct":
      return fromJson(StructSchema, randomObject(r));
    case "google.protobuf.ListValue":
      return fromJson(ListValueSchema, [randomJson(r, 1)]);
  }
  const m = create(desc) as Record<string, unknown>;
  for (const oneof of desc.oneofs) {
    const f = chance(r, 0.8) ? pick(r, oneof.fields) : undefined;
    if (f) m[oneof.localName] = { case: f.localName, value: randomValue(r, f, depth) };
  }
  for (const f of desc.fields) {
    if (f.oneof) continue;
    if (f.fieldKind === "list") {
      const items = m[f.localName] as unknown[];
      for (let i = Math.floor(r() * (depth > 2 ? 1 : 3)); i > 0; i--) items.push(randomValue(r, f, depth));
    } else if (f.fieldKind === "map") {
      const record = m[f.localName] as Record<string, unknown>;
      for (let i = Math.floor(r() * (depth > 2 ? 1 : 3)); i > 0; i--) {
        Object.defineProperty(record, randomString(r), {
          value: randomValue(r, f, depth),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    } else if (f.fieldKind === "message" ? depth < 4 && chance(r, 0.7) : chance(r, 0.7)) {
      m[f.localName] = randomValue(r, f, depth);
    }
  }
  return m;
}

function randomValue(r: Rand, f: DescField, depth: number): unknown {
  const kind = f.fieldKind === "list" ? f.listKind : f.fieldKind === "map" ? f.mapKind : f.fieldKind;
  // A Struct field holds its JSON object (protobuf-es's StructJson), a Struct in a Value the message.
  if (kind === "message" && f.message!.typeName === "google.protobuf.Struct" && f.parent.typeName !== "google.protobuf.Value")
    return randomObject(r);
  if (kind === "message") return randomMessage(r, f.message!, depth + 1);
  if (kind === "enum") return chance(r, 0.15) ? 99 : pick(r, f.enum!.values).number;
  return randomScalar(r, f as DescField & { scalar: ScalarType });
}

/**
 * `json` (toJson's, of a message of type `desc`) as other writers send the
 * same message: proto names as keys, enums as numbers, bytes as base64url,
 * int32 as strings, timestamps with offsets, nulls and unknown keys added.
 */
function variant(r: Rand, desc: DescMessage, json: JsonValue): JsonValue {
  if (desc.typeName === "google.protobuf.Timestamp" && typeof json === "string" && chance(r, 0.5)) {
    const ms = Date.parse(json);
    const fraction = /\.\d+/.exec(json)?.[0] ?? "";
    const shifted = new Date(ms + 2 * 3600_000).toISOString().slice(0, 19);
    return Date.parse(`${shifted}+02:00`) === ms && ms + 2 * 3600_000 < 253402300799000 ? `${shifted}${fraction}+02:00` : json;
  }
  if (desc.typeName.startsWith("google.protobuf.") || typeof json !== "object" || json === null || Array.isArray(json)) return json;
  const out: Record<string, JsonValue> = {};
  for (const f of desc.fields) {
    let v = json[f.jsonName];
    if (v === undefined) {
      if (chance(r, 0.1) && !f.oneof) out[f.name] = null;
      continue;
    }
    const one = (item: JsonValue, kind: string): JsonValue => {
      if (kind === "message") return variant(r, f.message!, item);
      if (kind === "enum" && typeof item === "string" && chance(r, 0.5)) return f.enum!.values.find((e) => e.name === item)!.number;
      if (f.scalar === ScalarType.BYTES && typeof item === "string" && chance(r, 0.5))
        return item.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
      if (f.scalar === ScalarType.INT32 && typeof item === "number" && chance(r, 0.5)) return String(item);
      return item;
    };
    if (f.fieldKind === "list") v = (v as JsonValue[]).map((item) => one(item, f.listKind));
    else if (f.fieldKind === "map")
      v = Object.fromEntries(Object.entries(v as Record<string, JsonValue>).map(([k, item]) => [k, one(item, f.mapKind)]));
    else v = one(v, f.fieldKind);
    out[chance(r, 0.3) ? f.name : f.jsonName] = v;
  }
  if (chance(r, 0.2)) out.someFutureField = { nested: [1, 2] };
  return out;
}

/** What a call gives: its value, or that it threw. */
function outcome(f: () => unknown): { value?: unknown; threw?: true } {
  try {
    return { value: f() };
  } catch {
    return { threw: true };
  }
}

const READ = { ignoreUnknownFields: true } as const;

describe("writeJson and readJson against toJson and fromJson", () => {
  const r = seededRandom(20261204);
  const PER_TYPE = 12;

  it.each(SCHEMAS.map((s) => [s.typeName, s] as const))("%s: the same JSON written, the same message read", (_, schema) => {
    for (let i = 0; i < PER_TYPE; i++) {
      const m = randomMessage(r, schema) as never;
      const json = toJson(schema, m);
      const ours = writeJson(schema, m);
      // Key order included: the text is compared, not only the values.
      expect(JSON.stringify(ours)).toBe(JSON.stringify(json));
      expect(ours).toStrictEqual(json);
      expect(readJson(schema, json)).toStrictEqual(fromJson(schema, json, READ));
      const other = variant(r, schema, json);
      expect(outcome(() => readJson(schema, other))).toStrictEqual(outcome(() => fromJson(schema, other, READ)));
    }
  });
});

// Inputs each side must agree on: both read the same message, or both throw.
const CORPUS: [string, DescMessage, unknown][] = [
  ["nulls for every kind", V1.TaskSchema, { id: null, contextId: null, status: null, artifacts: null, history: null, metadata: null }],
  ["null in a oneof's scalar", V1.PartSchema, { text: null, url: "https://x" }],
  ["null in a oneof's Value", V1.PartSchema, { data: null }],
  ["null Value in a Struct", V1.TaskSchema, { metadata: { a: null, b: [null, { c: null }] } }],
  ["proto names", V1.TaskSchema, { context_id: "c", status: { state: "TASK_STATE_WORKING" } }],
  ["both names of a field", V1.TaskSchema, { contextId: "c", context_id: "c" }],
  ["both names, one null", V1.TaskSchema, { contextId: null, context_id: "c" }],
  ["enum by number", V1.TaskStatusSchema, { state: 3 }],
  ["unknown enum number", V1.TaskStatusSchema, { state: 99 }],
  ["unknown enum name", V1.TaskStatusSchema, { state: "TASK_STATE_SOMEDAY" }],
  ["enum as a numeric string", V1.TaskStatusSchema, { state: "3" }],
  ["enum not an integer", V1.TaskStatusSchema, { state: 1.5 }],
  ["enum out of int32", V1.TaskStatusSchema, { state: 2 ** 31 }],
  ["enum as a bool", V1.TaskStatusSchema, { state: true }],
  ["enum null", V1.TaskStatusSchema, { state: null }],
  ["unknown role in a message", V1.MessageSchema, { messageId: "m", role: "ROLE_NOBODY" }],
  ["int32 as a string", V1.GetTaskRequestSchema, { id: "t", historyLength: "10" }],
  ["int32 as a padded string", V1.GetTaskRequestSchema, { id: "t", historyLength: " 10" }],
  ["int32 as an empty string", V1.GetTaskRequestSchema, { id: "t", historyLength: "" }],
  ["int32 as a float", V1.GetTaskRequestSchema, { id: "t", historyLength: 1.5 }],
  ["int32 as 1.0 in a string", V1.GetTaskRequestSchema, { id: "t", historyLength: "1.0" }],
  ["int32 in exponent form", V1.GetTaskRequestSchema, { id: "t", historyLength: "1e3" }],
  ["int32 out of range", V1.GetTaskRequestSchema, { id: "t", historyLength: 2 ** 31 }],
  ["int32 at its least", V1.GetTaskRequestSchema, { id: "t", historyLength: -(2 ** 31) }],
  ["int32 as hex", V1.GetTaskRequestSchema, { id: "t", historyLength: "0x10" }],
  ["int32 as a bool", V1.GetTaskRequestSchema, { id: "t", historyLength: true }],
  ["bool as a string", V1.AgentCapabilitiesSchema, { streaming: "true" }],
  ["string as a number", V1.TaskSchema, { id: 5 }],
  ["lone surrogate", V1.TaskSchema, { id: "\ud800" }],
  ["bytes padded", V1.PartSchema, { raw: "aGk=" }],
  ["bytes unpadded", V1.PartSchema, { raw: "aGk" }],
  ["bytes base64url", V1.PartSchema, { raw: "-_-_" }],
  ["bytes with spaces", V1.PartSchema, { raw: "aG k=" }],
  ["bytes not base64", V1.PartSchema, { raw: "a*b" }],
  ["bytes of one char", V1.PartSchema, { raw: "a" }],
  ["bytes empty", V1.PartSchema, { raw: "" }],
  ["bytes as an array", V1.PartSchema, { raw: [1, 2] }],
  ["timestamp with an offset", V1.TaskStatusSchema, { timestamp: "2026-01-02T03:04:05+05:30" }],
  ["timestamp with a negative offset", V1.TaskStatusSchema, { timestamp: "2026-01-02T03:04:05.5-08:00" }],
  ["timestamp with 9 digits", V1.TaskStatusSchema, { timestamp: "2026-01-02T03:04:05.123456789Z" }],
  ["timestamp with 10 digits", V1.TaskStatusSchema, { timestamp: "2026-01-02T03:04:05.1234567891Z" }],
  ["timestamp with no zone", V1.TaskStatusSchema, { timestamp: "2026-01-02T03:04:05" }],
  ["timestamp lowercase", V1.TaskStatusSchema, { timestamp: "2026-01-02t03:04:05z" }],
  ["timestamp at its least", V1.TaskStatusSchema, { timestamp: "0001-01-01T00:00:00Z" }],
  ["timestamp at its most", V1.TaskStatusSchema, { timestamp: "9999-12-31T23:59:59.999999999Z" }],
  ["timestamp before its least", V1.TaskStatusSchema, { timestamp: "0001-01-01T00:00:00+01:00" }],
  ["timestamp after its most", V1.TaskStatusSchema, { timestamp: "9999-12-31T23:59:59-01:00" }],
  ["timestamp year zero", V1.TaskStatusSchema, { timestamp: "0000-12-31T23:59:59Z" }],
  ["timestamp Feb 30", V1.TaskStatusSchema, { timestamp: "2026-02-30T00:00:00Z" }],
  ["timestamp hour 24", V1.TaskStatusSchema, { timestamp: "2026-01-01T24:00:00Z" }],
  ["timestamp offset 24:00", V1.TaskStatusSchema, { timestamp: "2026-01-01T00:00:00+24:00" }],
  ["timestamp as a number", V1.TaskStatusSchema, { timestamp: 1700000000 }],
  ["timestamp as an object", V1.TaskStatusSchema, { timestamp: { seconds: 1 } }],
  ["wrong type at depth", V1.TaskSchema, { artifacts: [{ parts: [{ text: "a" }, { text: 7 }] }] }],
  ["message as a string", V1.TaskSchema, { status: "working" }],
  ["message as an array", V1.TaskSchema, { status: [] }],
  ["top level as an array", V1.TaskSchema, [{ id: "t" }]],
  ["top level as a string", V1.TaskSchema, "t"],
  ["top level null", V1.TaskSchema, null],
  ["list as an object", V1.TaskSchema, { artifacts: {} }],
  ["list item null", V1.TaskSchema, { artifacts: [null] }],
  ["scalar list item null", V1.AgentCardSchema, { name: "a", defaultInputModes: ["text/plain", null] }],
  ["scalar list item of another type", V1.AgentCardSchema, { defaultInputModes: [1] }],
  ["map as an array", V1.AgentCardSchema, { securitySchemes: [] }],
  ["map value null", V1.AgentCardSchema, { securitySchemes: { a: null } }],
  ["map value of another type", V1.AgentCardSchema, { securitySchemes: { a: "x" } }],
  ["map with __proto__", V1.AgentCardSchema, JSON.parse('{"securitySchemes":{"__proto__":{"apiKeySecurityScheme":{"name":"k"}}}}')],
  ["Struct with __proto__", V1.TaskSchema, JSON.parse('{"metadata":{"__proto__":{"x":1}}}')],
  ["key __proto__ in a message", V1.TaskSchema, JSON.parse('{"__proto__":{"id":"x"},"id":"t"}')],
  ["Struct as an array", V1.TaskSchema, { metadata: [1] }],
  ["Struct as a string", V1.TaskSchema, { metadata: "s" }],
  ["two keys of one oneof", V1.PartSchema, { text: "a", url: "b" }],
  ["two keys of one oneof, one a message", V1.SecuritySchemeSchema, { apiKeySecurityScheme: {}, httpAuthSecurityScheme: null }],
  ["two keys of one oneof by both names", V1.SecuritySchemeSchema, { api_key_security_scheme: {}, apiKeySecurityScheme: {} }],
  ["oneof message null", V1.SecuritySchemeSchema, { apiKeySecurityScheme: null }],
  ["unknown keys", V1.TaskSchema, { id: "t", futureField: { a: 1 }, $typeName: "x" }],
  ["a Value at top level", ValueSchema, [1, "a", { b: null }]],
  ["a Struct at top level", StructSchema, { a: [1, { b: true }] }],
  ["a ListValue of a non-array", ListValueSchema, { a: 1 }],
  ["Empty of a non-object", EmptySchema, 5],
  ["Empty with keys", EmptySchema, { a: 1 }],
  ["undefined member", V1.TaskSchema, { id: undefined }],
  ["undefined in a Struct", V1.TaskSchema, { metadata: { a: undefined } }],
  ["a bigint in a Value", V1.PartSchema, { data: 1n }],
  ["0.3 part with kind", V03.PartSchema, { text: "x", metadata: { a: 1 } }],
];

function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = i % 2 ? { a: v } : [v];
  return v;
}
for (const depth of [95, 96, 97, 98, 99, 100, 101, 200, 5000]) {
  CORPUS.push([`a Value nested ${depth} deep`, V1.PartSchema, { data: nested(depth) }]);
  CORPUS.push([`a Struct nested ${depth} deep`, V1.TaskSchema, { metadata: { a: nested(depth) } }]);
  CORPUS.push([`a top-level Value nested ${depth} deep`, ValueSchema, nested(depth)]);
}

describe("readJson on edge and malformed inputs", () => {
  it.each(CORPUS)("%s: as fromJson", (_, schema, json) => {
    expect(outcome(() => readJson(schema, json))).toStrictEqual(outcome(() => fromJson(schema, json as JsonValue, READ)));
  });
});

// Messages each side must agree on when writing: the same JSON, or both throw.
const WRITE_CORPUS: [string, DescMessage, unknown][] = [
  ["a string of another type", V1.TaskSchema, { ...create(V1.TaskSchema), id: 5 }],
  ["an int32 as a float", V1.GetTaskRequestSchema, create(V1.GetTaskRequestSchema, { id: "t", historyLength: 1.5 })],
  ["an int32 as a string", V1.GetTaskRequestSchema, { ...create(V1.GetTaskRequestSchema, { id: "t" }), historyLength: "3" }],
  ["bytes as a string", V1.PartSchema, { ...create(V1.PartSchema), content: { case: "raw", value: "aGk=" } }],
  ["an enum as a name", V1.TaskStatusSchema, { ...create(V1.TaskStatusSchema), state: "TASK_STATE_WORKING" }],
  ["an unknown enum number", V1.TaskStatusSchema, create(V1.TaskStatusSchema, { state: 99 as V1.TaskState })],
  [
    "a NaN in a Value",
    V1.PartSchema,
    create(V1.PartSchema, { content: { case: "data", value: { kind: { case: "numberValue", value: Number.NaN } } } }),
  ],
  [
    "an infinity in a Struct",
    V1.TaskSchema,
    create(V1.TaskSchema, { metadata: { fields: { a: { kind: { case: "numberValue", value: Infinity } } } } }),
  ],
  ["a Value with no kind", V1.PartSchema, create(V1.PartSchema, { content: { case: "data", value: {} } })],
  ["a timestamp before 0001", V1.TaskStatusSchema, create(V1.TaskStatusSchema, { timestamp: { seconds: -62135596801n } })],
  ["a timestamp after 9999", V1.TaskStatusSchema, create(V1.TaskStatusSchema, { timestamp: { seconds: 253402300800n } })],
  [
    "a timestamp at 9999's end",
    V1.TaskStatusSchema,
    create(V1.TaskStatusSchema, { timestamp: { seconds: 253402300799n, nanos: 999999999 } }),
  ],
  ["negative nanos", V1.TaskStatusSchema, create(V1.TaskStatusSchema, { timestamp: { seconds: 1n, nanos: -1 } })],
  ["nanos too large", V1.TaskStatusSchema, create(V1.TaskStatusSchema, { timestamp: { seconds: 1n, nanos: 1e9 } })],
  ["a message of another type", V1.TaskSchema, { ...create(V1.TaskSchema), status: create(V1.MessageSchema) }],
  ["a top-level message of another type", V1.TaskSchema, create(V1.MessageSchema)],
  ["a message field as a string", V1.TaskSchema, { ...create(V1.TaskSchema), status: "x" }],
  ["explicit presence at zero", V1.GetTaskRequestSchema, create(V1.GetTaskRequestSchema, { historyLength: 0 })],
  ["a Struct with __proto__", V1.TaskSchema, fromJson(V1.TaskSchema, JSON.parse('{"metadata":{"__proto__":{"x":1}}}'))],
  ["Empty", EmptySchema, create(EmptySchema)],
  [
    "bytes of every length",
    V1.PartSchema,
    create(V1.PartSchema, { content: { case: "raw", value: new Uint8Array([251, 255, 191, 0, 1]) } }),
  ],
];

describe("writeJson on edge and malformed messages", () => {
  it.each(WRITE_CORPUS)("%s: as toJson", (_, schema, message) => {
    const ours = outcome(() => writeJson(schema, message as never));
    expect(ours).toStrictEqual(outcome(() => toJson(schema, message as never)));
    if (ours.value !== undefined) expect(JSON.stringify(ours.value)).toBe(JSON.stringify(toJson(schema, message as never)));
  });

  it("writes bytes as padded standard base64", () => {
    const raw = new Uint8Array([251, 255, 191]);
    expect(writeJson(V1.PartSchema, create(V1.PartSchema, { content: { case: "raw", value: raw } }))).toEqual({ raw: base64Encode(raw) });
    expect(base64Encode(raw)).toBe("+/+/");
  });
});

describe("errors name the path and never the value", () => {
  const SECRET = "sk-live-7f3a9c1e2b";
  const message = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return String((e as Error).message);
    }
    throw new Error("expected an error");
  };

  it.each([
    [V1.TaskSchema, { id: "t", status: { timestamp: SECRET } }, "status.timestamp"],
    [V1.TaskSchema, { artifacts: [{ parts: [{ text: "ok" }, { text: 5, url: SECRET }] }] }, "artifacts[0].parts[1].text"],
    [V1.TaskSchema, { artifacts: [{ parts: [{ text: SECRET, url: SECRET }] }] }, "artifacts[0].parts[0].url"],
    [V1.TaskPushNotificationConfigSchema, { url: "https://h", token: { secret: SECRET } }, "token"],
    [V1.PartSchema, { raw: `*${SECRET}*` }, "raw"],
    [V1.TaskStatusSchema, { state: { name: SECRET } }, "state"],
    [V1.AgentCardSchema, { securitySchemes: { [SECRET]: SECRET } }, "securitySchemes"],
    [V1.TaskSchema, { metadata: { [SECRET]: 1n } }, "metadata"],
    [V1.TaskSchema, { history: [{ role: "ROLE_USER", messageId: 1 }] }, "history[0].messageId"],
  ])("reading %#", (schema, json, path) => {
    const text = message(() => readJson(schema, json));
    expect(text).toMatch(/^cannot decode /);
    expect(text).toContain(` at ${path}:`);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("sk-live");
  });

  it("reading names the type", () => {
    expect(message(() => readJson(V1.TaskSchema, { status: { timestamp: SECRET } }))).toBe(
      "cannot decode message google.protobuf.Timestamp from JSON at status.timestamp: invalid RFC 3339 string",
    );
    expect(message(() => readJson(V1.TaskSchema, { id: 5 }))).toBe(
      "cannot decode field lf.a2a.v1.Task.id from JSON at id: expected string",
    );
    expect(message(() => readJson(V1.TaskSchema, SECRET))).toBe("cannot decode message lf.a2a.v1.Task from JSON: expected an object");
  });

  it.each([
    [V1.TaskSchema, { ...create(V1.TaskSchema), id: { secret: SECRET } }, "id"],
    [
      V1.TaskSchema,
      create(V1.TaskSchema, {
        artifacts: [{ parts: [{ content: { case: "text", value: "a" } }, { content: { case: "url", value: 5 as never } }] }],
      }),
      "artifacts[0].parts[1].url",
    ],
    [V1.TaskStatusSchema, { ...create(V1.TaskStatusSchema), state: SECRET }, "state"],
    [V1.TaskStatusSchema, create(V1.TaskStatusSchema, { timestamp: { seconds: 1n, nanos: -5 } }), "timestamp"],
  ])("writing %#", (schema, m, path) => {
    const text = message(() => writeJson(schema, m as never));
    expect(text).toMatch(/^cannot encode /);
    expect(text).toContain(` at ${path}:`);
    expect(text).not.toContain(SECRET);
  });

  it("writing a Value names the field holding it, not its keys", () => {
    const task = create(V1.TaskSchema, { metadata: { [SECRET]: { nested: [Number.NaN] } } });
    const text = message(() => writeJson(V1.TaskSchema, task));
    expect(text).toBe("google.protobuf.Value cannot be NaN or Infinity (at metadata)");
  });
});

describe("kinds our schemas do not use (json-codec-kinds.test.ts) are refused, naming the field", () => {
  it("a 64-bit integer and a Duration, read or written", async () => {
    const { QuotaFailure_ViolationSchema, RetryInfoSchema } = await import("../../../gen/google/rpc/error_details_pb.js");
    expect(() => readJson(QuotaFailure_ViolationSchema, { subject: "s", quotaValue: "5" })).toThrow(
      "cannot decode field google.rpc.QuotaFailure.Violation.quota_value from JSON at quotaValue: this scalar type is not supported",
    );
    // Absent, or at its zero value, it is nothing to read or write.
    expect(readJson(QuotaFailure_ViolationSchema, { subject: "s" })).toStrictEqual(
      fromJson(QuotaFailure_ViolationSchema, { subject: "s" }),
    );
    expect(writeJson(QuotaFailure_ViolationSchema, create(QuotaFailure_ViolationSchema, { subject: "s" }))).toEqual({ subject: "s" });
    expect(() => writeJson(QuotaFailure_ViolationSchema, create(QuotaFailure_ViolationSchema, { quotaValue: 5n }))).toThrow(
      "cannot encode field google.rpc.QuotaFailure.Violation.quota_value to JSON at quotaValue: this scalar type is not supported",
    );
    expect(() => readJson(RetryInfoSchema, { retryDelay: "1s" })).toThrow(
      "cannot decode message google.protobuf.Duration from JSON at retryDelay: this well-known type is not supported",
    );
  });
});
