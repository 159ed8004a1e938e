/**
 * A2A 0.3 JSON-RPC payloads to and from the ProtoJSON of the 1.0 types: the
 * syntax of JSON-RPC 0.3 (method names, field names, `kind` discriminators,
 * files nested in a `file` object, push configs wrapped in
 * `pushNotificationConfig`). What the values mean is decided once, in
 * ../../v0_3/, and shared with the gRPC and HTTP+JSON 0.3 transports: task
 * states and roles (states.ts), push authentication schemes (push-config.ts),
 * the send configuration's `blocking` (messages.ts), the Agent Card (card.ts),
 * which methods 0.3 carries (methods.ts). The list of what 0.3 drops, and why
 * the two wire forms drop different things, is in ../../v0_3/translate.ts.
 *
 * The payloads are not read through the 0.3 proto's ProtoJSON: the 0.3 JSON
 * schema holds what that proto has no field for (Message.referenceTaskIds,
 * Part.metadata, a file's name, CancelTask's metadata, the flag of a wrapped
 * data part) and spells its timestamps as ISO 8601 rather than RFC 3339.
 *
 * Going out, a 1.0 field that 0.3 has no place for is dropped; each drop is
 * noted where it happens. Coming in, 0.3 fields that 1.0 lacks are left out,
 * unknown fields are ignored and unknown enum values read as UNSPECIFIED, so
 * a peer a little off the schema still parses.
 */
import { cardV03ToV1 } from "../../v0_3/card.js";
import type { V03Kit } from "../v0_3-kit.js";
import { blockingV03, historyLengthToV03 } from "../../v0_3/messages.js";
import type { V03MethodTable } from "../../v0_3/methods.js";
import { schemeFromV03, schemesToV03 } from "../../v0_3/push-config.js";
import { roleJsonV03, roleNameV1, taskStateNameV1 } from "../../v0_3/states.js";
import { InvalidParamsError } from "../../errors/family.js";
import { isRecord } from "../../base/is-record.js";

type Json = Record<string, unknown>;

/** How one 1.0 method goes over JSON-RPC 0.3. */
export interface JsonRpcV03Call {
  /** The 0.3 JSON-RPC method that carries it. */
  readonly method: string;
  /** The call's 0.3 `params`, from the ProtoJSON of its 1.0 request; undefined for none. */
  params(request: Json): Json | undefined;
  /** The ProtoJSON of the 1.0 response (or stream event), from the 0.3 `result`; `kit` as the transport's (bindings/v0_3-kit.ts). */
  result(result: unknown, kit: Pick<V03Kit, "isV03Card">): unknown;
}

/**
 * Every 1.0 method 0.3 carries, by its local name, as a JSON-RPC 0.3 call.
 * Checked by the compiler against the generated service (v0_3/methods.ts).
 * Every 1.0 request has a `tenant`: 0.3 has no tenants, so it is dropped throughout.
 */
export const V03_CALLS = {
  sendMessage: { method: "message/send", params: messageSendParams, result: sendMessageResponseV1 },
  sendStreamingMessage: { method: "message/stream", params: messageSendParams, result: streamResponseV1 },
  getTask: {
    method: "tasks/get",
    // "No cap" as gRPC and HTTP+JSON 0.3 send it, not left out (see historyLengthToV03).
    params: (req) => ({ id: req.id ?? "", historyLength: historyLengthToV03(historyLengthOf(req)) }),
    result: (r) => taskV1(expectRecord(r, "a task")),
  },
  cancelTask: {
    method: "tasks/cancel",
    params: (req) => compact({ id: req.id ?? "", metadata: req.metadata }),
    result: (r) => taskV1(expectRecord(r, "a task")),
  },
  subscribeToTask: { method: "tasks/resubscribe", params: (req) => ({ id: req.id ?? "" }), result: streamResponseV1 },
  createTaskPushNotificationConfig: {
    method: "tasks/pushNotificationConfig/set",
    params: (req) => ({ taskId: req.taskId ?? "", pushNotificationConfig: pushConfigV03(req) }),
    result: (r) => pushConfigV1(expectRecord(r, "a push notification config")),
  },
  getTaskPushNotificationConfig: {
    method: "tasks/pushNotificationConfig/get",
    params: pushConfigIdParams,
    result: (r) => pushConfigV1(expectRecord(r, "a push notification config")),
  },
  listTaskPushNotificationConfigs: {
    method: "tasks/pushNotificationConfig/list",
    // pageSize and pageToken dropped: a 0.3 agent returns the whole list,
    // and the response never has a nextPageToken.
    params: (req) => ({ id: req.taskId ?? "" }),
    result: (r) => {
      // a2a-go 2.3.1 writes a task without configs as null (an empty Go slice): no configs.
      if (r === null) return { configs: [] };
      if (!Array.isArray(r)) throw new TypeError("expected an array of push notification configs");
      return { configs: r.map((c) => pushConfigV1(expectRecord(c, "a push notification config"))) };
    },
  },
  deleteTaskPushNotificationConfig: {
    method: "tasks/pushNotificationConfig/delete",
    params: pushConfigIdParams,
    // 0.3 answers null.
    result: () => ({}),
  },
  getExtendedAgentCard: {
    method: "agent/getAuthenticatedExtendedCard",
    // The 0.3 request has no params at all.
    params: () => undefined,
    result: (r, kit) => {
      const card = expectRecord(r, "an agent card");
      return kit.isV03Card(card) ? cardV03ToV1(card) : card;
    },
  },
} satisfies V03MethodTable<JsonRpcV03Call>;

