/**
 * Streams have no overall deadline (a task may run for hours); instead they
 * fail when nothing arrives for a while. Only time spent waiting for the
 * server counts: a consumer that takes long over one event does not trip it.
 *
 * One timer per stream, re-armed lazily, rather than one per chunk: events
 * can arrive by the hundred thousand per second.
 */
export async function* withIdleTimeout<T>(
  source: AsyncIterable<T>,
  idleMs: number | undefined,
  onIdle: () => void,
  /**
   * The call's signal. A consumer that stops reading early may leave this
   * generator suspended for good; the signal is how its timer still stops.
   */
  signal: AbortSignal,
): AsyncGenerator<T> {
  if (idleMs === undefined) {
    yield* source;
    return;
  }
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
  signal.addEventListener("abort", stop, { once: true });
  try {
    for (;;) {
      waitingSince = Date.now();
      if (timer === undefined && !signal.aborted) arm(idleMs);
      const r = await it.next();
      waitingSince = undefined;
      if (r.done) return;
      yield r.value;
    }
  } finally {
    stop();
    signal.removeEventListener("abort", stop);
    await it.return?.();
  }
}
