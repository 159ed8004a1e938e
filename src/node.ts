/**
 * Node-only additions to a2a-connect: the gRPC binding over HTTP/2, a
 * keep-alive `node:http` client for the two HTTP bindings, and a `connect()`
 * that uses both. Everything of the browser-safe entry and
 * of `a2a-connect/trust` is re-exported, so Node code needs one import.
 *
 * @module a2a-connect/node
 */
import { createConnect } from "./client/connect.js";
import { httpTransportFactories } from "./bindings/registry.js";
import { createGrpcTransport } from "./bindings/grpc/transport.js";
import { createNodeHttpClient } from "./http/node-client.js";
import { createGrpcTransportV03 } from "./bindings/grpc/v0_3.js";
import { installJsonReaders } from "./protocol/proto-json.js";
import { jsonReaders } from "../gen/lf/a2a/v1/a2a_json_readers.js";

// Node apps get the generated ProtoJSON readers (see protocol/proto-json.ts).
installJsonReaders(jsonReaders);

export * from "./index.js";
export * from "./trust.js";
export { createGrpcTransport, grpcBaseUrl, type GrpcTransportOptions } from "./bindings/grpc/transport.js";
export { createGrpcTransportV03 } from "./bindings/grpc/v0_3.js";
export { createNodePushHandler } from "./push/node.js";
export { createNodeHttpClient, type NodeHttpClientOptions } from "./http/node-client.js";

/** The gRPC factories `connect()` uses here, for `createConnect` callers that want them too. */
export const grpcTransportFactories = {
  /** gRPC over HTTP/2, on A2A 1.0. */
  "GRPC@1.0": (c, s) => createGrpcTransport({ ...s, baseUrl: c.interface.url, protocolVersion: c.version }),
  /** gRPC over HTTP/2, on A2A 0.3 (the `a2a.v1` service). */
  "GRPC@0.3": (c, s) => createGrpcTransportV03({ ...s, baseUrl: c.interface.url, protocolVersion: c.version }),
} satisfies import("./client/connect.js").TransportFactories;

let nodeHttpClient: ReturnType<typeof createNodeHttpClient> | undefined;

/**
 * The HTTP bindings' factories with the keep-alive `node:http` client as the
 * default; a `transport.httpClient` of the caller's still wins.
 */
export const nodeHttpTransportFactories: import("./client/connect.js").TransportFactories = Object.fromEntries(
  Object.entries(httpTransportFactories).map(([key, factory]) => [
    key,
    (c, s) => factory!(c, s.httpClient ? s : { ...s, httpClient: (nodeHttpClient ??= createNodeHttpClient()) }),
  ]),
);

/**
 * Resolves an agent's card, chooses an interface and returns a session. All
 * three bindings; JSON-RPC and HTTP+JSON over keep-alive `node:http`.
 */
export const connect = createConnect({ ...nodeHttpTransportFactories, ...grpcTransportFactories });
