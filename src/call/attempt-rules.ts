/**
 * May a request that failed be sent again? One answer, from what the
 * failure says reached the agent and what the method does
 * (method-traits.ts), read by retries (retry.ts), failover
 * (failover.ts) and stream resumption (client/resume.ts) alike.
 * Each of those decides for itself which failures are worth another
 * attempt at all (a retry policy's codes, an interface that is away, a
 * dropped stream); this says whether the request may go again, and what
 * a server that asks for a wait longer than the caller allows ends with.
 */
import type { A2AError, ConnectionError } from "../errors/family.js";
import type { MethodTraits } from "./method-traits.js";

/**
 * When a write is sent again: `"unprocessed"` only where the agent cannot
 * have acted on it, `"transient"` after any failure worth another attempt
 * (so the agent may act twice), `"never"`. A retry policy's `retryWrites`.
 */
export type ResendWrites = "unprocessed" | "transient" | "never";

/**
 * Whether a request of a method with `traits` that failed with `error` may
 * be sent again: a read always (running it twice changes nothing); a write
 * as `writes` says, by default only where the agent cannot have acted on it
 * (`"unprocessed"`): nothing reached it (the connection was refused or the
 * host not found), or it refused the request before handling it (429 and
 * 503: RFC 6585 section 4, RFC 9110 section 15.6.4). A timeout, a reset, a
 * 502 or a 504 may come after the agent acted. Asked only of a failure
 * worth another attempt, which an abort never is (the caller's decision).
 */
export function maySendAgain(error: A2AError, traits: MethodTraits, writes: ResendWrites = "unprocessed"): boolean {
  if (traits.readsOnly || writes === "transient") return true;
  if (writes === "never") return false;
  const { kind } = error as ConnectionError;
  return error.code === "CONNECTION_FAILED" ? kind === "refused" || kind === "dns" : error.httpStatus === 429 || error.httpStatus === 503;
}

/**
 * Whether a server asks for more patience than the caller allows: the wait
 * it asked for (`Retry-After`, SSE `retry:`) is longer than the longest
 * the caller gives (`maxMs`: a retry policy's `maxDelayMs`, a resumption's
 * `backoff.maxMs`, a wait's `maxPollMs`). The call then ends with the
 * server's error: calling early would go against what the server said, and
 * waiting longer against what the caller said.
 */
export function asksLongerThan(askedMs: number | undefined, maxMs: number): boolean {
  return (askedMs ?? 0) > maxMs;
}

/**
 * The rules as one value, which the client gives the retry and resumption
 * loops (loaded on demand, in retry-kit.ts's `RETRY_KIT` and
 * resume-start.ts's `LOOP_KIT`) rather than the loops importing them: imported by it too, this
 * module would be reached by a set of chunks no other module is, and
 * bundlers would give it a chunk of its own, which every app would load
 * (see docs/size.md).
 */
export const ATTEMPT_RULES = { maySendAgain, asksLongerThan } as const;

/** The type of `ATTEMPT_RULES`. */
export type AttemptRules = typeof ATTEMPT_RULES;
