/**
 * The classification of failures (classify.ts) is loaded when a call first
 * fails: a call that succeeds never runs it, so the start does not carry it.
 * What is already an A2AError (a binding named it where it met it) is found
 * here without it.
 */
import { onDemand } from "../base/on-demand.js";
import type { Binding } from "../base/bindings.js";
import { isRecord } from "../base/is-record.js";
import { A2AError } from "./family.js";

/** The classification, loaded on its first use (a failed load is tried again next time). */
export const classification = onDemand(() => import("./classify.js"));

/** The A2AError `e` is, or wraps as a `cause` (connect wraps what a transport throws); else undefined. */
export function foundA2AError(e: unknown): A2AError | undefined {
  for (let cur = e, depth = 0; isRecord(cur) && depth < 8; cur = cur.cause, depth++) {
    if (cur instanceof A2AError) return cur;
  }
  return undefined;
}

/**
 * `e` as an A2AError (classify.ts's `toA2AError`): at once when it is one or
 * wraps one, else once the classification has loaded. Should it fail to
 * load (a chunk the browser could not fetch), the error says so, `e` as its
 * cause. Whoever waits for this bounds the wait by the call's deadline and
 * signal (a call's runner races it; `CallDeadline.waitFor`).
 */
export function classified(e: unknown, binding?: Binding, url?: string): Promise<A2AError> {
  const found = foundA2AError(e);
  if (found) return Promise.resolve(found);
  return classification().then(
    (m) => m.toA2AError(e, binding, url),
    (loadError: unknown) => unclassified(e, loadError, binding),
  );
}

/** The error of a failure whose classification did not load: named as such, the failure as its cause. */
export function unclassified(e: unknown, loadError: unknown, binding?: Binding): A2AError {
  const why = loadError instanceof Error ? loadError.message : String(loadError);
  return new A2AError(`the call failed, and the code that classifies its failure did not load (${why})`, { binding, cause: e });
}
