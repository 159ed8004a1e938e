/**
 * The gRPC binding of A2A 0.3 (service `a2a.v1.A2AService`) behind the 1.0
 * service's interface, over any transport of the 1.0 gRPC binding: HTTP/2
 * gRPC in Node (transport.ts) or gRPC-web (web.ts, through connect()'s
 * `grpcWeb` option, which loads this on demand). The 1.0 transport
 * underneath is made at once, so that its options are checked at creation;
 * the 0.3 translation (its schema and tables) loads with the first call, so
 * that importing the Node entry does not load it.
 */
import { grpcBaseUrl, type GrpcTlsOptions } from "./url.js";
import type { TransportOptions } from "../../call/options.js";
import type { A2ATransport } from "../../call/transport.js";
import type { V03AdapterOptions } from "../../v0_3/adapter.js";
import type { V03Kit } from "../v0_3-kit.js";

/**
 * `create` builds the 1.0 gRPC transport that carries the 0.3 calls: it
 * takes any service's methods. Interceptors move up to the 1.0 side.
 * `protocolVersion` defaults to "0.3" (sent as `A2A-Version`). `kit` is
 * the code of the start it is built on (bindings/v0_3-kit.ts).
 */
export function grpcTransportV03<
  O extends TransportOptions & {
    /** Use TLS; see `GrpcTransportOptions.tls`. */
    tls?: boolean | GrpcTlsOptions | undefined;
  },
>(kit: V03Kit, create: (options: O) => A2ATransport, options: O): A2ATransport {
  const settings: O = { ...options, protocolVersion: options.protocolVersion ?? "0.3" };
  // A URL the caller's interceptors set is the one sent (or refused), as on 1.0 gRPC.
  const inner = create({ ...settings, interceptors: options.interceptors?.length ? [kit.urlFromAbove] : undefined });
  const base = grpcBaseUrl(options.baseUrl, options.tls).replace(/\/+$/, "");
  const adapter: V03AdapterOptions = {
    interceptors: options.interceptors,
    defaults: kit.serviceHeaders(settings),
    describe: (method) => ({ url: `${base}/${method.parent.typeName}/${method.name}`, requestMethod: "POST" }),
  };
  // From the one 0.3 chunk, as the 0.3 HTTP transports load it (bindings/v0_3-transports.ts).
  return kit.lazyTransport(inner.binding, async () => (await import("../v0_3-transports.js")).adaptV03Transport(kit, inner, adapter));
}
