/**
 * `a2a task get --wait`: the task once it has reached a final or interrupted
 * state, by waitForTask (subscribing where the agent streams, polling
 * otherwise). Each new state is reported on stderr as it is seen, so stdout
 * carries only the result.
 */
import type { Task, TaskState } from "../../gen/lf/a2a/v1/a2a_pb.js";
import type { A2AClient } from "../client/client.js";
import { waitForTask } from "../client/wait.js";
import type { Output } from "./output.js";
import { stateLine } from "./progress.js";

/** What the wait goes by: the command's signal (Ctrl-C), `--timeout` as its deadline, and `--history`. */
export interface CliWait {
  /** Fires on Ctrl-C. */
  signal: AbortSignal;
  /** `--timeout`: the deadline of the whole wait, when given. */
  timeoutMs: number | undefined;
  /** `--history`: messages of the history in the task printed. */
  historyLength: number | undefined;
}

/** Waits for task `id`, reporting its progress on stderr unless the output is JSON. */
export function waitedTask(client: A2AClient, id: string, out: Output, wait: CliWait): Promise<Task> {
  let last: TaskState | undefined;
  return waitForTask(client, id, {
    ...wait,
    onUpdate: (task) => {
      const state = task.status?.state;
      if (out.json || state === last) return;
      last = state;
      out.error(stateLine(out, task));
    },
  });
}
