/**
 * `waitForTask`: follows a task until it reaches a final state (completed,
 * failed, canceled, rejected) or one that waits on the caller (input or
 * authentication required), and returns it. It subscribes where the agent
 * streams, riding out drops with the client's resumption (resume.ts), and
 * polls GetTask where it does not (a session's client refuses SubscribeToTask
 * before any request when the card does not declare streaming; an agent may
 * refuse it too). A free function over the client, so apps that never wait
 * do not bundle it.
 */
import type { Task, TaskState } from "../../gen/lf/a2a/v1/a2a_pb.js";
import {
  A2AError,
  AbortedError,
  CallTimeoutError,
  InvalidAgentResponseError,
  InvalidParamsError,
  MethodNotFoundError,
  UnsupportedOperationError,
} from "../errors/family.js";
import { shownValue } from "../call/option-checks.js";
import { asksLongerThan } from "../call/attempt-rules.js";
import { followSignal, unlessAborted } from "../base/abort.js";
import { startTimer } from "../base/timers.js";
import { sleep } from "../base/timers.js";
import type { A2AClient } from "./client.js";
import { DEFAULTS, isDrop, type ResumeOptions } from "./resume-policy.js";
import { settledTask } from "./task-events.js";
import { TaskTracker } from "./tracker.js";

/**
 * The smallest poll interval `waitForTask` accepts, in milliseconds: an agent is not polled faster than this.
 * @category Streams and tracking
 */
export const MIN_POLL_MS = 100;

/**
 * How `waitForTask` follows the task, and when it gives up.
 * @category Streams and tracking
 */
export interface WaitOptions {
  /** Stops the wait (and the call in flight): it fails with AbortedError. */
  signal?: AbortSignal | undefined;
  /**
   * The whole wait's deadline: past it the wait fails with CallTimeoutError
   * naming the task and the time, whatever the agent does. Default (and
   * Infinity): none (the signal, or the task, ends it).
   */
  timeoutMs?: number | undefined;
  /**
   * Poll interval when polling: the first poll is immediate, the next after
   * `pollMs`, and each poll that finds the task in the same state waits half
   * as long again, up to `maxPollMs`; a new state starts over at `pollMs`.
   * Default 1000, at least MIN_POLL_MS.
   */
  pollMs?: number | undefined;
  /**
   * The longest wait between polls, and the longest `Retry-After` honoured:
   * a server that asks for longer ends the wait with its error. Default
   * 10 000 (or `pollMs`, if larger).
   */
  maxPollMs?: number | undefined;
  /** Subscribe (SubscribeToTask) before polling. Default true; false polls from the start. */
  subscribe?: boolean | undefined;
  /** How the subscription resumes after a drop; its `maxElapsedMs` also bounds a run of polls that cannot reach the agent. */
  resume?: ResumeOptions | undefined;
  /** Messages of the task's history to include in what polls return (GetTask's `historyLength`). */
  historyLength?: number | undefined;
  /** Headers of every call the wait makes. */
  headers?: HeadersInit | undefined;
  /** Called with the task as known so far, on each event of the subscription and on each poll that finds a new state. */
  onUpdate?: ((task: Task) => void) | undefined;
}

/**
 * What `waitForTask` calls: an `A2AClient`, such as `session.client`.
 * @category Streams and tracking
 */
export type TaskWaiter = Pick<A2AClient, "getTask" | "subscribeToTask">;

const DEFAULT_POLL_MS = 1000;
const DEFAULT_MAX_POLL_MS = 10_000;
const POLL_GROWTH = 1.5;

/**
 * Waits for task `id` to reach a final or interrupted state and returns it
 * (see the module comment for how). Ends by `signal` (AbortedError) or
 * `timeoutMs` (CallTimeoutError) whatever the agent does, leaving no timer;
 * the agent's own errors (TaskNotFoundError, ...) are thrown as they come;
 * a run of polls that cannot reach the agent is retried for
 * `resume.maxElapsedMs` (default 60 s), then its last error is thrown.
 *
 * @category Streams and tracking
 * @example
 * ```ts
 * import { connect, taskStateName, textOf, userMessage, waitForTask } from "a2a-connect";
 *
 * const session = await connect("https://agent.example.com");
 * const res = await session.client.sendMessage({ message: userMessage("write a report"), configuration: { returnImmediately: true } });
 * if (res.payload.case === "task") {
 *   const task = await waitForTask(session.client, res.payload.value.id, { timeoutMs: 120_000 });
 *   console.log(taskStateName(task.status!.state), textOf(task));
 * }
 * ```
 */
