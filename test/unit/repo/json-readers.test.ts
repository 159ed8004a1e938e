/**
 * The generated ProtoJSON readers (gen/lf/a2a/v1/a2a_json_readers.ts) against
 * fromJson(schema, json, { ignoreUnknownFields: true }): for any JSON, a
 * reader either gives up (undefined) or returns what fromJson returns, with
 * the same own keys in the same order at every level. On realistic A2A 1.0
 * documents it must not give up; where a REQUIRED value is absent it must
 * (the response check, which names the value, then reads what fromJson read).
 */
import { fromJson, type DescMessage, type JsonValue, type Message } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  AgentCardSchema,
  ArtifactSchema,
  ListTaskPushNotificationConfigsResponseSchema,
  ListTasksResponseSchema,
  MessageSchema,
  PartSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskArtifactUpdateEventSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
  TaskStatusSchema,
  TaskStatusUpdateEventSchema,
} from "../../../gen/lf/a2a/v1/a2a_pb.js";
import {
  jsonReaders,
  readAgentCard,
  readListTaskPushNotificationConfigsResponse,
  readListTasksResponse,
  readSendMessageResponse,
  readStreamResponse,
  readTask,
  readTaskPushNotificationConfig,
  type JsonReader,
} from "../../../gen/lf/a2a/v1/a2a_json_readers.js";
import { seededRandom } from "../../support/seeded-random.js";

type Outcome = "matched" | "gave up" | "both rejected";

/**
 * The first difference between two decoded values, or undefined: equal
 * values, same prototypes, same own keys in the same order, at every level.
 */
function difference(actual: unknown, expected: unknown, path = "$"): string | undefined {
  if (typeof actual !== typeof expected) return `${path}: ${typeof actual} instead of ${typeof expected}`;
  if (typeof expected !== "object" || expected === null) {
    return Object.is(actual, expected) ? undefined : `${path}: ${String(actual)} instead of ${String(expected)}`;
  }
  if (typeof actual !== "object" || actual === null) return `${path}: ${String(actual)} instead of an object`;
  if (Object.getPrototypeOf(actual) !== Object.getPrototypeOf(expected)) return `${path}: another prototype`;
  const actualKeys = Reflect.ownKeys(actual);
  const expectedKeys = Reflect.ownKeys(expected);
  if (actualKeys.length !== expectedKeys.length || actualKeys.some((key, i) => key !== expectedKeys[i])) {
    return `${path}: keys [${actualKeys.map(String).join(", ")}] instead of [${expectedKeys.map(String).join(", ")}]`;
  }
  for (const key of expectedKeys) {
    const inner = difference(
      (actual as Record<PropertyKey, unknown>)[key],
      (expected as Record<PropertyKey, unknown>)[key],
      `${path}.${String(key)}`,
    );
    if (inner !== undefined) return inner;
  }
  return undefined;
}

function decodeWithFromJson(schema: DescMessage, json: unknown): { message: Message } | { error: unknown } {
  try {
    return { message: fromJson(schema, json as JsonValue, { ignoreUnknownFields: true }) };
  } catch (error) {
    return { error };
  }
}

/** Asserts the contract for one document, and tells how it went. */
function checkContract(schema: DescMessage, reader: JsonReader, json: unknown, label: string): Outcome {
  const expected = decodeWithFromJson(schema, json);
  const before = JSON.stringify(json);
  const actual = reader(json);
  expect(JSON.stringify(json), `${label}: the reader changed its input`).toBe(before);
  if (actual === undefined) return "error" in expected ? "both rejected" : "gave up";
  if ("error" in expected) {
    expect.fail(`${label}: the reader accepted what fromJson rejects (${String(expected.error)}): ${before}`);
  }
  const found = difference(actual, expected.message);
  if (found !== undefined) expect.fail(`${label}: ${found} for ${before}`);
  return "matched";
}

/** Parsed from text, as a transport would: own keys only, "__proto__" included. */
function parse(text: string): unknown {
  return JSON.parse(text);
}

// ---------------------------------------------------------------------------
// Realistic A2A 1.0 ProtoJSON documents.

const userMessage = {
  messageId: "msg-1",
  contextId: "ctx-1",
  taskId: "task-1",
  role: "ROLE_USER",
  parts: [{ text: "Plan a trip to Lisbon in May." }],
};

const agentMessage = {
  messageId: "msg-2",
  contextId: "ctx-1",
  taskId: "task-1",
  role: "ROLE_AGENT",
  parts: [
    { text: "Here is the itinerary.", mediaType: "text/plain" },
    { url: "https://example.com/itinerary.pdf", filename: "itinerary.pdf", mediaType: "application/pdf" },
    { data: { days: 3, cities: ["Lisbon", "Sintra"], budget: { amount: 1200.5, currency: "EUR" }, booked: false, note: null } },
  ],
  metadata: { model: "planner-2", latencyMs: 812, tags: ["travel"], trace: { id: "abc", sampled: true } },
  extensions: ["https://example.com/ext/citations/v1"],
  referenceTaskIds: ["task-0"],
};

