/**
 * Resumption of dropped streams (spec 3.5.2 and 3.7: a client reconnects by
 * opening a new stream; the server starts it with a task snapshot and does
 * not replay the gap). Binding-agnostic: it only uses GetTask and
 * SubscribeToTask, and ListTasks to find a task whose id was never seen.
 *
 * A drop is a network failure, an idle stream, or a stream that ends before
 * the task reached a final or interrupted state. On a drop: wait (backoff
 * with equal jitter; a server's hint is a floor, capped at backoff.maxMs),
 * GetTask; a task that has ended is yielded as the last event; otherwise
 * SubscribeToTask carries on. A drop before the task id is known asks the
 * agent first whether the message started a task (see find-sent.ts), so the
 * message is neither lost nor run twice. Attempts go on for a time budget
 * after the drop, not a count: an agent that restarts for a deploy is waited
 * for, one that stays away is given up on.
 */
import { TaskState, type StreamResponse, type Task } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { A2AError, AbortedError, StreamResumeError, UnsupportedOperationError, type CallTimeoutError } from "../errors/family.js";
import { asksToRetryLater } from "../errors/codes.js";
import { toA2AError } from "../errors/classify.js";
import { type Binding } from "../protocol/bindings.js";
import { isInterrupted, isTerminal } from "../protocol/messages.js";
import type { StreamState } from "../call/stream-state.js";
import type { SentLookup } from "./find-sent.js";
import type { StreamWatch } from "./lazy-stream.js";

/** How a stream resumes after a drop. */
export interface ResumeOptions {
  /**
   * How long reconnection goes on after a drop, without an event of progress
   * in between, before the stream fails with StreamResumeError. Default
   * 60 000 ms: an agent away for 30 s (a restart, a deploy) is resumed.
   */
  maxElapsedMs?: number | undefined;
  /** Reconnection attempts allowed in a row, without an event in between. Default: no limit but `maxElapsedMs`. */
  maxAttempts?: number | undefined;
  /**
   * Delays between attempts: exponential, with equal jitter (each delay is
   * between half its ceiling and the ceiling), never below what the server
   * asked (SSE `retry:`, `Retry-After`) up to `maxMs`.
   */
  backoff?:
    | {
        /** First delay ceiling. Default 250 ms. */
        initialMs?: number | undefined;
        /** Largest delay ceiling, and the most a server's `retry:` or `Retry-After` can make the client wait. Default 10 000 ms. */
        maxMs?: number | undefined;
        /** Growth per attempt. Default 2. */
        multiplier?: number | undefined;
      }
    | undefined;
  /**
   * When a SendStreamingMessage drops before its task id is known and the
   * agent cannot tell whether the message started a task (no ListTasks, no
   * history, too many tasks to look through), send the message again (with
   * the same messageId, so an agent that de-duplicates recognises it).
   * Default false: the drop is reported. Where the agent can tell, the
   * message is resent only when it started no task, whatever this says.
   */
  resendBeforeTask?: boolean | undefined;
}

/** The defaults of ResumeOptions, in one place. */
const DEFAULTS = { maxElapsedMs: 60_000, initialMs: 250, maxMs: 10_000, multiplier: 2 } as const;

const resumeSnapshots = new WeakSet<StreamResponse>();

/** Whether an event is a task snapshot that follows a reconnection: state before it may be stale, rebase on it. */
export function isResumeSnapshot(event: StreamResponse): boolean {
  return resumeSnapshots.has(event);
}

/** How to open the streams and read the task, with per-stream state. */
export interface ResumeIo {
  /** The binding in use, for the errors raised here. */
  binding: () => Binding;
  /** The original call (SendStreamingMessage or SubscribeToTask). */
  open(state: StreamState): AsyncIterable<StreamResponse>;
  /** SubscribeToTask, to carry on after a drop. */
  subscribe(taskId: string, state: StreamState): AsyncIterable<StreamResponse>;
  /** GetTask, to learn after a drop whether the task has ended. */
  getTask(taskId: string): Promise<Task>;
  /** The caller's signal: once it fires, no more attempts are made. */
  signal: AbortSignal | undefined;
  /** The task id when known from the start (SubscribeToTask). */
  taskId: string | undefined;
  /**
   * SendStreamingMessage only: asks the agent whether the message sent
   * started a task, for a drop before the task id was seen. Errors it
   * throws are judged as GetTask's are.
   */
  findSent?: (() => Promise<SentLookup>) | undefined;
}

