/**
 * What a call waits for before its request reaches a transport's call
 * runner (code loaded on demand, a request read from plain JSON) is part of
 * the call: a chunk whose fetch stalls (a browser's dynamic import has no
 * timeout) must not hold it past its signal or its deadline, which the
 * runner only starts to hold once the request is made.
 */
import { AbortedError, CallTimeoutError } from "../errors/family.js";
import type { Binding } from "../base/bindings.js";
import { timeoutFor, type TimeoutKind } from "./timeouts.js";
import { followSignal, unlessAborted } from "../base/abort.js";
import { startTimer } from "../base/timers.js";

/**
 * `work`, awaited within the call's `signal` (AbortedError, its reason as
 * cause) and timeout (CallTimeoutError naming `what`), and the call's
 * `timeoutMs` as what is left of it afterwards (at least 1 ms: 0 would mean
 * none). A call that gave no timeout is held to the default of its kind
 * meanwhile, and still gives none, so the transport's own applies.
 */
export async function beforeRequest<T>(
  work: Promise<T>,
  what: string,
  call: { kind: TimeoutKind; signal: AbortSignal | undefined; timeoutMs: number | undefined; binding: Binding },
): Promise<{ value: T; timeoutMs: number | undefined }> {
  const { kind, signal, timeoutMs, binding } = call;
  const limitMs = timeoutFor(kind, timeoutMs);
  const started = performance.now();
  const value = await awaitWithin(work, signal, limitMs, {
    aborted: () => new AbortedError("the call was aborted", { binding, cause: signal?.reason }),
    timedOut: () => new CallTimeoutError(`${what} within the call's ${limitMs} ms timeout`, { binding, kind: "deadline" }),
  });
  const left =
    timeoutMs !== undefined && limitMs !== undefined ? Math.max(1, Math.ceil(limitMs - (performance.now() - started))) : timeoutMs;
  return { value, timeoutMs: left };
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
