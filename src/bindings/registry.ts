/**
 * The tables of bindings: `binding@version` to the factory that builds its
 * transport for one interface of a card. A `connect()` builds from one and
 * asks it which of a card's interfaces are usable; each entry's `connect()`
 * is made with its own table, which no import changes.
 *
 * Every runtime has JSON-RPC and HTTP+JSON, on A2A 1.0 and 0.3: the
 * browser-safe entry's table is those over fetch. gRPC over HTTP/2 needs
 * `node:http2`, so the Node entry's table (src/node-runtime.ts) adds it to
 * the same HTTP bindings over its keep-alive `node:http` client. Browsers
 * reach gRPC agents through gRPC-web, which `connect()` adds per call when
 * given `grpcWeb`, so that apps that do not use it do not bundle it.
 *
 * Adding a binding: its folder under src/bindings/, its name in
 * src/base/bindings.ts, and its entries here and in node-runtime.ts
 * (there only, if it needs Node).
 */
import { jsonRpcTransport } from "./jsonrpc/transport.js";
import { restTransport } from "./http-json/transport.js";
import type { GrpcWebTransportOptions } from "./grpc/web.js";
import type { GrpcTlsOptions } from "./grpc/url.js";
import { jsonRpcTransportV03, restTransportV03 } from "./v0_3-lazy.js";
import { V03_KIT } from "./v0_3-kit.js";
import { lazyTransport } from "../call/lazy.js";
import type { HttpTransportOptions } from "../call/options.js";
import type { A2ATransport } from "../call/transport.js";
import { withTarget } from "../call/target.js";
import type { Binding } from "../base/bindings.js";
import type { Candidate } from "../base/bindings.js";
import type { GeneratedJson } from "../protocol/proto-json.js";

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
 * The JSON-RPC and HTTP+JSON lines of a table, 1.0 and 0.3, in one place for
 * both entries: each transport is made with its interface's options as
 * `adapt` gives them (the Node entry's: its keep-alive client as default),
 * reading and writing ProtoJSON with `generated` code when given.
 */
export function httpFactories(
  adapt: (options: HttpTransportOptions) => HttpTransportOptions = (options) => options,
  generated?: GeneratedJson,
): TransportFactories {
  return {
    "JSONRPC@1.0": (c, s) => jsonRpcTransport(adapt(forInterface(c, s)), generated),
    "HTTP+JSON@1.0": (c, s) => restTransport(adapt(forInterface(c, s)), generated),
    // Agents on A2A 0.3: the same 1.0 types, translated on the wire; the
    // translation is loaded when such an agent is first called.
    "JSONRPC@0.3": (c, s) => jsonRpcTransportV03(adapt(forInterface(c, s)), generated),
    "HTTP+JSON@0.3": (c, s) => restTransportV03(adapt(forInterface(c, s)), generated),
  };
}

/**
 * The browser-safe entry's table: JSON-RPC and HTTP+JSON over fetch. The
 * Node entry's adds to the same lines (src/node-runtime.ts). Not exported
 * from the entries (callers get a copy: `registeredTransports`).
 */
export const transportFactories: TransportFactories = httpFactories();

/**
 * A frozen copy of the factories `connect` builds with, to pass to
 * `createConnect` with factories of one's own, e.g.
 * `createConnect({ ...registeredTransports(), "JSONRPC@1.0": mine })`.
 * These are the browser-safe entry's (no gRPC over HTTP/2); `registeredTransports`
 * of `a2a-connect/node` gives the Node entry's.
 * @category For tool authors
 */
export function registeredTransports(): TransportFactories {
  return Object.freeze({ ...transportFactories });
}

/** The GRPC interfaces of both versions over the gRPC-web transport a caller gave. */
export function grpcWebFactories(create: (options: GrpcWebTransportOptions) => A2ATransport): TransportFactories {
  return {
    "GRPC@1.0": (c, s) => create(forInterface(c, s)),
    // The 0.3 translation is loaded when such an agent is first called.
    "GRPC@0.3": (c, s) =>
      lazyTransport("GRPC", async () => (await import("./v0_3-transports.js")).grpcTransportV03(V03_KIT, create, forInterface(c, s))),
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
