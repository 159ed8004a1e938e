/**
 * The abstract operations of ACTS (spec §4.1) as this client makes them:
 * the request each sends on the wire (the JSON-RPC method, the HTTP+JSON
 * route of the 1.0 proto), the call on `A2AClient`, and the assertion root
 * its answer gives (§4.2), as the spec's JSON (`toProtoJson`).
 */
import type { A2AClient } from "../../src/index.js";
import { toProtoJson, userMessage } from "../../src/index.js";
import { ActsFormatError } from "./matchers.js";

/** What the runner serves a payload on: the Agent Card document, or a binding. */
export type Served = "card" | "JSONRPC" | "HTTP+JSON";

/** A client call of an operation, its result as the spec's JSON (null for an empty one). */
type Call = (client: A2AClient) => Promise<unknown>;

interface Operation {
  /** The JSON-RPC method (spec 9.4). */
  jsonRpc: string;
  /** The HTTP+JSON route: verb and path (proto `google.api.http`), `{}` a path segment. */
  rest: [verb: string, path: string];
  call?: Call;
  /** Why this runner cannot serve a client response for the operation. */
  notRun?: string;
}

const TASK_ID = "acts-task";
const CONFIG_ID = "acts-config";
const asJson = (m: Parameters<typeof toProtoJson>[0]) => toProtoJson(m);
const ONE_PAYLOAD_STREAM = "a client_response holds one payload, and a stream's answer is a sequence of events";

export const OPERATIONS: Readonly<Record<string, Operation>> = {
  send_message: {
    jsonRpc: "SendMessage",
    rest: ["POST", "/message:send"],
    call: async (c) => asJson(await c.sendMessage({ message: userMessage("ACTS client test") })),
  },
  send_streaming_message: { jsonRpc: "SendStreamingMessage", rest: ["POST", "/message:stream"], notRun: ONE_PAYLOAD_STREAM },
  get_task: { jsonRpc: "GetTask", rest: ["GET", "/tasks/{}"], call: async (c) => asJson(await c.getTask({ id: TASK_ID })) },
  list_tasks: { jsonRpc: "ListTasks", rest: ["GET", "/tasks"], call: async (c) => asJson(await c.listTasks({})) },
  cancel_task: {
    jsonRpc: "CancelTask",
    rest: ["POST", "/tasks/{}:cancel"],
    call: async (c) => asJson(await c.cancelTask({ id: TASK_ID })),
  },
  subscribe_to_task: { jsonRpc: "SubscribeToTask", rest: ["GET", "/tasks/{}:subscribe"], notRun: ONE_PAYLOAD_STREAM },
  get_agent_card: { jsonRpc: "", rest: ["GET", "/.well-known/agent-card.json"] },
  get_extended_agent_card: {
    jsonRpc: "GetExtendedAgentCard",
    rest: ["GET", "/extendedAgentCard"],
    call: async (c) => asJson(await c.getExtendedAgentCard({})),
  },
  create_push_config: {
    jsonRpc: "CreateTaskPushNotificationConfig",
    rest: ["POST", "/tasks/{}/pushNotificationConfigs"],
    call: async (c) => asJson(await c.createTaskPushNotificationConfig({ taskId: TASK_ID, url: "https://example.com/webhook" })),
  },
  get_push_config: {
    jsonRpc: "GetTaskPushNotificationConfig",
    rest: ["GET", "/tasks/{}/pushNotificationConfigs/{}"],
    call: async (c) => asJson(await c.getTaskPushNotificationConfig({ taskId: TASK_ID, id: CONFIG_ID })),
  },
  list_push_configs: {
    jsonRpc: "ListTaskPushNotificationConfigs",
    rest: ["GET", "/tasks/{}/pushNotificationConfigs"],
    call: async (c) => asJson(await c.listTaskPushNotificationConfigs({ taskId: TASK_ID })),
  },
  delete_push_config: {
    jsonRpc: "DeleteTaskPushNotificationConfig",
    rest: ["DELETE", "/tasks/{}/pushNotificationConfigs/{}"],
    call: async (c) => {
      await c.deleteTaskPushNotificationConfig({ taskId: TASK_ID, id: CONFIG_ID });
      return null;
    },
  },
};

/** The operation of that name; an unknown one is an ActsFormatError naming it. */
export function operationOf(name: string): Operation {
  const op = Object.hasOwn(OPERATIONS, name) ? OPERATIONS[name] : undefined;
  if (op === undefined) throw new ActsFormatError(`unknown operation "${name}" (the operations: ${Object.keys(OPERATIONS).join(", ")})`);
  if (op.notRun !== undefined) throw new ActsFormatError(`operation "${name}" is not run by this runner: ${op.notRun}`);
  return op;
}

/**
 * The binding a payload implies: a card for `get_agent_card`; JSON-RPC for a
 * JSON-RPC 2.0 envelope; otherwise HTTP+JSON, whose answers are the bare
 * object (gRPC's are binary, never a YAML payload).
 */
export function servedOn(operation: string, payload: unknown): Served {
  if (operation === "get_agent_card") return "card";
  const envelope = payload !== null && typeof payload === "object" && (payload as { jsonrpc?: unknown }).jsonrpc === "2.0";
  return envelope ? "JSONRPC" : "HTTP+JSON";
}

/** Whether a request is the one this operation sends on that binding. */
export function isRequestFor(operation: string, served: Served, request: { method: string; url: URL; body: string }): boolean {
  const op = OPERATIONS[operation]!;
  if (served === "JSONRPC") {
    if (request.method !== "POST") return false;
    try {
      return (JSON.parse(request.body) as { method?: unknown }).method === op.jsonRpc;
    } catch {
      return false;
    }
  }
  const [verb, path] = op.rest;
  const pattern = new RegExp(`${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replaceAll("{}", "[^/]+")}$`);
  return request.method === verb && pattern.test(request.url.pathname);
}
