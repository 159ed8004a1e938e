/**
 * SubscribeToTask on a task that has ended: the spec has the agent refuse it
 * with UnsupportedOperationError, and a2a-go 2.3.1 answers TaskNotFoundError
 * instead (it has no running execution for the task). Such an answer, before
 * the stream's first event, is checked with GetTask: a task found in a final
 * state is reported as every other agent reports it.
 */
import { DONE } from "../base/iterables.js";
import { TaskState, type StreamResponse, type Task } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { TaskNotFoundError, UnsupportedOperationError } from "../errors/family.js";
import { isTerminal } from "../protocol/messages.js";

/** `events` of a SubscribeToTask of `taskId`, with a TaskNotFoundError for an ended task made UnsupportedOperationError. */
export function refusedIfEnded(
  events: AsyncIterable<StreamResponse>,
  taskId: string,
  getTask: () => Promise<Task>,
): AsyncIterable<StreamResponse> {
  return new RefusedIfEnded(events, taskId, getTask);
}

class RefusedIfEnded implements AsyncIterableIterator<StreamResponse> {
  private it: AsyncIterator<StreamResponse> | undefined;
  private started = false;

  constructor(
    private readonly events: AsyncIterable<StreamResponse>,
    private readonly taskId: string,
    private readonly getTask: () => Promise<Task>,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<StreamResponse>> {
    const it = (this.it ??= this.events[Symbol.asyncIterator]());
    if (this.started) return it.next();
    return it.next().then(
      (r) => {
        this.started = true;
        return r;
      },
      (e: unknown) => this.refusal(e),
    );
  }

  return(): Promise<IteratorResult<StreamResponse>> {
    return this.it?.return?.() ?? Promise.resolve(DONE);
  }

  private async refusal(e: unknown): Promise<never> {
    if (!(e instanceof TaskNotFoundError)) throw e;
    let task: Task;
    try {
      task = await this.getTask();
    } catch {
      throw e;
    }
    const state = task.status?.state;
    if (task.id !== this.taskId || state === undefined || !isTerminal(state)) throw e;
    throw new UnsupportedOperationError(
      // The enum's own name (COMPLETED): the state's ProtoJSON name would bring the serializer into every bundle.
      `task ${this.taskId} is ${TaskState[state]}, so it cannot be subscribed to (the agent answered TaskNotFound: ${e.message})`,
      { binding: e.binding, cause: e },
    );
  }
}
