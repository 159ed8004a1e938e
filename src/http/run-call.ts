/**
 * Runs one call of a hand-written connect Transport: applies connect
 * interceptors, links the caller's signal and the deadline into the request's
 * signal, and reports the caller's abort as `AbortedError` (the caller's
 * reason as its cause) and the deadline as `CallTimeoutError`. The signal is
 * aborted with that error, so that what the HTTP client rejects with, and
 * what the interceptors see, is the error the caller gets; what the binding
 * classified passes as it is (no ConnectError around it).
 *
 * Semantically these are connect's `runUnaryCall` and `runStreamingCall`.
 * They exist because connect's pair cost about a third of the client CPU of
 * a unary call on a keep-alive connection (measured without the network: 140
 * µs a call with connect's, 80 with these): two AbortControllers with linked
 * listeners per call, and an abort with a fresh DOMException at the end of
 * every call that succeeded. Here one controller serves a call, the caller's
 * signal gets one listener that is removed when the call ends, and only a
 * stream (which may hold a response the reader left) is aborted when done.
 *
 * A call whose signal is already aborted fails at once without running
 * anything: no interceptor (one may fetch a token) and no request.
 *
 * A call ends by its deadline or its signal whatever the server and the
 * HTTP client do: what the runner waits for (the response, and the whole
 * body of a unary call) is raced against the call's signal, so an answer
 * that never comes (a 101 the client cannot use, headers and then silence,
 * a `fetch` that ignores its signal) fails the call when the signal aborts.
 * The reads of a stream's body are raced the same way, per chunk, by the
 * body's watchdog (idle.ts).
 *
 * A failed call's error, whoever built it (the transport from the agent's
 * answer, an interceptor, the HTTP client), has the credentials of the
 * request as it was finally sent (the headers and URL after every
 * interceptor, and those its message hands the agent: a push config's)
 * masked before the caller sees it (sent-secrets.ts, loaded then): an
 * agent may echo any of them.
 */
import type { ContextValues, Interceptor, StreamRequest, StreamResponse, UnaryRequest, UnaryResponse } from "@connectrpc/connect";
import type { DescMessage, DescMethod } from "@bufbuild/protobuf";
import { A2AError, AbortedError, CallTimeoutError } from "../errors/family.js";
import { classification, unclassified } from "../errors/classification.js";
import type { Binding } from "../base/bindings.js";
import { abortError } from "../base/abort.js";
import { DONE, type MayHold, singleValue } from "../base/iterables.js";
import { startTimer } from "../base/timers.js";
import { safeUrl } from "../base/urls.js";
import type { AbortLike } from "./call-abort.js";
import { callRecordKey } from "../call/record.js";

/**
 * The reason a request signal carries once its call is over: one for all
 * calls, made by the first call that ends. No A2AError: the call did not
 * fail, and nobody waits for its answer any more.
 */
let finished: Error | undefined;
const finishedReason = () => (finished ??= abortError("the call has finished"));

/** gRPC's CANCELLED: the `grpcCode` of an aborted call's AbortedError, on every binding. */
const CANCELLED = 1;

interface CallOptions<Req> {
  /** The binding whose call this is, named by the errors of its abort and deadline. */
  binding: Binding;
  interceptors: Interceptor[] | undefined;
  signal: AbortSignal | undefined;
  /** The request's timeout, as its call's deadline gave it (call/deadline.ts's `requestMs`). */
  timeoutMs: number | undefined;
  /**
   * The controller of the request's signal, when the transport has to end
   * the call itself (a stream gone idle); default: one of the runner's.
   */
  controller?: AbortController | undefined;
  req: Omit<Req, "signal">;
  /**
   * Set when the transport's `next` takes what its HTTP client is to watch
   * as its second argument rather than reading `req.signal`: whether that
   * client takes the call itself (an AbortLike, call-abort.ts) rather than
   * a signal. A call without interceptors then gives its request no signal,
   * and makes one only for a client that needs it. Undefined: `next` reads
   * `req.signal`.
   */
  lean?: boolean | undefined;
}

