/**
 * How `a2a` reports on stderr a task it is waiting for, so stdout carries
 * only the result: its id as soon as it is known, and, to a person, each
 * new state.
 */
import type { Task, TaskState } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { settledTask } from "../client/task-events.js";
import { paintState } from "./format.js";
import type { Output } from "./output.js";

/** `task <id> <STATE>`: the line that reports where a task stands. */
export function stateLine(out: Output, task: Task): string {
  return `task ${task.id} ${paintState(out, task.status?.state)}`;
}

/**
 * What `a2a send` reports of the task it waits for, called with the task
 * as known so far. The id is reported once, as soon as it is known and
 * whatever stderr is, so that a script that keeps stdout for the result can
 * still find the task when the wait fails: `task: <id>`, or with `--json`
 * the line `{"task":{"id":...}}` (`.task.id`, as in the result). On a
 * terminal each new state follows, but a final or interrupted one: the
 * result shows that.
 */
export function sendProgress(out: Output): (task: Task) => void {
  let id: string | undefined;
  let last: TaskState | undefined;
  return (task) => {
    if (task.id !== id) {
      id = task.id;
      last = undefined;
      if (out.json) out.jsonError({ task: { id: task.id, contextId: task.contextId } });
      else out.error(`task: ${task.id}`);
    }
    const state = task.status?.state;
    if (out.json || !out.errTerminal || state === last) return;
    last = state;
    if (!settledTask(task)) out.error(stateLine(out, task));
  };
}
