/**
 * TASK_STATE_AUTH_REQUIRED: the agent needs the caller (or its user) to
 * authenticate, to it or to a system behind it, before the task can go on.
 * The status message usually says how.
 */
import {
  TaskState,
  type Message,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
  type TaskStatusUpdateEvent,
} from "../../gen/lf/a2a/v1/a2a_pb.js";

/** A task waiting for authentication, as `authRequired` reports it. @category Auth */
export interface AuthRequired {
  /** The task that waits; send the follow-up message with this taskId once authenticated. */
  taskId: string;
  /** The task's context. */
  contextId: string;
  /** The agent's status message: what to authenticate to, and how. */
  message: Message | undefined;
}

/**
 * When a task, a status update, a stream event or a send response says the
 * task is in AUTH_REQUIRED: its ids and the agent's status message.
 * Undefined otherwise. Once the app has authenticated, it continues the task
 * (`replyTo(task, ...)`) or subscribes again.
 * @category Auth
 */
export function authRequired(source: Task | TaskStatusUpdateEvent | StreamResponse | SendMessageResponse): AuthRequired | undefined {
  let holder: Task | TaskStatusUpdateEvent | undefined;
  if ("payload" in source) {
    const p = source.payload;
    if (p.case === "task" || p.case === "statusUpdate") holder = p.value;
  } else {
    holder = source;
  }
  if (!holder || holder.status?.state !== TaskState.AUTH_REQUIRED) return undefined;
  const taskId = "taskId" in holder ? holder.taskId : holder.id;
  return { taskId, contextId: holder.contextId, message: holder.status.message };
}
