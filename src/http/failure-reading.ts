/**
 * The HTTP bindings read a failed answer (its error body, a body that is no
 * JSON, a failure of the network) with code loaded when a call first fails
 * (error-reading.ts): a call that succeeds never runs it, so the start does
 * not carry it. Where reading must not wait (a codec's `result`, a stream
 * event's decoding), the error is thrown unread (`UnreadError`) and read by
 * `readFailure` where the call can wait: within the call's runner, whose
 * deadline and signal bound the wait, or a stream's signal.
 */
import type { Binding } from "../base/bindings.js";
import { onDemand } from "../base/on-demand.js";
import { classified, unclassified } from "../errors/classification.js";
import type { A2AError } from "../errors/family.js";

/** The code that reads failed answers. */
export type ErrorReading = typeof import("./error-reading.js");

/** The code that reads failed answers, loaded on its first use (a failed load is tried again next time). */
export const errorReading = onDemand(() => import("./error-reading.js"));

/** An error an answer carries, thrown before it is read: `readFailure` reads it with the code loaded. */
export class UnreadError {
  constructor(readonly read: (m: ErrorReading) => A2AError) {}
}

/**
 * The A2AError of a failure: an `UnreadError` read, an A2AError (or one in
 * its causes) as it is, anything else classified (classify.ts's
 * `toA2AError`, naming `url`). A load that fails gives an A2AError saying
 * so, the failure as its cause.
 */
export function readFailure(e: unknown, binding: Binding, url: string): Promise<A2AError> {
  if (!(e instanceof UnreadError)) return classified(e, binding, url);
  return errorReading().then(e.read, (loadError: unknown) => unclassified(loadError, loadError, binding));
}
