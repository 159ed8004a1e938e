/**
 * A queue between the script that runs a task and the call that answers
 * for it: the script pushes what happens as it happens, the call takes it
 * in order. A call that has gone (its connection dropped or answered)
 * closes the queue from its end, and the script carries on without it.
 */
export class Channel<T> {
  readonly #items: T[] = [];
  #waiting: ((item: IteratorResult<T, undefined>) => void) | undefined;
  #ended = false;

  push(item: T): void {
    if (this.#ended) return;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (waiting) waiting({ done: false, value: item });
    else this.#items.push(item);
  }

  /** No more items: a taker gets `done` once it has had those pushed before. */
  end(): void {
    this.#ended = true;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.({ done: true, value: undefined });
  }

  /** The next item, or `done` after the end. */
  next(): Promise<IteratorResult<T, undefined>> {
    const item = this.#items.shift();
    if (item !== undefined) return Promise.resolve({ done: false, value: item });
    if (this.#ended) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve) => (this.#waiting = resolve));
  }

  /** The taker has gone: what is pushed from now on is dropped. */
  close(): void {
    this.#items.length = 0;
    this.end();
  }
}
