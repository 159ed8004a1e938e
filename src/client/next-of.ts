/**
 * How the client's stream iterators read the stream below them: a value it
 * holds is taken at once (base/iterables.ts's MayHold).
 */
import type { MayHold } from "../base/iterables.js";

/**
 * `it.next().then(then, failed)`, but a value `it` holds goes to `then` at
 * once: the answer is then settled when returned, a turn sooner.
 */
export function nextOf<T, R>(
  it: MayHold<T>,
  then: (r: IteratorResult<T>) => R | PromiseLike<R>,
  failed: (e: unknown) => R | PromiseLike<R>,
): Promise<R> {
  const held = it.takeHeld?.();
  return held ? Promise.resolve(then(held)) : it.next().then(then, failed);
}
