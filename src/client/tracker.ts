/**
 * Folds stream events into the task they describe. A task snapshot (the
 * first event of every stream, and of every resumed stream) replaces what
 * was known, so chunks appended before a drop are never applied twice and
 * the state is always the server's. A final state, once seen, is kept:
 * events that arrive late (push notifications may) do not undo it, and a
 * final snapshot holds every chunk, so one that arrives after it is not
 * applied again. A message already in the history (by messageId) is not
 * added twice. Works on events from any source: a stream, a resumed
 * stream, or push notifications.
 */
import { clone, create } from "@bufbuild/protobuf";
import { ArtifactSchema, TaskSchema, type Message, type StreamResponse, type Task, type TaskState } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { isInterrupted, isTerminal } from "../protocol/messages.js";
import { keepNames } from "../base/keep-names.js";

/**
 * Folds stream events (or push notifications) into the task they describe.
 * A snapshot replaces what was known, so a resumed stream never applies a
 * chunk twice, and a final state, once seen, is never undone by events that
 * arrive late; nor is a chunk that arrives after the final snapshot applied
 * again, nor a message the history already has. Metadata is kept as agents keep it: a status update's adds
 * to the task's, an appended chunk's to its artifact's.
 * @example
 * ```ts
 * import { connect, userMessage, TaskTracker, textOf } from "a2a-connect";
 *
 * const { client } = await connect("https://agent.example.com");
 * const tracker = new TaskTracker();
 * for await (const event of client.sendStreamingMessage({ message: userMessage("write a report") })) {
 *   tracker.apply(event);
 *   if (tracker.settled) break;
 * }
 * console.log(tracker.task?.status?.state, textOf(tracker.task ?? tracker.message));
 * ```
 * @category Streams and tracking
 */
export class TaskTracker {
  private current: Task | undefined;
  private reply: Message | undefined;
  /** The current task is a final snapshot: the whole task at its end, which later chunks (late pushes) are already in. */
  private whole = false;

  /** The task as known so far; undefined until an event names one. */
  get task(): Task | undefined {
    return this.current;
  }

  /** A direct message the agent answered with instead of a task. */
  get message(): Message | undefined {
    return this.reply;
  }

  /** The task ended or waits on the caller, or the agent replied with a message. */
  get settled(): boolean {
    const state = this.current?.status?.state;
    return this.reply !== undefined || (state !== undefined && (isTerminal(state) || isInterrupted(state)));
  }

  /** Applies one event; returns the task afterwards. */
  apply(event: StreamResponse): Task | undefined {
    const p = event.payload;
    switch (p.case) {
      case "task":
        // A final state is final: a snapshot older than it is stale.
        if (this.ended(p.value.id) && !isFinal(p.value.status?.state)) break;
        this.current = clone(TaskSchema, p.value);
        this.whole = isFinal(p.value.status?.state);
        break;
      case "message":
        if (!p.value.taskId || p.value.taskId === this.current?.id) {
          // A message the history has (a snapshot brought it, or it came twice) is not added again: ids are unique.
          if (this.current) {
            if (!this.current.history.some((m) => m.messageId === p.value.messageId)) this.current.history.push(p.value);
          } else this.reply = p.value;
        }
        break;
      case "statusUpdate": {
        if (this.ended(p.value.taskId) && !isFinal(p.value.status?.state)) break;
        const task = this.taskFor(p.value.taskId, p.value.contextId);
        if (p.value.status) task.status = p.value.status;
        // Kept in the task's, key by key, as agents keep it (both official SDKs).
        if (p.value.metadata) task.metadata = { ...task.metadata, ...p.value.metadata };
        break;
      }
      case "artifactUpdate": {
        // A final snapshot holds every chunk: one that arrives after it is late, and already in.
        if (this.whole && this.current?.id === p.value.taskId) break;
        const task = this.taskFor(p.value.taskId, p.value.contextId);
        const incoming = p.value.artifact;
        if (!incoming) break;
        const at = task.artifacts.findIndex((a) => a.artifactId === incoming.artifactId);
        if (at < 0) task.artifacts.push(clone(ArtifactSchema, incoming));
        else if (p.value.append) {
          const appended = task.artifacts[at]!;
          appended.parts.push(...incoming.parts);
          // A chunk's metadata adds to the artifact's, as agents keep it.
          if (incoming.metadata) appended.metadata = { ...appended.metadata, ...incoming.metadata };
        } else task.artifacts[at] = clone(ArtifactSchema, incoming);
        break;
      }
    }
    return this.current;
  }

  /** The task followed has reached a final state (completed, failed, canceled, rejected). */
  private ended(id: string): boolean {
    return this.current?.id === id && isFinal(this.current.status?.state);
  }

  /** Events for a task not seen yet (no snapshot first) start one. */
  private taskFor(id: string, contextId: string): Task {
    if (!this.current || this.current.id !== id) {
      this.current = create(TaskSchema, { id, contextId });
      this.whole = false;
    }
    return this.current;
  }
}
keepNames({ TaskTracker });

function isFinal(state: TaskState | undefined): boolean {
  return state !== undefined && isTerminal(state);
}