const artifact = {
  artifactId: "art-1",
  name: "itinerary",
  description: "A three-day plan",
  parts: [{ text: "Day 1: Alfama.", metadata: { language: "en" } }, { data: [1, "two", true, null, { three: [3] }] }],
  metadata: { version: 2 },
  extensions: ["https://example.com/ext/artifact-hash/v1"],
};

const workingStatus = {
  state: "TASK_STATE_WORKING",
  message: agentMessage,
  timestamp: "2026-05-01T09:30:15.123Z",
};

const fullTask = {
  id: "task-1",
  contextId: "ctx-1",
  status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-05-01T09:31:00.123456789Z" },
  artifacts: [artifact, { artifactId: "art-2", parts: [{ url: "https://example.com/map.png", mediaType: "image/png" }] }],
  history: [userMessage, agentMessage],
  metadata: { priority: "high", attempts: 1 },
};

const statusUpdates = [
  { taskId: "task-1", contextId: "ctx-1", status: { state: "TASK_STATE_WORKING", timestamp: "2026-01-01T00:00:00Z" } },
  { taskId: "task-1", contextId: "ctx-1", status: { state: "TASK_STATE_SUBMITTED", timestamp: "2026-01-01T00:00:00.5Z" } },
  { taskId: "task-1", contextId: "ctx-1", status: { state: "TASK_STATE_INPUT_REQUIRED", message: userMessage } },
  { taskId: "task-1", contextId: "ctx-1", status: workingStatus, metadata: { step: 3, of: 5 } },
  { taskId: "task-1", contextId: "ctx-1", status: { state: "TASK_STATE_COMPLETED", timestamp: "1999-12-31T23:59:59.999999Z" } },
  { taskId: "task-1", contextId: "ctx-1", status: { state: "TASK_STATE_FAILED", timestamp: "1969-12-31T23:59:59.5Z" } },
  { taskId: "task-1", contextId: "ctx-1", status: { state: "TASK_STATE_AUTH_REQUIRED", timestamp: "2024-02-29T12:00:00Z" } },
];

const artifactUpdates = [
  { taskId: "task-1", contextId: "ctx-1", artifact: { artifactId: "art-1", parts: [{ text: "x".repeat(1000) }] } },
  { taskId: "task-1", contextId: "ctx-1", artifact, append: true, lastChunk: false },
  {
    taskId: "task-1",
    contextId: "ctx-1",
    artifact: { artifactId: "art-1", parts: [{ text: "…and done. 😀" }] },
    append: true,
    lastChunk: true,
  },
  {
    taskId: "task-1",
    contextId: "ctx-1",
    artifact: { artifactId: "art-3", parts: [{ url: "https://example.com/a.csv", filename: "a.csv" }] },
    metadata: { source: "export", rows: 120 },
  },
  {
    taskId: "task-1",
    contextId: "ctx-1",
    artifact: { artifactId: "art-4", parts: [{ data: "a plain string" }, { data: 42 }, { data: false }] },
  },
];

const pushConfig = {
  tenant: "acme",
  id: "cfg-1",
  taskId: "task-1",
  url: "https://client.example.com/webhook",
  token: "opaque-token",
  authentication: { scheme: "Bearer", credentials: "secret" },
};

const agentCard = {
  name: "Trip Planner",
  description: "Plans trips",
  supportedInterfaces: [
    { url: "https://agent.example.com/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    { url: "https://agent.example.com/rest", protocolBinding: "HTTP+JSON", protocolVersion: "1.0", tenant: "t1" },
  ],
  provider: { organization: "Example", url: "https://example.com" },
  version: "1.2.3",
  documentationUrl: "https://example.com/docs",
  capabilities: {
    streaming: true,
    pushNotifications: false,
    extensions: [{ uri: "https://example.com/ext/citations/v1", description: "Citations", required: false, params: { max: 3 } }],
    extendedAgentCard: true,
  },
  securitySchemes: {
    bearer: { httpAuthSecurityScheme: { scheme: "bearer", bearerFormat: "JWT" } },
    key: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } },
    oauth: {
      oauth2SecurityScheme: {
        flows: { clientCredentials: { tokenUrl: "https://auth.example.com/token", scopes: { read: "Read" } } },
        oauth2MetadataUrl: "https://auth.example.com/.well-known/oauth-authorization-server",
      },
    },
    oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: "https://auth.example.com/.well-known/openid-configuration" } },
    mtls: { mtlsSecurityScheme: { description: "client certificate" } },
  },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }, { schemes: { oauth: { list: ["read"] } } }],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain", "application/json"],
  skills: [
    { id: "plan", name: "Plan", description: "Plans a trip", tags: ["travel"], examples: ["Lisbon in May"], inputModes: ["text/plain"] },
    { id: "book", name: "Book", description: "Books", tags: [], securityRequirements: [{ schemes: { key: { list: [] } } }] },
  ],
  signatures: [{ protected: "eyJhbGciOiJFUzI1NiJ9", signature: "c2lnbmF0dXJl", header: { kid: "k1" } }],
  iconUrl: "https://example.com/icon.png",
};

interface Root {
  readonly schema: DescMessage;
  readonly reader: JsonReader;
  readonly documents: readonly unknown[];
}

