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
  // A plain iterator, not a generator: a generator suspended at `yield`
  // keeps the value it yielded referenced, and a slow stream spends its
  // life there.
  return {
    [Symbol.asyncIterator]() {
      const it = source[Symbol.asyncIterator]();
      let waitingSince: number | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const arm = (ms: number) => {
        timer = setTimeout(check, ms);
        // The open connection keeps a process alive while a stream runs; the
        // watchdog alone must not.
        (timer as { unref?: () => void }).unref?.();
      };
      const check = () => {
        timer = undefined;
        if (waitingSince === undefined || signal.aborted) return;
        const waited = Date.now() - waitingSince;
        if (waited >= idleMs) onIdle();
        else arm(idleMs - waited);
      };
      const stop = () => {
        if (timer !== undefined) clearTimeout(timer);
        timer = undefined;
      };
      const end = () => {
        stop();
        signal.removeEventListener("abort", stop);
      };
      signal.addEventListener("abort", stop, { once: true });
      return {
        async next(): Promise<IteratorResult<T>> {
          waitingSince = Date.now();
          if (timer === undefined && !signal.aborted) arm(idleMs);
          try {
            const r = await it.next();
            if (r.done) end();
            return r;
          } catch (e) {
            end();
            throw e;
          } finally {
            waitingSince = undefined;
          }
        },
        async return(): Promise<IteratorResult<T>> {
          end();
          await it.return?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
}
