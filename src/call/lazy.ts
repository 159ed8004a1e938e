/**
 * A transport whose code is loaded on its first call. Transports that only
 * some agents need (the 0.3 wire, gRPC-web) are built this way, so an app
 * bundles them as separate chunks that load when an agent needs them, and
 * apps that never use them do not download them.
 */
import type { Binding } from "../protocol/bindings.js";
import type { A2ATransport } from "./transport.js";
import { onDemand } from "../util.js";

/**
 * A transport of `binding` that calls `load` on its first call and delegates to what it returns.
 * @example
 * ```ts
 * import { A2AClient } from "a2a-connect";
 * import { lazyTransport } from "a2a-connect/toolkit";
 *
 * // The transport's code is fetched with the first call, not at start.
 * const transport = lazyTransport("JSONRPC", async () => {
 *   const { createJsonRpcTransport } = await import("a2a-connect");
 *   return createJsonRpcTransport({ baseUrl: "https://agent.example.com/a2a/jsonrpc" });
 * });
 * const client = new A2AClient(transport);
 * ```
 * @category For tool authors
 */
export function lazyTransport(binding: Binding, load: () => Promise<A2ATransport>): A2ATransport {
  // A failed load (a chunk that could not be fetched) is tried again on the next call.
  const transport = onDemand(load);
  return {
    binding,
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      return (await transport()).unary(method, signal, timeoutMs, header, input, contextValues);
    },
    async stream(method, signal, timeoutMs, header, input, contextValues) {
      return (await transport()).stream(method, signal, timeoutMs, header, input, contextValues);
    },
  } satisfies A2ATransport;
}
