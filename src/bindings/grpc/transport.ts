/**
 * The gRPC binding (spec section 10) over our gRPC transport on
 * `node:http2` (h2.ts). Node only: browsers cannot speak gRPC to a
 * plain gRPC server (web.ts reaches one through a gRPC-web proxy). What
 * the binding adds to the transport is shared with gRPC-web, in
 * common.ts.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { ConnectionError } from "../../errors/family.js";
import { a2aGrpcTransport } from "./common.js";
import { connectionFailure, grpcCallError } from "./failures.js";
import { grpcBaseUrl, type GrpcTlsOptions } from "./url.js";
import { checkGrpcBaseUrl, checkTlsOption, checkTransportOptions } from "../../call/option-checks.js";
import { hostPort } from "../../base/urls.js";
import { createH2GrpcTransport } from "./h2.js";
import type { TransportOptions } from "../../call/options.js";
import type { A2ATransport } from "../../call/transport.js";

export { grpcBaseUrl };

/** Options of the gRPC transport: TLS and the HTTP/2 connection's health checks. @category Transports */
export interface GrpcTransportOptions extends TransportOptions {
  /**
   * Use TLS, and how: `true`, `false`, or TLS options (`{ ca }` to trust a
   * private CA, `{ cert, key }` for mutual TLS), which mean TLS. Default:
   * true, except for an `http://` URL or a bare `host:port` on a loopback
   * address. A URL that names TLS (`https://`, `grpcs://`) always uses it.
   */
  tls?: boolean | GrpcTlsOptions | undefined;
  /** Largest message accepted from the server, in bytes. Default 16 MiB. */
  readMaxBytes?: number | undefined;
  /**
   * HTTP/2 PING interval while streams are open, in milliseconds; a call
   * about to use a connection quiet for this long checks it with a PING
   * first. A connection that stops answering pings is closed, so its calls
   * fail and new ones get a fresh connection instead of waiting on a dead
   * one. Default 15 000; `Infinity` sends no PINGs.
   */
  pingIntervalMs?: number | undefined;
  /** How long to wait for a PING's answer. Default 10 000. */
  pingTimeoutMs?: number | undefined;
}

/**
 * A transport for an A2A 1.0 gRPC interface, over HTTP/2 (Node only).
 * `baseUrl` may be `host:port`, as cards list gRPC interfaces.
 * @example
 * ```ts
 * import { A2AClient, createGrpcTransport } from "a2a-connect/node";
 *
 * const client = new A2AClient(createGrpcTransport({ baseUrl: "agent.example.com:443", timeoutMs: 30_000 }));
 * ```
 * @category Transports
 */
export function createGrpcTransport(options: GrpcTransportOptions): A2ATransport {
  checkTransportOptions(options, checkGrpcBaseUrl);
  checkTlsOption(options.tls, "tls");
  const baseUrl = grpcBaseUrl(options.baseUrl, options.tls);
  const inner = createH2GrpcTransport({
    baseUrl,
    tls: typeof options.tls === "object" ? options.tls : undefined,
    interceptors: options.interceptors,
    readMaxBytes: options.readMaxBytes ?? 16 * 1024 * 1024,
    pingIntervalMs: options.pingIntervalMs ?? 15_000,
    pingTimeoutMs: options.pingTimeoutMs ?? 10_000,
    classify: (e, method) => grpcCallError(method, e, asConnectionError, baseUrl),
  });
  return a2aGrpcTransport(inner, options, asConnectionError, { url: baseUrl, guarded: true });
}

/**
 * A call's error as a ConnectionError when it is a cut connection rather
 * than the server's answer: `Unavailable` without a grpc-status, which is
 * how the HTTP/2 transport reports a stream or connection lost before its
 * status (a proxy's 429, 502, 503 or 504 is read before, by its HTTP status:
 * http-answer.ts). A connection that was never made keeps its kind
 * (refused, dns), which failover relies on. Either way the message names
 * the host and port.
 */
function asConnectionError(e: unknown, url: string): ConnectionError | undefined {
  const cut = e instanceof ConnectError && !e.metadata.has("grpc-status") && e.code === Code.Unavailable;
  if (!cut) return undefined;
  const below = e.cause instanceof Error ? connectionFailure(e.cause, url) : undefined;
  const kind = below?.kind ?? "reset";
  const what = kind === "reset" || kind === "network" ? "was cut" : `failed (${kind})`;
  return new ConnectionError(`the gRPC connection to ${hostPort(url)} ${what}: ${e.rawMessage}`, {
    binding: "GRPC",
    kind,
    grpcCode: e.code,
    cause: e,
  });
}