/**
 * A 0.3 data part holds a JSON object only. Any other 1.0 data value (array,
 * string, number, boolean, null) is sent wrapped as `{ "value": ... }` with
 * this metadata flag set, and a part carrying the flag is unwrapped on the
 * way in. The official SDK's 0.3 layer uses the same flag, so an agent built
 * on it hands its executor the original value.
 */
export const WRAPPED_DATA_FLAG = "data_part_compat";

// ---------------------------------------------------------------------------
// 1.0 request (ProtoJSON) -> 0.3 params

function pushConfigIdParams(req: Json): Json {
  return compact({ id: req.taskId ?? "", pushNotificationConfigId: req.id });
}

function messageSendParams(req: Json): Json {
  const c = record(req.configuration) ?? {};
  const push = record(c.taskPushNotificationConfig);
  const configuration = compact({
    acceptedOutputModes: nonEmpty(c.acceptedOutputModes),
    blocking: blockingV03(c.returnImmediately),
    historyLength: c.historyLength,
    pushNotificationConfig: push && pushConfigV03(push),
  });
  return compact({ message: messageV03(record(req.message) ?? {}), configuration, metadata: req.metadata });
}

/** 1.0 Message -> 0.3 Message. Every 1.0 message field has a 0.3 counterpart. */
export function messageV03(m: Json): Json {
  return compact({
    kind: "message",
    messageId: m.messageId ?? "",
    contextId: m.contextId,
    taskId: m.taskId,
    // ROLE_UNSPECIFIED has no 0.3 spelling: the role is left out.
    role: roleJsonV03(m.role),
    parts: array(m.parts).map(partV03),
    metadata: m.metadata,
    extensions: nonEmpty(m.extensions),
    referenceTaskIds: nonEmpty(m.referenceTaskIds),
  });
}

/** 1.0 Part -> 0.3 TextPart, FilePart or DataPart. */
export function partV03(part: unknown): Json {
  const p = record(part) ?? {};
  const metadata = record(p.metadata);
  if (typeof p.text === "string") {
    // mediaType and filename dropped: a 0.3 TextPart has neither.
    return compact({ kind: "text", text: p.text, metadata });
  }
  if (typeof p.raw === "string" || typeof p.url === "string") {
    // raw is base64 in ProtoJSON and in 0.3 `bytes` alike.
    const file = typeof p.raw === "string" ? { bytes: p.raw } : { uri: p.url };
    return compact({ kind: "file", file: compact({ ...file, mimeType: p.mediaType, name: p.filename }), metadata });
  }
  if ("data" in p) {
    // mediaType and filename dropped: a 0.3 DataPart has neither.
    if (record(p.data)) return compact({ kind: "data", data: p.data, metadata });
    return { kind: "data", data: { value: p.data ?? null }, metadata: { ...metadata, [WRAPPED_DATA_FLAG]: true } };
  }
  throw new InvalidParamsError("a message part has no content (text, raw, url or data)", { binding: "JSONRPC" });
}

/**
 * 1.0 TaskPushNotificationConfig -> 0.3 PushNotificationConfig. taskId goes
 * in the wrapper (or nowhere, inside a message's configuration, where the
 * task does not exist yet); tenant is dropped.
 */
export function pushConfigV03(c: Json): Json {
  const auth = record(c.authentication);
  return compact({
    id: c.id,
    url: c.url ?? "",
    token: c.token,
    authentication: auth && compact({ schemes: schemesToV03(auth.scheme), credentials: auth.credentials }),
  });
}

// ---------------------------------------------------------------------------
// 0.3 result -> 1.0 output (ProtoJSON)

