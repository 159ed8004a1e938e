import type { LocalAgent } from "../../demo/agent.js";
import { A2AClient, type A2ATransport, type Binding } from "../../src/index.js";
import { createGrpcTransport, createJsonRpcTransport, createRestTransport, type GrpcTransportOptions } from "../../src/node.js";

export type TransportOverrides = Partial<Omit<GrpcTransportOptions, "baseUrl">>;

/** A transport of the given binding pointed at the local agent. */
export function transportFor(binding: Binding, agent: LocalAgent, overrides: TransportOverrides = {}): A2ATransport {
  switch (binding) {
    case "JSONRPC":
      return createJsonRpcTransport({ baseUrl: agent.jsonRpcUrl, ...overrides });
    case "HTTP+JSON":
      return createRestTransport({ baseUrl: agent.restUrl, ...overrides });
    case "GRPC":
      return createGrpcTransport({ baseUrl: agent.grpcAddress, ...overrides });
  }
}

export function clientFor(binding: Binding, agent: LocalAgent, overrides: TransportOverrides = {}): A2AClient {
  return new A2AClient(transportFor(binding, agent, overrides));
}

export const BINDINGS: readonly Binding[] = ["JSONRPC", "HTTP+JSON", "GRPC"];

export async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of source) out.push(x);
  return out;
}
