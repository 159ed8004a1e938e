/**
 * The end-of-stream check of a stream that does not resume (`resume:
 * false`): a stream that ends before its task reached a final or
 * interrupted state is reported, not passed off as complete.
 */
import { TaskState, type StreamResponse } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { StreamResumeError } from "../errors/family.js";
import type { Binding } from "../base/bindings.js";
import type { StreamWatch } from "./lazy-stream.js";
import { isAbout, isSettled, stateOf, taskIdOf } from "./task-events.js";

/**
 * `resume: false`: a stream that ends before its task reached a final or
 * interrupted state (or before a direct reply) is reported, not passed off
 * as complete. Looks at each event without allocating.
 */
export class EndWatch implements StreamWatch<StreamResponse> {
  private state: TaskState | undefined;
  private settled = false;
  private early: StreamResumeError | undefined;

  constructor(
    private taskId: string | undefined,
    private readonly binding: () => Binding,
  ) {}

  seen(event: StreamResponse): void {
    this.taskId ??= taskIdOf(event);
    const state = isAbout(event, this.taskId) ? stateOf(event) : undefined;
    if (state !== undefined) {
      this.state = state;
      this.settled = isSettled(state);
    } else if (event.payload.case === "message" && this.taskId === undefined) this.settled = true;
  }

  /** The task has ended or waits on the caller (or the agent replied with a message): the stream has said all it will. */
  complete(): boolean {
    return this.settled;
  }

  /** The error of a stream that ended too soon, the same one each time it is asked (by the reader's stream and by its call's watchers). */
  ended(): StreamResumeError | undefined {
    this.early ??= this.endedEarly();
    return this.early;
  }

  private endedEarly(): StreamResumeError | undefined {
    const { taskId, state } = this;
    // UNSPECIFIED is also what a state newer than this client reads as: it
    // may be final, so it is not called early.
    if (this.settled || state === TaskState.UNSPECIFIED) return undefined;
    const where =
      taskId === undefined
        ? "the stream ended before naming a task"
        : `the stream of task ${taskId} ended ${state === undefined ? "before reporting a state" : `in state TASK_STATE_${TaskState[state]}`}`;
    return new StreamResumeError(`${where}, before the task reached a final or interrupted state (resume: false)`, {
      binding: this.binding(),
      taskId,
      attempts: 0,
      state,
    });
  }
}
