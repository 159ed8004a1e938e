import { AbortedError } from "../errors/family.js";
import { followSignal } from "../base/abort.js";
import { DONE, type MayHold, rejectedWith } from "../base/iterables.js";
import { nextOf } from "./next-of.js";
import { InTurn } from "./in-turn.js";
import { letGoSettled } from "./settled-end.js";

/** Sees each value passed on; at the end, says why the stream ended too soon (or undefined). */
export interface StreamWatch<T> {
  seen(value: T): void;
  ended(): unknown;
  /** Whether the values seen so far are all the stream has to say (its task ended, or waits on the caller). */
  complete?(): boolean;
}

/**
 * A stream that is opened by its reader's first `next`, as a generator's
 * body would be, with the errors of opening and reading both reported as
 * `reported` says. An iterator rather than an async generator: every event
 * passes through here, and a generator's queue and extra turns cost more
 * per event than this layer's work.
 *
 * The opening is given a signal of its own, which follows the caller's
 * (`outer`): a reader that returns while the stream is still opening (the
 * request sent, no response yet) aborts it, so the request is given up at
 * once rather than left to its idle timeout, and the read it left pending
 * ends.
 */
export class LazyStream<T> implements AsyncIterableIterator<T> {
  private inner: MayHold<T> | undefined;
  private opening: Promise<AsyncIterator<T>> | undefined;
  private over = false;
  /** The reader returned: what is still pending ends quietly. */
  private returned = false;
  /** A read of the open stream is under way. */
  private reading = false;
  /** The opening's own signal, following the caller's; made on the first `next`. */
  private own: ReturnType<typeof followSignal> | undefined;
  /** Reads one at a time: two at once could lose events of a batch, or both take its end. */
  private readonly turns = new InTurn(() => this.read());

  constructor(
    private readonly open: (signal: AbortSignal) => Promise<AsyncIterable<T>>,
    /** What the reader is told of a failure (at once, or once it is classified). */
    private readonly reported: (e: unknown) => unknown,
    private readonly watch?: StreamWatch<T>,
    private readonly outer?: AbortSignal,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    return this.turns.next();
  }

  /** One read, never two at once (see `turns`). */
  private read(): Promise<IteratorResult<T>> {
    if (this.over) return Promise.resolve(DONE);
    // Nothing more is due: the stream ends here, as a resuming one does,
    // its end read if the server sends it at once (one that keeps it open
    // with keep-alive comments would hold the reader for ever).
    if (this.watch?.complete?.()) return this.letGo();
    this.reading = true;
    if (this.inner) return nextOf(this.inner, this.passOn, this.failOn);
    return this.start()
      .then((it) => it.next())
      .then(this.passOn, this.failOn);
  }

  /**
   * An event the open stream holds, handed over now (base/iterables.ts's
   * MayHold), when no read is under way. Asked by the streams that wrap
   * this one (resume-start.ts, resume-pump.ts), which read it one read at
   * a time, so no read waits its turn meanwhile; a stream with a watch is
   * read by its reader directly, and hands nothing over here.
   */
  takeHeld(): IteratorYieldResult<T> | undefined {
    return this.watch || this.over || this.reading || !this.inner ? undefined : this.inner.takeHeld?.();
  }

  /** Stops reading; the stream, open or still opening, is closed. */
  async return(): Promise<IteratorResult<T>> {
    if (!this.over) {
      this.over = true;
      this.returned = true;
      if (this.inner) await (this.reading ? this.cut(this.inner) : this.inner.return?.());
      // Still opening: the request is given up (the stream is closed too if it opens all the same).
      else this.own?.controller.abort(new AbortedError("the reader stopped reading the stream"));
      this.own?.unlink();
    }
    return DONE;
  }

  /** The watch says the stream has said all it will: its end is read, or the stream closed (settled-end.ts). */
  private async letGo(): Promise<IteratorResult<T>> {
    if (!this.over) {
      this.over = true;
      const inner = this.inner;
      if (inner) await letGoSettled(inner, () => this.cut(inner));
      this.own?.unlink();
    }
    return DONE;
  }

  /**
   * Closes the open stream while a read of it waits: the call is aborted
   * first, as the return of a generator (a transport's stream may be one)
   * waits for the read under way, which may never come.
   */
  private cut(inner: AsyncIterator<T>): Promise<unknown> {
    this.own?.controller.abort(new AbortedError("the reader stopped reading the stream"));
    return inner.return?.() ?? Promise.resolve();
  }

  private start(): Promise<AsyncIterator<T>> {
    this.opening ??= new Promise<AsyncIterable<T>>((resolve) => {
      this.own = followSignal(this.outer);
      resolve(this.open(this.own.controller.signal));
    }).then((stream) => {
      const it = stream[Symbol.asyncIterator]();
      // Given up while it was opening: it has nobody to read it.
      if (this.over) it.return?.().catch(() => {});
      else this.inner = it;
      return it;
    });
    return this.opening;
  }

  private readonly passOn = (r: IteratorResult<T>): IteratorResult<T> | Promise<never> => {
    this.reading = false;
    this.turns.answered();
    if (this.returned) return DONE;
    if (r.done) {
      this.over = true;
      this.own?.unlink();
      const early = this.watch?.ended();
      if (early !== undefined) return rejectedWith(this.reported(early));
    } else this.watch?.seen(r.value);
    return r;
  };

  private readonly failOn = (e: unknown): IteratorResult<T> | Promise<never> => {
    this.reading = false;
    this.turns.answered();
    // A read the reader left pending when it returned: it ends, whatever closing the stream made of it.
    if (this.returned) return DONE;
    this.over = true;
    this.own?.unlink();
    return rejectedWith(this.reported(e));
  };
}
