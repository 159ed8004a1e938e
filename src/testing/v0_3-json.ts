/**
 * JSON-RPC 0.3 from the agent's side: each 0.3 method (`message/send`,
 * `tasks/get`, ...) as the 1.0 operation it carries, its params read into
 * the ProtoJSON of that operation's request, and the 1.0 results and
 * stream events written in 0.3's JSON (`kind` discriminators, lowercase
 * states, files nested in `file`, `final` on the last status update).
 * The shapes of messages, parts and push configs are the client's JSON-RPC
 * 0.3 ones (bindings/jsonrpc/v0_3-shapes.ts): a message or a part is
 * written and read the same way whichever side sends it. Tasks and events,
 * which only an agent writes, are written here.
 */
import { toJson, type DescMessage, type JsonValue, type Message as ProtoMessage } from "@bufbuild/protobuf";
import {
  A2AService,
  AgentCardSchema,
  ListTaskPushNotificationConfigsResponseSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
  TaskState,
  type AgentCardJson,
  type StreamResponse,
} from "../../gen/lf/a2a/v1/a2a_pb.js";
import { isRecord } from "../base/is-record.js";
import { messageV03, messageV1, partV03, pushConfigV03, pushConfigV1 } from "../bindings/jsonrpc/v0_3-shapes.js";
import { v03Row, type V03MethodTable } from "../v0_3/methods.js";
import { taskStateNameV1 } from "../v0_3/states.js";
import { endsStream, stateOf } from "./store.js";
import { cardJsonV03 } from "./v0_3-card.js";

type Json = Record<string, unknown>;

/** A 0.3 method: the 1.0 operation it carries, by its proto name, and its params as that operation's request (ProtoJSON). */
export interface V03Method {
  readonly operation: string;
  request(params: Json): Json;
}

/** How the agent reads each 0.3 method: its name (specification 0.3, 3.5.6) and its params; the compiler holds it to the 1.0 methods 0.3 carries. */
const READERS = {
  sendMessage: ["message/send", sendParamsV1],
  sendStreamingMessage: ["message/stream", sendParamsV1],
  // 0.3's cap is as 1.0's: the last `historyLength` messages.
  getTask: ["tasks/get", (p) => compact({ id: p.id, historyLength: p.historyLength })],
  cancelTask: ["tasks/cancel", (p) => compact({ id: p.id, metadata: p.metadata })],
  subscribeToTask: ["tasks/resubscribe", (p) => ({ id: p.id })],
  createTaskPushNotificationConfig: ["tasks/pushNotificationConfig/set", (p) => pushConfigV1(p)],
  getTaskPushNotificationConfig: ["tasks/pushNotificationConfig/get", (p) => compact({ taskId: p.id, id: p.pushNotificationConfigId })],
  listTaskPushNotificationConfigs: ["tasks/pushNotificationConfig/list", (p) => ({ taskId: p.id })],
  deleteTaskPushNotificationConfig: [
    "tasks/pushNotificationConfig/delete",
    (p) => compact({ taskId: p.id, id: p.pushNotificationConfigId }),
  ],
  getExtendedAgentCard: ["agent/getAuthenticatedExtendedCard", () => ({})],
} satisfies V03MethodTable<readonly [string, (params: Json) => Json]>;

/**
 * The 0.3 methods by name (`message/send`). The names are those the
 * client's table sends (bindings/jsonrpc/v0_3-shapes.ts, V03_CALLS), which
 * the tests hold this table to; that table itself is the client's, with
 * the client's readers of results, which the agent has no use for.
 */
export const V03_METHODS: ReadonlyMap<string, V03Method> = new Map(
  A2AService.methods.flatMap((m) => {
    const row = v03Row<readonly [string, (params: Json) => Json]>(READERS, m);
    return row ? [[row[0], { operation: m.name, request: row[1] }] as const] : [];
  }),
);

/** `message/send` and `message/stream` params as a 1.0 SendMessageRequest. */
function sendParamsV1(p: Json): Json {
  const c = record(p.configuration) ?? {};
  const push = record(c.pushNotificationConfig);
  const configuration = compact({
    acceptedOutputModes: c.acceptedOutputModes,
    historyLength: c.historyLength,
    // 0.3 waits only when told to: an absent `blocking` is false (v0_3/messages.ts, blockingV03).
    returnImmediately: c.blocking !== true,
    taskPushNotificationConfig: push && pushConfigV1({ pushNotificationConfig: push }),
  });
  return compact({ message: messageV1(record(p.message) ?? {}, "message"), configuration, metadata: p.metadata });
}