/**
 * One call's signal, and how the call ends it. A class rather than closures:
 * a stream holds its call for as long as it is open. The gRPC binding's
 * transport uses it too, for calls that do not run through this runner.
 *
 * The AbortSignal is made only for a call that needs one (interceptors,
 * which see it on the request; an HTTP client of another's; a stream): in
 * Node making one and listening to it cost about a tenth of the CPU of a
 * unary call on a keep-alive connection. The call's own HTTP client listens
 * to the call instead.
 */
export class CallSignal implements AbortLike {
  private controller: AbortController | undefined;
  // Whether and why the call was aborted (AbortLike): fields rather than
  // getters, which the runner and the HTTP client read on every call; set once
  // the call is aborted, by `end` or the transport's own controller.
  aborted = false;
  reason: unknown = undefined;
  /** Who listens to the call itself instead of its signal (the node:http client). */
  private listeners: (() => void)[] | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Fails what `race` (or the unary runner) waits for. */
  lose: ((reason: unknown) => void) | undefined;
  /**
   * The request as sent (after the interceptors; before, the runner's own):
   * its headers, URL and message are what a failure masks (`rejectClean`),
   * read only then.
   */
  sentRequest: SentRequest | undefined;
  /** The runner's own request, whose message is masked where the one sent carries none that can be read. */
  ownRequest: SentRequest | undefined;

  constructor(
    private readonly outer: AbortSignal | undefined,
    /**
     * The request's context values: its call's record (call/record.ts),
     * whose deadline gave the request its timeout and names the limit of
     * the deadline's error.
     */
    private readonly values: ContextValues | undefined,
    /** The request's timeout, as that deadline gave it (`requestMs`): never 0 or less. */
    private readonly timeoutMs: number | undefined,
    /** The request URL, named by the deadline's error. */
    private readonly url: string,
    /** The binding, named by the errors of the call's abort and deadline. */
    private readonly binding: Binding,
    /** The transport's own controller, when it ends the call itself (a stream gone idle). */
    controller?: AbortController,
  ) {
    // Aborts of the runner's own go through `abort`; the transport's need a listener.
    if (controller) {
      this.controller = controller;
      if (controller.signal.aborted) {
        this.aborted = true;
        this.reason = controller.signal.reason;
      } else controller.signal.addEventListener("abort", this.onControllerAbort, { once: true });
    }
    if (outer?.aborted) this.onOuterAbort();
    else outer?.addEventListener("abort", this.onOuterAbort);
    // Made even for a call aborted already: it fails at once, which clears it.
    if (timeoutMs !== undefined) this.timer = startTimer(this.expire, timeoutMs);
  }

  /** The call's AbortSignal, made when first asked for. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Listens to the call's abort without making its signal (AbortLike). Called at most once. */
  addEventListener(_type: "abort", listener: () => void): void {
    if (this.aborted) return;
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    const i = this.listeners?.indexOf(listener) ?? -1;
    if (i >= 0) this.listeners!.splice(i, 1);
  }

  /**
   * What an HTTP client is to watch for the request `req` of this call: the
   * call itself when `req` still carries the call's own signal and the
   * client takes an AbortLike (`lean`, call-abort.ts), which spares it a
   * listener on the signal; else the request's signal.
   */
  abortFor(req: { signal: AbortSignal }, lean: boolean): AbortSignal | CallSignal {
    const signal = req.signal;
    return lean && signal === this.controller?.signal ? this : signal;
  }