const roots: readonly Root[] = [
  {
    schema: StreamResponseSchema,
    reader: readStreamResponse,
    documents: [
      ...statusUpdates.map((statusUpdate) => ({ statusUpdate })),
      ...artifactUpdates.map((artifactUpdate) => ({ artifactUpdate })),
      { message: agentMessage },
      { message: userMessage },
      { task: fullTask },
      { task: { id: "task-2", contextId: "ctx-2", status: { state: "TASK_STATE_SUBMITTED" } } },
    ],
  },
  {
    schema: SendMessageResponseSchema,
    reader: readSendMessageResponse,
    documents: [{ task: fullTask }, { message: agentMessage }, { task: { id: "task-3", status: { state: "TASK_STATE_WORKING" } } }],
  },
  {
    schema: TaskSchema,
    reader: readTask,
    documents: [fullTask, { id: "task-4", contextId: "ctx-4", status: workingStatus, history: [userMessage] }],
  },
  {
    schema: ListTasksResponseSchema,
    reader: readListTasksResponse,
    documents: [
      { tasks: [fullTask, { id: "task-5", status: { state: "TASK_STATE_CANCELED" } }], nextPageToken: "p2", pageSize: 2, totalSize: 7 },
      { tasks: [fullTask], nextPageToken: "p3", pageSize: 2147483647, totalSize: -2147483648 },
    ],
  },
  {
    schema: TaskPushNotificationConfigSchema,
    reader: readTaskPushNotificationConfig,
    documents: [pushConfig, { taskId: "task-1", url: "https://client.example.com/hook" }],
  },
  {
    schema: ListTaskPushNotificationConfigsResponseSchema,
    reader: readListTaskPushNotificationConfigsResponse,
    documents: [{ configs: [pushConfig, { id: "cfg-2", taskId: "task-1", url: "https://c.example.com" }], nextPageToken: "n" }, {}],
  },
  {
    schema: AgentCardSchema,
    reader: readAgentCard,
    documents: [agentCard],
  },
];

/** JSON text round trip: every document is what JSON.parse returns. */
function corpus(root: Root): unknown[] {
  return root.documents.map((document) => parse(JSON.stringify(document)));
}