// ---------------------------------------------------------------------------
// 1.0 results -> 0.3

// 0.3 JSON's spelling of each 1.0 state: the ones the client reads (v0_3/states.ts), read back.
const STATE_SPELLINGS = [
  "submitted",
  "working",
  "input-required",
  "completed",
  "canceled",
  "failed",
  "rejected",
  "auth-required",
  "unknown",
];
const STATE_JSON = new Map(STATE_SPELLINGS.map((s) => [taskStateNameV1(s), s]));

/** A 1.0 state's ProtoJSON name as 0.3 spells it. */
export function stateJsonV03(name: unknown): string {
  return (typeof name === "string" && STATE_JSON.get(name)) || "unknown";
}

/** The result of an operation, written as a 0.3 `result`. */
export function resultV03(schema: DescMessage, message: ProtoMessage): JsonValue {
  const json = toJson(schema, message) as Json;
  switch (schema.typeName) {
    case SendMessageResponseSchema.typeName:
      return (isRecord(json.task) ? taskV03(json.task) : messageV03(record(json.message) ?? {})) as JsonValue;
    case TaskSchema.typeName:
      return taskV03(json) as JsonValue;
    case TaskPushNotificationConfigSchema.typeName:
      return pushConfigResultV03(json) as JsonValue;
    case ListTaskPushNotificationConfigsResponseSchema.typeName:
      return (Array.isArray(json.configs) ? json.configs : []).map((c) => pushConfigResultV03(record(c) ?? {})) as JsonValue;
    case AgentCardSchema.typeName:
      return cardJsonV03(json as AgentCardJson, "schema") as JsonValue;
    default:
      // DeleteTaskPushNotificationConfig's Empty: 0.3 answers null.
      return null;
  }
}

/** A stream event, written as 0.3's: the last status update of a stream says `final`. */
export function eventV03(event: StreamResponse): JsonValue {
  const json = toJson(StreamResponseSchema, event) as Json;
  if (isRecord(json.task)) return taskV03(json.task) as JsonValue;
  if (isRecord(json.message)) return messageV03(json.message) as JsonValue;
  if (isRecord(json.artifactUpdate)) {
    const { artifact, ...e } = json.artifactUpdate;
    return { kind: "artifact-update", ...e, artifact: artifactV03(record(artifact) ?? {}) } as JsonValue;
  }
  const update = record(json.statusUpdate) ?? {};
  const final = endsStream(stateOf(event) ?? TaskState.UNSPECIFIED);
  return { kind: "status-update", ...update, status: statusV03(record(update.status)), final } as JsonValue;
}

function taskV03(t: Json): Json {
  return compact({
    kind: "task",
    id: t.id,
    contextId: t.contextId,
    status: statusV03(record(t.status)),
    artifacts: Array.isArray(t.artifacts) ? t.artifacts.map((a) => artifactV03(record(a) ?? {})) : undefined,
    history: Array.isArray(t.history) ? t.history.map((m) => messageV03(record(m) ?? {})) : undefined,
    metadata: t.metadata,
  });
}

function statusV03(s: Json | undefined): Json {
  const message = record(s?.message);
  return compact({ state: stateJsonV03(s?.state), message: message && messageV03(message), timestamp: s?.timestamp });
}

function artifactV03(a: Json): Json {
  return compact({
    artifactId: a.artifactId,
    name: a.name,
    description: a.description,
    parts: Array.isArray(a.parts) ? a.parts.map(partV03) : [],
    metadata: a.metadata,
    extensions: a.extensions,
  });
}

/** 1.0's flat config as 0.3's `{taskId, pushNotificationConfig}`. */
function pushConfigResultV03(c: Json): Json {
  return { taskId: c.taskId ?? "", pushNotificationConfig: pushConfigV03(c) };
}

function record(v: unknown): Json | undefined {
  return isRecord(v) && !Array.isArray(v) ? v : undefined;
}

/** The object without its undefined members. */
function compact(o: Json): Json {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));
}
