/**
 * Streams have no overall deadline (a task may run for hours); instead they
 * fail when nothing arrives for a while. Only time spent waiting for the
 * server counts: a consumer that takes long over one event does not trip it.
 *
 * One timer per stream, re-armed lazily, rather than one per chunk: events
 * can arrive by the hundred thousand per second.
 */
export function withIdleTimeout<T>(
  source: AsyncIterable<T>,
  idleMs: number | undefined,
  onIdle: () => void,
  /**
   * The call's signal. A consumer that stops reading early may never call
   * `next` or `return` again; the signal is how its timer still stops.
   */
  signal: AbortSignal,
): AsyncIterable<T> {
  if (idleMs === undefined) return source;
  return { [Symbol.asyncIterator]: () => new IdleWatch(source[Symbol.asyncIterator](), idleMs, onIdle, signal) };
}

/**
 * The watching iterator. A class, not a generator or a set of closures: a
 * generator suspended at `yield` keeps the value it yielded referenced, and
 * a slow stream spends its life there; and a thousand open streams would
 * each hold a handful of closures.
 */
class IdleWatch<T> implements AsyncIterator<T> {
  private waitingSince: number | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly it: AsyncIterator<T>,
    private readonly idleMs: number,
    private readonly onIdle: () => void,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener("abort", this.stop, { once: true });
  }

  async next(): Promise<IteratorResult<T>> {
    this.waitingSince = Date.now();
    if (this.timer === undefined && !this.signal.aborted) this.arm(this.idleMs);
    try {
      const r = await this.it.next();
      if (r.done) this.end();
      return r;
    } catch (e) {
      this.end();
      throw e;
    } finally {
      this.waitingSince = undefined;
    }
  }

  async return(): Promise<IteratorResult<T>> {
    this.end();
    await this.it.return?.();
    return { done: true, value: undefined };
  }

  private arm(ms: number): void {
    this.timer = setTimeout(this.check, ms);
    // The open connection keeps a process alive while a stream runs; the
    // watchdog alone must not.
    (this.timer as { unref?: () => void }).unref?.();
  }

  private readonly check = (): void => {
    this.timer = undefined;
    if (this.waitingSince === undefined || this.signal.aborted) return;
    const waited = Date.now() - this.waitingSince;
    if (waited >= this.idleMs) this.onIdle();
    else this.arm(this.idleMs - waited);
  };

  private readonly stop = (): void => {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  };

  private end(): void {
    this.stop();
    this.signal.removeEventListener("abort", this.stop);
  }
}
