/**
 * Resumption of dropped streams (spec 3.5.2 and 3.7: a client reconnects by
 * opening a new stream; the server starts it with a task snapshot and does
 * not replay the gap). Binding-agnostic: it only uses GetTask and
 * SubscribeToTask, and ListTasks to find a task whose id was never seen.
 *
 * A drop is a network failure, an idle stream, or a stream that ends before
 * the task reached a final or interrupted state. On a drop: wait (backoff
 * with equal jitter; a server's hint is a floor, and one longer than
 * backoff.maxMs ends the stream with the server's error),
 * GetTask; a task that has ended is yielded as the last event; otherwise
 * SubscribeToTask carries on. A drop before the task id is known sends the
 * message again at once where it cannot have reached the agent (a refused
 * connection, a 429 or 503: call/attempt-rules.ts), and otherwise asks the
 * agent first whether it started a task (see find-sent.ts), so the message
 * is neither lost nor run twice. Attempts go on for a time budget
 * after the drop, not a count: an agent that restarts for a deploy is waited
 * for, one that stays away is given up on.
 *
 * This file is the loop. A stream that `A2AClient` opens starts in
 * resume-start.ts, which passes the first stream on and loads this file on
 * the first drop. What the loop applies lives beside it: the options, drops
 * and backoff in resume-policy.ts, what events say about their task in
 * task-events.ts, and the iterator that passes events on in resume-pump.ts.
 * Those modules are at start too, so the loop is handed their code
 * (resume-start.ts's `LOOP_KIT`) and imports only their types.
 */
