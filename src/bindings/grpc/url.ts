/**
 * Where a gRPC interface's calls go. Agent Cards may give a gRPC interface
 * as `host:port` without a scheme (spec: AgentInterface.url); connect needs
 * a base URL.
 */
const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/;

/** A URL whose scheme says TLS: it is never sent in plaintext, whatever `tls` says. */
const NAMES_TLS = /^(https|grpcs):\/\//i;

/**
 * TLS settings of gRPC over HTTP/2 (Node): whom to trust, and the client's
 * own certificate. Giving them means TLS, as `tls: true` does. PEM is
 * given as text or bytes, or a list of them.
 * @category Transports
 */
export interface GrpcTlsOptions {
  /** Certificates (PEM) of the authorities to trust, e.g. a private CA's; they replace Node's bundled roots. */
  ca?: string | Uint8Array | ReadonlyArray<string | Uint8Array> | undefined;
  /** The client's certificate chain (PEM), for agents that require mutual TLS. */
  cert?: string | Uint8Array | ReadonlyArray<string | Uint8Array> | undefined;
  /** The client's private key (PEM), with `cert`. */
  key?: string | Uint8Array | ReadonlyArray<string | Uint8Array> | undefined;
  /** The name the agent's certificate must carry, when the URL's host is not it (an IP address, a tunnel). */
  servername?: string | undefined;
}

/**
 * `host:port` (or `grpc://`, `grpcs://`) becomes an http(s) URL. A URL that
 * names TLS (`https://`, `grpcs://`) keeps it: `tls: false` must not send
 * what the agent asked to be encrypted in plaintext (and an agent that
 * speaks TLS there would not understand it). Otherwise `tls` decides (TLS
 * options mean TLS), and without it `http://` is plaintext, `grpc://` and a
 * bare `host:port` use TLS unless the host is loopback.
 */
export function grpcBaseUrl(url: string, tls: boolean | GrpcTlsOptions | undefined): string {
  const wanted = tls === undefined ? undefined : tls !== false;
  const secure = NAMES_TLS.test(url) || wanted;
  if (/^https?:\/\//i.test(url)) {
    if (secure === undefined) return url;
    return url.replace(/^https?:/i, secure ? "https:" : "http:");
  }
  const authority = url.replace(/^grpcs?:\/\//i, "").replace(/\/+$/, "");
  return `${(secure ?? !LOOPBACK.test(authority)) ? "https" : "http"}://${authority}`;
}