describe("generated JSON readers on A2A 1.0 documents", () => {
  for (const root of roots) {
    it(`read every ${root.schema.typeName} document like fromJson, without giving up`, () => {
      for (const [index, json] of corpus(root).entries()) {
        expect(checkContract(root.schema, root.reader, json, `${root.schema.typeName} #${index}`)).toBe("matched");
      }
    });
  }

  it("give up where a REQUIRED value is absent or empty, which fromJson reads and the response check then names", () => {
    const whole = { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } };
    const cases: [Root, unknown][] = [
      [roots[0]!, {}],
      [roots[0]!, { statusUpdate: { ...whole, taskId: "" } }],
      [roots[0]!, { statusUpdate: { contextId: "c", status: whole.status } }],
      [roots[0]!, { statusUpdate: { taskId: "t", contextId: "c" } }],
      [roots[0]!, { artifactUpdate: { taskId: "t", contextId: "c", artifact: { parts: [] } } }],
      [roots[0]!, { message: { role: "ROLE_AGENT", parts: [] } }],
      [roots[1]!, {}],
      [roots[1]!, { task: { status: whole.status } }],
      [roots[2]!, {}],
      // A message reached through a field that is not REQUIRED is held to its REQUIRED values too.
      [roots[2]!, { id: "t", status: whole.status, history: [{ role: "ROLE_USER", parts: [] }] }],
      // The last page's token is empty: read by fromJson (the check allows it).
      [roots[3]!, { tasks: [], nextPageToken: "", pageSize: 50, totalSize: 0 }],
      [roots[3]!, { tasks: [{ id: "t" }], nextPageToken: "p" }],
      [roots[4]!, {}],
      [roots[6]!, { name: "Minimal", supportedInterfaces: [{ url: "https://a.example.com", protocolBinding: "JSONRPC" }] }],
    ];
    for (const [root, document] of cases) {
      const json = parse(JSON.stringify(document));
      expect(checkContract(root.schema, root.reader, json, JSON.stringify(document)), JSON.stringify(document)).toBe("gave up");
    }
  });

  it("finds each reader by type name", () => {
    for (const root of roots) expect(jsonReaders[root.schema.typeName]).toBe(root.reader);
    for (const schema of [
      TaskStatusSchema,
      PartSchema,
      MessageSchema,
      ArtifactSchema,
      TaskStatusUpdateEventSchema,
      TaskArtifactUpdateEventSchema,
    ]) {
      expect(jsonReaders[schema.typeName], schema.typeName).toBeTypeOf("function");
    }
    // No inherited keys.
    // biome-ignore lint/complexity/useLiteralKeys: the keys are looked up as strings, as a type name would be
    expect(jsonReaders["toString"]).toBeUndefined();
    // biome-ignore lint/complexity/useLiteralKeys: as above
    // biome-ignore lint/suspicious/noProto: the inherited key must not be a reader
    expect(jsonReaders["__proto__"]).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------
// Edge cases: give up or match, never differ.

interface Case {
  readonly root: Root;
  readonly text: string;
}

const streamRoot = roots[0]!;
const listRoot = roots[3]!;

/** A StreamResponse document. */
function stream(text: string): Case {
  return { root: streamRoot, text };
}

/** A ListTasksResponse document. */
function list(text: string): Case {
  return { root: listRoot, text };
}

function statusUpdateWith(patch: (event: Record<string, unknown>, status: Record<string, unknown>) => void): Case {
  const status: Record<string, unknown> = { state: "TASK_STATE_WORKING", timestamp: "2026-01-01T00:00:00Z" };
  const event: Record<string, unknown> = { taskId: "task-1", contextId: "ctx-1", status };
  patch(event, status);
  return stream(JSON.stringify({ statusUpdate: event }));
}

function artifactUpdateWith(patch: (event: Record<string, unknown>, part: Record<string, unknown>) => void): Case {
  const part: Record<string, unknown> = { text: "hello" };
  const event: Record<string, unknown> = { taskId: "task-1", contextId: "ctx-1", artifact: { artifactId: "a", parts: [part] } };
  patch(event, part);
  return stream(JSON.stringify({ artifactUpdate: event }));
}

function timestamped(timestamp: unknown): Case {
  return statusUpdateWith((_, status) => (status.timestamp = timestamp));
}

const edgeCases: Record<string, Case[]> = {
  "null values": [
    stream("null"),
    stream(`{"statusUpdate":null}`),
    stream(`{"task":null,"message":null}`),
    statusUpdateWith((event) => (event.taskId = null)),
    statusUpdateWith((event) => (event.status = null)),
    statusUpdateWith((event) => (event.metadata = null)),
    statusUpdateWith((_, status) => (status.state = null)),
    statusUpdateWith((_, status) => (status.timestamp = null)),
    artifactUpdateWith((event) => (event.artifact = null)),
    artifactUpdateWith((event) => (event.append = null)),
    artifactUpdateWith((_, part) => (part.text = null)),
    artifactUpdateWith((_, part) => Object.assign(part, { text: null, url: "https://example.com" })),
    artifactUpdateWith((_, part) => Object.assign(part, { text: undefined, data: null })),
    artifactUpdateWith((_, part) => (part.metadata = null)),
    list(`{"tasks":null,"pageSize":null}`),
  ],
  "null inside Struct and Value content": [
    statusUpdateWith((event) => (event.metadata = { a: null, b: [null, 1], c: { d: null } })),
    artifactUpdateWith((_, part) => Object.assign(part, { text: undefined, data: { a: null, b: [null] } })),
    artifactUpdateWith((_, part) => Object.assign(part, { text: undefined, data: [null] })),
  ],
  "enum numbers and unknown enum names": [
    statusUpdateWith((_, status) => (status.state = 2)),
    statusUpdateWith((_, status) => (status.state = 2.5)),
    statusUpdateWith((_, status) => (status.state = 99)),
    statusUpdateWith((_, status) => (status.state = "2")),
    statusUpdateWith((_, status) => (status.state = "TASK_STATE_BOGUS")),
    statusUpdateWith((_, status) => (status.state = "working")),
    statusUpdateWith((_, status) => (status.state = "")),
    statusUpdateWith((_, status) => (status.state = true)),
    stream(JSON.stringify({ message: { ...userMessage, role: 1 } })),
    stream(JSON.stringify({ message: { ...userMessage, role: "ROLE_ROBOT" } })),
  ],
  "unknown keys and proto names": [
    statusUpdateWith((event) => (event.final = true)),
    statusUpdateWith((event) => (event.kind = "status-update")),
    stream(JSON.stringify({ statusUpdate: { taskId: "t", contextId: "c" }, kind: "status-update" })),
    statusUpdateWith((event) => {
      event.task_id = event.taskId;
      delete event.taskId;
    }),
    statusUpdateWith((event) => (event.task_id = "other")),
    statusUpdateWith((event) => (event.context_id = event.contextId)),
    stream(JSON.stringify({ status_update: { taskId: "t" } })),
    artifactUpdateWith((event) => (event.last_chunk = true)),
    artifactUpdateWith((_, part) => (part.media_type = "text/plain")),
    list(JSON.stringify({ tasks: [], next_page_token: "x", page_size: 1 })),
    stream(JSON.stringify({ message: { ...userMessage, reference_task_ids: ["t"] } })),
    stream(JSON.stringify({ message: { ...userMessage, "[lf.a2a.v1.extension]": 1 } })),
  ],
  "more than one oneof member": [
    stream(JSON.stringify({ task: fullTask, message: agentMessage })),
    stream(JSON.stringify({ statusUpdate: statusUpdates[0], artifactUpdate: artifactUpdates[0] })),
    stream(JSON.stringify({ task: fullTask, statusUpdate: statusUpdates[0] })),
    stream(JSON.stringify({ message: agentMessage, artifactUpdate: artifactUpdates[0] })),
    stream(JSON.stringify({ statusUpdate: statusUpdates[0], message: agentMessage })),
    artifactUpdateWith((_, part) => (part.url = "https://example.com")),
    artifactUpdateWith((_, part) => (part.data = { a: 1 })),
    artifactUpdateWith((_, part) => (part.raw = "aGVsbG8=")),
    artifactUpdateWith((_, part) => Object.assign(part, { text: undefined, raw: "aGVsbG8=" })),
    artifactUpdateWith((_, part) => Object.assign(part, { text: undefined, raw: "" })),
  ],
  "wrong types": [
    stream(`[]`),
    stream(`"statusUpdate"`),
    stream(`1`),
    stream(`true`),
    stream(`{"statusUpdate":[]}`),
    stream(`{"statusUpdate":"x"}`),
    statusUpdateWith((event) => (event.taskId = 1)),
    statusUpdateWith((event) => (event.taskId = true)),
    statusUpdateWith((event) => (event.taskId = {})),
    statusUpdateWith((event) => (event.taskId = ["t"])),
    statusUpdateWith((event) => (event.status = "TASK_STATE_WORKING")),
    statusUpdateWith((event) => (event.status = [])),
    statusUpdateWith((event) => (event.metadata = [])),
    statusUpdateWith((event) => (event.metadata = "x")),
    artifactUpdateWith((event) => (event.append = "true")),
    artifactUpdateWith((event) => (event.append = 1)),
    artifactUpdateWith((event) => (event.artifact = { artifactId: "a", parts: {} })),
    artifactUpdateWith((event) => (event.artifact = { artifactId: "a", parts: "text" })),
    artifactUpdateWith((event) => (event.artifact = { artifactId: "a", parts: [1] })),
    artifactUpdateWith((event) => (event.artifact = { artifactId: "a", extensions: "x" })),
    artifactUpdateWith((event) => (event.artifact = { artifactId: "a", extensions: [1] })),
    artifactUpdateWith((_, part) => (part.text = 1)),
    artifactUpdateWith((_, part) => Object.assign(part, { text: undefined, url: {} })),
    stream(JSON.stringify({ message: { ...userMessage, parts: [[]] } })),
  ],
  "int32 out of range, fractional, as strings": [
    list(JSON.stringify({ pageSize: 2147483647, totalSize: -2147483648 })),
    list(JSON.stringify({ pageSize: 2147483648 })),
    list(JSON.stringify({ pageSize: -2147483649 })),
    list(JSON.stringify({ pageSize: 4294967295 })),
    list(JSON.stringify({ pageSize: 1.5 })),
    list(JSON.stringify({ pageSize: "10" })),
    list(JSON.stringify({ pageSize: " 10" })),
    list(JSON.stringify({ pageSize: "1e3" })),
    list(JSON.stringify({ pageSize: "0x10" })),
    list(JSON.stringify({ pageSize: "" })),
    list(JSON.stringify({ pageSize: "2147483648" })),
    list(JSON.stringify({ pageSize: true })),
    list(`{"pageSize":1e400}`),
    list(`{"pageSize":-0}`),
    list(`{"pageSize":1.0}`),
    list(`{"pageSize":1e2}`),
  ],
  timestamps: [
    timestamped("2026-01-01T00:00:00Z"),
    timestamped("2026-01-01T00:00:00.1Z"),
    timestamped("2026-01-01T00:00:00.000000001Z"),
    timestamped("2026-01-01T00:00:00.999999999Z"),
    timestamped("2026-01-01T00:00:00.1234567890Z"),
    timestamped("2026-01-01T00:00:00.Z"),
    timestamped("2026-01-01T00:00:00+00:00"),
    timestamped("2026-01-01T00:00:00-05:00"),
    timestamped("2026-01-01T00:00:00.5+01:30"),
    timestamped("2026-01-01t00:00:00z"),
    timestamped("2026-01-01T00:00:00z"),
    timestamped("2026-01-01t00:00:00Z"),
    timestamped("2026-01-01 00:00:00Z"),
    timestamped("2026-01-01T00:00:00"),
    timestamped("2016-12-31T23:59:60Z"),
    timestamped("2026-01-01T24:00:00Z"),
    timestamped("2026-13-01T00:00:00Z"),
    timestamped("2026-00-01T00:00:00Z"),
    timestamped("2026-04-31T00:00:00Z"),
    timestamped("2026-02-29T00:00:00Z"),
    timestamped("2000-02-29T00:00:00Z"),
    timestamped("1900-02-29T00:00:00Z"),
    timestamped("0000-01-01T00:00:00Z"),
    timestamped("0001-01-01T00:00:00Z"),
    timestamped("0099-12-31T23:59:59Z"),
    timestamped("0100-01-01T00:00:00Z"),
    timestamped("1970-01-01T00:00:00Z"),
    timestamped("9999-12-31T23:59:59.999999999Z"),
    timestamped("10000-01-01T00:00:00Z"),
    timestamped("+002026-01-01T00:00:00Z"),
    timestamped("-2026-01-01T00:00:00Z"),
    timestamped("2026-1-01T00:00:00Z"),
    timestamped("2026-01-01T00:00:0aZ"),
    timestamped("２０２６-01-01T00:00:00Z"),
    timestamped(""),
    timestamped(1767225600),
    timestamped({ seconds: "1767225600", nanos: 0 }),
  ],
  "lone surrogates": [
    statusUpdateWith((event) => (event.taskId = "\uD800")),
    statusUpdateWith((event) => (event.taskId = "a\uDC00b")),
    statusUpdateWith((event) => (event.taskId = "\uDBFF\uDFFF")),
    statusUpdateWith((event) => (event.taskId = "😀")),
    artifactUpdateWith((_, part) => (part.text = "tail \uD83D")),
    artifactUpdateWith((event) => (event.artifact = { artifactId: "a", extensions: ["ok", "\uDE00"] })),
    stream(JSON.stringify({ message: { ...userMessage, extensions: ["\uD800"] } })),
    stream(JSON.stringify({ message: { ...userMessage, referenceTaskIds: ["task-0", "\uDFFF"] } })),
    statusUpdateWith((event) => (event.metadata = { note: "\uD800" })),
    statusUpdateWith((event) => (event.metadata = { "\uD800": "key" })),
    artifactUpdateWith((_, part) => Object.assign(part, { text: undefined, data: "\uDC00" })),
  ],
  "arrays with nulls": [
    stream(JSON.stringify({ message: { ...userMessage, parts: [null] } })),
    stream(JSON.stringify({ message: { ...userMessage, extensions: ["a", null] } })),
    stream(JSON.stringify({ task: { ...fullTask, history: [null] } })),
    stream(JSON.stringify({ task: { ...fullTask, artifacts: [artifact, null] } })),
    list(JSON.stringify({ tasks: [null] })),
    list(JSON.stringify({ tasks: [fullTask, null] })),
  ],
  "__proto__ and other Object.prototype keys": [
    stream(`{"__proto__":{"statusUpdate":{"taskId":"t"}}}`),
    stream(`{"statusUpdate":{"taskId":"t","__proto__":{"contextId":"c"}}}`),
    stream(`{"constructor":"x"}`),
    stream(`{"statusUpdate":{"toString":"x","taskId":"t"}}`),
    stream(`{"statusUpdate":{"taskId":"t","hasOwnProperty":1}}`),
    statusUpdateWith((event) => (event.metadata = JSON.parse(`{"__proto__":{"polluted":true}}`) as unknown)),
    statusUpdateWith((event) => (event.metadata = { constructor: 1, toString: "x", valueOf: [] })),
    artifactUpdateWith((_, part) => Object.assign(part, { text: undefined, data: JSON.parse(`{"__proto__":1}`) as unknown })),
    artifactUpdateWith((_, part) => Object.assign(part, { text: undefined, data: { constructor: { prototype: 1 } } })),
  ],
  "late keys in another order": [
    stream(`{"statusUpdate":{"metadata":{"a":1},"taskId":"t","status":{"state":"TASK_STATE_WORKING"}}}`),
    stream(`{"statusUpdate":{"status":{"timestamp":"2026-01-01T00:00:00Z","state":"TASK_STATE_WORKING","message":{"messageId":"m"}}}}`),
    stream(`{"task":{"metadata":{},"history":[],"status":{"state":"TASK_STATE_WORKING"},"id":"t"}}`),
    stream(`{"message":{"metadata":{"a":1},"parts":[{"metadata":{"b":2},"filename":"f","text":"x"}],"messageId":"m"}}`),
    stream(`{"artifactUpdate":{"metadata":{"a":1},"artifact":{"artifactId":"a"}}}`),
  ],
  "Struct keys that look like indexes": [
    statusUpdateWith((event) => (event.metadata = JSON.parse(`{"b":1,"2":2,"a":3,"1":4,"-1":5,"01":6}`) as unknown)),
    artifactUpdateWith((_, part) => Object.assign(part, { text: undefined, data: JSON.parse(`{"b":1,"2":2,"a":3}`) as unknown })),
  ],
  "numbers in Struct and Value": [
    stream(`{"statusUpdate":{"taskId":"t","contextId":"c","status":{},"metadata":{"big":1e400,"small":-1e400,"zero":-0,"tiny":5e-324}}}`),
    stream(`{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"data":1e400}]}}}`),
    stream(`{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[{"data":-0}]}}}`),
  ],
  "documents fromJson rejects": [
    statusUpdateWith((event) => {
      event.task_id = "t";
      event.taskId = "t";
    }),
    stream(JSON.stringify({ task: fullTask, message: agentMessage })),
    timestamped("2026-01-01T00:00:00.1234567890Z"),
    timestamped("0000-01-01T00:00:00Z"),
    list(JSON.stringify({ pageSize: 2147483648 })),
    statusUpdateWith((event) => (event.taskId = "\uD800")),
    stream(JSON.stringify({ message: { ...userMessage, parts: [1] } })),
    statusUpdateWith((event) => (event.metadata = [])),
    artifactUpdateWith((_, part) => Object.assign(part, { text: undefined, raw: "not base64!" })),
  ],
};

describe("generated JSON readers on edge cases", () => {
  const check = ({ root, text }: Case, label: string): Outcome => checkContract(root.schema, root.reader, parse(text), `${label}: ${text}`);

  for (const [name, cases] of Object.entries(edgeCases)) {
    it(name, () => {
      for (const edgeCase of cases) check(edgeCase, name);
    });
  }

  it("give up on what fromJson rejects", () => {
    for (const edgeCase of edgeCases["documents fromJson rejects"]!) {
      expect(check(edgeCase, "rejected"), edgeCase.text).toBe("both rejected");
    }
  });

  it("read what is plainly fine without giving up", () => {
    const fine = [
      ...edgeCases["null inside Struct and Value content"]!,
      ...edgeCases["Struct keys that look like indexes"]!,
      ...edgeCases["numbers in Struct and Value"]!,
      list(`{"nextPageToken":"p","pageSize":2147483647,"totalSize":-2147483648}`),
      list(`{"nextPageToken":"p","pageSize":-0,"totalSize":1e2}`),
      timestamped("2000-02-29T00:00:00Z"),
      timestamped("0001-01-01T00:00:00Z"),
      timestamped("0099-12-31T23:59:59Z"),
      timestamped("0100-03-01T00:00:00Z"),
      timestamped("1970-01-01T00:00:00Z"),
      timestamped("9999-12-31T23:59:59.999999999Z"),
      timestamped("2026-01-01T00:00:00.000000001Z"),
      statusUpdateWith((event) => (event.taskId = "\uDBFF\uDFFF")),
      statusUpdateWith((event) => (event.metadata = { note: "\uD800" })),
      statusUpdateWith((event) => (event.metadata = { constructor: 1, toString: "x", valueOf: [] })),
      stream(
        `{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m"},"timestamp":"2026-01-01T00:00:00Z"}}}`,
      ),
    ];
    for (const edgeCase of fine) expect(check(edgeCase, "fine"), edgeCase.text).toBe("matched");
  });

  it("read timestamps from 0001 to 9999 like fromJson", () => {
    const random = seededRandom(1970);
    for (let i = 0; i < 2000; i++) {
      // Milliseconds from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
      const ms = -62135596800000 + Math.floor(random() * 315537897600000);
      const digits = Math.floor(random() * 10);
      const fraction = digits === 0 ? "" : `.${String(Math.floor(random() * 10 ** digits)).padStart(digits, "0")}`;
      const text = `${new Date(ms).toISOString().slice(0, 19)}${fraction}Z`;
      expect(check(timestamped(text), "timestamp"), text).toBe("matched");
    }
  });

  it("read each timestamp like fromJson whatever timestamp came before it (the reader keeps the last hour and second)", () => {
    // Pairs that share an hour or a second, where the second text is wrong after the shared
    // prefix, or right with another hour, second or fraction.
    const texts = [
      "2026-01-01T10:00:00Z",
      "2026-01-01T10:00:00.5Z",
      "2026-01-01T10:59:59.999999999Z",
      "2026-01-01T10:60:00Z",
      "2026-01-01T10:00:60Z",
      "2026-01-01T10:0a:00Z",
      "2026-01-01T10:00:00+01:00",
      "2026-01-01T10:00:00.Z",
      "2026-01-01T10-00:00Z",
      "2026-01-01T11:00:00Z",
      "2026-01-01T24:00:00Z",
      "2026-01-02T10:00:00Z",
      "2026-02-29T10:00:00Z",
      "2024-02-29T10:00:00Z",
      "1969-12-31T23:59:59Z",
      "\u00002026-01-01T10:00:00Z".slice(0, 20),
      "0000-01-01T10:00:00Z",
    ];
    // checkContract fails on any value that differs from fromJson's; here, each text must also
    // have one outcome (read, given up, rejected) whatever was read before it.
    const outcomes = new Map<string, Outcome>();
    const random = seededRandom(2026);
    for (let round = 0; round < 20; round++) {
      // Every ordered pair once, then random orders.
      const order = round === 0 ? texts.flatMap((a) => texts.flatMap((b) => [a, b])) : [...texts].sort(() => random() - 0.5);
      let before = "(none)";
      for (const text of order) {
        const outcome = check(timestamped(text), `timestamp after ${before}`);
        expect(outcome, `${text} after ${before}`).toBe(outcomes.get(text) ?? outcome);
        outcomes.set(text, outcome);
        before = text;
      }
    }
    expect([...outcomes.values()].filter((o) => o === "matched").length).toBeGreaterThan(5);
  });

  it("count depth like fromJson: give up exactly where it throws", () => {
    const nested = (levels: number, leaf: unknown): unknown => {
      let value = leaf;
      for (let i = 0; i < levels; i++) value = i % 2 === 0 ? { k: value } : [value];
      return value;
    };
    for (let levels = 90; levels <= 100; levels++) {
      const documents = [
        { statusUpdate: { taskId: "t", contextId: "c", status: {}, metadata: { deep: nested(levels, 1) } } },
        { statusUpdate: { taskId: "t", contextId: "c", status: {}, metadata: { deep: nested(levels, {}) } } },
        { artifactUpdate: { taskId: "t", contextId: "c", artifact: { artifactId: "a", parts: [{ data: nested(levels, "x") }] } } },
        { message: { messageId: "m", parts: [{ metadata: { deep: nested(levels, []) } }] } },
      ];
      for (const document of documents) {
        const json = parse(JSON.stringify(document));
        const outcome = checkContract(StreamResponseSchema, readStreamResponse, json, `${levels} levels`);
        expect(outcome, `${levels} levels: ${JSON.stringify(document).slice(0, 80)}`).not.toBe("gave up");
      }
    }
  });
});

// ---------------------------------------------------------------------------
// Random mutations of the corpus.

type JsonContainer = Record<string, unknown> | unknown[];

const replacementValues: readonly unknown[] = [
  null,
  0,
  -0,
  1,
  -1,
  1.5,
  2147483647,
  2147483648,
  -2147483649,
  1e21,
  "",
  "x",
  "2",
  "TASK_STATE_WORKING",
  "TASK_STATE_BOGUS",
  "ROLE_AGENT",
  "2026-01-01T00:00:00Z",
  "2026-01-01T00:00:00.123Z",
  "2026-01-01T00:00:00+01:00",
  "aGVsbG8=",
  "\uD800",
  "😀",
  true,
  false,
  [],
  [null],
  ["x"],
  {},
  { text: "t" },
  { state: "TASK_STATE_COMPLETED" },
];

const replacementKeys: readonly string[] = [
  "unknown",
  "kind",
  "__proto__",
  "constructor",
  "task",
  "statusUpdate",
  "artifactUpdate",
  "taskId",
  "task_id",
  "contextId",
  "status",
  "metadata",
  "text",
  "url",
  "data",
  "raw",
  "state",
  "timestamp",
  "message",
  "parts",
  "artifact",
  "append",
  "lastChunk",
  "last_chunk",
  "pageSize",
];

function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function containers(json: unknown, found: JsonContainer[] = []): JsonContainer[] {
  if (typeof json === "object" && json !== null) {
    found.push(json as JsonContainer);
    for (const value of Object.values(json)) containers(value, found);
  }
  return found;
}

/** Sets an own key, "__proto__" included. */
function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, configurable: true, writable: true });
}

