/**
 * The limits of one `session.extendedCard()` call beyond its request: its
 * own signal and timeout over the verification of the card, and over a
 * load another call started that it shares. Loaded on demand, with the
 * verifier or when calls overlap.
 */
import type { AgentCard } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { AbortedError, CallTimeoutError } from "../errors/family.js";
import type { CallDeadline } from "../call/deadline.js";
import type { followSignal, unlessAborted } from "../base/abort.js";
import type { CallOptions } from "./client.js";

/**
 * The start's signal code this module uses, handed to it by session.ts
 * rather than imported: base/abort.ts, imported by this module too, would
 * be reached by a set of chunks no other module is, and bundlers would give
 * it a chunk of its own that every app loads at start (docs/size.md).
 */
export interface LimitsKit {
  followSignal: typeof followSignal;
  unlessAborted: typeof unlessAborted;
}

/**
 * A call's own signal and `deadline` (its own timeoutMs, none unless it
 * gives one), as one signal that aborts with AbortedError (the caller's
 * reason as its cause) or CallTimeoutError; `release` lets go of both.
 */
export function callLimits(
  options: CallOptions,
  deadline: CallDeadline,
  kit: LimitsKit,
): { signal: AbortSignal; bounded: boolean; release(): void } {
  const { controller, unlink } = kit.followSignal(
    options.signal,
    () => new AbortedError("fetching the extended Agent Card was aborted", { cause: options.signal?.reason }),
  );
  const timer = deadline.abortAt(
    controller,
    () => new CallTimeoutError(`the extended Agent Card was not fetched and verified within ${deadline.limitMs} ms`, { kind: "deadline" }),
  );
  return {
    signal: controller.signal,
    bounded: options.signal !== undefined || timer !== undefined,
    release() {
      clearTimeout(timer);
      unlink();
    },
  };
}

/**
 * `shared`, a load another call started, awaited within this call's own
 * signal and `deadline` (its timeoutMs, started when it was made), not the
 * other's; when that call's end (its abort or its timeout) ends it, this
 * call loads for itself through `again`, with what is left of its time.
 */
export async function joinLoad(
  shared: Promise<AgentCard>,
  options: CallOptions,
  deadline: CallDeadline,
  again: (options: CallOptions) => Promise<AgentCard>,
  kit: LimitsKit,
): Promise<AgentCard> {
  const limits = callLimits(options, deadline, kit);
  try {
    return await kit.unlessAborted(shared, limits.signal);
  } catch (e) {
    if (limits.signal.aborted) throw limits.signal.reason;
    // Another call's abort or timeout is not this call's answer.
    if (!(e instanceof AbortedError || e instanceof CallTimeoutError)) throw e;
  } finally {
    limits.release();
  }
  return again({ ...options, timeoutMs: deadline.timeoutMs() });
}
