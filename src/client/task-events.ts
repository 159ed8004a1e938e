/**
 * What a stream event says about its task (its id, its state, whether the
 * stream has nothing more to say), and the marks on the task snapshots that
 * follow a reconnection, so that a consumer rebases on them. Read by the
 * resumption loop (resume.ts) and the end-of-stream watch (end-watch.ts);
 * none of it allocates per event.
 */
import type { StreamResponse, Task, TaskState } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { isInterrupted, isTerminal } from "../protocol/messages.js";

/** The task snapshots that follow a reconnection (see isResumeSnapshot); marked by the resumption loop. */
export const resumeSnapshots = new WeakSet<StreamResponse>();

/** Whether an event is a task snapshot that follows a reconnection: state before it may be stale, rebase on it. @category Streams and tracking */
export function isResumeSnapshot(event: StreamResponse): boolean {
  return resumeSnapshots.has(event);
}

/** Whether a task in `state` has ended or waits on the caller: its stream has nothing more to say. */
export function isSettled(state: TaskState): boolean {
  return isTerminal(state) || isInterrupted(state);
}

/** The task, if it has ended or waits on the caller. */
export function settledTask(task: Task): Task | undefined {
  const state = task.status?.state;
  return state !== undefined && isSettled(state) ? task : undefined;
}

/** A task from GetTask as the stream's closing event, marked as a resume snapshot. */
export function snapshotOf(task: Task): StreamResponse {
  const last: StreamResponse = { $typeName: "lf.a2a.v1.StreamResponse", payload: { case: "task", value: task } };
  resumeSnapshots.add(last);
  return last;
}

/**
 * The task an event is about, as the stream's bookkeeping needs it: unlike
 * the public `taskIdOf` (protocol/events.ts), a message never names a task
 * here, since a message on a stream is the agent's direct reply and ends it
 * (see `settles`).
 */
export function taskIdOf(event: StreamResponse): string | undefined {
  const p = event.payload;
  switch (p.case) {
    case "task":
      return p.value.id;
    case "statusUpdate":
    case "artifactUpdate":
      return p.value.taskId;
    default:
      return undefined;
  }
}

/**
 * Whether an event is about task `taskId`: the task itself, or a status or
 * artifact update naming it. What is about another task, or a message, is
 * passed on as the agent said it, but says nothing of how this task stands:
 * it neither settles the stream nor counts as its progress.
 */
export function isAbout(event: StreamResponse, taskId: string | undefined): boolean {
  const id = taskIdOf(event);
  return id !== undefined && id === taskId;
}

/** The task state an event reports, if it reports one. */
export function stateOf(event: StreamResponse): TaskState | undefined {
  const p = event.payload;
  return p.case === "task" ? p.value.status?.state : p.case === "statusUpdate" ? p.value.status?.state : undefined;
}

/** The stream has nothing more to say: a final or interrupted state (as the event reports it), or a direct reply. */
export function settles(event: StreamResponse, state: TaskState | undefined, taskId: string | undefined): boolean {
  if (state !== undefined) return isSettled(state);
  return event.payload.case === "message" && taskId === undefined;
}
