/**
 * A2A 1.0 <-> 0.3, method by method, so that callers keep 1.0 types when an
 * agent speaks 0.3. `V03_OPERATIONS` says which 0.3 proto method carries each
 * 1.0 method (gRPC and HTTP+JSON 0.3) and how its request and response are
 * translated; requests go 1.0 -> 0.3 here, the rest lives by concept beside
 * it: states.ts (task states, roles), messages.ts (parts, messages, tasks,
 * events), push-config.ts, card-proto.ts and card.ts (the Agent Card),
 * names.ts (resource names), methods.ts (what 0.3 lacks). JSON-RPC 0.3
 * (bindings/jsonrpc/v0_3-shapes.ts) uses the same tables for its own syntax.
 *
 * What 0.3 cannot hold is dropped on the way there, each drop noted where it
 * happens. Both 0.3 wire forms drop:
 *   - `tenant` of every request (0.3 has no tenants: the interface URL is the agent);
 *   - the media type of text and data parts (0.3 keeps a MIME type for files only);
 *   - the tenant and task id of the push config inside SendMessageConfiguration
 *     (0.3's is about the task the message creates).
 * The 0.3 proto holds less than 0.3's JSON schema, so gRPC and HTTP+JSON 0.3
 * also drop Message.reference_task_ids, Part.metadata and Part.filename, and
 * CancelTaskRequest.metadata, which JSON-RPC 0.3 sends; and a data part that
 * is not a JSON object, which JSON-RPC 0.3 sends wrapped (with a metadata flag
 * the proto's parts have no room for), fails here with
 * `UnsupportedOperationError` before anything is sent, as does a task id with
 * a `/` (it cannot be part of a resource name).
 * On the way back, 0.3's TaskStatusUpdateEvent.final is dropped (1.0 ends the
 * stream instead) and of several AuthenticationInfo schemes 1.0 keeps the
 * first. History caps differ in meaning and are bridged (historyLengthToV03,
 * and the cap held to on the way back, on JSON-RPC 0.3 too).
 */
import { create, type DescMessage, type DescMethod, type MessageShape } from "@bufbuild/protobuf";
import type { Empty } from "@bufbuild/protobuf/wkt";
import * as V03 from "../../gen/a2a/v1/a2a_pb.js";
import type * as V1 from "../../gen/lf/a2a/v1/a2a_pb.js";
import { UnsupportedOperationError } from "../errors/family.js";
import type { Binding } from "../base/bindings.js";
import { agentCardFromV03 } from "./card-proto.js";
import type { V03JsonKit, V03RunnerKit } from "./runner-kit.js";
import {
  blockingV03,
  historyLengthToV03,
  messageToV03,
  sendMessageResponseFromV03,
  streamResponseFromV03,
  taskFromV03,
} from "./messages.js";
import { V03_LACKS, v03LacksReason, v03Row, type A2AMethodName, type V03Lacking, type V03MethodTable } from "./methods.js";
import { taskName, pushConfigName } from "./names.js";
import {
  createPushConfigRequestToV03,
  listPushConfigsFromV03,
  listPushConfigsRequestToV03,
  pushConfigFromV03,
  pushConfigToV03,
} from "./push-config.js";

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
      /** The 1.0 request as the 0.3 method's request; `kit` the code of the start the adapter is handed. */
      request(request: MessageShape<DescMessage>, kit: V03JsonKit): MessageShape<DescMessage>;
      /**
       * A 0.3 response (or stream event) as the 1.0 method's; `request` is
       * the 1.0 request, `kit` the code of the start the adapter is handed.
       */
      response(response: MessageShape<DescMessage>, request: MessageShape<DescMessage>, kit: V03RunnerKit): MessageShape<DescMessage>;
    }
  | {
      /** 0.3 has no counterpart for the method. */
      readonly supported: false;
      /** Why 0.3 cannot carry it. */
      readonly reason: string;
    };

/** A 1.0 method that 0.3 carries. */
type Carried = Extract<
  V03Operation,
  {
    /** Only methods 0.3 carries. */
    supported: true;
  }
>;

/**
 * The row for the 1.0 method K. `of` exists only for the compiler: it ties
 * the row to its key in the table, so that a row's request and response
 * types are checked against the method it is filed under.
 */
type Row<K extends A2AMethodName> = Carried & {
  /** Never set. */
  readonly of?: K;
};

