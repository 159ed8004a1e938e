/**
 * The limits of one `session.extendedCard()` call beyond its request: its
 * own signal and timeout over the verification of the card, and over a
 * load another call started that it shares. Loaded on demand, with the
 * verifier or when calls overlap.
 */
import type { AgentCard } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { AbortedError, CallTimeoutError } from "../errors/family.js";
import { timeoutFor } from "../call/timeouts.js";
import { followSignal, unlessAborted } from "../base/abort.js";
import { startTimer } from "../base/timers.js";
import type { CallOptions } from "./client.js";

/**
 * A call's own signal and timeout (none unless it gives one), counted from
 * `started`, as one signal that aborts with AbortedError (the caller's
 * reason as its cause) or CallTimeoutError; `release` lets go of both.
 */
export function callLimits(options: CallOptions, started: number): { signal: AbortSignal; bounded: boolean; release(): void } {
  const limitMs = timeoutFor("stream", options.timeoutMs);
  const { controller, unlink } = followSignal(
    options.signal,
    () => new AbortedError("fetching the extended Agent Card was aborted", { cause: options.signal?.reason }),
  );
  const timer =
    limitMs === undefined
      ? undefined
      : startTimer(
          () =>
            controller.abort(
              new CallTimeoutError(`the extended Agent Card was not fetched and verified within ${limitMs} ms`, { kind: "deadline" }),
            ),
          Math.max(0, started + limitMs - performance.now()),
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
 * signal and timeout, not the other's; when that call's end (its abort or
 * its timeout) ends it, this call loads for itself through `again`, with
 * what is left of its time.
 */
export async function joinLoad(
  shared: Promise<AgentCard>,
  options: CallOptions,
  again: (options: CallOptions) => Promise<AgentCard>,
): Promise<AgentCard> {
  const started = performance.now();
  const limits = callLimits(options, started);
  try {
    return await unlessAborted(shared, limits.signal);
  } catch (e) {
    if (limits.signal.aborted) throw limits.signal.reason;
    // Another call's abort or timeout is not this call's answer.
    if (!(e instanceof AbortedError || e instanceof CallTimeoutError)) throw e;
  } finally {
    limits.release();
  }
  const limitMs = timeoutFor("stream", options.timeoutMs);
  const left = limitMs === undefined ? options.timeoutMs : Math.max(1, Math.ceil(started + limitMs - performance.now()));
  return again({ ...options, timeoutMs: left });
}