  /**
   * Settles as `work` does, or rejects with the call's abort reason as soon
   * as the call is aborted, whatever `work` still waits for. No listener per
   * call (base/abort.ts's `unlessAborted` adds one): the runner's own aborts, the
   * caller's and the deadline's, fail the race directly.
   */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.aborted) {
      // Settled later or never, `work` is nobody's unhandled rejection.
      work.catch(ignore);
      return Promise.reject(this.reason);
    }
    return new Promise<T>((resolve, reject) => {
      this.lose = reject;
      work.then(resolve, reject);
    });
  }

  /**
   * The call failed with `reason`: the error to report, already applied to
   * the signal. Once the call is aborted, what aborted it is what the caller
   * hears about, not the error the abort caused in the HTTP client. An
   * A2AError, which the binding named, is reported as it is, at once;
   * anything else came from above the wire (an interceptor, see
   * classify.ts's `clientFault`), named once the classification has loaded,
   * within the call's deadline and signal (a load that fails is named so).
   */
  fail(reason: unknown): Promise<unknown> {
    if (this.aborted || reason === undefined || reason instanceof A2AError) return Promise.resolve(this.failWith(reason));
    return this.race(classification()).then(
      (m) => this.failWith(m.clientFault(reason)),
      (loadError: unknown) => this.failWith(unclassified(reason, loadError, this.binding)),
    );
  }

  /**
   * The call failed with `e`, already named (code that has the classification
   * loaded, as gRPC's, names it itself): what aborted it once aborted, else
   * `e`, applied to its signal.
   */
  failWith(e: unknown): unknown {
    const reported = this.aborted ? this.abortedError(this.reason) : e;
    this.release();
    this.end(reported);
    return reported;
  }

  /** What the call reports once aborted with `reason`: an A2AError as it is (the deadline's, a stream gone idle), else AbortedError. */
  private abortedError(reason: unknown): A2AError {
    if (reason instanceof A2AError) return reason;
    return new AbortedError("the call was aborted", { binding: this.binding, grpcCode: CANCELLED, cause: reason });
  }

  /**
   * `next`, noting the request it is given: the innermost function of the
   * interceptor chain sees the headers and URL that go on the wire.
   */
  sending<R extends SentRequest, T>(next: (req: R) => T): (req: R) => T {
    return (req) => {
      this.sentRequest = req;
      return next(req);
    };
  }

  /** A rejection with `e`, without the credentials of the request as sent. */
  rejectClean(e: unknown): Promise<never> {
    // Masking works in place: the shared reason of finished calls is not touched.
    if (e !== undefined && e === finished) return Promise.reject(e);
    const req = this.sentRequest;
    // Whose request fields the URL's query carries: those of an HTTP+JSON
    // GET, which are not credentials; a request with a body (every other
    // call) holds none of them there.
    return req
      ? rejectWithoutSent(
          e,
          req.header,
          req.url,
          req.requestMethod === "GET" ? req.method : undefined,
          messageOf(req) ?? messageOf(this.ownRequest),
        )
      : Promise.reject(e);
  }

  /** The call is over; releases the timer and the caller's signal, and aborts the request signal. */
  finish(): void {
    this.release();
    this.end(finishedReason());
  }

  /** The call is over and holds nothing: releases the timer and the caller's signal. */
  release(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener("abort", this.onOuterAbort);
    this.lose = undefined;
  }

  /** Aborts the call with `reason` (once): its signal, if made, and who listens to the call. */
  private end(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    this.notify();
  }

  private notify(): void {
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const l of listeners) l();
  }

  private abort(reason: unknown): void {
    this.end(reason);
    this.lost();
  }

  private readonly lost = (): void => this.lose?.(this.reason);

  /** The transport aborted its own controller (a stream gone idle). */
  private readonly onControllerAbort = (): void => {
    if (!this.aborted) {
      this.aborted = true;
      this.reason = this.controller!.signal.reason;
      this.notify();
    }
    this.lost();
  };

  // The caller's reason is the cause: the caller finds it on the error.
  private readonly onOuterAbort = (): void => this.abort(this.abortedError(this.outer!.reason ?? abortError()));

  // The limit is the deadline's to name (the call's whole one, when this request had what was left of it).
  // The URL is made readable only here: parsing one for every call costs.
  private readonly expire = (): void =>
    this.abort(
      new CallTimeoutError(
        `the call to ${safeUrl(this.url)} did not complete within ${this.values?.get(callRecordKey)?.namedLimitMs(this.timeoutMs) ?? this.timeoutMs} ms`,
        {
          binding: this.binding,
          kind: "deadline",
        },
      ),
    );
}