class EndedEarly extends A2AError {}

/**
 * The events of `io.open`, carried on across drops by GetTask and
 * SubscribeToTask as described at the top of this file.
 */
export function resumable(io: ResumeIo, options: ResumeOptions): AsyncIterable<StreamResponse> {
  checkOptions(options);
  return { [Symbol.asyncIterator]: () => new Resumption(resumption(io, options)) };
}

/** Numbers that would make the backoff spin, stall or never end are refused up front. */
function checkOptions(options: ResumeOptions): void {
  const b = options.backoff ?? {};
  const numbers: Array<[string, number | undefined, number]> = [
    ["maxElapsedMs", options.maxElapsedMs, 0],
    ["maxAttempts", options.maxAttempts, 0],
    ["backoff.initialMs", b.initialMs, 0],
    ["backoff.maxMs", b.maxMs, 0],
    ["backoff.multiplier", b.multiplier, 1],
  ];
  for (const [name, value, min] of numbers) {
    if (value === undefined) continue;
    const finite = name === "maxAttempts" ? !Number.isNaN(value) : Number.isFinite(value);
    if (typeof value !== "number" || !finite || value < min) {
      throw new TypeError(`resume.${name} must be a ${name === "maxAttempts" ? "" : "finite "}number of at least ${min}, got ${String(value)}`);
    }
  }
}

/** What the resumption logic asks of the iterator that drives it: pass one event on, or a stream's events. */
type Step = { event: StreamResponse; pipe?: undefined } | { pipe: Pipe };

interface Pipe {
  it: AsyncIterator<StreamResponse>;
  /** Takes note of an event passed on; true when the stream has nothing more to say. */
  seen(event: StreamResponse): boolean;
}

/** How a piped stream ended: it settled the task, it ended, or it failed. */
type Outcome = { settled: true } | { settled?: undefined; error?: unknown; failed: boolean };

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * Passes a healthy stream's events straight on, one promise per event, and
 * runs the resumption logic (a generator) only between streams: a stream of
 * many events would otherwise pay for a generator's suspension on every one.
 */
class Resumption implements AsyncIterator<StreamResponse> {
  private pipe: Pipe | undefined;
  private settled = false;
  private done = false;

  constructor(private readonly logic: AsyncGenerator<Step, void, Outcome | undefined>) {}

  next(): Promise<IteratorResult<StreamResponse>> {
    const pipe = this.pipe;
    // The common case, kept to one promise: a healthy stream's next event.
    if (pipe !== undefined && !this.settled && !this.done) return pipe.it.next().then(this.passOn, this.pipeFailed);
    return this.advance(undefined);
  }

  private readonly passOn = (r: IteratorResult<StreamResponse>): IteratorResult<StreamResponse> | Promise<IteratorResult<StreamResponse>> => {
    if (r.done) {
      this.pipe = undefined;
      return this.advance({ failed: false });
    }
    const pipe = this.pipe;
    if (pipe !== undefined) this.settled = pipe.seen(r.value);
    return r;
  };

  private readonly pipeFailed = (e: unknown): Promise<IteratorResult<StreamResponse>> => {
    this.pipe = undefined;
    return this.advance({ error: e, failed: true });
  };

  /** Runs the resumption logic: once a stream has ended or failed, or has settled the task. */
  private async advance(outcome: Outcome | undefined): Promise<IteratorResult<StreamResponse>> {
    if (this.done) return DONE;
    const pipe = this.pipe;
    if (pipe !== undefined && this.settled) {
      this.pipe = undefined;
      await pipe.it.return?.();
      outcome = { settled: true };
    }
    let step: IteratorResult<Step, void>;
    try {
      step = await this.logic.next(outcome);
    } catch (e) {
      this.done = true;
      throw e;
    }
    if (step.done) {
      this.done = true;
      return DONE;
    }
    if (!step.value.pipe) return { done: false, value: step.value.event };
    this.pipe = step.value.pipe;
    this.settled = false;
    return this.next();
  }

  async return(): Promise<IteratorResult<StreamResponse>> {
    this.done = true;
    const pipe = this.pipe;
    this.pipe = undefined;
    await pipe?.it.return?.();
    await this.logic.return(undefined);
    return DONE;
  }
}

