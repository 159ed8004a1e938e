/**
 * Every transport for agents on A2A 0.3, in one module: the browser-safe
 * entry and connect() load it on demand (v0_3-lazy.ts), as one chunk. The
 * push receiver reads a 0.3 agent's deliveries from it too, so that a
 * second way into the 0.3 wire does not split it into more chunks.
 */
export { createJsonRpcTransportV03 } from "./jsonrpc/v0_3.js";
export { createRestTransportV03 } from "./http-json/v0_3.js";
export { grpcTransportV03 } from "./grpc/v0_3-adapter.js";
export { adaptV03Transport } from "../v0_3/adapter.js";
export { streamResponseV1 } from "./jsonrpc/v0_3-shapes.js";
