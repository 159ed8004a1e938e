/**
 * Streams have no overall deadline (a task may run for hours); instead they
 * fail when nothing arrives for a while. Only time spent waiting for the
 * server counts: a consumer that takes long over one event does not trip it.
 *
 * One timer per stream, re-armed lazily, rather than one per chunk: events
 * can arrive by the hundred thousand per second.
 */
export async function* withIdleTimeout<T>(source: AsyncIterable<T>, idleMs: number | undefined, onIdle: () => void): AsyncGenerator<T> {
  if (idleMs === undefined) {
    yield* source;
    return;
  }
  const it = source[Symbol.asyncIterator]();
  let waitingSince: number | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = () => {
    timer = undefined;
    if (waitingSince === undefined) return;
    const waited = Date.now() - waitingSince;
    if (waited >= idleMs) onIdle();
    else timer = setTimeout(check, idleMs - waited);
  };
  try {
    for (;;) {
      waitingSince = Date.now();
      timer ??= setTimeout(check, idleMs);
      const r = await it.next();
      waitingSince = undefined;
      if (r.done) return;
      yield r.value;
    }
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    await it.return?.();
  }
}
