/**
 * A2A 1.0 <-> 0.3, message by message, so that callers keep 1.0 types when
 * an agent speaks 0.3 over gRPC or HTTP+JSON. Requests go 1.0 -> 0.3,
 * responses 0.3 -> 1.0; `V03_OPERATIONS` says which 0.3 method carries each
 * 1.0 method, and which 1.0 methods 0.3 has no counterpart for.
 *
 * What 0.3 cannot hold is dropped on the way there, each drop noted where
 * it happens:
 *   - `tenant` of every request (0.3 has no tenants: the interface URL is the agent);
 *   - Message.reference_task_ids;
 *   - Part.metadata and Part.filename, and the media type of text and data parts
 *     (0.3 keeps a MIME type for files only);
 *   - CancelTaskRequest.metadata;
 *   - the tenant and task id of the push config inside SendMessageConfiguration
 *     (0.3's is about the task the message creates).
 * On the way back, 0.3's TaskStatusUpdateEvent.final is dropped (1.0 ends the
 * stream instead) and of several AuthenticationInfo schemes 1.0 keeps the
 * first. History caps differ in meaning and are bridged (historyLengthToV03). Values 0.3 cannot express at all (a data part that is not a JSON
 * object, a task id with a `/`) fail with `UnsupportedOperationError` before
 * anything is sent.
 */
import { create, fromJson, toJson, type DescEnum, type DescMessage, type DescMethod, type MessageShape } from "@bufbuild/protobuf";
import { ValueSchema, type Empty } from "@bufbuild/protobuf/wkt";
import * as V03 from "../../gen/a2a/v1/a2a_pb.js";
import * as V1 from "../../gen/lf/a2a/v1/a2a_pb.js";
import { UnsupportedOperationError } from "../errors/family.js";
import { type Binding } from "../protocol/bindings.js";

// ---------------------------------------------------------------------------
// Operations

type M1 = typeof V1.A2AService.method;
type M03 = typeof V03.A2AService.method;
type In1<K extends keyof M1> = MessageShape<M1[K]["input"]>;
type Out1<K extends keyof M1> = MessageShape<M1[K]["output"]>;
type In03<L extends keyof M03> = MessageShape<M03[L]["input"]>;
type Out03<L extends keyof M03> = MessageShape<M03[L]["output"]>;

/** How one 1.0 method travels over 0.3. */
export type V03Operation =
  | {
      /** 0.3 carries the method. */
      readonly supported: true;
      /** The 0.3 method that carries it. */
      readonly method: DescMethod;
      /** The 1.0 request as the 0.3 method's request. */
      request(request: MessageShape<DescMessage>): MessageShape<DescMessage>;
      /** A 0.3 response (or stream event) as the 1.0 method's; `request` is the 1.0 request. */
      response(response: MessageShape<DescMessage>, request: MessageShape<DescMessage>): MessageShape<DescMessage>;
    }
  | {
      /** 0.3 has no counterpart for the method. */
      readonly supported: false;
      /** Why 0.3 cannot carry it. */
      readonly reason: string;
    };

/** A row of the table, type-checked against both generated services. */
function via<K extends keyof M1, L extends keyof M03>(
  _v1: K,
  v03: L,
  request: (request: In1<K>) => In03<L>,
  response: (response: Out03<L>, request: In1<K>) => Out1<K>,
): V03Operation {
  return {
    supported: true,
    method: V03.A2AService.method[v03],
    request: request as unknown as (r: MessageShape<DescMessage>) => MessageShape<DescMessage>,
    response: response as unknown as (r: MessageShape<DescMessage>, q: MessageShape<DescMessage>) => MessageShape<DescMessage>,
  };
}

function none(reason: string): V03Operation {
  return { supported: false, reason };
}

