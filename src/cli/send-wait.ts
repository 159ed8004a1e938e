/**
 * How `a2a send` waits for its answer while knowing the task from the
 * start, so that it can say which task it waits for, show its progress,
 * and name it when the wait ends by `--timeout`. A blocking SendMessage
 * says nothing until the end; instead:
 * - to an agent whose card declares streaming, the message goes as
 *   SendStreamingMessage (resumed after a drop, as `a2a stream`), and the
 *   answer is the task its events leave, or the agent's direct message;
 *   the first event names the task;
 * - to any other, as SendMessage returning at once (`returnImmediately`),
 *   then GetTask is polled until the task ends or waits on the caller
 *   (waitForTask); an agent that answers only at the end is waited for
 *   as before.
 * Either way the answer is a SendMessageResponse, as SendMessage's.
 */
import { create } from "@bufbuild/protobuf";
import { SendMessageResponseSchema, type Message, type SendMessageResponse, type Task } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { DEFAULT_TIMEOUT_MS } from "../call/timeouts.js";
import type { A2AClient } from "../client/client.js";
import { settledTask } from "../client/task-events.js";
import { TaskTracker } from "../client/tracker.js";
import { waitForTask } from "../client/wait.js";
import { CallTimeoutError } from "../errors/family.js";
import { followSignal } from "../base/abort.js";
import { startTimer } from "../base/timers.js";

/** What the send goes by. */
export interface SendWait {
  /** Fires on Ctrl-C. */
  signal: AbortSignal;
  /** `--timeout`: the deadline of the whole send, wait included; default that of a call. */
  timeoutMs: number | undefined;
  /** Whether the card declares streaming. */
  streaming: boolean;
  /** Called with the task as known so far: as soon as its id is known, then on each change seen. */
  onUpdate: (task: Task) => void;
}

/**
 * A poll every second, then, while the state holds, less often, but never
 * more than two seconds apart: the answer of a blocking send would come at
 * once, and a person is waiting for this one.
 */
const POLL = { pollMs: 1000, maxPollMs: 2000 };

/** Sends `message` and waits for the answer (see the module comment); past the deadline, a CallTimeoutError naming the task, if known. */
export async function sendAndWait(client: A2AClient, message: Message, wait: SendWait): Promise<SendMessageResponse> {
  const timeoutMs = wait.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const { controller, unlink } = followSignal(wait.signal);
  let timedOut = false;
  const timer = startTimer(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  let task: Task | undefined;
  const seen = (t: Task) => {
    task = t;
    wait.onUpdate(t);
  };
  try {
    const signal = controller.signal;
    return wait.streaming ? await streamed(client, message, signal, seen) : await polled(client, message, signal, seen);
  } catch (e) {
    // Ctrl-C is reported as such.
    if (!timedOut || wait.signal.aborted) throw e;
    const what = task ? `task ${task.id} did not reach a final or interrupted state` : "the agent did not answer";
    throw new CallTimeoutError(`${what} within ${timeoutMs} ms`, { cause: e });
  } finally {
    clearTimeout(timer);
    unlink();
  }
}

async function streamed(
  client: A2AClient,
  message: Message,
  signal: AbortSignal,
  seen: (task: Task) => void,
): Promise<SendMessageResponse> {
  const tracker = new TaskTracker();
  for await (const event of client.sendStreamingMessage({ message }, { signal })) {
    const task = tracker.apply(event);
    if (task) seen(task);
  }
  if (tracker.message) return create(SendMessageResponseSchema, { payload: { case: "message", value: tracker.message } });
  if (tracker.task) return create(SendMessageResponseSchema, { payload: { case: "task", value: tracker.task } });
  return create(SendMessageResponseSchema);
}

async function polled(client: A2AClient, message: Message, signal: AbortSignal, seen: (task: Task) => void): Promise<SendMessageResponse> {
  const res = await client.sendMessage({ message, configuration: { returnImmediately: true } }, { signal });
  if (res.payload.case !== "task") return res;
  seen(res.payload.value);
  if (settledTask(res.payload.value)) return res;
  const task = await waitForTask(client, res.payload.value.id, { signal, subscribe: false, onUpdate: seen, ...POLL });
  return create(SendMessageResponseSchema, { payload: { case: "task", value: task } });
}