function mutate(json: unknown, random: () => number): void {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const all = containers(json);
  const target = pick(all);
  const keys = Object.keys(target);
  const replacement = (): unknown => (random() < 0.3 ? structuredClone(pick(all)) : structuredClone(pick(replacementValues)));
  if (Array.isArray(target)) {
    const index = Math.floor(random() * (target.length + 1));
    switch (Math.floor(random() * 4)) {
      case 0:
        target.splice(index, 0, replacement());
        break;
      case 1:
        target.splice(index, 1);
        break;
      case 2:
        if (target.length > 0) target[Math.min(index, target.length - 1)] = replacement();
        break;
      default:
        target.splice(index, 0, null);
    }
    return;
  }
  const key = keys.length > 0 ? pick(keys) : undefined;
  switch (Math.floor(random() * 7)) {
    case 0:
      if (key !== undefined) delete target[key];
      break;
    case 1:
      // Rename, to the proto name or to another key.
      if (key !== undefined) {
        const value = target[key];
        delete target[key];
        setOwn(target, random() < 0.5 ? snakeCase(key) : pick(replacementKeys), value);
      }
      break;
    case 2:
      if (key !== undefined) setOwn(target, key, replacement());
      break;
    case 3:
      setOwn(target, pick(replacementKeys), replacement());
      break;
    case 4:
      if (key !== undefined) setOwn(target, key, null);
      break;
    case 5: {
      // Swap two values.
      const other = keys.length > 0 ? pick(keys) : undefined;
      if (key !== undefined && other !== undefined) {
        const value = target[key];
        setOwn(target, key, target[other]);
        setOwn(target, other, value);
      }
      break;
    }
    default: {
      // Reorder the keys.
      const entries = Object.entries(target).sort(() => random() - 0.5);
      for (const name of keys) delete target[name];
      for (const [name, value] of entries) setOwn(target, name, value);
    }
  }
}

describe("generated JSON readers on random mutations", () => {
  it("never differ from fromJson", () => {
    const random = seededRandom(0x5eed_a2a);
    const documents = roots.flatMap((root) => corpus(root).map((json) => ({ root, json })));
    const outcomes: Record<Outcome, number> = { matched: 0, "gave up": 0, "both rejected": 0 };
    for (let round = 0; round < 4000; round++) {
      const { root, json } = documents[round % documents.length]!;
      const mutated = structuredClone(json);
      const mutations = 1 + Math.floor(random() * 3);
      for (let i = 0; i < mutations; i++) mutate(mutated, random);
      // What a transport hands over: the output of JSON.parse.
      const text = JSON.stringify(mutated);
      outcomes[checkContract(root.schema, root.reader, parse(text), `round ${round}`)]++;
    }
    // Enough of each outcome for the test to mean something.
    expect(outcomes.matched).toBeGreaterThan(400);
    expect(outcomes["gave up"]).toBeGreaterThan(400);
    expect(outcomes["both rejected"]).toBeGreaterThan(400);
  });
});