/** A row of the table, type-checked against both generated services. */
function via<K extends keyof M1, L extends keyof M03>(
  _v1: K,
  v03: L,
  request: (request: In1<K>, kit: V03JsonKit) => In03<L>,
  response: (response: Out03<L>, request: In1<K>, kit: V03RunnerKit) => Out1<K>,
): Row<K> {
  return {
    supported: true,
    method: V03.A2AService.method[v03],
    request: request as unknown as Carried["request"],
    response: response as unknown as Carried["response"],
  };
}

// One row per method 0.3 carries, each filed under its own method; the
// compiler holds the table to the 1.0 service (V03MethodTable, methods.ts).
const CARRIED = {
  sendMessage: via("sendMessage", "sendMessage", sendMessageRequestToV03, (r, q, kit) =>
    sendMessageResponseFromV03(r, kit, q.configuration?.historyLength),
  ),
  sendStreamingMessage: via("sendStreamingMessage", "sendStreamingMessage", sendMessageRequestToV03, (r, q, kit) =>
    streamResponseFromV03(r, kit, q.configuration?.historyLength),
  ),
  getTask: via("getTask", "getTask", getTaskRequestToV03, (r, q, kit) => taskFromV03(r, kit, q.historyLength)),
  cancelTask: via("cancelTask", "cancelTask", cancelTaskRequestToV03, (r, _q, kit) => taskFromV03(r, kit)),
  subscribeToTask: via("subscribeToTask", "taskSubscription", subscribeToTaskRequestToV03, (r, _q, kit) => streamResponseFromV03(r, kit)),
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
  getExtendedAgentCard: via(
    "getExtendedAgentCard",
    "getAgentCard",
    () => create(V03.GetAgentCardRequestSchema),
    (r, _q, kit) => agentCardFromV03(r, kit),
  ),
  deleteTaskPushNotificationConfig: via(
    "deleteTaskPushNotificationConfig",
    "deleteTaskPushNotificationConfig",
    (q) => create(V03.DeleteTaskPushNotificationConfigRequestSchema, { name: pushConfigName(q.taskId, q.id) }),
    // google.protobuf.Empty is the same message in both versions.
    (r: Empty) => r,
  ),
} satisfies V03MethodTable<Carried> & { readonly [K in keyof V03MethodTable<unknown>]: Row<K> };

/** Every 1.0 method, by its local name, and how (or whether) 0.3 carries it. */
export const V03_OPERATIONS: { readonly [K in A2AMethodName]: V03Operation } = {
  ...CARRIED,
  ...(Object.fromEntries(Object.entries(V03_LACKS).map(([name, reason]) => [name, { supported: false, reason }])) as {
    readonly [K in V03Lacking]: V03Operation;
  }),
};

/**
 * The 0.3 operation for a method of the 1.0 service. Methods 0.3 has no
 * counterpart for, and methods of any other service, throw
 * `UnsupportedOperationError` (no request is made).
 */
export function v03OperationFor(method: DescMethod, binding?: Binding): Carried {
  const op = v03Row<Carried>(CARRIED, method);
  if (op === undefined) {
    throw new UnsupportedOperationError(`the agent speaks A2A 0.3, which cannot do ${method.name}: ${v03LacksReason(method)}`, { binding });
  }
  return op;
}

// ---------------------------------------------------------------------------
// Requests, 1.0 -> 0.3 (every request's tenant is dropped)

/** A 1.0 SendMessage request as a 0.3 one. */
export function sendMessageRequestToV03(r: V1.SendMessageRequest, kit: V03JsonKit): V03.SendMessageRequest {
  const c = r.configuration;
  return create(V03.SendMessageRequestSchema, {
    request: r.message && messageToV03(r.message, kit),
    configuration: {
      acceptedOutputModes: c?.acceptedOutputModes ?? [],
      pushNotification: c?.taskPushNotificationConfig && pushConfigToV03(c.taskPushNotificationConfig),
      historyLength: historyLengthToV03(c?.historyLength),
      blocking: blockingV03(c?.returnImmediately),
    },
    metadata: r.metadata,
  });
}

/** A 1.0 GetTask request as a 0.3 one. */
export function getTaskRequestToV03(r: V1.GetTaskRequest): V03.GetTaskRequest {
  return create(V03.GetTaskRequestSchema, { name: taskName(r.id), historyLength: historyLengthToV03(r.historyLength) });
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
