/**
 * Async iterables as calls use them: a request stream of one message that
 * a runner can read without iterating, and small stream adapters.
 */
/** The end of a stream: one object for every iterator's `done`, none made per stream. */
export const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * The value of an iterable that `single` made, taken without iterating (an
 * HTTP client sending a request body of one chunk need not wait the turns
 * a read takes); undefined for any other iterable.
 */
export function singleValue<T>(source: AsyncIterable<T>): T | undefined {
  return source instanceof Single ? (source.value as T) : undefined;
}

/**
 * An async iterable of one value: a request stream of one message, or a
 * request body. Every call makes one or two, and most are never iterated
 * (`singleValue` reads them): a class, its value a plain field, where an
 * object literal with a symbol-keyed value and method cost about 250 ns to
 * make; reading it as a stream, which a few callers do, takes a generator.
 */
export function single<T>(value: T): AsyncIterable<T> {
  return new Single(value);
}

class Single<T> implements AsyncIterable<T> {
  constructor(readonly value: T) {}

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    yield this.value;
  }
}

/**
 * A stream iterator that may hand over a value it already holds (the rest
 * of a batch of events one chunk completed) without waiting a turn of the
 * microtask queue. The iterators a stream's event passes through each ask
 * the one below them first, so such an event reaches the reader in the one
 * turn its own `await` takes, not one per layer.
 */
export interface MayHold<T> extends AsyncIterator<T> {
  /**
   * The next value, taken now, when one is held and nothing else waits
   * before it (a read under way, the stream's end, a failure); undefined
   * otherwise, and then `next` is what reads on.
   */
  takeHeld?(): IteratorYieldResult<T> | undefined;
}

/**
 * A rejection with `error`, or with what it settles to when it is a
 * promise (an error named once the code that names it has loaded).
 */
export async function rejectedWith(error: unknown): Promise<never> {
  throw await error;
}

/** A stream that fails with `error` when first read, having sent nothing. */
export async function* failing(error: Error | Promise<Error>): AsyncGenerator<never> {
  throw await error;
}

/** `source` with `fn` applied to each value. */
export async function* mapAsync<T, U>(source: AsyncIterable<T>, fn: (t: T) => U): AsyncGenerator<U> {
  for await (const t of source) yield fn(t);
}

/**
 * `source` with `fn` applied to each value, as `mapAsync`, but a `single`
 * stays one (`fn` applied at once): the call runner reads a stream's one
 * request message from it without reading the stream (run-call.ts).
 */
export function mapRequests<T, U>(source: AsyncIterable<T>, fn: (t: T) => U): AsyncIterable<U> {
  const only = singleValue(source);
  return only === undefined ? mapAsync(source, fn) : single(fn(only));
}

/**
 * The one message of a request stream (A2A's streams are server-streaming):
 * taken from a `single` without reading it, as every step a stream's
 * request passes through would otherwise read it again; else the last one
 * read.
 */
export async function onlyValue<T>(source: AsyncIterable<T>): Promise<T | undefined> {
  const only = singleValue(source);
  if (only !== undefined) return only;
  let last: T | undefined;
  for await (const v of source) last = v;
  return last;
}
