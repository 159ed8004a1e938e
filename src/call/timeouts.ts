/**
 * The one timeout convention of every binding. A unary call has a
 * deadline: its own `timeoutMs`, else the transport's, else one minute. A
 * stream has none unless its call asks for one (a task may run for hours);
 * the silence on it is bounded instead, by the transport's `idleTimeoutMs`,
 * else five minutes. Everywhere `0` means "no limit", and so does
 * Infinity; either is returned as `undefined`, the form connect's
 * transports and our call runner take. A finite limit longer than a timer
 * holds (about 24.8 days) is kept as a timer's longest delay (startTimer).
 */
import { checkDuration } from "./option-checks.js";

/** Default of `timeoutMs`: one minute. */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** Default of `idleTimeoutMs`: five minutes. */
export const DEFAULT_IDLE_TIMEOUT_MS = 300_000;

/** What a limit applies to: a unary call, a whole stream, or the silence on a stream. */
export type TimeoutKind = "unary" | "stream" | "idle";

/**
 * The limit in milliseconds, or undefined for none. `callMs` is what the
 * call asked for (for "idle": nothing, calls do not set it); `transportMs`
 * the transport's option (`timeoutMs`, or `idleTimeoutMs` for "idle").
 */
export function timeoutFor(kind: TimeoutKind, callMs: number | undefined, transportMs?: number | undefined): number | undefined {
  // A call's own: a NaN or a string would otherwise mean "no limit".
  if (callMs !== undefined) checkDuration(callMs, "timeoutMs");
  const ms =
    kind === "stream"
      ? callMs
      : kind === "unary"
        ? (callMs ?? transportMs ?? DEFAULT_TIMEOUT_MS)
        : (transportMs ?? DEFAULT_IDLE_TIMEOUT_MS);
  return ms! > 0 && ms !== Infinity ? ms : undefined;
}