import type { StreamResponse, Task, TaskState } from "../../gen/lf/a2a/v1/a2a_pb.js";
import {
  type A2AError,
  AbortedError,
  CallTimeoutError,
  InvalidAgentResponseError,
  MethodNotFoundError,
  StreamResumeError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "../errors/family.js";
import type { Binding } from "../base/bindings.js";
import type { StreamState } from "../call/stream-state.js";
import type { SentLookup } from "./find-sent.js";
import { Resumption, type Outcome, type Step } from "./resume-pump.js";
import type { ResumeOptions } from "./resume-policy.js";
import type { MethodTraits } from "../call/method-traits.js";
import type { LoopKit } from "./resume-start.js";
import { toA2AError } from "../errors/classify.js";

/**
 * How to open the streams and read the task: every call it makes is one of
 * the stream's, sharing its `state` (the client's closures carry it). Its
 * calls and streams fail with A2AErrors, as the client's do (client.ts
 * reports every failure so), which the loop judges as they are.
 */
export interface ResumeIo {
  /** The binding in use, for the errors raised here. */
  binding: () => Binding;
  /**
   * The original call (SendStreamingMessage or SubscribeToTask). The calls
   * made after a drop are given the loop's `signal`, which follows the
   * caller's and also aborts when the reader stops reading.
   */
  open(signal?: AbortSignal): AsyncIterable<StreamResponse>;
  /** What the original call does (call/method-traits.ts), for whether it may be made again. */
  traits: MethodTraits;
  /** SubscribeToTask, to carry on after a drop. */
  subscribe(taskId: string, signal?: AbortSignal): AsyncIterable<StreamResponse>;
  /**
   * GetTask, to learn after a drop whether the task has ended; a call of
   * the stream (it shares `state`), as those who follow the stream see it.
   */
  getTask(taskId: string, signal?: AbortSignal): Promise<Task>;
  /** The caller's signal: once it fires, no more attempts are made. */
  signal: AbortSignal | undefined;
  /** The task id when known from the start (SubscribeToTask). */
  taskId: string | undefined;
  /**
   * SendStreamingMessage only: asks the agent whether the message sent
   * started a task, for a drop before the task id was seen. Errors it
   * throws are judged as GetTask's are. Its calls are the stream's too.
   */
  findSent?: ((signal?: AbortSignal) => Promise<SentLookup>) | undefined;
  /** What the stream's calls share, its deadline and position among them (its record, call/record.ts); default: a state of the loop's own. */
  state?: StreamState | undefined;
}

/**
 * The events of `io.open`, carried on across drops by GetTask and
 * SubscribeToTask as described at the top of this file: one stream, its
 * own iterator (see resume-start.ts). `kit` is the code of the start the
 * loop uses (resume-start.ts's `LOOP_KIT`).
 */
export function resumable(io: ResumeIo, options: ResumeOptions, kit: LoopKit): AsyncIterable<StreamResponse> {
  kit.checkOptions(options);
  return loop(io, options, kit);
}

/** Where the first stream left off: what the loop carries on from. */
export interface FirstStream {
  /** What the stream's calls share (call/stream-state.ts). */
  state: StreamState;
  /** The task's id, if known. */
  taskId: string | undefined;
  /** The last task state an event reported. */
  lastState: TaskState | undefined;
  /** How the first stream ended: before its task settled, or failing with a drop. */
  outcome: Outcome;
}

/** The rest of a stream whose first stream resume-start.ts passed on, from the way it ended; `kit` as for `resumable`. */
export function carryOn(io: ResumeIo, options: ResumeOptions, first: FirstStream, kit: LoopKit): AsyncIterator<StreamResponse> {
  return loop(io, options, kit, first);
}

/**
 * The loop's iterator. The loop has a signal of its own, which follows the
 * caller's and which the reader's `return` aborts: a backoff, a GetTask or
 * a lookup under way then ends at once, rather than running on for a
 * reader that has gone (and `return` waiting for it).
 */
function loop(io: ResumeIo, options: ResumeOptions, kit: LoopKit, first?: FirstStream): Resumption {
  const { controller, unlink } = kit.followSignal(io.signal);
  const stop = () => controller.abort(new AbortedError("the reader stopped reading the stream", { binding: io.binding() }));
  return new Resumption(resumption(io, options, kit, controller.signal, unlink, first), stop, kit);
}

/** The steps of the loop below, telling the stream's watchers (call/stream-state.ts) when it is over. */
async function* resumption(
  io: ResumeIo,
  options: ResumeOptions,
  kit: LoopKit,
  signal: AbortSignal,
  unlink: () => void,
  first?: FirstStream,
): AsyncGenerator<Step, void, Outcome | undefined> {
  const state: StreamState = first?.state ?? io.state ?? {};
  let failure: A2AError | undefined;
  try {
    yield* steps(io, options, kit, signal, state, first);
  } catch (e) {
    // Closed by its reader: ended as asked, and nobody waits for an error.
    if (signal.aborted && !io.signal?.aborted) return;
    failure = e as A2AError;
    throw e;
  } finally {
    unlink();
    kit.tell(state, (w) => w.ended(failure));
  }
}

async function* steps(
  io: ResumeIo,
  options: ResumeOptions,
  kit: LoopKit,
  signal: AbortSignal,
  state: StreamState,
  first?: FirstStream,
): AsyncGenerator<Step, void, Outcome | undefined> {
  const {
    DEFAULTS,
    delay,
    EndedEarly,
    isDrop,
    tell,
    isAbout,
    resumeSnapshots,
    settledTask,
    settles,
    snapshotOf,
    stateOf,
    taskIdOf,
    DONE,
    failing,
  } = kit;
  /** A stream that ends at once: the next turn of the loop waits, then asks GetTask again. */
  const NO_EVENTS: AsyncIterable<StreamResponse> = { [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve(DONE) }) };
  const maxAttempts = options.maxAttempts ?? Infinity;
  const maxElapsedMs = options.maxElapsedMs ?? DEFAULTS.maxElapsedMs;
  const maxMs = options.backoff?.maxMs ?? DEFAULTS.maxMs;
  let taskId = first ? first.taskId : io.taskId;
  /** Attempts since the last event of progress; 0 while the stream is healthy. */
  let attempts = 0;
  /** When the attempts since the last progress must stop (performance.now()). */
  let giveUpAt = 0;
  let lastState: TaskState | undefined = first?.lastState;
  // The first stream, unless resume-start.ts passed it on and tells how it ended.
  let stream = first ? undefined : io.open(signal);
  let ended = first?.outcome;
  let fromResume = false;
  /** The current stream is a SubscribeToTask opened by a resumption. */
  let resubscribed = false;
  /** Why the GetTask (or lookup) of the last attempt failed, if it did. */
  let lookupFailure: A2AError | undefined;
  /** The agent has no SubscribeToTask: the task is followed by GetTask, and this is the last one passed on. */
  let polling: { last: Task | undefined } | undefined;
  for (;;) {
    let drop: A2AError;
    /** The resubscribe was refused as if the task had ended. */
    let refused: UnsupportedOperationError | TaskNotFoundError | undefined;
    let firstEvent = true;
    try {
      const seen = (event: StreamResponse): boolean => {
        taskId ??= taskIdOf(event);
        const about = isAbout(event, taskId);
        const snapshot = firstEvent && fromResume && event.payload.case === "task";
        if (snapshot) resumeSnapshots.add(event);
        // A snapshot alone is no progress: a server that drops every stream
        // right after it must still run out of time. Nor is what is not about
        // the task (a message, another task's events): a server that answers
        // every resubscribe with one must too.
        else if (about) attempts = 0;
        firstEvent = false;
        const reported = about ? stateOf(event) : undefined;
        if (reported !== undefined) lastState = reported;
        return settles(event, reported, taskId);
      };
      const outcome = ended ?? (yield { pipe: { it: stream![Symbol.asyncIterator](), seen } });
      ended = undefined;
      if (outcome?.settled) return;
      if (outcome?.failed) throw outcome.error;
      drop = new EndedEarly("the stream ended before the task reached a final or interrupted state", { binding: io.binding() });
    } catch (e) {
      drop = e as A2AError;
      // A request that the stream's timeout cut where it had only what was left: the stream's timeout, named as such.
      if (drop instanceof CallTimeoutError && drop.kind === "deadline") drop = expiredStream(state, drop, taskId, io.binding()) ?? drop;
      // A task that ended between GetTask and the resubscribe cannot be
      // subscribed to (spec: UnsupportedOperationError; a2a-go 2.3.1 says
      // TaskNotFoundError, having no execution of it left): GetTask tells.
      if (resubscribed && firstEvent && (drop instanceof UnsupportedOperationError || drop instanceof TaskNotFoundError)) refused = drop;
      // An agent that has no SubscribeToTask at all (frameworks that serve a
      // part of 0.3, VoltAgent among them): followed by GetTask instead.
      else if (resubscribed && firstEvent && drop instanceof MethodNotFoundError) polling = { last: undefined };
      else if (!isDrop(drop, false) && drop !== lookupFailure) throw drop;
    }
    if (signal.aborted) throw new AbortedError("the stream was aborted", { binding: io.binding(), cause: signal.reason });
    // The call's own timeoutMs is the stream's end, however it dropped.
    const expired = expiredStream(state, drop, taskId, io.binding());
    if (expired) throw expired;
    // A resumed stream that opened with its snapshot and then stayed open,
    // silent, until its idle timeout followed a task that works quietly,
    // from an agent that is there: that is progress too, so such a task is
    // followed for as long as it runs (one resubscribe per idle timeout),
    // where the budget would give it up after a couple of idle timeouts.
    if (fromResume && !firstEvent && drop instanceof CallTimeoutError && drop.kind === "idle") attempts = 0;
    // A server that asks for more patience than backoff.maxMs allows (its
    // Retry-After, or the stream's SSE retry:) is not called early: its error ends the stream.
    if (!refused && (kit.asksLongerThan(drop.retryAfterMs, maxMs) || kit.asksLongerThan(state.retryMs, maxMs))) {
      if (!(drop instanceof EndedEarly)) throw drop;
      throw new StreamResumeError(
        `${streamName(taskId)} ended, and the server asked to reconnect after retry: ${state.retryMs} ms, longer than backoff.maxMs (${maxMs} ms)`,
        { binding: io.binding(), taskId, attempts, state: lastState, cause: drop },
      );
    }
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
    tell(state, (w) => w.resuming(attempts, drop));
    if (!refused) {
      // The last attempt is made as the budget runs out, not skipped; a wait
      // past the stream's timeout ends with it.
      const hinted = delay(attempts, options, Math.max(state.retryMs ?? 0, drop.retryAfterMs ?? 0));
      const left = state.deadline?.leftMs() ?? Infinity;
      const wait = Math.min(hinted, giveUpAt - now, left);
      await kit.sleep(wait, signal, () => new AbortedError("the stream was aborted", { binding: io.binding(), cause: signal.reason }));
      // A wait that lasted what was left has reached the deadline, whatever the clock says
      // now: a timer may fire a few ms before it (Node counts from the event loop's cached time).
      const late = expiredStream(state, drop, taskId, io.binding(), wait === left);
      if (late) throw late;
    }
    fromResume = true;
    resubscribed = false;
    // The message cannot have reached the agent (call/attempt-rules.ts): it goes again, with the same messageId, unasked.
    if (taskId === undefined && drop !== lookupFailure && kit.maySendAgain(drop, io.traits)) {
      stream = io.open(signal);
      continue;
    }
    if (taskId === undefined) {
      // Nothing was learned before the drop: did the message start a task?
      let lookup: SentLookup;
      try {
        lookup = io.findSent ? await io.findSent(signal) : { found: undefined, conclusive: false };
      } catch (e) {
        const err = droppedLookup(e, io.binding(), isDrop);
        // An agent that cannot be asked is one whose answer is unknown.
        if (err === undefined) lookup = { found: undefined, conclusive: false };
        else {
          lookupFailure = err;
          stream = failing(err);
          continue;
        }
      }
      if (lookup.found) taskId = lookup.found.id;
      else if (lookup.conclusive || options.resendBeforeTask) {
        // The agent has no task for it (or the caller accepts a resend):
        // the same message, with the same messageId, again.
        stream = io.open(signal);
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
      task = await io.getTask(taskId, signal);
    } catch (e) {
      const err = droppedLookup(e, io.binding(), isDrop);
      if (err === undefined) throw e;
      // Could not reach the agent yet: count it as an attempt and wait again.
      lookupFailure = err;
      stream = failing(err);
      continue;
    }
    // Another task's end is not this one's.
    if (task.id !== taskId) {
      throw new InvalidAgentResponseError(`GetTask for task ${taskId} answered with task ${task.id}`, { binding: io.binding() });
    }
    if (settledTask(task)) {
      yield { event: snapshotOf(task) };
      return;
    }
    // Refused for a task that goes on: the server will not be subscribed to.
    if (refused) throw refused;
    if (polling) {
      // What changed since the last GetTask is passed on as the task, and is
      // progress; the next GetTask comes after the backoff's wait, and a task
      // that stays as it is runs the budget out as a silent stream would.
      if (polling.last === undefined || changedSince(polling.last, task)) {
        attempts = 0;
        yield { event: snapshotOf(task) };
      }
      polling.last = task;
      stream = NO_EVENTS;
      continue;
    }
    // Told where the stream left off (Last-Event-ID), an agent that numbers
    // what it sends and does not open with the task replays what followed.
    const after = state.lastEventId;
    const replays = () => after !== undefined && state.lastEventId !== after;
    stream = openedWithTask(task, io.subscribe(taskId, signal), replays, kit);
    resubscribed = true;
  }
}

/** Whether GetTask found the task moved on: another state or status time, more artifacts, parts or messages. */
function changedSince(before: Task, now: Task): boolean {
  const parts = (t: Task) => t.artifacts.reduce((n, a) => n + a.parts.length, 0);
  return (
    before.status?.state !== now.status?.state ||
    before.status?.timestamp?.seconds !== now.status?.timestamp?.seconds ||
    before.status?.timestamp?.nanos !== now.status?.timestamp?.nanos ||
    before.artifacts.length !== now.artifacts.length ||
    parts(before) !== parts(now) ||
    before.history.length !== now.history.length
  );
}

/** The stream, as errors name it. */
const streamName = (taskId: string | undefined) => `the stream${taskId ? ` of task ${taskId}` : ""}`;

/**
 * A resubscribe's events, opened by the task as GetTask found it when the
 * agent does not open the stream with the task itself (1.0 says it must;
 * 0.3 left it to the agent): a reader that rebases on the snapshot then
 * has what happened while it was away, rather than missing it silently.
 * Unless the agent replays what followed the last event seen (`replays`,
 * asked once its first event came): the replay is what was missed, and the
 * task GetTask found, which may hold some of it, would have its chunks
 * applied twice.
 */
function openedWithTask(
  task: Task,
  events: AsyncIterable<StreamResponse>,
  replays: () => boolean,
  kit: LoopKit,
): AsyncIterable<StreamResponse> {
  return { [Symbol.asyncIterator]: () => new OpenedWithTask(task, events[Symbol.asyncIterator](), replays, kit) };
}

class OpenedWithTask implements AsyncIterator<StreamResponse> {
  /** The agent's first event, passed on after the snapshot put before it. */
  private held: StreamResponse | undefined;
  private opened = false;

  constructor(
    private readonly task: Task,
    private readonly it: AsyncIterator<StreamResponse>,
    private readonly replays: () => boolean,
    private readonly kit: Pick<LoopKit, "snapshotOf" | "DONE">,
  ) {}

  next(): Promise<IteratorResult<StreamResponse>> {
    const held = this.held;
    if (held !== undefined) {
      this.held = undefined;
      return Promise.resolve({ done: false, value: held });
    }
    if (this.opened) return this.it.next();
    this.opened = true;
    return this.it.next().then((r) => {
      if (r.done || (r.value.payload.case === "task" && r.value.payload.value.id === this.task.id) || this.replays()) return r;
      this.held = r.value;
      return { done: false, value: this.kit.snapshotOf(this.task) };
    });
  }

  async return(): Promise<IteratorResult<StreamResponse>> {
    this.held = undefined;
    await this.it.return?.();
    return this.kit.DONE;
  }
}

/**
 * The stream's CallTimeoutError once its deadline (its call's `timeoutMs`,
 * held over every resumption) has passed, else undefined; `last` (its
 * cause) is the drop or failed request that used up the rest.
 */
function expiredStream(
  state: StreamState,
  last: A2AError,
  taskId: string | undefined,
  binding: Binding,
  reached = false,
): CallTimeoutError | undefined {
  const deadline = state.deadline;
  if (!deadline || !(reached || deadline.passed())) return undefined;
  return new CallTimeoutError(`${streamName(taskId)} did not end within its ${deadline.limitMs} ms timeout`, {
    binding,
    kind: "deadline",
    cause: last,
  });
}

/**
 * The error of a lookup (GetTask, or the search for a task the message
 * started) as an A2AError when it is a drop (`isDrop`: worth another
 * attempt), undefined when the agent answered; an abort is thrown.
 */
function droppedLookup(e: unknown, binding: Binding, isDrop: LoopKit["isDrop"]): A2AError | undefined {
  const err = toA2AError(e, binding);
  if (err.code === "ABORTED") throw err;
  return isDrop(err, true) ? err : undefined;
}
