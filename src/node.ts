/**
 * Node-only additions to a2a-connect: the gRPC binding over HTTP/2.
 * Everything of the browser-safe entry is re-exported, so Node code needs
 * one import.
 */
export * from "./index.js";
export { createGrpcTransport, grpcBaseUrl, type GrpcTransportOptions } from "./transport/grpc.js";