/** Every 1.0 method, by its local name, and how (or whether) 0.3 carries it. */
export const V03_OPERATIONS: { readonly [K in keyof M1]: V03Operation } = {
  sendMessage: via("sendMessage", "sendMessage", sendMessageRequestToV03, (r, q) =>
    sendMessageResponseFromV03(r, q.configuration?.historyLength),
  ),
  sendStreamingMessage: via("sendStreamingMessage", "sendStreamingMessage", sendMessageRequestToV03, (r, q) =>
    streamResponseFromV03(r, q.configuration?.historyLength),
  ),
  getTask: via("getTask", "getTask", getTaskRequestToV03, (r, q) => taskFromV03(r, q.historyLength)),
  listTasks: none("0.3 has no operation to list tasks"),
  cancelTask: via("cancelTask", "cancelTask", cancelTaskRequestToV03, (r) => taskFromV03(r)),
  subscribeToTask: via("subscribeToTask", "taskSubscription", subscribeToTaskRequestToV03, (r) => streamResponseFromV03(r)),
  createTaskPushNotificationConfig: via(
    "createTaskPushNotificationConfig",
    "createTaskPushNotificationConfig",
    createPushConfigRequestToV03,
    (r, q) => pushConfigFromV03(r, q.taskId),
  ),
  getTaskPushNotificationConfig: via(
    "getTaskPushNotificationConfig",
    "getTaskPushNotificationConfig",
    (q) => create(V03.GetTaskPushNotificationConfigRequestSchema, { name: pushConfigName(q.taskId, q.id) }),
    (r, q) => pushConfigFromV03(r, q.taskId),
  ),
  listTaskPushNotificationConfigs: via(
    "listTaskPushNotificationConfigs",
    "listTaskPushNotificationConfig",
    listPushConfigsRequestToV03,
    (r, q) => listPushConfigsFromV03(r, q.taskId),
  ),
  getExtendedAgentCard: via("getExtendedAgentCard", "getAgentCard", () => create(V03.GetAgentCardRequestSchema), agentCardFromV03),
  deleteTaskPushNotificationConfig: via(
    "deleteTaskPushNotificationConfig",
    "deleteTaskPushNotificationConfig",
    (q) => create(V03.DeleteTaskPushNotificationConfigRequestSchema, { name: pushConfigName(q.taskId, q.id) }),
    // google.protobuf.Empty is the same message in both versions.
    (r: Empty) => r,
  ),
};

/**
 * The 0.3 operation for a method of the 1.0 service. Methods 0.3 has no
 * counterpart for, and methods of any other service, throw
 * `UnsupportedOperationError` (no request is made).
 */
export function v03OperationFor(
  method: DescMethod,
  binding?: Binding,
): Extract<
  V03Operation,
  {
    /** Only methods 0.3 carries. */
    supported: true;
  }
> {
  const op =
    method.parent.typeName === V1.A2AService.typeName && Object.hasOwn(V03_OPERATIONS, method.localName)
      ? V03_OPERATIONS[method.localName as keyof M1]
      : none(`0.3 has no method ${method.parent.typeName}.${method.name}`);
  if (!op.supported) {
    throw new UnsupportedOperationError(`the agent speaks A2A 0.3, which cannot do ${method.name}: ${op.reason}`, { binding });
  }
  return op;
}

function cannot(what: string): UnsupportedOperationError {
  return new UnsupportedOperationError(`the agent speaks A2A 0.3, which cannot express ${what}`);
}

// ---------------------------------------------------------------------------
// Resource names: 0.3 addresses tasks and push configs as `tasks/{id}` and
// `tasks/{id}/pushNotificationConfigs/{id}`.

/** A task's 0.3 resource name, `tasks/{id}`; an id with a `/` cannot be one. */
export function taskName(taskId: string): string {
  if (taskId.includes("/")) throw cannot(`a task id containing "/" (${JSON.stringify(taskId)}) in a resource name`);
  return `tasks/${taskId}`;
}

