/**
 * The messages of an SSE stream, decoded one by one as the reader asks
 * for them: the per-event path of the HTTP bindings' streams.
 */
import { DONE, rejectedWith } from "../base/iterables.js";
import type { SseDecoder, SseEvent } from "./sse.js";

/**
 * The messages of an event stream, each decoded when the reader asks for it.
 * An iterator rather than an async generator: events come in batches (what
 * one chunk held), and all but the first of a batch are handed over without
 * the extra turns a generator takes per message. The body is read here,
 * each chunk decoded to its events at once: a chunk is not referenced once
 * read, so a slow stream waiting for its next one keeps none alive.
 */
export class DecodedEvents<T> implements AsyncIterableIterator<T> {
  /** The events of the last chunk read; each is let go (undefined) once decoded. */
  private batch: (SseEvent | undefined)[] = [];
  private at = 0;
  private over = false;

  constructor(
    /** The stream's body, through its idle watch (idle.ts), whose `return` never fails. */
    private readonly body: AsyncIterator<Uint8Array>,
    private readonly sse: SseDecoder,
    /** Decodes one event; on one it fails for, it may be called twice (see `takeHeld`), so it must have no other effect. */
    private readonly decode: (e: SseEvent) => T,
    /** What to report for an error met while reading or decoding (at once, or once it is read: a promise). */
    private readonly reported: (e: unknown) => unknown,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.over) return Promise.resolve(DONE);
    try {
      if (this.at < this.batch.length) return Promise.resolve(this.take());
      // An event over the limit fails the stream before it reads on.
      this.sse.check();
    } catch (e) {
      return this.failed(e);
    }
    return this.body.next().then(this.refill, this.readFailed);
  }

  /**
   * The next message of the batch in hand, decoded now (base/iterables.ts's
   * MayHold). One that cannot be decoded is left where it is, for `next`
   * to fail with as it always has: a failure takes the ordinary path, its
   * turns and its reporting, through every layer above.
   */
  takeHeld(): IteratorYieldResult<T> | undefined {
    if (this.over || this.at >= this.batch.length) return undefined;
    try {
      return this.take();
    } catch {
      // Decoding has no other effect (see `decode`): `next` decodes it again.
      this.at--;
      return undefined;
    }
  }

  /** Stops reading: the body is closed. */
  async return(): Promise<IteratorResult<T>> {
    if (!this.over) {
      this.over = true;
      this.batch = [];
      await this.body.return?.();
    }
    return DONE;
  }

  /** The events of a chunk read; none (often) reads on. An event cut off by the stream's end is never delivered. */
  private readonly refill = (r: IteratorResult<Uint8Array>): IteratorResult<T> | Promise<IteratorResult<T>> => {
    if (r.done) {
      this.over = true;
      return DONE;
    }
    this.batch = this.sse.absorb(r.value);
    this.at = 0;
    return this.next();
  };

  private take(): IteratorYieldResult<T> {
    const i = this.at++;
    const value = this.decode(this.batch[i]!);
    // The reader has the message; the event's text (a slice of the whole
    // chunk it came in) need not wait here with it.
    this.batch[i] = undefined;
    return { done: false, value };
  }

  /** Reading or decoding failed: the stream ends, and its body is closed. */
  private failed(e: unknown): Promise<never> {
    this.over = true;
    this.batch = [];
    // Not waited for (see `body`).
    void this.body.return?.();
    return rejectedWith(this.reported(e));
  }

  private readonly readFailed = (e: unknown): Promise<never> => this.failed(e);
}
