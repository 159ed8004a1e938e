/**
 * A resumable stream until its first drop: the first stream's events go
 * straight to the reader, and the resumption loop (resume.ts) is loaded on
 * the first drop and carries on from there. Most streams never drop, so an
 * app loads the loop only once one does.
 */
import type { StreamResponse, TaskState } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { type A2AError, AbortedError, StreamResumeError } from "../errors/family.js";
import type { StreamState } from "../call/stream-state.js";
import type { carryOn, ResumeIo } from "./resume.js";
import type { Outcome } from "./resume-pump.js";
import { checkOptions, DEFAULTS, delay, EndedEarly, isDrop, tell, type ResumeOptions } from "./resume-policy.js";
import { isAbout, resumeSnapshots, settledTask, settles, snapshotOf, stateOf, taskIdOf } from "./task-events.js";
import { ATTEMPT_RULES } from "../call/attempt-rules.js";
import { followSignal, unlessAborted } from "../base/abort.js";
import { sleep } from "../base/timers.js";
import { InTurn } from "./in-turn.js";
import { DONE, failing } from "../base/iterables.js";
import { nextOf } from "./next-of.js";
import { letGoSettled } from "./settled-end.js";

/** The loop (resume.ts's `carryOn`). */
export type CarryOn = typeof carryOn;

/**
 * The code of the start that the loop (resume.ts, loaded on demand) uses,
 * handed to it rather than imported, as the retry loop is handed the
 * attempt rules: modules that the loop imported too would leave the
 * start's chunk for a chunk shared with it, which every app loads at
 * start (docs/size.md, "Where the bytes go").
 */
export const LOOP_KIT = {
  ...ATTEMPT_RULES,
  checkOptions,
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
  letGoSettled,
  nextOf,
  DONE,
  failing,
  followSignal,
  sleep,
} as const;

/** The type of `LOOP_KIT`. */
export type LoopKit = typeof LOOP_KIT;

/**
 * The events of `io.open`, carried on across drops by the loop that `load`
 * gives, asked for on the first drop. The options are checked now. One
 * stream, whoever reads it: like an async generator it is its own
 * iterator, so a second loop over it shares its events rather than sending
 * the message again.
 */
export function resumableWith(io: ResumeIo, options: ResumeOptions, load: () => Promise<CarryOn>): AsyncIterable<StreamResponse> {
  checkOptions(options);
  return new ResumableStream(io, options, load);
}

/**
 * Passes the first stream's events on, one promise per event, noting what
 * they say about the task; after the first drop, delegates to the loop.
 */
class ResumableStream implements AsyncIterableIterator<StreamResponse> {
  /** What the stream's calls share (call/stream-state.ts): its record's, from the client. */
  private readonly state: StreamState;
  private it: AsyncIterator<StreamResponse> | undefined;
  /** The loop's iterator, after the first drop. */
  private rest: AsyncIterator<StreamResponse> | undefined;
  private taskId: string | undefined;
  private lastState: TaskState | undefined;
  private settled = false;
  private over = false;
  /** Reads one at a time: two at once could each see the stream end and resume it. */
  private readonly turns = new InTurn(() => this.read());

  constructor(
    private readonly io: ResumeIo,
    private readonly options: ResumeOptions,
    private readonly load: () => Promise<CarryOn>,
  ) {
    this.taskId = io.taskId;
    this.state = io.state ?? {};
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<StreamResponse>> {
    return this.turns.next();
  }

  /** One read, never two at once (see `turns`). */
  private read(): Promise<IteratorResult<StreamResponse>> {
    if (this.rest !== undefined) return this.rest.next();
    if (this.over) return Promise.resolve(DONE);
    if (this.settled) return this.letGo();
    let it = this.it;
    if (it === undefined) {
      try {
        it = this.it = this.io.open()[Symbol.asyncIterator]();
      } catch (e) {
        return this.dropped({ error: e as A2AError, failed: true });
      }
    }
    return nextOf(it, this.passOn, this.failed);
  }

  /** Stops reading: the stream in use is closed, and its watchers told. */
  async return(): Promise<IteratorResult<StreamResponse>> {
    if (this.rest !== undefined) return (await this.rest.return?.()) ?? DONE;
    if (!this.over) {
      this.over = true;
      await this.it?.return?.();
      this.end(undefined);
    }
    return DONE;
  }

  /** The task has settled: the stream's end is read (or, if it does not come, the stream closed), and its watchers told. */
  private async letGo(): Promise<IteratorResult<StreamResponse>> {
    if (!this.over) {
      this.over = true;
      if (this.it) await letGoSettled(this.it);
      this.end(undefined);
    }
    return DONE;
  }

  private readonly passOn = (
    r: IteratorResult<StreamResponse>,
  ): IteratorResult<StreamResponse> | Promise<IteratorResult<StreamResponse>> => {
    if (r.done) return this.dropped({ failed: false });
    const event = r.value;
    this.taskId ??= taskIdOf(event);
    const reported = isAbout(event, this.taskId) ? stateOf(event) : undefined;
    if (reported !== undefined) this.lastState = reported;
    this.settled = settles(event, reported, this.taskId);
    this.turns.answered();
    return r;
  };

  private readonly failed = (e: unknown): Promise<IteratorResult<StreamResponse>> => this.dropped({ error: e as A2AError, failed: true });

  /**
   * The first stream ended before its task settled, or failed: a failure
   * that is no drop ends the stream here; otherwise the loop is loaded, under
   * the caller's signal, and carries on.
   */
  private async dropped(outcome: Outcome & { settled?: undefined }): Promise<IteratorResult<StreamResponse>> {
    this.it = undefined;
    // The reader returned while this read was pending: nobody is left to resume for.
    if (this.over) return DONE;
    const { io } = this;
    if (outcome.failed && outcome.error && !isDrop(outcome.error, false)) throw this.end(outcome.error);
    let carryOn: CarryOn;
    try {
      carryOn = await (io.signal ? unlessAborted(this.load(), io.signal) : this.load());
    } catch (e) {
      // As the loop would end it after the drop, or, when its code could not be fetched, saying so.
      if (io.signal?.aborted)
        throw this.end(new AbortedError("the stream was aborted", { binding: io.binding(), cause: io.signal.reason }));
      const { taskId } = this;
      throw this.end(
        new StreamResumeError(`could not resume the stream${taskId ? ` of task ${taskId}` : ""}: the resumption code did not load`, {
          binding: io.binding(),
          taskId,
          attempts: 0,
          state: this.lastState,
          cause: e,
        }),
      );
    }
    if (this.over) return DONE;
    this.rest = carryOn(io, this.options, { state: this.state, taskId: this.taskId, lastState: this.lastState, outcome }, LOOP_KIT);
    return this.rest.next();
  }

  /** The stream is over: its watchers are told, once. */
  private end<E extends A2AError | undefined>(error: E): E {
    this.over = true;
    tell(this.state, (w) => w.ended(error));
    return error;
  }
}