/** `message/send` answers a Task or a Message. */
export function sendMessageResponseV1(result: unknown): Json {
  const r = expectRecord(result, "a task or a message");
  switch (kindOf(r)) {
    case "task":
      return { task: taskV1(r) };
    case "message":
      return { message: messageV1(r, "") };
    default:
      throw new TypeError(`expected a task or a message, got kind ${JSON.stringify(r.kind)}`);
  }
}

/** One event of `message/stream` or `tasks/resubscribe`. */
export function streamResponseV1(result: unknown): Json {
  const r = expectRecord(result, "a stream event");
  switch (kindOf(r)) {
    case "task":
      return { task: taskV1(r) };
    case "message":
      return { message: messageV1(r, "") };
    case "status-update":
      return { statusUpdate: statusUpdateV1(r) };
    case "artifact-update":
      return { artifactUpdate: artifactUpdateV1(r) };
    default:
      throw new TypeError(`expected a task, message, status-update or artifact-update event, got kind ${JSON.stringify(r.kind)}`);
  }
}

/** The history cap of a 1.0 request (GetTask's, or a send's configuration's), in its ProtoJSON. */
export function historyLengthOf(request: Json): number | undefined {
  const cap = request.historyLength ?? record(request.configuration)?.historyLength;
  return typeof cap === "number" ? cap : undefined;
}

/**
 * A 0.3 result (or stream event) whose task keeps only the last `cap`
 * messages of its history: a negative or absent cap is none, 0 keeps none.
 */
export function withHistoryCap(result: unknown, cap: number | undefined): unknown {
  const r = record(result);
  if (cap === undefined || cap < 0 || !r || kindOf(r) !== "task" || !Array.isArray(r.history) || r.history.length <= cap) return result;
  return { ...r, history: r.history.slice(r.history.length - cap) };
}

/** The `kind` of a 0.3 object; when absent or unknown, guessed from its members. */
function kindOf(r: Json): string | undefined {
  if (typeof r.kind === "string" && KINDS.has(r.kind)) return r.kind;
  if ("artifact" in r) return "artifact-update";
  if ("messageId" in r && "parts" in r) return "message";
  if ("status" in r) return "id" in r ? "task" : "taskId" in r ? "status-update" : undefined;
  return undefined;
}
const KINDS = new Set(["task", "message", "status-update", "artifact-update"]);

// Each reader below takes the JSON path of what it reads in the 0.3 result
// ("" for the result itself), which a wrong shape's error names.

/** A 0.3 task as the ProtoJSON of a 1.0 `Task`. */
export function taskV1(t: Json): Json {
  return compact({
    id: t.id,
    contextId: t.contextId,
    status: statusV1(record(t.status), "status"),
    artifacts: objectsAt(t.artifacts, "artifacts", false).map((a, i) => artifactV1(a, `artifacts[${i}]`)),
    history: objectsAt(t.history, "history", false).map((m, i) => messageV1(m, `history[${i}]`)),
    metadata: t.metadata,
    // kind dropped.
  });
}

function statusV1(s: Json | undefined, path: string): Json | undefined {
  if (!s) return undefined;
  const message = record(s.message);
  return compact({
    state: taskStateNameV1(s.state),
    message: message && messageV1(message, `${path}.message`),
    timestamp: timestampV1(s.timestamp),
  });
}

/** A 0.3 message, at `path` of the result, as the ProtoJSON of a 1.0 `Message`. */
export function messageV1(m: Json, path: string): Json {
  return compact({
    messageId: m.messageId,
    contextId: m.contextId,
    taskId: m.taskId,
    role: roleNameV1(m.role),
    parts: objectsAt(m.parts, within(path, "parts"), true).map(partV1),
    metadata: m.metadata,
    extensions: m.extensions,
    referenceTaskIds: m.referenceTaskIds,
    // kind dropped.
  });
}

/** A 0.3 artifact, at `path` of the result, as the ProtoJSON of a 1.0 `Artifact`. */
export function artifactV1(a: Json, path: string): Json {
  return compact({
    artifactId: a.artifactId,
    name: a.name,
    description: a.description,
    parts: objectsAt(a.parts, `${path}.parts`, true).map(partV1),
    metadata: a.metadata,
    extensions: a.extensions,
  });
}

