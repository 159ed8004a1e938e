/**
 * The iterator a resumable stream hands out: it passes a healthy stream's
 * events straight on and wakes the resumption loop (resume.ts) only
 * between streams, so a long stream costs no more per event than one
 * without resumption.
 */
import type { StreamResponse } from "../../gen/lf/a2a/v1/a2a_pb.js";
import type { A2AError } from "../errors/family.js";
import type { LoopKit } from "./resume-start.js";

/** What the resumption logic asks of the iterator that drives it: pass one event on, or a stream's events. */
export type Step = { event: StreamResponse; pipe?: undefined } | { pipe: Pipe };

/** A stream whose events are passed on as they come. */
export interface Pipe {
  it: AsyncIterator<StreamResponse>;
  /** Takes note of an event passed on; true when the stream has nothing more to say. */
  seen(event: StreamResponse): boolean;
}

/**
 * How a piped stream ended: it settled the task, it ended, or it failed,
 * with an A2AError (the client reports every failure of its calls as one).
 */
export type Outcome = { settled: true } | { settled?: undefined; error?: A2AError; failed: boolean };

/**
 * Passes a healthy stream's events straight on, one promise per event, and
 * runs the resumption logic (a generator) only between streams: a stream of
 * many events would otherwise pay for a generator's suspension on every one.
 */
export class Resumption implements AsyncIterableIterator<StreamResponse> {
  private pipe: Pipe | undefined;
  private settled = false;
  private done = false;

  constructor(
    private readonly logic: AsyncGenerator<Step, void, Outcome | undefined>,
    /** Ends what the logic waits for (a backoff, a lookup), so that a reader's `return` is not held by it. */
    private readonly stop: () => void,
    /** The start's code it uses (resume-start.ts). */
    private readonly kit: Pick<LoopKit, "letGoSettled" | "nextOf" | "DONE">,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<StreamResponse>> {
    const pipe = this.pipe;
    // The common case, kept to one promise: a healthy stream's next event.
    if (pipe !== undefined && !this.settled && !this.done) return this.kit.nextOf(pipe.it, this.passOn, this.pipeFailed);
    return this.advance(undefined);
  }

  private readonly passOn = (
    r: IteratorResult<StreamResponse>,
  ): IteratorResult<StreamResponse> | Promise<IteratorResult<StreamResponse>> => {
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
    return this.advance({ error: e as A2AError, failed: true });
  };

  /** Runs the resumption logic: once a stream has ended or failed, or has settled the task. */
  private async advance(outcome: Outcome | undefined): Promise<IteratorResult<StreamResponse>> {
    if (this.done) return this.kit.DONE;
    const pipe = this.pipe;
    if (pipe !== undefined && this.settled) {
      this.pipe = undefined;
      await this.kit.letGoSettled(pipe.it);
      outcome = { settled: true };
    }
    let step: IteratorResult<Step, void>;
    try {
      step = await this.logic.next(outcome);
    } catch (e) {
      // The reader returned meanwhile (which stopped the logic): the read it left pending just ends.
      const returned = this.done;
      this.done = true;
      if (returned) return this.kit.DONE;
      throw e;
    }
    if (step.done || this.done) {
      // Returned meanwhile: a stream the logic opened for nobody is let go.
      if (!step.done) await step.value.pipe?.it.return?.();
      this.done = true;
      return this.kit.DONE;
    }
    if (!step.value.pipe) return { done: false, value: step.value.event };
    this.pipe = step.value.pipe;
    this.settled = false;
    return this.next();
  }

  async return(): Promise<IteratorResult<StreamResponse>> {
    this.done = true;
    // A backoff or a lookup under way ends now; the logic then finishes.
    this.stop();
    const pipe = this.pipe;
    this.pipe = undefined;
    await pipe?.it.return?.();
    await this.logic.return(undefined);
    return this.kit.DONE;
  }
}
