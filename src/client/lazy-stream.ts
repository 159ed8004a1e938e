import { InTurn } from "./in-turn.js";

/** Sees each value passed on; at the end, says why the stream ended too soon (or undefined). */
export interface StreamWatch<T> {
  seen(value: T): void;
  ended(): unknown;
}

/**
 * A stream that is opened by its reader's first `next`, as a generator's
 * body would be, with the errors of opening and reading both reported as
 * `reported` says. An iterator rather than an async generator: every event
 * passes through here, and a generator's queue and extra turns cost more
 * per event than this layer's work.
 */
export class LazyStream<T> implements AsyncIterableIterator<T> {
  private inner: AsyncIterator<T> | undefined;
  private opening: Promise<AsyncIterator<T>> | undefined;
  private over = false;
  /** Reads one at a time: two at once could lose events of a batch, or both take its end. */
  private readonly turns = new InTurn(() => this.read());

  constructor(
    private readonly open: () => Promise<AsyncIterable<T>>,
    private readonly reported: (e: unknown) => unknown,
    private readonly watch?: StreamWatch<T>,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    return this.turns.next();
  }

  /** One read, never two at once (see `turns`). */
  private read(): Promise<IteratorResult<T>> {
    if (this.over) return Promise.resolve({ done: true, value: undefined });
    const read = this.inner === undefined ? this.start().then((it) => it.next()) : this.inner.next();
    return read.then(this.passOn, this.failOn);
  }

  /** Stops reading; the stream, open or still opening, is closed. */
  async return(): Promise<IteratorResult<T>> {
    if (!this.over) {
      this.over = true;
      await this.inner?.return?.();
    }
    return { done: true, value: undefined };
  }

  private start(): Promise<AsyncIterator<T>> {
    this.opening ??= new Promise<AsyncIterable<T>>((resolve) => resolve(this.open())).then((stream) => {
      const it = stream[Symbol.asyncIterator]();
      // Given up while it was opening: it has nobody to read it.
      if (this.over) it.return?.().catch(() => {});
      else this.inner = it;
      return it;
    });
    return this.opening;
  }

  private readonly passOn = (r: IteratorResult<T>): IteratorResult<T> => {
    this.turns.answered();
    if (r.done) {
      this.over = true;
      const early = this.watch?.ended();
      if (early !== undefined) throw this.reported(early);
    } else this.watch?.seen(r.value);
    return r;
  };

  private readonly failOn = (e: unknown): never => {
    this.turns.answered();
    this.over = true;
    throw this.reported(e);
  };
}
