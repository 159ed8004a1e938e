/**
 * HTTP+JSON 0.3 from the agent's side: its bodies are the ProtoJSON of the
 * 0.3 proto's messages (`a2a.v1`), read into the 1.0 requests the
 * operations take, and the 1.0 results and events written back as 0.3
 * messages. Messages, parts, push configs and states mean what they mean
 * to the client (v0_3/messages.ts, push-config.ts, states.ts), whose
 * conversions are used in whichever direction the agent needs them; tasks
 * and events, which only an agent writes, are written here.
 */
import { create, fromJson, toJson, type DescMessage, type JsonObject, type JsonValue, type MessageShape } from "@bufbuild/protobuf";
import * as V03 from "../../gen/a2a/v1/a2a_pb.js";
import * as V1 from "../../gen/lf/a2a/v1/a2a_pb.js";
import { isRecord } from "../base/is-record.js";
import { messageFromJson, protoJsonOf } from "../protocol/proto-json.js";
import { messageFromV03, messageToV03, partToV03 } from "../v0_3/messages.js";
import { pushConfigName } from "../v0_3/names.js";
import { pushConfigFromV03, pushConfigToV03 } from "../v0_3/push-config.js";
import { taskStateFromV03 } from "../v0_3/states.js";
import { endsStream, stateOf } from "./store.js";
import { cardJsonV03 } from "./v0_3-card.js";
import type { V03JsonKit } from "../v0_3/runner-kit.js";

const LENIENT = { ignoreUnknownFields: true } as const;

/** What the client's 0.3 conversions are handed for data parts (v0_3/runner-kit.ts). */
const JSON_KIT: V03JsonKit = { messageFromJson, protoJsonOf };

/** A 0.3 history cap as 1.0's: 0.3's int32 cannot be left out, and its 0 is "no cap" (0.3's own proto comment). */
const capV1 = (historyLength: number | undefined) => (historyLength ? historyLength : undefined);

/** A `message:send` or `message:stream` body as a 1.0 SendMessageRequest. */
export function sendRequestV1(body: JsonValue): V1.SendMessageRequest {
  const r = fromJson(V03.SendMessageRequestSchema, body, LENIENT);
  const c = r.configuration;
  const push = c?.pushNotification;
  return create(V1.SendMessageRequestSchema, {
    message: r.request && messageFromV03(r.request, JSON_KIT),
    configuration: {
      acceptedOutputModes: c?.acceptedOutputModes ?? [],
      historyLength: capV1(c?.historyLength),
      // 0.3 waits only when told to.
      returnImmediately: c?.blocking !== true,
      taskPushNotificationConfig:
        push && pushConfigFromV03(create(V03.TaskPushNotificationConfigSchema, { pushNotificationConfig: push }), ""),
    },
    metadata: r.metadata,
  });
}

/** GetTask's query as a 1.0 request. */
export function getTaskRequestV1(id: string, historyLength: string | null): V1.GetTaskRequest {
  const cap = historyLength === null ? Number.NaN : Number(historyLength);
  return create(V1.GetTaskRequestSchema, { id, historyLength: Number.isInteger(cap) ? capV1(cap) : undefined });
}

/**
 * A push config to create: the 0.3 proto names `config` as the body, its
 * specification's text shows `{config}`; either is read (the client sends
 * both, bindings/http-json/v0_3.ts).
 */
export function createPushConfigV1(taskId: string, body: JsonValue): V1.TaskPushNotificationConfig {
  const config = isRecord(body) && !Array.isArray(body) && isRecord(body.config) ? body.config : body;
  return pushConfigFromV03(fromJson(V03.TaskPushNotificationConfigSchema, config as JsonValue, LENIENT), taskId);
}

// ---------------------------------------------------------------------------
// 1.0 results -> 0.3

const STATE_V03 = new Map(V03.TaskStateSchema.values.map((v) => [taskStateFromV03(v.number as V03.TaskState), v.number as V03.TaskState]));

function statusV03(s: V1.TaskStatus | undefined): V03.TaskStatus | undefined {
  if (!s) return undefined;
  return create(V03.TaskStatusSchema, {
    state: STATE_V03.get(s.state) ?? V03.TaskState.UNSPECIFIED,
    update: s.message && messageToV03(s.message, JSON_KIT),
    timestamp: s.timestamp,
  });
}

