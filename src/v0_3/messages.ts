/**
 * Parts, messages, tasks and stream events between 1.0 and the 0.3 proto.
 * Messages and parts go both ways, tasks and events come back only.
 * What the 0.3 proto cannot hold is dropped, each drop noted where it
 * happens (the list is in translate.ts).
 */
import { create } from "@bufbuild/protobuf";
import { ValueSchema } from "../../gen/google/protobuf/struct_pb.js";
import * as V03 from "../../gen/a2a/v1/a2a_pb.js";
import * as V1 from "../../gen/lf/a2a/v1/a2a_pb.js";
import { cannotExpress as cannot } from "./methods.js";
import { roleFromV03, roleToV03, taskStateFromV03 } from "./states.js";
import type { V03JsonKit } from "./runner-kit.js";

/** A 1.0 part as a 0.3 part; a data part that is not a JSON object cannot be one. */
export function partToV03(part: V1.Part, kit: V03JsonKit): V03.Part {
  // Dropped: metadata and filename (0.3.0's Part and FilePart have neither),
  // and media_type on text and data parts.
  const c = part.content;
  switch (c.case) {
    case "text":
      return create(V03.PartSchema, { part: { case: "text", value: c.value } });
    case "raw":
      return create(V03.PartSchema, {
        part: { case: "file", value: { file: { case: "fileWithBytes", value: c.value }, mimeType: part.mediaType } },
      });
    case "url":
      return create(V03.PartSchema, {
        part: { case: "file", value: { file: { case: "fileWithUri", value: c.value }, mimeType: part.mediaType } },
      });
    case "data": {
      // 0.3 data parts are JSON objects; 1.0 allows any JSON value.
      const json = kit.protoJsonOf(ValueSchema, c.value);
      if (json === null || typeof json !== "object" || Array.isArray(json)) {
        const kind = json === null ? "null" : Array.isArray(json) ? "a list" : `a ${typeof json}`;
        throw cannot(`a data part holding ${kind} (0.3 data parts are JSON objects)`);
      }
      return create(V03.PartSchema, { part: { case: "data", value: { data: json } } });
    }
    case undefined:
      return create(V03.PartSchema);
  }
}

/** A 0.3 part as a 1.0 part. */
export function partFromV03(part: V03.Part, kit: V03JsonKit): V1.Part {
  const p = part.part;
  switch (p.case) {
    case "text":
      return create(V1.PartSchema, { content: { case: "text", value: p.value } });
    case "file": {
      const f = p.value.file;
      const content =
        f.case === "fileWithUri"
          ? { case: "url" as const, value: f.value }
          : f.case === "fileWithBytes"
            ? { case: "raw" as const, value: f.value }
            : undefined;
      return create(V1.PartSchema, { content, mediaType: p.value.mimeType });
    }
    case "data":
      // A data part without data is read as an empty object.
      return create(V1.PartSchema, { content: { case: "data", value: kit.messageFromJson(ValueSchema, p.value.data ?? {}) } });
    case undefined:
      return create(V1.PartSchema);
  }
}

/**
 * The 0.3 send configuration's `blocking`, from 1.0's `returnImmediately`.
 * Always sent: 1.0 waits unless told otherwise, while 0.3 peers read an
 * absent `blocking` as false ("reply at once"), as the official SDK's 0.3
 * layer and 0.3's proto default do.
 */
export function blockingV03(returnImmediately: unknown): boolean {
  return returnImmediately !== true;
}

const INT32_MAX = 2 ** 31 - 1;

/**
 * A 1.0 history cap as 0.3's int32, which cannot be left unset on the wire
 * and whose 0 servers read two ways: "no cap" (0.3.0's own comment) or
 * "none" (the official SDK's 0.3 gRPC GetTask). So "no cap" (unset, or an
 * invalid negative value) is sent as the largest int32, and a cap of 0 as 0
 * with the response conversion removing whatever history still comes back.
 * JSON-RPC 0.3's `tasks/get` sends the same: there the field may be left
 * out, but @a2a-js/sdk 0.3.x answers a request without it with no history.
 */
export function historyLengthToV03(historyLength: number | undefined): number {
  return historyLength === undefined || historyLength < 0 ? INT32_MAX : historyLength;
}

/** A 1.0 message as a 0.3 message, without its `referenceTaskIds`. */
export function messageToV03(m: V1.Message, kit: V03JsonKit): V03.Message {
  // Dropped: reference_task_ids (not in 0.3's proto).
  return create(V03.MessageSchema, {
    messageId: m.messageId,
    contextId: m.contextId,
    taskId: m.taskId,
    role: roleToV03(m.role),
    content: m.parts.map((p) => partToV03(p, kit)),
    metadata: m.metadata,
    extensions: m.extensions,
  });
}