async function* resumption(io: ResumeIo, options: ResumeOptions): AsyncGenerator<Step, void, Outcome | undefined> {
  const maxAttempts = options.maxAttempts ?? Infinity;
  const maxElapsedMs = options.maxElapsedMs ?? DEFAULTS.maxElapsedMs;
  let taskId = io.taskId;
  /** Attempts since the last event of progress; 0 while the stream is healthy. */
  let attempts = 0;
  /** When the attempts since the last progress must stop (performance.now()). */
  let giveUpAt = 0;
  let lastState: TaskState | undefined;
  const state: StreamState = {};
  let stream = io.open(state);
  let fromResume = false;
  /** The current stream is a SubscribeToTask opened by a resumption. */
  let resubscribed = false;
  /** Why the GetTask (or lookup) of the last attempt failed, if it did. */
  let unreachable: A2AError | undefined;
  for (;;) {
    let drop: A2AError;
    /** The resubscribe was refused as if the task had ended. */
    let refused: UnsupportedOperationError | undefined;
    let first = true;
    try {
      const seen = (event: StreamResponse): boolean => {
        const snapshot = first && fromResume && event.payload.case === "task";
        if (snapshot) resumeSnapshots.add(event);
        // A snapshot alone is no progress: a server that drops every stream
        // right after it must still run out of time.
        else attempts = 0;
        first = false;
        taskId ??= taskIdOf(event);
        const reported = stateOf(event);
        if (reported !== undefined) lastState = reported;
        return settles(event, reported, taskId);
      };
      const outcome = yield { pipe: { it: stream[Symbol.asyncIterator](), seen } };
      if (outcome?.settled) return;
      if (outcome?.failed) throw outcome.error;
      drop = new EndedEarly("the stream ended before the task reached a final or interrupted state", { binding: io.binding() });
    } catch (e) {
      drop = toA2AError(e, io.binding());
      // A task that ended between GetTask and the resubscribe cannot be
      // subscribed to (spec: UnsupportedOperationError): GetTask tells.
      if (resubscribed && first && drop instanceof UnsupportedOperationError) refused = drop;
      else if (!isDrop(drop, false) && drop !== unreachable) throw drop;
    }
    if (io.signal?.aborted) throw new AbortedError("the stream was aborted", { binding: io.binding() });
    const now = performance.now();
    // The first attempt after progress starts the clock (and the count).
    if (attempts === 0) giveUpAt = now + maxElapsedMs;
    if (++attempts > maxAttempts || now >= giveUpAt) {
      const made = attempts - 1;
      const limit = attempts > maxAttempts ? `${maxAttempts} attempts` : `${maxElapsedMs} ms (${made} attempts)`;
      throw new StreamResumeError(`gave up resuming the stream${taskId ? ` of task ${taskId}` : ""} after ${limit}: ${drop.message}`, {
        binding: io.binding(),
        taskId,
        attempts: made,
        state: lastState,
        cause: drop,
      });
    }
    if (!refused) {
      // The last attempt is made as the budget runs out, not skipped.
      const wait = Math.min(delay(attempts, options, Math.max(state.retryMs ?? 0, drop.retryAfterMs ?? 0)), giveUpAt - now);
      await sleep(wait, io.signal);
    }
    fromResume = true;
    resubscribed = false;
    if (taskId === undefined) {
      // Nothing was learned before the drop: did the message start a task?
      let lookup: SentLookup;
      try {
        lookup = io.findSent ? await io.findSent() : { found: undefined, conclusive: false };
      } catch (e) {
        const err = unreachableError(e, io.binding());
        // An agent that cannot be asked is one whose answer is unknown.
        if (err === undefined) lookup = { found: undefined, conclusive: false };
        else {
          unreachable = err;
          stream = failing(err);
          continue;
        }
      }
      if (lookup.found) taskId = lookup.found.id;
      else if (lookup.conclusive || options.resendBeforeTask) {
        // The agent has no task for it (or the caller accepts a resend):
        // the same message, with the same messageId, again.
        stream = io.open(state);
        continue;
      } else if (drop instanceof EndedEarly) {
        throw new StreamResumeError("the stream ended before naming a task, and the agent cannot tell whether the message started one", {
          binding: io.binding(),
          taskId,
          attempts,
          cause: drop,
        });
      } else throw drop;
    }
    let task: Task;
    try {
      task = await io.getTask(taskId);
    } catch (e) {
      const err = unreachableError(e, io.binding());
      if (err === undefined) throw toA2AError(e, io.binding());
      // Could not reach the agent yet: count it as an attempt and wait again.
      unreachable = err;
      stream = failing(err);
      continue;
    }
    if (settledTask(task)) {
      yield { event: snapshotOf(task) };
      return;
    }
    // Refused for a task that goes on: the server will not be subscribed to.
    if (refused) throw refused;
    stream = io.subscribe(taskId, state);
    resubscribed = true;
  }
}

