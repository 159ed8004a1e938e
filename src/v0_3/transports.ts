/**
 * Every transport for agents on A2A 0.3, in one module: the browser-safe
 * entry and connect() load it on demand (v0_3/lazy.ts), as one chunk.
 */
export { createJsonRpcTransportV03 } from "../bindings/jsonrpc/v0_3.js";
export { createRestTransportV03 } from "../bindings/http-json/v0_3.js";
export { grpcTransportV03 } from "../bindings/grpc/v0_3-adapter.js";
