/**
 * Where a gRPC interface's calls go. Agent Cards may give a gRPC interface
 * as `host:port` without a scheme (spec: AgentInterface.url); connect needs
 * a base URL.
 */
const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/;

/**
 * `host:port` (or `grpc://`, `grpcs://`) becomes an http(s) URL: TLS unless
 * `tls` says otherwise or the host is loopback. A URL with a scheme is kept,
 * with its scheme changed when `tls` is given.
 */
export function grpcBaseUrl(url: string, tls: boolean | undefined): string {
  if (/^https?:\/\//i.test(url)) {
    if (tls === undefined) return url;
    return url.replace(/^https?:/i, tls ? "https:" : "http:");
  }
  const authority = url.replace(/^grpcs?:\/\//i, "").replace(/\/+$/, "");
  const secure = tls ?? !LOOPBACK.test(authority);
  return `${secure ? "https" : "http"}://${authority}`;
}
