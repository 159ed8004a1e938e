/**
 * A call as one record, built once per operation by the A2AClient, or
 * from its arguments by the first transport a call reaches without one (a
 * transport called directly): the operation's one deadline (the record is
 * it, call/deadline.ts), and what a stream's calls learn (the last SSE
 * event id, the server's `retry:`) as fields rather than side channels.
 * The prepare step (prepare.ts) fills in what the steps after it read:
 * the method and its traits, the request as sent, the headers with the
 * activated extensions, the caller's signal and the timeout the call gave.
 * The tenant and the extensions are not kept apart: prepare puts them into
 * the request and the headers, where every step below reads them, and a
 * field no step reads would cost every call. A transport, given those as
 * connect's Transport signature hands them, reads its arguments; a record
 * it made itself has them undefined.
 *
 * It travels as the call's connect context values: it is the
 * `contextValues` of every request the operation makes (or is carried in
 * those a transport's caller gave), which connect's interceptors and our
 * transports already carry, so the record costs a call no object more than
 * those values did, and `req.contextValues.get(callRecordKey)` finds it
 * anywhere below the client. A resumable stream is one operation: its
 * first request, every resubscribe and the reads a resumption makes share
 * its record, and with it its deadline and position.
 */
import { type ContextKey, type ContextValues, createContextKey } from "@connectrpc/connect";
import type { DescMethod } from "@bufbuild/protobuf";
import { CallDeadline } from "./deadline.js";
import type { MethodTraits } from "./method-traits.js";
import type { StreamState, StreamWatcher } from "./stream-state.js";

/** The context key under which a request's context values give its call's record (the values themselves). */
export const callRecordKey = createContextKey<CallRecord | undefined>(undefined, { description: "a2a call" });

/** One operation's record (see the module comment): its deadline, its stream's position, and its context values. */
export class CallRecord extends CallDeadline implements ContextValues, StreamState {
  // The call as prepared (prepare.ts). A resumable stream's record holds
  // those of its latest call (its first, a resubscribe, a read), so a step
  // reads them as its call starts, never later.
  /** The method called. */
  declare method: DescMethod | undefined;
  /** What it does (method-traits.ts). */
  declare traits: MethodTraits | undefined;
  /** The request as sent, or the promise of it while plain input is read (request.ts's readRequest). */
  declare request: unknown;
  /** The call's headers, with the activated extensions. */
  declare headers: HeadersInit | undefined;
  /** The caller's signal. */
  declare signal: AbortSignal | undefined;
  /** The timeout the call gave (a unary call: its own, else the client's), which its first request is given; undefined: the transport's. */
  declare givenMs: number | undefined;
  /** The `id:` of the last SSE event, sent back as `Last-Event-ID`; the transport writes it. */
  lastEventId: string | undefined;
  /** The server's `retry:` hint, in milliseconds; the transport writes it. */
  retryMs: number | undefined;
  /**
   * Told what a resumable stream does between its calls, by the resumption
   * loop (client/resume.ts); interceptors that follow the stream as one
   * (tracing) add themselves on its first call. Undefined for any other
   * call: only a resumable stream is followed across calls.
   */
  watchers: StreamWatcher[] | undefined;
  /**
   * For a stream that does not resume (`resume: false`): the error its
   * reader is given when it ended cleanly but before its task settled
   * (client/end-watch.ts), else undefined. Those who watch the call
   * (call/watch.ts: logs, spans) record that failure, not a success.
   */
  endCheck: (() => unknown) | undefined;

  /** The operation's one deadline: the record is it (call/deadline.ts), so a call makes one object for both. */
  get deadline(): this {
    return this;
  }

  get<T>(key: ContextKey<T>): T {
    const own = this as unknown as Record<symbol, T>;
    return key === (callRecordKey as ContextKey<unknown>) ? (this as unknown as T) : key.id in own ? own[key.id]! : key.defaultValue;
  }

  set<T>(key: ContextKey<T>, value: T): this {
    (this as unknown as Record<symbol, T>)[key.id] = value;
    return this;
  }

  delete(key: ContextKey<unknown>): this {
    delete (this as unknown as Record<symbol, unknown>)[key.id];
    return this;
  }
}

/**
 * The record of a call that reaches a step with `contextValues`: the record
 * they are (an A2AClient made it) or carry, else one made from the call's
 * arguments (a transport called directly, not through an A2AClient) and put
 * into the values given, whose deadline is the call's `timeoutMs` for a
 * call of `kind`. The step passes `contextValues ?? record` on.
 */
export function recordFor(kind: "unary" | "stream", timeoutMs: number | undefined, contextValues: ContextValues | undefined): CallRecord {
  if (contextValues instanceof CallRecord) return contextValues;
  let record = contextValues?.get(callRecordKey);
  if (!record) {
    record = new CallRecord(kind, timeoutMs);
    contextValues?.set(callRecordKey, record);
  }
  return record;
}
