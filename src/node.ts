/**
 * Node-only additions to a2a-connect: the gRPC binding over HTTP/2, and a
 * `connect()` that can choose it. Everything of the browser-safe entry and
 * of `a2a-connect/trust` is re-exported, so Node code needs one import.
 */
import { createConnect } from "./client/connect.js";
import { httpTransportFactories } from "./client/factories.js";
import { createGrpcTransport } from "./transport/grpc.js";
import { createGrpcTransportV03 } from "./transport/v0_3/grpc.js";

export * from "./index.js";
export * from "./trust.js";
export { createGrpcTransport, grpcBaseUrl, type GrpcTransportOptions } from "./transport/grpc.js";
export { createGrpcTransportV03 } from "./transport/v0_3/grpc.js";
export { createNodePushHandler } from "./push/node.js";

export const grpcTransportFactories = {
  "GRPC@1.0": (c, s) => createGrpcTransport({ ...s, baseUrl: c.interface.url, protocolVersion: c.version }),
  "GRPC@0.3": (c, s) => createGrpcTransportV03({ ...s, baseUrl: c.interface.url, protocolVersion: c.version }),
} satisfies import("./client/connect.js").TransportFactories;

/** Resolves an agent's card, chooses an interface and returns a session. All three bindings. */
export const connect = createConnect({ ...httpTransportFactories, ...grpcTransportFactories });
