/**
 * The one table of bindings: `binding@version` to the factory that builds
 * its transport for one interface of a card. `connect()` builds from it and
 * asks it which of a card's interfaces are usable here; the CLI and both
 * entries use that `connect()`.
 *
 * Every runtime has JSON-RPC and HTTP+JSON, on A2A 1.0 and 0.3. gRPC over
 * HTTP/2 needs `node:http2`, so the Node entry registers it, with its
 * keep-alive `node:http` client as the HTTP bindings' default, from
 * src/node-runtime.ts (the package's one declared side effect). Browsers
 * reach gRPC agents through gRPC-web, which `connect()` adds per call when
 * given `grpcWeb`, so that apps that do not use it do not bundle it.
 *
 * Adding a binding: its folder under src/bindings/, its name in
 * src/base/bindings.ts, and its entries here (or in node-runtime.ts if
 * it needs Node).
 */
import { createJsonRpcTransport } from "./jsonrpc/transport.js";
import { createRestTransport } from "./http-json/transport.js";
import type { GrpcWebTransportOptions } from "./grpc/web.js";
import type { GrpcTlsOptions } from "./grpc/url.js";
import { createJsonRpcTransportV03, createRestTransportV03 } from "./v0_3-lazy.js";
import { lazyTransport } from "../call/lazy.js";
import type { HttpTransportOptions } from "../call/options.js";
import type { A2ATransport } from "../call/transport.js";
import { withTarget } from "../call/target.js";
import type { Binding } from "../base/bindings.js";
import type { Candidate } from "../base/bindings.js";

/** Transport options that apply to every interface a session may use. @category Transports */
export type TransportSettings = Omit<HttpTransportOptions, "baseUrl" | "protocolVersion" | "extensions"> & {
  /** gRPC and gRPC-web only: see GrpcTransportOptions.tls (TLS options: gRPC over HTTP/2 only). */
  tls?: boolean | GrpcTlsOptions | undefined;
};

/** Builds the transport for one interface. @category For tool authors */
export type TransportFactory = (candidate: Candidate, settings: TransportSettings) => A2ATransport;

/** Factories keyed by `binding@version`, e.g. `"JSONRPC@1.0"`. @category For tool authors */
export type TransportFactories = Readonly<Partial<Record<string, TransportFactory>>>;

/**
 * The options a transport is created with for one interface of the card: its
 * interceptors learn the interface of each call (call/target.ts).
 */
export const forInterface = (c: Candidate, s: TransportSettings) => ({
  ...s,
  baseUrl: c.interface.url,
  protocolVersion: c.version,
  interceptors: withTarget(c, s.interceptors),
});

/**
 * The factories of every binding this runtime has: JSON-RPC and HTTP+JSON,
 * and gRPC over HTTP/2 once `a2a-connect/node` is imported. `connect()`
 * reads it when called, not once at import. Not exported from the entries
 * (callers get a copy: `registeredTransports`).
 */
export const transportFactories: TransportFactories = {
  "JSONRPC@1.0": (c, s) => createJsonRpcTransport(forInterface(c, s)),
  "HTTP+JSON@1.0": (c, s) => createRestTransport(forInterface(c, s)),
  // Agents on A2A 0.3: the same 1.0 types, translated on the wire; the
  // translation is loaded when such an agent is first called.
  "JSONRPC@0.3": (c, s) => createJsonRpcTransportV03(forInterface(c, s)),
  "HTTP+JSON@0.3": (c, s) => createRestTransportV03(forInterface(c, s)),
  // "GRPC@1.0" and "GRPC@0.3": registered by src/node-runtime.ts.
};

/**
 * A frozen copy of the registered factories (see `connect`), to pass to
 * `createConnect` with factories of one's own, e.g.
 * `createConnect({ ...registeredTransports(), "JSONRPC@1.0": mine })`.
 * @category For tool authors
 */
export function registeredTransports(): TransportFactories {
  return Object.freeze({ ...transportFactories });
}

/**
 * Adds factories to the registry, or replaces registered ones. Called at
 * import by src/node-runtime.ts only: a runtime's bindings are the same for
 * every caller in the process.
 */
export function registerTransports(factories: TransportFactories): void {
  Object.assign(transportFactories, factories);
}

/** The GRPC interfaces of both versions over the gRPC-web transport a caller gave. */
export function grpcWebFactories(create: (options: GrpcWebTransportOptions) => A2ATransport): TransportFactories {
  return {
    "GRPC@1.0": (c, s) => create(forInterface(c, s)),
    // The 0.3 translation is loaded when such an agent is first called.
    "GRPC@0.3": (c, s) =>
      lazyTransport("GRPC", async () => (await import("./v0_3-transports.js")).grpcTransportV03(create, forInterface(c, s))),
  };
}

/** Whether `factories` build `binding` on `version`, and if not, why (in words, for `passedOver`). */
export function supportIn(factories: TransportFactories): (binding: Binding, version: string) => true | string {
  return (binding, version) => {
    if (factories[`${binding}@${version}`]) return true;
    if (binding === "GRPC" && !Object.keys(factories).some((k) => k.startsWith("GRPC@"))) {
      return "gRPC needs HTTP/2 gRPC, which this entry does not include (use connect from a2a-connect/node; browsers reach a gRPC agent through a gRPC-web proxy: connect with grpcWeb: createGrpcWebTransport)";
    }
    return `no ${binding} transport for A2A ${version}`;
  };
}