/** A push config's 0.3 resource name, `tasks/{task}/pushNotificationConfigs/{id}`. */
export function pushConfigName(taskId: string, configId: string): string {
  if (configId.includes("/")) throw cannot(`a push config id containing "/" (${JSON.stringify(configId)}) in a resource name`);
  return `${taskName(taskId)}/pushNotificationConfigs/${configId}`;
}

const CONFIG_NAME = /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]*)$/;

/** `tasks/{task}/pushNotificationConfigs/{id}` split up, or undefined when it is not one. */
export function parsePushConfigName(name: string):
  | {
      /** The task's id. */
      taskId: string;
      /** The config's id. */
      configId: string;
    }
  | undefined {
  const m = CONFIG_NAME.exec(name);
  return m ? { taskId: m[1]!, configId: m[2]! } : undefined;
}

// ---------------------------------------------------------------------------
// Enums, mapped by value name

/**
 * value number -> value number between two enums whose value names agree
 * except for `renamed` (from-name -> to-name). Numbers the source enum does
 * not define (a newer peer's values) map to 0, the UNSPECIFIED value.
 */
function enumByName(from: DescEnum, to: DescEnum, renamed: Readonly<Record<string, string>> = {}): (n: number) => number {
  const byName = new Map(to.values.map((v) => [v.name, v.number]));
  const table = new Map<number, number>();
  for (const v of from.values) {
    const target = byName.get(renamed[v.name] ?? v.name);
    if (target === undefined) throw new Error(`${from.typeName}.${v.name} has no counterpart in ${to.typeName}`);
    table.set(v.number, target);
  }
  return (n) => table.get(n) ?? 0;
}

/** 0.3 -> 1.0 task states; 0.3 spells CANCELLED, 1.0 CANCELED. */
export const taskStateFromV03 = enumByName(V03.TaskStateSchema, V1.TaskStateSchema, {
  TASK_STATE_CANCELLED: "TASK_STATE_CANCELED",
}) as (state: V03.TaskState) => V1.TaskState;

/** 1.0 -> 0.3 message roles. */
export const roleToV03 = enumByName(V1.RoleSchema, V03.RoleSchema) as (role: V1.Role) => V03.Role;
/** 0.3 -> 1.0 message roles. */
export const roleFromV03 = enumByName(V03.RoleSchema, V1.RoleSchema) as (role: V03.Role) => V1.Role;

// ---------------------------------------------------------------------------
// Messages and parts, both ways

