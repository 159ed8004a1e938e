/**
 * The messages of an SSE stream, decoded one by one as the reader asks
 * for them: the per-event path of the HTTP bindings' streams.
 */
import type { SseEvent } from "./sse.js";

/** What a decoded event is replaced with in its batch. */
const DECODED: SseEvent = { event: undefined, data: "", id: undefined };

/**
 * The messages of an event stream, each decoded when the reader asks for it.
 * An iterator rather than an async generator: events come in batches (what
 * one chunk held), and all but the first of a batch are handed over without
 * the extra turns a generator takes per message.
 */
export class DecodedEvents<T> implements AsyncIterableIterator<T> {
  private batch: SseEvent[] = [];
  private at = 0;
  private over = false;

  constructor(
    private readonly batches: AsyncIterator<SseEvent[]>,
    private readonly decode: (e: SseEvent) => T,
    /** What to report for an error met while reading or decoding (at once, or once it is read: a promise). */
    private readonly reported: (e: unknown) => unknown,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.over) return Promise.resolve({ done: true, value: undefined });
    if (this.at < this.batch.length) {
      try {
        return Promise.resolve(this.take());
      } catch (e) {
        return this.failed(e);
      }
    }
    return this.batches.next().then(this.refill, this.readFailed);
  }

  async return(): Promise<IteratorResult<T>> {
    if (!this.over) {
      this.over = true;
      this.batch = [];
      await this.batches.return?.();
    }
    return { done: true, value: undefined };
  }

  private readonly refill = (r: IteratorResult<SseEvent[]>): IteratorResult<T> | Promise<never> => {
    if (r.done) {
      this.over = true;
      return { done: true, value: undefined };
    }
    this.batch = r.value;
    this.at = 0;
    try {
      return this.take();
    } catch (e) {
      return this.failed(e);
    }
  };

  private take(): IteratorResult<T> {
    const i = this.at++;
    const value = this.decode(this.batch[i]!);
    // The reader has the message; the event's text (a slice of the whole
    // chunk it came in) need not wait here with it.
    this.batch[i] = DECODED;
    return { done: false, value };
  }

  /** A message could not be decoded: the stream ends, and its body is closed. */
  private failed(e: unknown): Promise<never> {
    this.over = true;
    this.batch = [];
    this.batches.return?.().catch(() => {});
    return rejected(this.reported(e));
  }

  /** Reading failed: the stream ends; the batches have closed the body themselves. */
  private readonly readFailed = (e: unknown): Promise<never> => {
    this.over = true;
    return rejected(this.reported(e));
  };
}

/** A rejection with `error`, or with what it settles to when it is a promise. */
async function rejected(error: unknown): Promise<never> {
  throw await error;
}