function ignore(): void {}

/** What the runner notes of a request as it is sent. */
interface SentRequest {
  header: Headers;
  url: string;
  method?: DescMethod | undefined;
  requestMethod?: string | undefined;
  stream?: boolean | undefined;
  message?: unknown;
}

/**
 * The message of `req`, which may hand the agent credentials (a push
 * config's): a stream's one message when it can be read without reading the
 * stream (`single`), else none.
 */
function messageOf(req: SentRequest | undefined): unknown {
  return req?.stream ? singleValue(req.message as AsyncIterable<unknown>) : req?.message;
}

/**
 * A rejection with `e`, its credentials sent in `header`, `url` and
 * `message` masked (sent-secrets.ts). Only failures load the masking code:
 * a call that succeeds pays nothing for it.
 */
export function rejectWithoutSent(
  e: unknown,
  header: Headers | undefined,
  url: string | undefined,
  method?: DescMethod,
  message?: unknown,
): Promise<never> {
  if (header === undefined && url === undefined && message === undefined) return Promise.reject(e);
  return import("./sent-secrets.js").then(
    (m) => Promise.reject(m.redactSent(e, header, url, method, message)),
    // The masking code did not load (a browser gone offline): an error that
    // cannot be cleaned is not shown.
    () => Promise.reject(new A2AError(`the call to ${safeUrl(url ?? "")} failed; its error could not be cleaned of credentials`)),
  );
}

/** `next(req)`, a synchronous throw (an interceptor's, before it returns a promise) as its rejection. */
function started<R, T>(next: (req: R) => Promise<T>, req: R): Promise<T> {
  try {
    return next(req);
  } catch (e) {
    return Promise.reject(e);
  }
}

function applyInterceptors<T>(next: T, interceptors: Interceptor[]): T {
  // The first interceptor is the outermost, as in connect.
  return interceptors.reduceRight((n, i) => i(n as never) as T, next);
}

/**
 * Runs a unary call through the interceptors; see the module comment. A
 * unary `next` must have read the whole response when it resolves (the HTTP
 * bindings do), so a call that succeeds only releases its timer and listener:
 * dispatching an abort nobody needs costs as much as the rest of the call.
 */
export function runUnary<I extends DescMessage, O extends DescMessage>(
  opt: CallOptions<UnaryRequest<I, O>> & {
    next: (req: UnaryRequest<I, O>, abort: AbortSignal | CallSignal) => Promise<UnaryResponse<I, O>>;
  },
): Promise<UnaryResponse<I, O>> {
  const call = new CallSignal(opt.signal, opt.req.contextValues, opt.timeoutMs, opt.req.url, opt.binding);
  if (call.aborted) return call.fail(call.reason).then((e) => call.rejectClean(e));
  const lean = opt.lean === true;
  // Straight to a transport that is handed what to watch when no interceptor
  // sees the request: it goes without a signal, and the call makes one only
  // for a client that needs it. `next` is async: it cannot throw.
  const direct = opt.lean !== undefined && !opt.interceptors?.length;
  const req = (direct ? opt.req : { ...opt.req, signal: call.signal }) as UnaryRequest<I, O>;
  call.sentRequest = call.ownRequest = req;
  const work = direct ? opt.next(req, lean ? call : call.signal) : intercepted(opt, req, call, lean);
  // Settles with the response, or fails as soon as the call is aborted (now,
  // by an interceptor), whatever `work` still waits for: `race`'s rule,
  // without its extra turn.
  return new Promise<UnaryResponse<I, O>>((resolve, reject) => {
    if (call.aborted) reject(call.reason);
    call.lose = reject;
    work.then((res) => {
      call.release();
      resolve(res);
    }, reject);
  }).catch((e: unknown) => call.fail(e).then((failure) => call.rejectClean(failure)));
}

