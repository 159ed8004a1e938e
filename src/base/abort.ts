/** Following and racing AbortSignals, and the error an abort reports. */
import { startTimer } from "./timers.js";

/**
 * An AbortController of our own that follows `outer`: it aborts when `outer`
 * does (with `outer`'s reason, or `reason()` when given), and can be aborted
 * alone, e.g. to cut an idle stream. `unlink()` stops following.
 */
export function followSignal(
  outer: AbortSignal | undefined,
  reason?: () => unknown,
): {
  /** Aborts when `outer` does, or when aborted itself. */
  controller: AbortController;
  /** Stops following `outer`. */
  unlink: () => void;
} {
  const controller = new AbortController();
  const forward = () => controller.abort(reason ? reason() : outer?.reason);
  if (outer?.aborted) forward();
  else outer?.addEventListener("abort", forward, { once: true });
  return { controller, unlink: () => outer?.removeEventListener("abort", forward) };
}

/**
 * Settles as `work` does, or rejects with the signal's reason as soon as it
 * aborts, whatever `work` still waits for: what a misbehaving peer or
 * client never settles cannot outlive the signal.
 */
export function unlessAborted<T>(work: T | Promise<T>, signal: AbortSignal): T | Promise<T> {
  if (!(work instanceof Promise)) return work;
  // Settled later or never, `work` is nobody's unhandled rejection.
  if (signal.aborted) {
    work.catch(ignore);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

function ignore(): void {}

/** The error an abort without a reason (or with one that is not an Error) is reported as, as fetch does. */
export function abortError(reason?: unknown): Error {
  const e = new Error(reason === undefined ? "This operation was aborted" : String(reason));
  e.name = "AbortError";
  return e;
}

/**
 * `work`, awaited until `signal` aborts (rejecting with `aborted()`) or
 * `limitMs` passes (rejecting with `timedOut()`; undefined: no limit),
 * whichever comes first; no timer or listener is left behind.
 */
export async function awaitWithin<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
  limitMs: number | undefined,
  errors: { aborted: () => Error; timedOut: () => Error },
): Promise<T> {
  const { controller, unlink } = followSignal(signal, errors.aborted);
  const timer = limitMs === undefined ? undefined : startTimer(() => controller.abort(errors.timedOut()), limitMs);
  try {
    return await unlessAborted(work, controller.signal);
  } finally {
    clearTimeout(timer);
    unlink();
  }
}
