/**
 * Node-only additions to a2a-connect: the gRPC binding over HTTP/2, a
 * keep-alive `node:http` client for the two HTTP bindings, and the Node push
 * handler. This entry's `connect`, `registeredTransports` and HTTP transport
 * functions are its own (src/node-runtime.ts): they have gRPC and the
 * `node:http` client, and those of `a2a-connect` stay browser-safe whatever
 * the process imports. Everything else of the browser-safe entry and of
 * `a2a-connect/trust` is re-exported, so Node code needs one import.
 *
 * @module a2a-connect/node
 */
export * from "./index.js";
export * from "./trust.js";
// Named here, so they stand for the root entry's of the same names.
export {
  connect,
  registeredTransports,
  createJsonRpcTransport,
  createRestTransport,
  createJsonRpcTransportV03,
  createRestTransportV03,
} from "./node-runtime.js";
export { createGrpcTransport, type GrpcTransportOptions } from "./bindings/grpc/transport.js";
export { createGrpcTransportV03 } from "./bindings/grpc/v0_3.js";
export { createNodePushHandler } from "./push/node.js";
export { createNodeHttpClient, type NodeHttpClientOptions } from "./http/node-client.js";