/** A 1.0 part as a 0.3 part; a data part that is not a JSON object cannot be one. */
export function partToV03(part: V1.Part): V03.Part {
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
      const json = toJson(ValueSchema, c.value);
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
export function partFromV03(part: V03.Part): V1.Part {
  const p = part.part;
  switch (p.case) {
    case "text":
      return create(V1.PartSchema, { content: { case: "text", value: p.value } });
    case "file": {
      const f = p.value.file;
      const content =
        f.case === "fileWithUri" ? { case: "url" as const, value: f.value }
        : f.case === "fileWithBytes" ? { case: "raw" as const, value: f.value }
        : undefined;
      return create(V1.PartSchema, { content, mediaType: p.value.mimeType });
    }
    case "data":
      // A data part without data is read as an empty object.
      return create(V1.PartSchema, { content: { case: "data", value: fromJson(ValueSchema, p.value.data ?? {}) } });
    case undefined:
      return create(V1.PartSchema);
  }
}

/** A 1.0 message as a 0.3 message, without its `referenceTaskIds`. */
export function messageToV03(m: V1.Message): V03.Message {
  // Dropped: reference_task_ids (not in 0.3's proto).
  return create(V03.MessageSchema, {
    messageId: m.messageId,
    contextId: m.contextId,
    taskId: m.taskId,
    role: roleToV03(m.role),
    content: m.parts.map(partToV03),
    metadata: m.metadata,
    extensions: m.extensions,
  });
}

/** A 0.3 message as a 1.0 message. */
export function messageFromV03(m: V03.Message): V1.Message {
  return create(V1.MessageSchema, {
    messageId: m.messageId,
    contextId: m.contextId,
    taskId: m.taskId,
    role: roleFromV03(m.role),
    parts: m.content.map(partFromV03),
    metadata: m.metadata,
    extensions: m.extensions,
  });
}

// ---------------------------------------------------------------------------
// Tasks and stream events, 0.3 -> 1.0

/** A 0.3 task status as a 1.0 one. */
export function taskStatusFromV03(s: V03.TaskStatus): V1.TaskStatus {
  return create(V1.TaskStatusSchema, {
    state: taskStateFromV03(s.state),
    message: s.update && messageFromV03(s.update),
    timestamp: s.timestamp,
  });
}

/** A 0.3 artifact as a 1.0 one. */
export function artifactFromV03(a: V03.Artifact): V1.Artifact {
  return create(V1.ArtifactSchema, {
    artifactId: a.artifactId,
    name: a.name,
    description: a.description,
    parts: a.parts.map(partFromV03),
    metadata: a.metadata,
    extensions: a.extensions,
  });
}

/**
 * A 0.3 task as a 1.0 one. `historyLength`, when the 1.0 request set it,
 * caps the history here too: 1.0 reads 0 as "none" where 0.3 reads it as
 * "no cap", and not every 0.3 server applies the cap it is sent.
 */
export function taskFromV03(t: V03.Task, historyLength?: number): V1.Task {
  const history = t.history.map(messageFromV03);
  return create(V1.TaskSchema, {
    id: t.id,
    contextId: t.contextId,
    status: t.status && taskStatusFromV03(t.status),
    artifacts: t.artifacts.map(artifactFromV03),
    history: historyLength === undefined || historyLength < 0 ? history : history.slice(history.length - historyLength),
    metadata: t.metadata,
  });
}

/** A 0.3 status update event as a 1.0 one, without `final`. */
export function statusUpdateFromV03(e: V03.TaskStatusUpdateEvent): V1.TaskStatusUpdateEvent {
  // Dropped: final (1.0 ends the stream instead).
  return create(V1.TaskStatusUpdateEventSchema, {
    taskId: e.taskId,
    contextId: e.contextId,
    status: e.status && taskStatusFromV03(e.status),
    metadata: e.metadata,
  });
}

/** A 0.3 artifact update event as a 1.0 one. */
export function artifactUpdateFromV03(e: V03.TaskArtifactUpdateEvent): V1.TaskArtifactUpdateEvent {
  return create(V1.TaskArtifactUpdateEventSchema, {
    taskId: e.taskId,
    contextId: e.contextId,
    artifact: e.artifact && artifactFromV03(e.artifact),
    append: e.append,
    lastChunk: e.lastChunk,
    metadata: e.metadata,
  });
}

/** A 0.3 stream event as a 1.0 `StreamResponse`. */
export function streamResponseFromV03(r: V03.StreamResponse, historyLength?: number): V1.StreamResponse {
  const p = r.payload;
  switch (p.case) {
    case "task":
      return create(V1.StreamResponseSchema, { payload: { case: "task", value: taskFromV03(p.value, historyLength) } });
    case "msg":
      return create(V1.StreamResponseSchema, { payload: { case: "message", value: messageFromV03(p.value) } });
    case "statusUpdate":
      return create(V1.StreamResponseSchema, { payload: { case: "statusUpdate", value: statusUpdateFromV03(p.value) } });
    case "artifactUpdate":
      return create(V1.StreamResponseSchema, { payload: { case: "artifactUpdate", value: artifactUpdateFromV03(p.value) } });
    case undefined:
      return create(V1.StreamResponseSchema);
  }
}

/** A 0.3 SendMessage response (task or message) as a 1.0 one. */
export function sendMessageResponseFromV03(r: V03.SendMessageResponse, historyLength?: number): V1.SendMessageResponse {
  const p = r.payload;
  switch (p.case) {
    case "task":
      return create(V1.SendMessageResponseSchema, { payload: { case: "task", value: taskFromV03(p.value, historyLength) } });
    case "msg":
      return create(V1.SendMessageResponseSchema, { payload: { case: "message", value: messageFromV03(p.value) } });
    case undefined:
      return create(V1.SendMessageResponseSchema);
  }
}

// ---------------------------------------------------------------------------
// Requests, 1.0 -> 0.3 (every request's tenant is dropped)

/** A 1.0 SendMessage request as a 0.3 one. */
export function sendMessageRequestToV03(r: V1.SendMessageRequest): V03.SendMessageRequest {
  const c = r.configuration;
  return create(V03.SendMessageRequestSchema, {
    request: r.message && messageToV03(r.message),
    // Always sent: a 0.3 server reads a missing `blocking` as false, i.e.
    // "reply at once", while 1.0's default is to wait.
    configuration: {
      acceptedOutputModes: c?.acceptedOutputModes ?? [],
      pushNotification: c?.taskPushNotificationConfig && pushConfigToV03(c.taskPushNotificationConfig),
      historyLength: historyLengthToV03(c?.historyLength),
      blocking: !(c?.returnImmediately ?? false),
    },
    metadata: r.metadata,
  });
}

/** A 1.0 GetTask request as a 0.3 one. */
export function getTaskRequestToV03(r: V1.GetTaskRequest): V03.GetTaskRequest {
  return create(V03.GetTaskRequestSchema, { name: taskName(r.id), historyLength: historyLengthToV03(r.historyLength) });
}

const INT32_MAX = 2 ** 31 - 1;

/**
 * A 1.0 history cap as 0.3's int32, which cannot be left unset on the wire
 * and whose 0 servers read two ways: "no cap" (0.3.0's own comment) or
 * "none" (the official SDK's 0.3 gRPC GetTask). So "no cap" (unset, or an
 * invalid negative value) is sent as the largest int32, and a cap of 0 as 0
 * with the response conversion removing whatever history still comes back.
 */
export function historyLengthToV03(historyLength: number | undefined): number {
  return historyLength === undefined || historyLength < 0 ? INT32_MAX : historyLength;
}

/** A 1.0 CancelTask request as a 0.3 one, without its metadata. */
export function cancelTaskRequestToV03(r: V1.CancelTaskRequest): V03.CancelTaskRequest {
  // Dropped: metadata (0.3's CancelTaskRequest has none).
  return create(V03.CancelTaskRequestSchema, { name: taskName(r.id) });
}

/** A 1.0 SubscribeToTask request as a 0.3 one. */
export function subscribeToTaskRequestToV03(r: V1.SubscribeToTaskRequest): V03.TaskSubscriptionRequest {
  return create(V03.TaskSubscriptionRequestSchema, { name: taskName(r.id) });
}

/** A 1.0 ListTaskPushNotificationConfigs request as a 0.3 one. */
export function listPushConfigsRequestToV03(r: V1.ListTaskPushNotificationConfigsRequest): V03.ListTaskPushNotificationConfigRequest {
  return create(V03.ListTaskPushNotificationConfigRequestSchema, {
    parent: taskName(r.taskId),
    pageSize: r.pageSize,
    pageToken: r.pageToken,
  });
}

// ---------------------------------------------------------------------------
// Push notification configs: 1.0 is flat (task_id, id, url, ...), 0.3 names
// the config and nests a PushNotificationConfig {id, url, token, authentication}.

/** 1.0 push authentication as 0.3's. */
export function authenticationToV03(a: V1.AuthenticationInfo): V03.AuthenticationInfo {
  return create(V03.AuthenticationInfoSchema, { schemes: a.scheme === "" ? [] : [a.scheme], credentials: a.credentials });
}

/** 0.3 push authentication as 1.0's: its first scheme. */
export function authenticationFromV03(a: V03.AuthenticationInfo): V1.AuthenticationInfo {
  // 1.0 has one scheme: the first is kept.
  return create(V1.AuthenticationInfoSchema, { scheme: a.schemes[0] ?? "", credentials: a.credentials });
}

/** The nested 0.3 config; the 1.0 config's tenant and task id stay behind. */
export function pushConfigToV03(c: V1.TaskPushNotificationConfig): V03.PushNotificationConfig {
  return create(V03.PushNotificationConfigSchema, {
    id: c.id,
    url: c.url,
    token: c.token,
    authentication: c.authentication && authenticationToV03(c.authentication),
  });
}

/** A 1.0 push config to create, as a 0.3 create request. */
export function createPushConfigRequestToV03(c: V1.TaskPushNotificationConfig): V03.CreateTaskPushNotificationConfigRequest {
  const parent = taskName(c.taskId);
  return create(V03.CreateTaskPushNotificationConfigRequestSchema, {
    parent,
    configId: c.id,
    config: {
      // Without an id yet (the agent assigns one), the name is the task's.
      name: c.id === "" ? parent : pushConfigName(c.taskId, c.id),
      pushNotificationConfig: pushConfigToV03(c),
    },
  });
}

/**
 * A 0.3 config as a 1.0 one. The task and config ids come from its name;
 * `taskId` (the request's) stands in when the name is not of the usual form.
 */
export function pushConfigFromV03(c: V03.TaskPushNotificationConfig, taskId: string): V1.TaskPushNotificationConfig {
  const named = parsePushConfigName(c.name);
  const inner = c.pushNotificationConfig;
  return create(V1.TaskPushNotificationConfigSchema, {
    id: inner?.id || named?.configId || "",
    taskId: named?.taskId ?? taskId,
    url: inner?.url ?? "",
    token: inner?.token ?? "",
    authentication: inner?.authentication && authenticationFromV03(inner.authentication),
  });
}

/** A 0.3 list of push configs as a 1.0 response; `taskId` is the request's. */
export function listPushConfigsFromV03(r: V03.ListTaskPushNotificationConfigResponse, taskId: string): V1.ListTaskPushNotificationConfigsResponse {
  return create(V1.ListTaskPushNotificationConfigsResponseSchema, {
    configs: r.configs.map((c) => pushConfigFromV03(c, taskId)),
    nextPageToken: r.nextPageToken,
  });
}

// ---------------------------------------------------------------------------
// Agent Card, 0.3 -> 1.0 (the same reading as discovery's for 0.3 card JSON)

/** A 0.3 Agent Card (from GetExtendedAgentCard) as a 1.0 card. */
export function agentCardFromV03(c: V03.AgentCard): V1.AgentCard {
  const protocolVersion = c.protocolVersion || "0.3";
  const interfaces: V1.AgentInterface[] = [];
  const add = (url: string, binding: string) => {
    const protocolBinding = binding || "JSONRPC";
    if (url === "" || interfaces.some((i) => i.url === url && i.protocolBinding === protocolBinding)) return;
    interfaces.push(create(V1.AgentInterfaceSchema, { url, protocolBinding, protocolVersion }));
  };
  // The main URL speaks the preferred transport and comes first.
  add(c.url, c.preferredTransport);
  for (const i of c.additionalInterfaces) add(i.url, i.transport);

  return create(V1.AgentCardSchema, {
    name: c.name,
    description: c.description,
    supportedInterfaces: interfaces,
    provider: c.provider && create(V1.AgentProviderSchema, { url: c.provider.url, organization: c.provider.organization }),
    version: c.version,
    documentationUrl: c.documentationUrl || undefined,
    capabilities: {
      streaming: c.capabilities?.streaming ?? false,
      pushNotifications: c.capabilities?.pushNotifications ?? false,
      extensions: (c.capabilities?.extensions ?? []).map((e) =>
        create(V1.AgentExtensionSchema, { uri: e.uri, description: e.description, required: e.required, params: e.params }),
      ),
      extendedAgentCard: c.supportsAuthenticatedExtendedCard,
    },
    securitySchemes: Object.fromEntries(Object.entries(c.securitySchemes).map(([k, s]) => [k, securitySchemeFromV03(s)])),
    securityRequirements: c.security.map(requirementFromV03),
    defaultInputModes: c.defaultInputModes,
    defaultOutputModes: c.defaultOutputModes,
    skills: c.skills.map((s) =>
      create(V1.AgentSkillSchema, {
        id: s.id,
        name: s.name,
        description: s.description,
        tags: s.tags,
        examples: s.examples,
        inputModes: s.inputModes,
        outputModes: s.outputModes,
        securityRequirements: s.security.map(requirementFromV03),
      }),
    ),
    // Kept as served. They sign the 0.3 form of the card, so a 1.0 verifier
    // will not find them valid for the converted one.
    signatures: c.signatures.map((s) =>
      create(V1.AgentCardSignatureSchema, { protected: s.protected, signature: s.signature, header: s.header }),
    ),
  });
}

function requirementFromV03(s: V03.Security): V1.SecurityRequirement {
  return create(V1.SecurityRequirementSchema, {
    schemes: Object.fromEntries(Object.entries(s.schemes).map(([k, v]) => [k, create(V1.StringListSchema, { list: v.list })])),
  });
}

/** A 0.3 security scheme as a 1.0 one. */
export function securitySchemeFromV03(s: V03.SecurityScheme): V1.SecurityScheme {
  const v = s.scheme;
  switch (v.case) {
    case "apiKeySecurityScheme":
      return create(V1.SecuritySchemeSchema, {
        scheme: { case: v.case, value: { description: v.value.description, location: v.value.location, name: v.value.name } },
      });
    case "httpAuthSecurityScheme":
      return create(V1.SecuritySchemeSchema, {
        scheme: { case: v.case, value: { description: v.value.description, scheme: v.value.scheme, bearerFormat: v.value.bearerFormat } },
      });
    case "oauth2SecurityScheme":
      return create(V1.SecuritySchemeSchema, {
        scheme: {
          case: v.case,
          value: {
            description: v.value.description,
            flows: v.value.flows && oauthFlowsFromV03(v.value.flows),
            oauth2MetadataUrl: v.value.oauth2MetadataUrl,
          },
        },
      });
    case "openIdConnectSecurityScheme":
      return create(V1.SecuritySchemeSchema, {
        scheme: { case: v.case, value: { description: v.value.description, openIdConnectUrl: v.value.openIdConnectUrl } },
      });
    case "mtlsSecurityScheme":
      return create(V1.SecuritySchemeSchema, { scheme: { case: "mtlsSecurityScheme", value: { description: v.value.description } } });
    case undefined:
      return create(V1.SecuritySchemeSchema);
  }
}

function oauthFlowsFromV03(f: V03.OAuthFlows): V1.OAuthFlows {
  const v = f.flow;
  switch (v.case) {
    case "authorizationCode":
      return create(V1.OAuthFlowsSchema, {
        flow: {
          case: v.case,
          value: { authorizationUrl: v.value.authorizationUrl, tokenUrl: v.value.tokenUrl, refreshUrl: v.value.refreshUrl, scopes: v.value.scopes },
        },
      });
    case "clientCredentials":
      return create(V1.OAuthFlowsSchema, {
        flow: { case: v.case, value: { tokenUrl: v.value.tokenUrl, refreshUrl: v.value.refreshUrl, scopes: v.value.scopes } },
      });
    case "implicit":
      return create(V1.OAuthFlowsSchema, {
        flow: { case: v.case, value: { authorizationUrl: v.value.authorizationUrl, refreshUrl: v.value.refreshUrl, scopes: v.value.scopes } },
      });
    case "password":
      return create(V1.OAuthFlowsSchema, {
        flow: { case: v.case, value: { tokenUrl: v.value.tokenUrl, refreshUrl: v.value.refreshUrl, scopes: v.value.scopes } },
      });
    case undefined:
      return create(V1.OAuthFlowsSchema);
  }
}