/** 0.3 TextPart, FilePart or DataPart -> 1.0 Part. */
export function partV1(p: Json): Json {
  const metadata = record(p.metadata);
  const kind = typeof p.kind === "string" ? p.kind : "text" in p ? "text" : "file" in p ? "file" : "data" in p ? "data" : undefined;
  switch (kind) {
    case "text":
      return compact({ text: p.text, metadata });
    case "file": {
      const file = record(p.file) ?? {};
      // `fileWithBytes` / `fileWithUri` are the member names of 0.3's proto.
      const bytes = file.bytes ?? file.fileWithBytes;
      const uri = file.uri ?? file.fileWithUri;
      const content = typeof bytes === "string" ? { raw: bytes } : typeof uri === "string" ? { url: uri } : {};
      return compact({ ...content, mediaType: file.mimeType ?? file.mediaType, filename: file.name, metadata });
    }
    case "data": {
      // Not through compact(): a null value is content here.
      if (metadata?.[WRAPPED_DATA_FLAG] === true) {
        const { [WRAPPED_DATA_FLAG]: _flag, ...rest } = metadata;
        const wrapper = record(p.data);
        const data = wrapper && "value" in wrapper ? wrapper.value : p.data;
        return Object.keys(rest).length > 0 ? { data: data ?? null, metadata: rest } : { data: data ?? null };
      }
      return metadata ? { data: p.data ?? null, metadata } : { data: p.data ?? null };
    }
    default:
      // A part of a kind this client does not know: kept, without content,
      // so that part positions stay as the agent sent them.
      return compact({ metadata });
  }
}

function statusUpdateV1(e: Json): Json {
  // `final` dropped: 1.0 ends the stream instead.
  return compact({ taskId: e.taskId, contextId: e.contextId, status: statusV1(record(e.status), "status"), metadata: e.metadata });
}

function artifactUpdateV1(e: Json): Json {
  const artifact = record(e.artifact);
  return compact({
    taskId: e.taskId,
    contextId: e.contextId,
    artifact: artifact && artifactV1(artifact, "artifact"),
    append: e.append,
    lastChunk: e.lastChunk,
    metadata: e.metadata,
  });
}

/** 0.3 TaskPushNotificationConfig (taskId + nested config) -> the flat 1.0 one. */
export function pushConfigV1(c: Json): Json {
  const inner = record(c.pushNotificationConfig) ?? {};
  const auth = record(inner.authentication);
  return compact({
    taskId: c.taskId,
    id: inner.id,
    url: inner.url,
    token: inner.token,
    authentication: auth && compact({ scheme: schemeFromV03(auth.schemes), credentials: auth.credentials }),
  });
}

// ---------------------------------------------------------------------------
// Timestamps

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * 0.3 asks for ISO 8601 only; 1.0's Timestamp wants RFC 3339. A time without
 * a zone is read as UTC; one that does not parse at all is dropped rather
 * than failing the whole response.
 */
export function timestampV1(ts: unknown): string | undefined {
  if (typeof ts !== "string" || ts === "") return undefined;
  if (RFC3339.test(ts)) return ts;
  const zoned = /(?:[zZ]|[+-]\d{2}:?\d{2})$/.test(ts) || !ts.includes("T") ? ts : `${ts}Z`;
  const ms = Date.parse(zoned);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

// ---------------------------------------------------------------------------

function record(v: unknown): Json | undefined {
  return isRecord(v) && !Array.isArray(v) ? v : undefined;
}

function expectRecord(v: unknown, what: string): Json {
  const r = record(v);
  if (!r) throw new TypeError(`expected ${what}, got ${v === null ? "null" : Array.isArray(v) ? "an array" : typeof v}`);
  return r;
}

function array(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/**
 * The items of the 0.3 list at `path` of a result, each an object. Absent is
 * empty, and so is null where the list is optional (history, artifacts: some
 * serializers write absent members as null); a list the 0.3 schema requires
 * (`parts`) that is null, a list that is not an array, and an item that is not
 * an object are wrong shapes, as they are on 1.0, and fail naming the path.
 */
function objectsAt(v: unknown, path: string, required: boolean): Json[] {
  if (v === undefined || (v === null && !required)) return [];
  if (!Array.isArray(v)) throw new TypeError(`${path} is ${jsonKind(v)}, not a list`);
  for (let i = 0; i < v.length; i++) {
    if (!record(v[i])) throw new TypeError(`${path}[${i}] is ${jsonKind(v[i])}, not an object`);
  }
  return v as Json[];
}

/** `path.key`, or `key` at the top of a result. */
function within(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

/** What kind of JSON value `v` is, for a message: `null`, `an array`, `a string`. */
function jsonKind(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "object" ? "an object" : `a ${typeof v}`;
}

function nonEmpty(v: unknown): unknown[] | undefined {
  return Array.isArray(v) && v.length > 0 ? v : undefined;
}

/** The object without its undefined (and null) members. */
function compact(o: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null) out[k] = v;
  return out;
}
