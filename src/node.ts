/**
 * Node-only additions to a2a-connect: the gRPC binding over HTTP/2, a
 * keep-alive `node:http` client for the two HTTP bindings, and the Node push
 * handler. Importing this entry registers gRPC and the `node:http` client
 * with the one `connect()` (from src/node-runtime.ts), so `connect` from here
 * and from `a2a-connect` is the same function. Everything of the
 * browser-safe entry and of `a2a-connect/trust` is re-exported, so Node code
 * needs one import.
 *
 * @module a2a-connect/node
 */
import "./node-runtime.js";

export * from "./index.js";
export * from "./trust.js";
export { createGrpcTransport, type GrpcTransportOptions } from "./bindings/grpc/transport.js";
export { createGrpcTransportV03 } from "./bindings/grpc/v0_3.js";
export { createNodePushHandler } from "./push/node.js";
export { createNodeHttpClient, type NodeHttpClientOptions } from "./http/node-client.js";
