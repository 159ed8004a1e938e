/**
 * The gRPC binding of A2A 0.3 (service `a2a.v1.A2AService`) behind the 1.0
 * service's interface: callers use 1.0 methods and types, the agent receives
 * 0.3 calls. Node only, like the 1.0 gRPC transport it is built on.
 */
import type { A2ATransport } from "../../call/transport.js";
import { createGrpcTransport, type GrpcTransportOptions } from "./transport.js";
import { grpcTransportV03 } from "./v0_3-adapter.js";
import { V03_KIT } from "../v0_3-kit.js";

/**
 * A transport for 1.0 calls to an agent that speaks A2A 0.3 over gRPC.
 * `protocolVersion` defaults to "0.3" (sent as `A2A-Version`). Operations
 * 0.3 lacks (ListTasks) fail with `UnsupportedOperationError` without a
 * request. Interceptors see the 1.0 messages.
 * @category Transports
 */
export function createGrpcTransportV03(options: GrpcTransportOptions): A2ATransport {
  return grpcTransportV03(V03_KIT, createGrpcTransport, options);
}
