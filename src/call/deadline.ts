/**
 * A call's one deadline: the instant it ends (or none), and the only place
 * that does arithmetic on it. The steps a call passes (the retry loop,
 * failover, code loaded on demand, stream resumption, the call runner) ask
 * it what is left, whether it has passed, or for its signal; none of them
 * keeps a clock of its own.
 *
 * A deadline starts when it is first asked for a request's timeout (or
 * started): a resumable stream's starts with its first request and holds
 * over every resumption, so that a server that drops the stream before the
 * timeout, every time, cannot keep it open for ever.
 *
 * Its timer is made only when a step asks for it (`abortAt`): a call that
 * goes straight to its transport has the runner's timer alone
 * (http/run-call.ts), which is given what is left here.
 */
import { CallTimeoutError } from "../errors/family.js";
import type { Binding } from "../base/bindings.js";
import { startTimer } from "../base/timers.js";
import { timeoutFor } from "./timeouts.js";

/** Below this, nothing is left: a request would be given a timeout shorter than a timer's tick (and 0 means none). */
const NOTHING_LEFT_MS = 1;

export class CallDeadline {
  /** When the call's time runs out (performance.now()), once started; undefined while not started or without a limit. */
  private at: number | undefined;
  /** The timer of `abortAt`, if a step asked for one. */
  private timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * `given`: the call's own timeout (undefined: the transport's decides);
   * `limitMs`: the limit in effect, as call/timeouts.ts chose it (undefined:
   * none): a unary call that gave none is held to the default meanwhile,
   * over what it waits for before its request (code loaded on demand), and
   * over all its attempts once a step that makes several `fix`es it.
   */
  constructor(
    private given: number | undefined,
    readonly limitMs: number | undefined,
  ) {}

  /** The deadline of a call of `kind` that gave `timeoutMs` (checked: a NaN or a string would otherwise mean none). */
  static of(kind: "unary" | "stream", timeoutMs: number | undefined): CallDeadline {
    return new CallDeadline(timeoutMs, timeoutFor(kind, timeoutMs));
  }

  /**
   * The limit in effect becomes the call's own: a call that gave none is
   * held to the default, and its requests are given what is left of it,
   * not the transport's timeout each (a step that makes several requests
   * of one call: retries, failover).
   */
  fix(): this {
    this.given ??= this.limitMs;
    return this;
  }

  /** Starts the clock, if it has not started. */
  start(): this {
    if (this.limitMs !== undefined) this.at ??= performance.now() + this.limitMs;
    return this;
  }

  /** Milliseconds left, Infinity when there is no limit (or the clock has not started). */
  leftMs(): number {
    return this.at === undefined ? Infinity : this.at - performance.now();
  }

  /** Whether nothing is left. */
  passed(): boolean {
    return this.leftMs() < NOTHING_LEFT_MS;
  }

  /**
   * The timeout of the call's next request, starting the clock: what is
   * left, in whole milliseconds and at least 1 (0 would mean none); a value
   * that is no limit is passed on as given, and none given leaves it to the
   * transport (undefined).
   */
  timeoutMs(): number | undefined {
    // Started, the clock has an end exactly when there is a limit.
    return this.given === undefined || this.start().at === undefined ? this.given : Math.max(NOTHING_LEFT_MS, Math.ceil(this.leftMs()));
  }

  /** The CallTimeoutError the call ends with, `message` naming what timed out and this deadline's limit. */
  error(message: string, binding: Binding, cause?: unknown): CallTimeoutError {
    return new CallTimeoutError(message, { binding, kind: "deadline", cause });
  }

  /**
   * Aborts `controller` (the signal a step gives the requests of one call:
   * retries, which may outlast a request's own timeout) with `expire()`'s
   * error at the deadline: the deadline's one timer for such a call, made
   * only when a step asks for it. `release()` clears it.
   */
  abortAt(controller: AbortController, expire: () => Error): void {
    const left = this.start().leftMs();
    if (left !== Infinity && !controller.signal.aborted) this.timer = startTimer(() => controller.abort(expire()), left);
  }

  /** The call is over: the timer of `abortAt` goes. */
  release(): void {
    clearTimeout(this.timer);
  }
}
