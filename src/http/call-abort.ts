/**
 * How the bindings hand a call's abort to an HTTP client of this package
 * without an AbortSignal. Making a signal and listening to it cost about a
 * tenth of the CPU of a unary call over keep-alive node:http, so a client
 * marked here is given the call itself (run-call.ts's `CallSignal`, an
 * `AbortLike`) as `callAbort` in place of `signal`. Every other client, the
 * caller's own included, gets a real signal.
 */
import type { UniversalClientFn, UniversalClientRequest } from "@connectrpc/connect/protocol";

/** What an HTTP client needs of a call's abort: the part of `AbortSignal` the node:http client uses. */
export interface AbortLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** A request to a client that takes an AbortLike: `callAbort` instead of `signal`. */
export interface CallAbortRequest extends UniversalClientRequest {
  callAbort?: AbortLike | undefined;
  /**
   * Set when `header` is the transport's own, shared by its calls and never
   * changed: a client may keep what it reads of it for the next request.
   */
  sharedHeader?: boolean | undefined;
}

const takers = new WeakSet<UniversalClientFn>();

/** Marks `client` as one that honours `callAbort` as it would `signal`. */
export function takingCallAbort<C extends UniversalClientFn>(client: C): C {
  takers.add(client);
  return client;
}

/** Whether `client` honours `callAbort` (see `takingCallAbort`). */
export function takesCallAbort(client: UniversalClientFn | undefined): boolean {
  return client !== undefined && takers.has(client);
}
