/**
 * Multi-turn work with an agent: answering a task that waits on the caller,
 * and starting a new task in the same conversation that points back at
 * earlier ones. The builders return real `Message`s, so they go into
 * `sendMessage` and `sendStreamingMessage` alike.
 */
import { TaskState, type Message, type Part, type Task } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { InvalidParamsError, TaskTerminalError } from "../errors/family.js";
import { isTerminal, userMessage, type MessageOptions } from "../protocol/messages.js";

/** What a reply or follow-up may set besides its content; the task decides the rest. @category Connect and call */
export type TurnOptions = Omit<MessageOptions, "taskId" | "contextId">;

/** Message content: a string (one text part), a part, or a list of either. @category Connect and call */
export type MessageContent = string | Part | ReadonlyArray<string | Part>;

/**
 * Throws `TaskTerminalError` when the task has ended (completed, failed,
 * canceled, rejected): an agent accepts no further messages for it, so
 * sending one would only cost a round trip. Start a new task with
 * `followUp` instead.
 * @category Connect and call
 */
export function assertAcceptsMessages(task: Pick<Task, "id" | "status">): void {
  const state = task.status?.state ?? TaskState.UNSPECIFIED;
  if (isTerminal(state)) {
    throw new TaskTerminalError(`task ${task.id} has ended (${TaskState[state]}); start a new task with followUp()`, {
      taskId: task.id,
      state,
    });
  }
}

/**
 * A user message that continues `task` (same `taskId` and `contextId`), e.g.
 * the answer to an INPUT_REQUIRED question. Throws `TaskTerminalError`,
 * before any request, when the task has already ended.
 * @example
 * ```ts
 * import { connect, replyTo, userMessage, TaskState } from "a2a-connect";
 *
 * const { client } = await connect("https://agent.example.com");
 * const res = await client.sendMessage({ message: userMessage("book a table") });
 * const task = res.payload.case === "task" ? res.payload.value : undefined;
 * if (task?.status?.state === TaskState.INPUT_REQUIRED) {
 *   await client.sendMessage({ message: replyTo(task, "for 4 people, at 8 pm") });
 * }
 * ```
 * @category Connect and call
 */
export function replyTo(task: Pick<Task, "id" | "contextId" | "status">, content: MessageContent, options: TurnOptions = {}): Message {
  if (!task.id) throw new InvalidParamsError("replyTo needs a task with an id");
  assertAcceptsMessages(task);
  return userMessage(content, { ...options, taskId: task.id, contextId: task.contextId });
}

/**
 * A user message that starts a new task in the conversation of `task` (its
 * `contextId`), listing `task.id` first in `referenceTaskIds` (then any
 * given in `options`). Works whatever state `task` is in: this is how a
 * conversation goes on after a task has ended.
 * @example
 * ```ts
 * import { connect, followUp } from "a2a-connect";
 *
 * const { client } = await connect("https://agent.example.com");
 * const done = await client.getTask({ id: "task-123" }); // a completed translation, say
 * const next = await client.sendMessage({ message: followUp(done, "now in French") });
 * ```
 * @category Connect and call
 */
export function followUp(task: Pick<Task, "id" | "contextId">, content: MessageContent, options: TurnOptions = {}): Message {
  if (!task.id || !task.contextId) throw new InvalidParamsError("followUp needs a task with an id and a contextId");
  const referenceTaskIds = [...new Set([task.id, ...(options.referenceTaskIds ?? [])])];
  return userMessage(content, { ...options, contextId: task.contextId, referenceTaskIds });
}
