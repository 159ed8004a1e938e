/**
 * The gRPC binding of A2A 0.3 (service `a2a.v1.A2AService`) behind the 1.0
 * service's interface, over any transport of the 1.0 gRPC binding: HTTP/2
 * gRPC in Node (transport.ts) or gRPC-web (web.ts, through connect()'s
 * `grpcWeb` option, which loads this on demand).
 */
import { grpcBaseUrl, type GrpcTlsOptions } from "./url.js";
import { serviceHeaders, type TransportOptions } from "../../call/options.js";
import type { A2ATransport } from "../../call/transport.js";
import { adaptV03Transport } from "../../v0_3/adapter.js";
import { urlFromAbove } from "../../call/target.js";

/**
 * `create` builds the 1.0 gRPC transport that carries the 0.3 calls: it
 * takes any service's methods. Interceptors move up to the 1.0 side.
 * `protocolVersion` defaults to "0.3" (sent as `A2A-Version`).
 */
export function grpcTransportV03<
  O extends TransportOptions & {
    /** Use TLS; see `GrpcTransportOptions.tls`. */
    tls?: boolean | GrpcTlsOptions | undefined;
  },
>(create: (options: O) => A2ATransport, options: O): A2ATransport {
  const settings: O = { ...options, protocolVersion: options.protocolVersion ?? "0.3" };
  // A URL the caller's interceptors set is the one sent (or refused), as on 1.0 gRPC.
  const inner = create({ ...settings, interceptors: options.interceptors?.length ? [urlFromAbove] : undefined });
  const base = grpcBaseUrl(options.baseUrl, options.tls).replace(/\/+$/, "");
  return adaptV03Transport(inner, {
    interceptors: options.interceptors,
    defaults: serviceHeaders(settings),
    describe: (method) => ({ url: `${base}/${method.parent.typeName}/${method.name}`, requestMethod: "POST" }),
  });
}
