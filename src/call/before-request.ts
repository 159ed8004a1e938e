/**
 * What a call waits for before its request reaches a transport's call
 * runner (code loaded on demand, a request read from plain JSON) is part of
 * the call: a chunk whose fetch stalls (a browser's dynamic import has no
 * timeout) must not hold it past its signal or its deadline, which the
 * runner only starts to hold once the request is made.
 */
import { AbortedError } from "../errors/family.js";
import type { Binding } from "../base/bindings.js";
import type { CallDeadline } from "./deadline.js";
import { followSignal, unlessAborted } from "../base/abort.js";
import { startTimer } from "../base/timers.js";

/**
 * `work`, awaited within the call's `signal` (AbortedError, its reason as
 * cause) and its `deadline` (CallTimeoutError naming `what`). What is left
 * for the request is the deadline's to say (`deadline.timeoutMs()`); a call
 * that gave no timeout is held to the default of its kind meanwhile, and
 * still gives none, so the transport's own applies.
 */
export async function beforeRequest<T>(
  work: Promise<T>,
  what: string,
  call: { signal: AbortSignal | undefined; deadline: CallDeadline; binding: Binding },
): Promise<T> {
  const { signal, deadline, binding } = call;
  const left = deadline.start().leftMs();
  return awaitWithin(work, signal, left === Infinity ? undefined : Math.max(0, left), {
    aborted: () => new AbortedError("the call was aborted", { binding, cause: signal?.reason }),
    timedOut: () => deadline.error(`${what} within the call's ${deadline.limitMs} ms timeout`, binding),
  });
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
