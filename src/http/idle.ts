/**
 * Streams have no overall deadline (a task may run for hours); instead they
 * fail when nothing arrives for a while. Only time spent waiting for the
 * server counts: a consumer that takes long over one event does not trip it.
 *
 * One timer per stream, re-armed lazily, rather than one per chunk: events
 * can arrive by the hundred thousand per second.
 *
 * The watch also ends each read when the call's signal aborts (the idle
 * timeout, the caller, a deadline): a body whose reads never settle, from an
 * HTTP client that ignores its signal, cannot hold the stream open. So it
 * wraps every stream's body, with or without an idle timeout.
 */
import { DONE } from "../base/iterables.js";
import { startTimer } from "../base/timers.js";
import { safeUrl } from "../base/urls.js";
import { CallTimeoutError } from "../errors/family.js";
import type { Binding } from "../base/bindings.js";

/**
 * Cuts a stream call gone idle, whatever its binding: the call (its
 * `controller`) is aborted with a CallTimeoutError of kind `"idle"` naming
 * what did not come (`silence`: "no response", "no data on the stream") and
 * from where, and that error, returned, is what the call fails with rather
 * than the abort it caused below.
 */
export function cutIdle(
  controller: AbortController,
  silence: string,
  url: string,
  idleMs: number | undefined,
  binding: Binding,
): CallTimeoutError {
  const error = new CallTimeoutError(`${silence} from ${safeUrl(url)} for ${idleMs} ms`, { binding, kind: "idle" });
  controller.abort(error);
  return error;
}

export function withIdleTimeout<T>(
  source: AsyncIterable<T>,
  idleMs: number | undefined,
  onIdle: () => void,
  /**
   * The call's signal. A consumer that stops reading early may never call
   * `next` or `return` again; the signal is how its timer still stops.
   */
  signal: AbortSignal,
): AsyncIterable<T> {
  return { [Symbol.asyncIterator]: () => new IdleWatch(source[Symbol.asyncIterator](), idleMs, onIdle, signal) };
}

/**
 * Starts the idle timeout of a stream whose response has not arrived yet:
 * from the moment the request is sent, silence counts. Returns what stops
 * it; the timer does not keep the process alive.
 */
export function idleBeforeResponse(idleMs: number | undefined, onIdle: () => void): () => void {
  if (idleMs === undefined) return noop;
  const timer = startTimer(onIdle, idleMs);
  (timer as { unref?: () => void }).unref?.();
  return () => clearTimeout(timer);
}

function noop(): void {}

/**
 * The watching iterator. A class, not a generator or a set of closures: a
 * generator suspended at `yield` keeps the value it yielded referenced, and
 * a slow stream spends its life there; and a thousand open streams would
 * each hold a handful of closures.
 */
class IdleWatch<T> implements AsyncIterator<T> {
  private waitingSince: number | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** How the read in progress settles; undefined between reads. Two fields, not an object made per read. */
  private resolve: ((r: IteratorResult<T>) => void) | undefined;
  private reject: ((e: unknown) => void) | undefined;

  constructor(
    private readonly it: AsyncIterator<T>,
    private readonly idleMs: number | undefined,
    private readonly onIdle: () => void,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener("abort", this.aborted, { once: true });
  }

  next(): Promise<IteratorResult<T>> {
    if (this.signal.aborted) return Promise.reject(this.signal.reason);
    this.waitingSince = Date.now();
    if (this.timer === undefined && this.idleMs !== undefined) this.arm(this.idleMs);
    return new Promise(this.read);
  }

  return(): Promise<IteratorResult<T>> {
    this.end();
    // Not waited for: the body is let go at once, and one whose closing
    // never completes must not hold the reader that stopped.
    try {
      void Promise.resolve(this.it.return?.()).catch(noop);
    } catch {
      // A body that cannot close has nothing more to give.
    }
    return Promise.resolve(DONE);
  }

  private readonly read = (resolve: (r: IteratorResult<T>) => void, reject: (e: unknown) => void): void => {
    this.resolve = resolve;
    this.reject = reject;
    this.it.next().then(this.readDone, this.readFailed);
  };

  /**
   * Ends the read in progress: its settling functions are taken once, so a
   * read already failed by an abort settles nothing when the body answers late.
   */
  private settled(): void {
    this.resolve = this.reject = this.waitingSince = undefined;
  }

  private readonly readDone = (r: IteratorResult<T>): void => {
    const resolve = this.resolve;
    this.settled();
    if (r.done) this.end();
    resolve?.(r);
  };

  private readonly readFailed = (e: unknown): void => {
    const reject = this.reject;
    this.settled();
    this.end();
    reject?.(e);
  };

  private arm(ms: number): void {
    this.timer = startTimer(this.check, ms);
    // The open connection keeps a process alive while a stream runs; the
    // watchdog alone must not.
    (this.timer as { unref?: () => void }).unref?.();
  }

  private readonly check = (): void => {
    this.timer = undefined;
    if (this.waitingSince === undefined || this.signal.aborted) return;
    const waited = Date.now() - this.waitingSince;
    if (waited >= this.idleMs!) this.onIdle();
    else this.arm(this.idleMs! - waited);
  };

  private readonly aborted = (): void => {
    this.stop();
    const reject = this.reject;
    this.settled();
    reject?.(this.signal.reason);
  };

  private stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private end(): void {
    this.stop();
    this.signal.removeEventListener("abort", this.aborted);
  }
}
