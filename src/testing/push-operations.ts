/**
 * The push notification config operations of the test agent
 * (specification sections 3.1.7 to 3.1.10), on the configs its notifier
 * keeps; an agent made without `push` refuses them all with
 * PUSH_NOTIFICATION_NOT_SUPPORTED, as its card declares no push.
 */
import { create, type Message as ProtoMessage } from "@bufbuild/protobuf";
import { EmptySchema } from "@bufbuild/protobuf/wkt";
import {
  ListTaskPushNotificationConfigsResponseSchema,
  TaskPushNotificationConfigSchema,
  type DeleteTaskPushNotificationConfigRequest,
  type GetTaskPushNotificationConfigRequest,
  type ListTaskPushNotificationConfigsRequest,
  type TaskPushNotificationConfig,
} from "../../gen/lf/a2a/v1/a2a_pb.js";
import { AgentAnswerError } from "./errors.js";
import type { AgentState, Reply } from "./operations.js";
import { checkedConfig, type PushNotifier } from "./push.js";

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

/** The agent's notifier, or the refusal of an agent without push. */
export function notifierOf(agent: AgentState): PushNotifier {
  if (!agent.push) throw new AgentAnswerError("PUSH_NOTIFICATION_NOT_SUPPORTED", "this test agent was made without push");
  return agent.push;
}

/** The id of a task the agent holds. */
function knownTask(agent: AgentState, taskId: string): string {
  if (!agent.store.get(taskId)) throw new AgentAnswerError("TASK_NOT_FOUND", `no task ${taskId}`);
  return taskId;
}

/** The config's problem as the error an agent answers with. */
export function refuseUnlessValid(config: TaskPushNotificationConfig | undefined): asserts config is TaskPushNotificationConfig {
  const problem = checkedConfig(config);
  if (problem !== undefined) throw new AgentAnswerError("INVALID_PARAMS", problem);
}

async function createConfig(agent: AgentState, request: ProtoMessage): Promise<Reply> {
  const push = notifierOf(agent);
  const config = request as TaskPushNotificationConfig;
  refuseUnlessValid(config);
  const kept = push.register(knownTask(agent, config.taskId), config);
  return { kind: "result", schema: TaskPushNotificationConfigSchema, message: kept };
}

async function getConfig(agent: AgentState, request: ProtoMessage): Promise<Reply> {
  const push = notifierOf(agent);
  const { taskId, id } = request as GetTaskPushNotificationConfigRequest;
  const config = push.configsOf(knownTask(agent, taskId)).find((c) => c.id === id);
  if (!config) throw new AgentAnswerError("TASK_NOT_FOUND", `task ${taskId} has no push notification config ${id}`);
  return { kind: "result", schema: TaskPushNotificationConfigSchema, message: config };
}

/** The task's configs in the order they were made, paged as ListTasks is (the page token is an offset). */
async function listConfigs(agent: AgentState, request: ProtoMessage): Promise<Reply> {
  const push = notifierOf(agent);
  const r = request as ListTaskPushNotificationConfigsRequest;
  const pageSize = r.pageSize || DEFAULT_PAGE_SIZE;
  if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw new AgentAnswerError("INVALID_PARAMS", `pageSize must be 1 to ${MAX_PAGE_SIZE}`);
  const start = r.pageToken === "" ? 0 : Number(r.pageToken);
  if (!Number.isInteger(start) || start < 0) throw new AgentAnswerError("INVALID_PARAMS", "pageToken is not one this agent gave");
  const all = push.configsOf(knownTask(agent, r.taskId));
  const configs = all.slice(start, start + pageSize);
  const end = start + configs.length;
  const message = create(ListTaskPushNotificationConfigsResponseSchema, { configs, nextPageToken: end < all.length ? String(end) : "" });
  return { kind: "result", schema: ListTaskPushNotificationConfigsResponseSchema, message };
}

/** Deleting a config the task does not have succeeds: the config is gone either way. */
async function deleteConfig(agent: AgentState, request: ProtoMessage): Promise<Reply> {
  const push = notifierOf(agent);
  const { taskId, id } = request as DeleteTaskPushNotificationConfigRequest;
  push.remove(knownTask(agent, taskId), id);
  return { kind: "result", schema: EmptySchema, message: create(EmptySchema) };
}

/** The four operations by proto method name. */
export const PUSH_OPERATIONS = {
  CreateTaskPushNotificationConfig: createConfig,
  GetTaskPushNotificationConfig: getConfig,
  ListTaskPushNotificationConfigs: listConfigs,
  DeleteTaskPushNotificationConfig: deleteConfig,
} as const;