export async function waitForTask(client: TaskWaiter, id: string, options: WaitOptions = {}): Promise<Task> {
  const poll = checkWaitOptions(id, options);
  const { controller, unlink } = followSignal(options.signal);
  const signal = controller.signal;
  let timedOut = false;
  const timer =
    options.timeoutMs === undefined || options.timeoutMs === Infinity
      ? undefined
      : startTimer(() => {
          timedOut = true;
          controller.abort();
        }, options.timeoutMs);
  const stopped = (): A2AError | undefined =>
    timedOut
      ? new CallTimeoutError(`task ${id} did not reach a final or interrupted state within ${options.timeoutMs} ms`, { kind: "deadline" })
      : signal.aborted
        ? new AbortedError(`waiting for task ${id} was aborted`, { cause: options.signal?.reason })
        : undefined;
  try {
    if (signal.aborted) throw stopped();
    const task = options.subscribe === false ? undefined : await subscribed(client, id, signal, options);
    return task ?? (await polled(client, id, signal, options, poll, stopped));
  } catch (e) {
    throw stopped() ?? e;
  } finally {
    clearTimeout(timer);
    unlink();
  }
}

/**
 * The task as its subscription leaves it once settled; undefined when the
 * agent will not be subscribed to (then it is polled).
 */
async function subscribed(client: TaskWaiter, id: string, signal: AbortSignal, options: WaitOptions): Promise<Task | undefined> {
  const tracker = new TaskTracker();
  const follow = async () => {
    for await (const event of client.subscribeToTask({ id }, { signal, headers: options.headers, resume: options.resume })) {
      const task = tracker.apply(event);
      if (task?.id === id) options.onUpdate?.(task);
    }
  };
  try {
    // unlessAborted: a stream that ignores its signal still cannot outlive it.
    await unlessAborted(follow(), signal);
  } catch (e) {
    // Refused (no streaming, or not this task now): GetTask still answers.
    if (!signal.aborted && (e instanceof UnsupportedOperationError || e instanceof MethodNotFoundError)) return undefined;
    throw e;
  }
  // A stream that ended on a state this client cannot read, or on another
  // task's events, is not taken at its word: GetTask is.
  const task = tracker.task;
  return tracker.settled && task?.id === id ? task : undefined;
}

async function polled(
  client: TaskWaiter,
  id: string,
  signal: AbortSignal,
  options: WaitOptions,
  poll: { pollMs: number; maxPollMs: number },
  stopped: () => A2AError | undefined,
): Promise<Task> {
  const budget = options.resume?.maxElapsedMs ?? DEFAULTS.maxElapsedMs;
  let interval = poll.pollMs;
  let state: TaskState | undefined;
  /** When the current run of unreachable polls began (performance.now()). */
  let failingSince: number | undefined;
  for (;;) {
    let wait = interval;
    try {
      // unlessAborted: a call that ignores its signal still cannot outlive it.
      const task = await unlessAborted(
        client.getTask({ id, historyLength: options.historyLength }, { signal, headers: options.headers }),
        signal,
      );
      failingSince = undefined;
      if (task.id !== id) throw new InvalidAgentResponseError(`GetTask for task ${id} answered with task ${task.id}`);
      if (settledTask(task)) {
        options.onUpdate?.(task);
        return task;
      }
      if (task.status?.state !== state) {
        state = task.status?.state;
        options.onUpdate?.(task);
        wait = interval = poll.pollMs;
      } else wait = interval = Math.min(poll.maxPollMs, interval * POLL_GROWTH);
    } catch (e) {
      if (signal.aborted || !(e instanceof A2AError) || !isDrop(e, true)) throw e;
      const now = performance.now();
      failingSince ??= now;
      // A server that asks for more patience than maxPollMs is not called early: its error ends the wait.
      if (now - failingSince >= budget || asksLongerThan(e.retryAfterMs, poll.maxPollMs)) throw e;
      // A server's Retry-After is a floor.
      wait = Math.max(interval, e.retryAfterMs ?? 0);
    }
    await sleep(wait, signal, () => stopped() ?? new AbortedError(`waiting for task ${id} was aborted`, { cause: signal.reason }));
  }
}

/** Refuses, before any request, what would make the wait spin, never start, or name no task. */
function checkWaitOptions(id: string, options: WaitOptions): { pollMs: number; maxPollMs: number } {
  if (typeof id !== "string" || id === "") throw new InvalidParamsError("waitForTask: the task id must be a non-empty string");
  const number = (name: keyof WaitOptions, min: number): number | undefined => {
    const value = options[name];
    if (value === undefined) return undefined;
    if (typeof value !== "number" || !Number.isFinite(value) || value < min) {
      throw new InvalidParamsError(`waitForTask: ${name} must be a finite number of at least ${min} ms, got ${shownValue(value)}`);
    }
    return value;
  };
  // Infinity: no deadline, as for every other timeout.
  if (options.timeoutMs !== Infinity) number("timeoutMs", 1);
  const pollMs = number("pollMs", MIN_POLL_MS) ?? DEFAULT_POLL_MS;
  const maxPollMs = number("maxPollMs", pollMs) ?? Math.max(pollMs, DEFAULT_MAX_POLL_MS);
  return { pollMs, maxPollMs };
}
