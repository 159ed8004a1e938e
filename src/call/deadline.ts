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
 * (http/run-call.ts), for what `requestMs` gives its request, and the
 * runner's deadline error names the limit `namedLimitMs` says.
 */
import { AbortedError, CallTimeoutError } from "../errors/family.js";
import type { Binding } from "../base/bindings.js";
import { awaitWithin } from "../base/abort.js";
import { startTimer } from "../base/timers.js";
import { timeoutFor } from "./timeouts.js";

export class CallDeadline {
  /** When the call's time runs out (performance.now()), once started; undefined while not started or without a limit. */
  private at: number | undefined;

  /** The limit in effect, as call/timeouts.ts chose it (undefined: none). */
  readonly limitMs: number | undefined;

  /**
   * The deadline of a call of `kind` that gave `given` (undefined: the
   * transport's decides). A unary call that gave none is held to the
   * default meanwhile, over what it waits for before its request (code
   * loaded on demand), and over all its attempts once a step that makes
   * several `fix`es it. A value that is no number is no limit here: it is
   * passed on as given (`timeoutMs()`), and the transport refuses it,
   * naming it, when the request is made.
   */
  constructor(
    kind: "unary" | "stream",
    private given: number | undefined,
  ) {
    try {
      this.limitMs = timeoutFor(kind, given);
    } catch {
      // No limit: the transport refuses it.
    }
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
    // Below 1 ms nothing is left: a request would be given a timeout shorter than a timer's tick.
    return this.leftMs() < 1;
  }

  /**
   * The timeout of the call's next request, starting the clock: what is
   * left, in whole milliseconds and at least 1 (0 would mean none, and
   * less is nothing left: `passed`); a value
   * that is no limit is passed on as given, and none given leaves it to the
   * transport (undefined).
   */
  timeoutMs(): number | undefined {
    // Started, the clock has an end exactly when there is a limit.
    return this.given === undefined || this.start().at === undefined ? this.given : Math.max(1, Math.ceil(this.leftMs()));
  }

  /**
   * The timeout one request of this call is held to, as the call runner
   * takes it (undefined: none), the step above having given it `timeoutMs`
   * (connect's per-request timeout): the call's own limit, chosen and
   * checked when the deadline was made, as it is; none, the transport's
   * own limit `transportMs` (none for a stream); any other value (what is
   * left of the call's limit, one a caller chose) by the timeout
   * convention, which refuses one that is no duration (call/timeouts.ts).
   * Never 0 or less: what is left is at least 1 ms.
   */
  requestMs(timeoutMs: number | undefined, transportMs?: number): number | undefined {
    if (timeoutMs === undefined) return transportMs;
    // A limit is never 0: a limit of the call's own is given as it is.
    return timeoutMs === this.given && this.limitMs ? this.limitMs : timeoutFor("unary", timeoutMs);
  }

  /**
   * The limit a request's deadline error names, the request having been
   * given `requestMs` (by `requestMs`): the call's whole limit once its
   * clock runs (the request got what was left of it: "within 60 ms", not
   * the 56 left after code loaded on demand), else the request's own.
   */
  namedLimitMs(requestMs: number | undefined): number | undefined {
    return this.at !== undefined && this.given !== undefined ? this.limitMs : requestMs;
  }

  /**
   * `work`, something the call waits for before its request reaches a
   * transport's call runner (code loaded on demand, a request read from
   * plain JSON), awaited within the call's `signal` (AbortedError, its
   * reason as cause) and this deadline (CallTimeoutError naming `what`):
   * a chunk whose fetch stalls (a browser's dynamic import has no timeout)
   * must not hold the call past them, which the runner only holds once the
   * request is made. What is left for the request is `timeoutMs()`'s to say.
   */
  waitFor<T>(work: Promise<T>, what: string, signal: AbortSignal | undefined, binding: Binding): Promise<T> {
    const left = this.start().leftMs();
    return awaitWithin(work, signal, left === Infinity ? undefined : left, {
      aborted: () => new AbortedError("the call was aborted", { binding, cause: signal?.reason }),
      timedOut: () => new CallTimeoutError(`${what} within the call's ${this.limitMs} ms timeout`, { binding, kind: "deadline" }),
    });
  }

  /**
   * Aborts `controller` (the signal a step gives the requests of one call:
   * retries, which may outlast a request's own timeout) with `expire()`'s
   * error at the deadline: the deadline's one timer for such a call, made
   * only when a step asks for it, and returned for the step to clear once
   * the call is over (none without a limit).
   */
  abortAt(controller: AbortController, expire: () => Error): ReturnType<typeof setTimeout> | undefined {
    const left = this.start().leftMs();
    return left === Infinity || controller.signal.aborted ? undefined : startTimer(() => controller.abort(expire()), left);
  }
}
