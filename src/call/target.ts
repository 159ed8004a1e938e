/**
 * Which interface a call goes to, as interceptors can learn it: the binding,
 * the protocol version and the interface URL of the transport that runs the
 * call. `connect()` builds every transport through the registry
 * (bindings/registry.ts), which puts the interface's `CallTarget` in each
 * call's context values before the caller's interceptors run; so the logging
 * and tracing interceptors name the interface a call really used, also after
 * a failover and on 0.3 interfaces, whatever the binding.
 *
 * The cost is paid only where there are interceptors to read it: one frozen
 * object per interface, and per call one extra interceptor frame and a
 * property write on the call's context values (no allocation).
 */
import { createContextKey, type Interceptor, type StreamRequest, type UnaryRequest } from "@connectrpc/connect";
import type { Binding, Candidate } from "../base/bindings.js";
import { A2A_VERSION } from "../protocol/headers.js";

/**
 * The interface a call goes to (see the module comment).
 * @category Interceptors and observability
 */
export interface CallTarget {
  /** The binding of the interface. */
  readonly binding: Binding;
  /** The A2A protocol version spoken with it, Major.Minor: "1.0", "0.3". */
  readonly version: string;
  /** The interface URL as the Agent Card lists it (for gRPC possibly a bare `host:port`). */
  readonly url: string;
}

/**
 * The context key of a call's `CallTarget`, for interceptors of one's own:
 * `req.contextValues.get(callTargetKey)`. Set on calls of the transports
 * `connect()` builds; undefined on a transport built by hand.
 * @category Interceptors and observability
 */
export const callTargetKey = createContextKey<CallTarget | undefined>(undefined, { description: "a2a call target" });

/**
 * The interceptors a transport for `candidate` runs: the caller's, behind one
 * that announces the candidate as the call's target. Without interceptors
 * nobody reads it, and none is added.
 */
export function withTarget(candidate: Candidate, interceptors: Interceptor[] | undefined): Interceptor[] | undefined {
  if (!interceptors?.length) return interceptors;
  const target: CallTarget = Object.freeze({ binding: candidate.binding, version: candidate.version, url: candidate.interface.url });
  const announce: Interceptor = (next) => (req) => {
    // A failover's attempts share the call's context values: what an earlier attempt noted goes.
    req.contextValues.set(callTargetKey, target).set(sentUrlKey, undefined);
    return next(req);
  };
  return [announce, ...interceptors];
}

/**
 * The binding and version of a call as an interceptor sees it: its target
 * when the transport announced one; otherwise what the request shows (the
 * `A2A-Version` it carries, gRPC's content type) and the binding the caller
 * named.
 */
export function targetOf(
  req: UnaryRequest | StreamRequest,
  binding: Binding | undefined,
): { binding: Binding | undefined; version: string | undefined } {
  const target = req.contextValues.get(callTargetKey);
  if (target) return target;
  const grpc = /^application\/grpc/i.test(req.header.get("content-type") ?? "");
  return { binding: binding ?? (grpc ? "GRPC" : undefined), version: req.header.get(A2A_VERSION) ?? undefined };
}

/**
 * The URL a call was sent to, where the transport chooses it below the
 * caller's interceptors (HTTP+JSON on A2A 0.3, whose route comes from the
 * translated request): noted there by `noteSentUrl`.
 */
const sentUrlKey = createContextKey<string | undefined>(undefined, { description: "a2a sent url" });

/** Notes the request's URL for the interceptors above (see `sentUrlOf`); for the transport under a 0.3 adapter. */
export const noteSentUrl: Interceptor = (next) => (req) => {
  req.contextValues.set(sentUrlKey, req.url);
  return next(req);
};

/** The URL a call went to, as its interceptors can know it once it is sent: the noted one, or the request's. */
export function sentUrlOf(req: UnaryRequest | StreamRequest): string {
  return req.contextValues.get(sentUrlKey) ?? req.url;
}

/**
 * The URL the caller's interceptors gave a call's request, where they run
 * above a transport that chooses the URL itself (gRPC on A2A 0.3, under the
 * 0.3 adapter: its path names the 0.3 method): noted by the adapter when
 * they changed it (`noteUrlFromAbove`), put on the request below by
 * `urlFromAbove`. So the transport sends the request where the 1.0 one
 * would, or refuses the URL as that one does, instead of ignoring it.
 */
const urlFromAboveKey = createContextKey<string | undefined>(undefined, { description: "a2a url from above" });

/** Notes `req`'s URL for the transport below when it is not `described`, the one the interceptors were shown. */
export function noteUrlFromAbove(req: UnaryRequest | StreamRequest, described: string): void {
  // Set either way: a failover's attempts share the call's context values.
  req.contextValues.set(urlFromAboveKey, req.url === described ? undefined : req.url);
}

/** The URL noted above the request (`noteUrlFromAbove`), if the interceptors there changed it. */
export function urlAbove(req: UnaryRequest | StreamRequest): string | undefined {
  return req.contextValues.get(urlFromAboveKey);
}

/** Sends the request to the URL noted above it, if any; for the transport under a 0.3 adapter. */
export const urlFromAbove: Interceptor = (next) => (req) => {
  const url = urlAbove(req);
  return next(url === undefined ? req : { ...req, url });
};
