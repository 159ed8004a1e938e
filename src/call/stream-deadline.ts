/**
 * The `timeoutMs` a resumable stream's call gives, held over the whole
 * stream: its first request, every GetTask, lookup and resubscribe a
 * resumption makes, and the waits between them. Without it each request of
 * a resumption would start the timeout afresh, and a server that drops the
 * stream before the timeout, every time, would keep it open for ever.
 *
 * No timer of its own: each request gets what is left as its timeout (its
 * transport ends it there), and the loop checks what is left before it waits
 * and after, so nothing outlives the stream.
 */
import { CallTimeoutError } from "../errors/family.js";
import type { Binding } from "../base/bindings.js";

/** Below this, nothing is left: a request would be given a timeout shorter than a timer's tick. */
const NOTHING_LEFT_MS = 1;

export class StreamDeadline {
  /** When the stream's time runs out (performance.now()), from its first request on. */
  private at: number | undefined;

  /** `timeoutMs`: the stream call's own (undefined, 0 and Infinity: none). */
  constructor(private readonly timeoutMs: number | undefined) {}

  /**
   * The timeout of the stream's next request: the whole of it for the first
   * (which starts the clock), what is left for the others. A value that is
   * no limit, or no number, is passed on as given, for the transport to
   * take or to refuse naming it.
   */
  nextTimeoutMs(): number | undefined {
    const ms = this.timeoutMs;
    if (typeof ms !== "number" || !(ms > 0) || ms === Infinity) return ms;
    this.at ??= performance.now() + ms;
    return Math.max(NOTHING_LEFT_MS, Math.ceil(this.at - performance.now()));
  }

  /** Milliseconds left, Infinity when the stream has no timeout (or has not started). */
  leftMs(): number {
    return this.at === undefined ? Infinity : this.at - performance.now();
  }

  /**
   * The stream's CallTimeoutError once its time has run out, else undefined;
   * `last` (its cause) is the drop or failed request that used up the rest.
   */
  expired(last: unknown, what: string, binding: Binding): CallTimeoutError | undefined {
    if (this.leftMs() >= NOTHING_LEFT_MS) return undefined;
    return new CallTimeoutError(`${what} did not end within its ${this.timeoutMs} ms timeout`, { binding, kind: "deadline", cause: last });
  }
}
