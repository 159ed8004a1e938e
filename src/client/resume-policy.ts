/**
 * When a resumable stream tries again, how long it waits, and when it gives
 * up: the options, their defaults and checks, which failures are drops
 * worth another attempt, the backoff between attempts, and how the
 * stream's watchers are told. The loop that applies them is resume.ts.
 */
import { A2AError, InvalidParamsError, type CallTimeoutError } from "../errors/family.js";
import { shownValue } from "../call/option-checks.js";
import { asksToRetryLater } from "../errors/codes.js";
import type { StreamState, StreamWatcher } from "../call/stream-state.js";

/** How a stream resumes after a drop. @category Streams and tracking */
export interface ResumeOptions {
  /**
   * How long reconnection goes on after a drop, without an event of progress
   * in between, before the stream fails with StreamResumeError. Default
   * 60 000 ms: an agent away for 30 s (a restart, a deploy) is resumed.
   */
  maxElapsedMs?: number | undefined;
  /** Reconnection attempts allowed in a row, without an event in between. Default: no limit but `maxElapsedMs`. */
  maxAttempts?: number | undefined;
  /**
   * Delays between attempts: exponential, with equal jitter (each delay is
   * between half its ceiling and the ceiling), never below what the server
   * asked (SSE `retry:`, `Retry-After`), which may not be more than `maxMs`.
   */
  backoff?:
    | {
        /** First delay ceiling. Default 250 ms. */
        initialMs?: number | undefined;
        /**
         * Largest delay ceiling, and the longest server's `retry:` or
         * `Retry-After` honoured: a server that asks for longer ends the
         * stream with its error. Default 10 000 ms.
         */
        maxMs?: number | undefined;
        /** Growth per attempt. Default 2. */
        multiplier?: number | undefined;
      }
    | undefined;
  /**
   * When a SendStreamingMessage drops before its task id is known and the
   * agent cannot tell whether the message started a task (no ListTasks, no
   * history, too many tasks to look through), send the message again (with
   * the same messageId, so an agent that de-duplicates recognises it).
   * Default false: the drop is reported. Where the agent can tell, the
   * message is resent only when it started no task, whatever this says.
   */
  resendBeforeTask?: boolean | undefined;
}

/** The defaults of ResumeOptions, in one place. */
export const DEFAULTS = { maxElapsedMs: 60_000, initialMs: 250, maxMs: 10_000, multiplier: 2 } as const;

/** A stream that ended before its task reached a final or interrupted state: always a drop. */
export class EndedEarly extends A2AError {}

/** Numbers that would make the backoff spin, stall or never end are refused up front, with InvalidParamsError as the client's other checks. */
export function checkOptions(options: ResumeOptions): void {
  const b = options.backoff ?? {};
  const numbers: Array<[string, number | undefined, number]> = [
    ["maxElapsedMs", options.maxElapsedMs, 0],
    ["maxAttempts", options.maxAttempts, 0],
    ["backoff.initialMs", b.initialMs, 0],
    ["backoff.maxMs", b.maxMs, 0],
    ["backoff.multiplier", b.multiplier, 1],
  ];
  for (const [name, value, min] of numbers) {
    if (value === undefined) continue;
    const finite = name === "maxAttempts" ? !Number.isNaN(value) : Number.isFinite(value);
    if (typeof value !== "number" || !finite || value < min) {
      throw new InvalidParamsError(
        `resume.${name} must be a ${name === "maxAttempts" ? "" : "finite "}number of at least ${min}, got ${shownValue(value)}`,
      );
    }
  }
}

/**
 * Whether a failure is a drop worth another attempt: a stream that ended
 * early, or a transient failure (`A2AError.transient`) of the kinds that
 * resumption waits out: a failed connection, a silent stream, and a server
 * that asked to be called again (429 or 503 with `Retry-After`). A stream's
 * own deadline is its end, but a lookup that outlives its timeout went to a
 * dead connection as surely as a reset one. Not a gateway's 5xx without
 * `Retry-After`, nor a resumption that has given up.
 */
export function isDrop(e: A2AError, lookup: boolean): boolean {
  if (e instanceof EndedEarly) return true;
  if (!e.transient) return false;
  if (e.code === "CONNECTION_FAILED") return true;
  if (e.code === "CALL_TIMEOUT" && (lookup || (e as CallTimeoutError).kind === "idle")) return true;
  return asksToRetryLater(e);
}

/**
 * Exponential backoff with equal jitter: between half the ceiling and the
 * ceiling, so that attempts spread over the budget rather than all landing in
 * its first second, yet clients dropped together do not come back together.
 * A server's hint is a floor; one longer than `backoff.maxMs` ends the
 * stream instead (resume.ts).
 */
export function delay(attempt: number, options: ResumeOptions, floorMs: number): number {
  const b = options.backoff ?? {};
  const maxMs = b.maxMs ?? DEFAULTS.maxMs;
  const ceiling = Math.min(maxMs, (b.initialMs ?? DEFAULTS.initialMs) * (b.multiplier ?? DEFAULTS.multiplier) ** (attempt - 1));
  return Math.max(floorMs, ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** Tells each of the stream's watchers; one that throws does not break the stream. */
export function tell(state: StreamState, what: (w: StreamWatcher) => void): void {
  for (const w of state.watchers ?? []) {
    try {
      what(w);
    } catch {
      // Watchers observe; they do not steer.
    }
  }
}