/**
 * The error of a lookup (GetTask, or the search for a task the message
 * started) as an A2AError when it means the agent could not be reached
 * (worth another attempt), undefined when the agent answered.
 */
function unreachableError(e: unknown, binding: Binding): A2AError | undefined {
  const err = toA2AError(e, binding);
  if (err.code === "ABORTED") throw err;
  return isDrop(err, true) ? err : undefined;
}

/**
 * `resume: false`: a stream that ends before its task reached a final or
 * interrupted state (or before a direct reply) is reported, not passed off
 * as complete. Looks at each event without allocating.
 */
export class EndWatch implements StreamWatch<StreamResponse> {
  private state: TaskState | undefined;
  private settled = false;

  constructor(
    private taskId: string | undefined,
    private readonly binding: () => Binding,
  ) {}

  seen(event: StreamResponse): void {
    this.taskId ??= taskIdOf(event);
    const state = stateOf(event);
    if (state !== undefined) {
      this.state = state;
      this.settled = isTerminal(state) || isInterrupted(state);
    } else if (event.payload.case === "message" && this.taskId === undefined) this.settled = true;
  }

  ended(): StreamResumeError | undefined {
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

/** The task, if it has ended or waits on the caller. */
function settledTask(task: Task): Task | undefined {
  const state = task.status?.state;
  return state !== undefined && (isTerminal(state) || isInterrupted(state)) ? task : undefined;
}

/** A task from GetTask as the stream's closing event, marked as a resume snapshot. */
function snapshotOf(task: Task): StreamResponse {
  const last: StreamResponse = { $typeName: "lf.a2a.v1.StreamResponse", payload: { case: "task", value: task } };
  resumeSnapshots.add(last);
  return last;
}

function taskIdOf(event: StreamResponse): string | undefined {
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

/** The task state an event reports, if it reports one. */
function stateOf(event: StreamResponse): TaskState | undefined {
  const p = event.payload;
  return p.case === "task" ? p.value.status?.state : p.case === "statusUpdate" ? p.value.status?.state : undefined;
}

/** The stream has nothing more to say: a final or interrupted state (as the event reports it), or a direct reply. */
function settles(event: StreamResponse, state: TaskState | undefined, taskId: string | undefined): boolean {
  if (state !== undefined) return isTerminal(state) || isInterrupted(state);
  return event.payload.case === "message" && taskId === undefined;
}

/**
 * Whether a failure is a drop worth another attempt: a stream that ended
 * early, or a transient failure (`A2AError.transient`) of the kinds that
 * resumption waits out: a failed connection, a silent stream, and a server
 * that asked to be called again (429 or 503 with `Retry-After`). A stream's
 * own deadline is its end, but a lookup that outlives its timeout went to a
 * dead connection as surely as a reset one. Not a gateway's 5xx without
 * `Retry-After`, nor a resumption that has given up.
 */
function isDrop(e: A2AError, lookup: boolean): boolean {
  if (e instanceof EndedEarly) return true;
  if (!e.transient) return false;
  if (e.code === "CONNECTION_FAILED") return true;
  if (e.code === "CALL_TIMEOUT" && (lookup || (e as CallTimeoutError).kind === "idle")) return true;
  return asksToRetryLater(e);
}

/**
 * Exponential backoff with equal jitter: between half the ceiling and the
 * ceiling, so that attempts spread over the budget rather than all landing in
 * its first second, yet clients dropped together do not come back together.
 * A server's hint is a floor, capped at maxMs: no `retry: 86400000` parks
 * the stream for a day.
 */
function delay(attempt: number, options: ResumeOptions, floorMs: number): number {
  const b = options.backoff ?? {};
  const maxMs = b.maxMs ?? DEFAULTS.maxMs;
  const ceiling = Math.min(maxMs, (b.initialMs ?? DEFAULTS.initialMs) * (b.multiplier ?? DEFAULTS.multiplier) ** (attempt - 1));
  return Math.max(Math.min(floorMs, maxMs), ceiling / 2 + (Math.random() * ceiling) / 2);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortedError("the stream was aborted"));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortedError("the stream was aborted"));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

async function* failing(error: A2AError): AsyncGenerator<never> {
  throw error;
}