/** A 0.3 message as a 1.0 message. */
export function messageFromV03(m: V03.Message, kit: V03JsonKit): V1.Message {
  return create(V1.MessageSchema, {
    messageId: m.messageId,
    contextId: m.contextId,
    taskId: m.taskId,
    role: roleFromV03(m.role),
    parts: m.content.map((p) => partFromV03(p, kit)),
    metadata: m.metadata,
    extensions: m.extensions,
  });
}

// ---------------------------------------------------------------------------
// Tasks and stream events, 0.3 -> 1.0

/** A 0.3 task status as a 1.0 one. */
export function taskStatusFromV03(s: V03.TaskStatus, kit: V03JsonKit): V1.TaskStatus {
  return create(V1.TaskStatusSchema, {
    state: taskStateFromV03(s.state),
    message: s.update && messageFromV03(s.update, kit),
    timestamp: s.timestamp,
  });
}

/** A 0.3 artifact as a 1.0 one. */
export function artifactFromV03(a: V03.Artifact, kit: V03JsonKit): V1.Artifact {
  return create(V1.ArtifactSchema, {
    artifactId: a.artifactId,
    name: a.name,
    description: a.description,
    parts: a.parts.map((p) => partFromV03(p, kit)),
    metadata: a.metadata,
    extensions: a.extensions,
  });
}

/**
 * A 0.3 task as a 1.0 one. `historyLength`, when the 1.0 request set it,
 * caps the history here too: 1.0 reads 0 as "none" where 0.3 reads it as
 * "no cap", and not every 0.3 server applies the cap it is sent.
 */
export function taskFromV03(t: V03.Task, kit: V03JsonKit, historyLength?: number): V1.Task {
  const history = t.history.map((m) => messageFromV03(m, kit));
  // The last `historyLength` messages: a cap above the history's length keeps it whole.
  const kept = historyLength === undefined || historyLength < 0 ? history : history.slice(Math.max(0, history.length - historyLength));
  return create(V1.TaskSchema, {
    id: t.id,
    contextId: t.contextId,
    status: t.status && taskStatusFromV03(t.status, kit),
    artifacts: t.artifacts.map((a) => artifactFromV03(a, kit)),
    history: kept,
    metadata: t.metadata,
  });
}

/** A 0.3 status update event as a 1.0 one, without `final`. */
export function statusUpdateFromV03(e: V03.TaskStatusUpdateEvent, kit: V03JsonKit): V1.TaskStatusUpdateEvent {
  // Dropped: final (1.0 ends the stream instead).
  return create(V1.TaskStatusUpdateEventSchema, {
    taskId: e.taskId,
    contextId: e.contextId,
    status: e.status && taskStatusFromV03(e.status, kit),
    metadata: e.metadata,
  });
}

/** A 0.3 artifact update event as a 1.0 one. */
export function artifactUpdateFromV03(e: V03.TaskArtifactUpdateEvent, kit: V03JsonKit): V1.TaskArtifactUpdateEvent {
  return create(V1.TaskArtifactUpdateEventSchema, {
    taskId: e.taskId,
    contextId: e.contextId,
    artifact: e.artifact && artifactFromV03(e.artifact, kit),
    append: e.append,
    lastChunk: e.lastChunk,
    metadata: e.metadata,
  });
}

/** A 0.3 stream event as a 1.0 `StreamResponse`. */
export function streamResponseFromV03(r: V03.StreamResponse, kit: V03JsonKit, historyLength?: number): V1.StreamResponse {
  const p = r.payload;
  switch (p.case) {
    case "task":
      return create(V1.StreamResponseSchema, { payload: { case: "task", value: taskFromV03(p.value, kit, historyLength) } });
    case "msg":
      return create(V1.StreamResponseSchema, { payload: { case: "message", value: messageFromV03(p.value, kit) } });
    case "statusUpdate":
      return create(V1.StreamResponseSchema, { payload: { case: "statusUpdate", value: statusUpdateFromV03(p.value, kit) } });
    case "artifactUpdate":
      return create(V1.StreamResponseSchema, { payload: { case: "artifactUpdate", value: artifactUpdateFromV03(p.value, kit) } });
    case undefined:
      return create(V1.StreamResponseSchema);
  }
}

/** A 0.3 SendMessage response (task or message) as a 1.0 one. */
export function sendMessageResponseFromV03(r: V03.SendMessageResponse, kit: V03JsonKit, historyLength?: number): V1.SendMessageResponse {
  const p = r.payload;
  switch (p.case) {
    case "task":
      return create(V1.SendMessageResponseSchema, { payload: { case: "task", value: taskFromV03(p.value, kit, historyLength) } });
    case "msg":
      return create(V1.SendMessageResponseSchema, { payload: { case: "message", value: messageFromV03(p.value, kit) } });
    case undefined:
      return create(V1.SendMessageResponseSchema);
  }
}