function artifactV03(a: V1.Artifact): V03.Artifact {
  return create(V03.ArtifactSchema, {
    artifactId: a.artifactId,
    name: a.name,
    description: a.description,
    parts: a.parts.map((p) => partToV03(p, JSON_KIT)),
    metadata: a.metadata,
    extensions: a.extensions,
  });
}

function taskV03(t: V1.Task): V03.Task {
  return create(V03.TaskSchema, {
    id: t.id,
    contextId: t.contextId,
    status: statusV03(t.status),
    artifacts: t.artifacts.map(artifactV03),
    history: t.history.map((m) => messageToV03(m, JSON_KIT)),
    metadata: t.metadata,
  });
}

function pushConfigV03(c: V1.TaskPushNotificationConfig): V03.TaskPushNotificationConfig {
  return create(V03.TaskPushNotificationConfigSchema, { name: pushConfigName(c.taskId, c.id), pushNotificationConfig: pushConfigToV03(c) });
}

/** The result of an operation as the 0.3 proto's JSON. */
export function resultV03(schema: DescMessage, message: MessageShape<DescMessage>): JsonValue {
  switch (schema.typeName) {
    case V1.SendMessageResponseSchema.typeName: {
      const p = (message as V1.SendMessageResponse).payload;
      const payload: V03.SendMessageResponse["payload"] =
        p.case === "task"
          ? { case: "task", value: taskV03(p.value) }
          : p.case === "message"
            ? { case: "msg", value: messageToV03(p.value, JSON_KIT) }
            : { case: undefined };
      return toJson(V03.SendMessageResponseSchema, create(V03.SendMessageResponseSchema, { payload }));
    }
    case V1.TaskSchema.typeName:
      return toJson(V03.TaskSchema, taskV03(message as V1.Task));
    case V1.TaskPushNotificationConfigSchema.typeName:
      return toJson(V03.TaskPushNotificationConfigSchema, pushConfigV03(message as V1.TaskPushNotificationConfig));
    case V1.ListTaskPushNotificationConfigsResponseSchema.typeName: {
      const { configs, nextPageToken } = message as V1.ListTaskPushNotificationConfigsResponse;
      const list = create(V03.ListTaskPushNotificationConfigResponseSchema, { configs: configs.map(pushConfigV03), nextPageToken });
      return toJson(V03.ListTaskPushNotificationConfigResponseSchema, list);
    }
    case V1.AgentCardSchema.typeName: {
      // Through the 0.3 proto: what it has no field for is left out.
      const card = cardJsonV03(toJson(V1.AgentCardSchema, message as V1.AgentCard), "proto");
      return toJson(V03.AgentCardSchema, fromJson(V03.AgentCardSchema, card as JsonObject, LENIENT));
    }
    default:
      // DeleteTaskPushNotificationConfig's Empty.
      return {};
  }
}

/** A stream event as the 0.3 proto's StreamResponse: the last status update of a stream says `final`. */
export function eventV03(event: V1.StreamResponse): JsonValue {
  const p = event.payload;
  let payload: V03.StreamResponse["payload"] = { case: undefined };
  if (p.case === "task") payload = { case: "task", value: taskV03(p.value) };
  else if (p.case === "message") payload = { case: "msg", value: messageToV03(p.value, JSON_KIT) };
  else if (p.case === "statusUpdate") {
    const { taskId, contextId, status, metadata } = p.value;
    const final = endsStream(stateOf(event));
    payload = {
      case: "statusUpdate",
      value: create(V03.TaskStatusUpdateEventSchema, { taskId, contextId, status: statusV03(status), final, metadata }),
    };
  } else if (p.case === "artifactUpdate") {
    const { taskId, contextId, artifact, append, lastChunk, metadata } = p.value;
    const value = create(V03.TaskArtifactUpdateEventSchema, {
      taskId,
      contextId,
      artifact: artifact && artifactV03(artifact),
      append,
      lastChunk,
      metadata,
    });
    payload = { case: "artifactUpdate", value };
  }
  return toJson(V03.StreamResponseSchema, create(V03.StreamResponseSchema, { payload }));
}