/** `opt.next(req)` through the interceptors, if any: the request as the runner gives it to them, with the call's signal. */
function intercepted<I extends DescMessage, O extends DescMessage>(
  opt: Parameters<typeof runUnary<I, O>>[0],
  req: UnaryRequest<I, O>,
  call: CallSignal,
  lean: boolean,
): Promise<UnaryResponse<I, O>> {
  const send = (r: UnaryRequest<I, O>) => opt.next(r, call.abortFor(r, lean));
  // Without interceptors the request is the one sent: no wrapper then.
  return started(opt.interceptors?.length ? applyInterceptors(call.sending(send), opt.interceptors) : send, req);
}

/**
 * Runs a server-streaming call through the interceptors; see the module
 * comment. The call is over when the response stream ends, fails, or its
 * reader stops early; then the request signal is aborted, so that what the
 * HTTP client still holds is let go.
 */
export function runStreaming<I extends DescMessage, O extends DescMessage>(
  opt: CallOptions<StreamRequest<I, O>> & { next: (req: StreamRequest<I, O>) => Promise<StreamResponse<I, O>> },
): Promise<StreamResponse<I, O>> {
  const call = new CallSignal(opt.signal, opt.req.contextValues, opt.timeoutMs, opt.req.url, opt.binding, opt.controller);
  if (call.aborted) return call.fail(call.reason).then((e) => call.rejectClean(e));
  const req = { ...opt.req, signal: call.signal } as StreamRequest<I, O>;
  call.sentRequest = call.ownRequest = req;
  const next = opt.interceptors?.length ? applyInterceptors(call.sending(opt.next), opt.interceptors) : opt.next;
  return call.race(started(next, req)).then(
    (res) => ({ ...res, message: ending(res.message, call) }),
    (e: unknown) => call.fail(e).then((failure) => call.rejectClean(failure)),
  );
}

/**
 * The messages of a stream, ending the call when they end, fail or are given
 * up. An iterator rather than an async generator: every message passes
 * through here, and a generator's queue and extra turns cost more per
 * message than the rest of this layer.
 */
class Ending<T> implements AsyncIterableIterator<T> {
  private over = false;

  constructor(
    private readonly inner: MayHold<T>,
    private readonly call: CallSignal,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.over) return Promise.resolve(DONE);
    return this.inner.next().then(this.passOn, this.failOn);
  }

  /** A message the stream below holds, handed over now (base/iterables.ts): never its end, which `next` reads. */
  takeHeld(): IteratorYieldResult<T> | undefined {
    return this.over ? undefined : this.inner.takeHeld?.();
  }

  async return(): Promise<IteratorResult<T>> {
    if (!this.over) {
      this.over = true;
      // The call ends first: a read still pending (a reader that returns
      // while its `next` waits) is failed by the abort instead of holding
      // the return until the server sends something.
      this.call.finish();
      await this.inner.return?.();
    }
    return DONE;
  }

  private readonly passOn = (r: IteratorResult<T>): IteratorResult<T> => {
    if (r.done && !this.over) {
      this.over = true;
      this.call.finish();
    }
    return r;
  };

  private readonly failOn = (e: unknown): Promise<never> => {
    if (this.over) return this.call.rejectClean(e);
    this.over = true;
    return this.call.fail(e).then((failure) => this.call.rejectClean(failure));
  };
}

function ending<T>(messages: AsyncIterable<T>, call: CallSignal): AsyncIterable<T> {
  return new Ending(messages[Symbol.asyncIterator](), call);
}
