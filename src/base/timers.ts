/** Timers that hold any delay, and waits a signal can cut short. */
/** The longest delay a timer holds (2^31 - 1 ms, about 24.8 days): `setTimeout` fires a longer one at once. */
export const MAX_TIMER_MS = 0x7fffffff;

/** `setTimeout(fn, ms)`, a delay past what a timer keeps waiting as long as one can (MAX_TIMER_MS, about 24.8 days). */
export function startTimer(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
  return setTimeout(fn, Math.min(ms, MAX_TIMER_MS));
}

/**
 * Waits `ms` (at most MAX_TIMER_MS: a longer wait would otherwise end at
 * once); the signal cuts the wait short, rejecting with what `aborted()`
 * makes. The timer is cleared on abort, so an aborted wait holds nothing.
 */
export function sleep(ms: number, signal: AbortSignal | undefined, aborted: () => Error): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(aborted());
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = startTimer(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
