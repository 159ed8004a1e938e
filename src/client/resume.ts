/**
 * Resumption of dropped streams (spec 3.5.2 and 3.7: a client reconnects by
 * opening a new stream; the server starts it with a task snapshot and does
 * not replay the gap). Binding-agnostic: it only uses GetTask and
 * SubscribeToTask.
 *
 * A drop is a network failure, an idle stream, or a stream that ends before
 * the task reached a final or interrupted state. On a drop: wait (backoff
 * with full jitter, at least what the server asked for), GetTask; a task that
 * has ended is yielded as the last event; otherwise SubscribeToTask carries on.
 */
import type { StreamResponse, Task } from "../../gen/lf/a2a/v1/a2a_pb.js";
import {
  A2AError,
  AbortedError,
  CallTimeoutError,
  ConnectionError,
  StreamResumeError,
  UnsupportedOperationError,
  toA2AError,
  type Binding,
} from "../errors.js";
import { isInterrupted, isTerminal } from "../helpers.js";
import type { StreamState } from "../transport/stream-state.js";

/** How a stream resumes after a drop. */
export interface ResumeOptions {
  /** Reconnection attempts allowed in a row, without an event in between. Default 5. */
  maxAttempts?: number | undefined;
  /** Delays between attempts: exponential, with full jitter, never below what the server asked. */
  backoff?:
    | {
        /** First delay ceiling. Default 250 ms. */
        initialMs?: number | undefined;
        /** Largest delay ceiling. Default 10 000 ms. */
        maxMs?: number | undefined;
        /** Growth per attempt. Default 2. */
        multiplier?: number | undefined;
      }
    | undefined;
  /**
   * When a SendStreamingMessage drops before its task id is known, send the
   * message again (with the same messageId, so the agent can recognise it).
   * Default false: the drop is reported.
   */
  resendBeforeTask?: boolean | undefined;
}

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
}

class EndedEarly extends A2AError {}

/**
 * The events of `io.open`, carried on across drops by GetTask and
 * SubscribeToTask as described at the top of this file.
 */
export function resumable(io: ResumeIo, options: ResumeOptions): AsyncIterable<StreamResponse> {
  return { [Symbol.asyncIterator]: () => new Resumption(resumption(io, options)) };
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
  const maxAttempts = options.maxAttempts ?? 5;
  let taskId = io.taskId;
  let attempts = 0;
  const state: StreamState = {};
  let stream = io.open(state);
  let fromResume = false;
  /** The current stream is a SubscribeToTask opened by a resumption. */
  let resubscribed = false;
  /** Why the GetTask of the last attempt failed, if it did. */
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
        // right after it must still run out of attempts.
        else attempts = 0;
        first = false;
        taskId ??= taskIdOf(event);
        return settles(event, taskId);
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
      else if (!isDrop(drop) && drop !== unreachable) throw drop;
    }
    if (io.signal?.aborted) throw new AbortedError("the stream was aborted", { binding: io.binding() });
    if (taskId === undefined && !options.resendBeforeTask) throw drop;
    if (++attempts > maxAttempts) {
      throw new StreamResumeError(
        `gave up resuming the stream${taskId ? ` of task ${taskId}` : ""} after ${maxAttempts} attempts: ${drop.message}`,
        { binding: io.binding(), taskId, attempts: maxAttempts, cause: drop },
      );
    }
    if (!refused) await sleep(delay(attempts, options, Math.max(state.retryMs ?? 0, drop.retryAfterMs ?? 0)), io.signal);
    fromResume = true;
    resubscribed = false;
    if (taskId === undefined) {
      // Nothing was learned before the drop: send the same message again.
      stream = io.open(state);
      continue;
    }
    let task: Task;
    try {
      task = await io.getTask(taskId);
    } catch (e) {
      const err = toA2AError(e, io.binding());
      // A GetTask that outlives its timeout went to a dead connection as
      // surely as a reset one did.
      if (!isDrop(err) && !(err instanceof CallTimeoutError)) throw err;
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

/** The stream has nothing more to say: a final or interrupted state, or a direct reply. */
function settles(event: StreamResponse, taskId: string | undefined): boolean {
  const p = event.payload;
  const state = p.case === "task" ? p.value.status?.state : p.case === "statusUpdate" ? p.value.status?.state : undefined;
  if (state !== undefined) return isTerminal(state) || isInterrupted(state);
  return p.case === "message" && taskId === undefined;
}

function isDrop(e: A2AError): boolean {
  return (
    e instanceof ConnectionError ||
    e instanceof EndedEarly ||
    (e instanceof CallTimeoutError && e.kind === "idle") ||
    // The server is up but asks to come back later.
    ((e.httpStatus === 503 || e.httpStatus === 429) && e.retryAfterMs !== undefined)
  );
}

/** Exponential backoff with full jitter, but never less than the server asked for. */
function delay(attempt: number, options: ResumeOptions, floorMs: number): number {
  const b = options.backoff ?? {};
  const ceiling = Math.min(b.maxMs ?? 10_000, (b.initialMs ?? 250) * (b.multiplier ?? 2) ** (attempt - 1));
  return Math.max(floorMs, Math.random() * ceiling);
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
