/**
 * The gRPC binding (spec section 10) over connect-node's HTTP/2 gRPC
 * transport. Node only: browsers cannot speak gRPC to a plain gRPC server
 * (grpc-web.ts reaches one through a gRPC-web proxy). What the binding adds
 * to connect's transport is shared with gRPC-web, in grpc-common.ts.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { createGrpcTransport as createConnectGrpcTransport } from "@connectrpc/connect-node";
import { ConnectionError, toA2AError } from "../errors.js";
import { a2aGrpcTransport } from "./grpc-common.js";
import { grpcBaseUrl } from "./grpc-url.js";
import { guardedSessionManager } from "../node/h2-session.js";
import type { TransportOptions } from "./options.js";
import type { A2ATransport } from "./transport.js";

export { grpcBaseUrl };

/** Options of the gRPC transport: TLS and the HTTP/2 connection's health checks. */
export interface GrpcTransportOptions extends TransportOptions {
  /**
   * Use TLS. Default: true, except for an `http://` URL or a bare `host:port`
   * on a loopback address.
   */
  tls?: boolean | undefined;
  /** Largest message accepted from the server, in bytes. Default 16 MiB. */
  readMaxBytes?: number | undefined;
  /**
   * HTTP/2 PING interval while streams are open, in milliseconds. A
   * connection that stops answering pings is closed, so its calls fail and
   * new ones get a fresh connection instead of waiting on a dead one.
   * Default 15 000.
   */
  pingIntervalMs?: number | undefined;
  /** How long to wait for a PING's answer. Default 10 000. */
  pingTimeoutMs?: number | undefined;
}

/**
 * A transport for an A2A 1.0 gRPC interface, over HTTP/2 (Node only).
 * `baseUrl` may be `host:port`, as cards list gRPC interfaces.
 */
export function createGrpcTransport(options: GrpcTransportOptions): A2ATransport {
  const baseUrl = grpcBaseUrl(options.baseUrl, options.tls);
  const inner = createConnectGrpcTransport({
    baseUrl,
    interceptors: options.interceptors,
    readMaxBytes: options.readMaxBytes ?? 16 * 1024 * 1024,
    sessionManager: guardedSessionManager(baseUrl, {
      pingIntervalMs: options.pingIntervalMs ?? 15_000,
      pingTimeoutMs: options.pingTimeoutMs ?? 10_000,
    }),
  });
  return a2aGrpcTransport(inner, options, asConnectionError);
}

/**
 * A call's error as a ConnectionError when it is a cut connection rather
 * than the server's answer: no grpc-status, and the code HTTP/2 gives a
 * stream whose connection was closed (Canceled), reset (Aborted, from
 * ECONNRESET) or lost (Unavailable; Internal caused by a Node.js error, as
 * opposed to a response that could not be decoded). A connection that was
 * never made keeps its kind (refused, dns), which failover relies on.
 */
function asConnectionError(e: unknown): ConnectionError | undefined {
  const cut =
    e instanceof ConnectError &&
    !e.metadata.has("grpc-status") &&
    ([Code.Canceled, Code.Aborted, Code.Unavailable].includes(e.code) || (e.code === Code.Internal && nodeErrorIn(e.cause)));
  if (!cut) return undefined;
  const below = e.cause instanceof Error ? toA2AError(e.cause, "GRPC") : undefined;
  const kind = below instanceof ConnectionError ? below.kind : "reset";
  const what = kind === "reset" || kind === "network" ? "was cut" : `failed (${kind})`;
  return new ConnectionError(`the gRPC connection ${what}: ${e.rawMessage}`, { binding: "GRPC", kind, grpcCode: e.code, cause: e });
}

/** A Node.js system or HTTP/2 error (one with a string `code`) somewhere in a cause chain. */
function nodeErrorIn(e: unknown): boolean {
  for (let cur = e, depth = 0; cur instanceof Error && depth < 8; cur = cur.cause, depth++) {
    if (typeof (cur as { code?: unknown }).code === "string") return true;
  }
  return false;
}
