/**
 * A transport whose code is loaded on its first call. Transports that only
 * some agents need (the 0.3 wire, gRPC-web) are built this way, so an app
 * bundles them as separate chunks that load when an agent needs them, and
 * apps that never use them do not download them.
 */
import type { Binding } from "../base/bindings.js";
import { type CallRecord, recordFor } from "./record.js";
import type { A2ATransport } from "./transport.js";
import { onDemand } from "../base/on-demand.js";

/**
 * A transport of `binding` that calls `load` on its first call and delegates to what it returns.
 * The load is part of the calls that wait for it: their signal and timeout end the wait, and
 * the request gets what is left of the timeout.
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
  /** The transport once loaded: later calls go straight to it. */
  let ready: A2ATransport | undefined;
  // A failed load (a chunk that could not be fetched) is tried again on the next call.
  const transport = onDemand(async () => (ready = await load()));
  /**
   * The transport, and the timeout its request gets: what the load left of
   * the deadline of the call's record (call/record.ts).
   */
  async function loaded(record: CallRecord, signal: AbortSignal | undefined, timeoutMs: number | undefined) {
    if (ready) return { t: ready, timeoutMs };
    const t = await record.waitFor(transport(), `the code of the ${binding} transport did not load`, signal, binding);
    return { t, timeoutMs: record.timeoutMs() };
  }
  return {
    binding,
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      const record = recordFor("unary", timeoutMs, contextValues);
      const { t, timeoutMs: left } = await loaded(record, signal, timeoutMs);
      return t.unary(method, signal, left, header, input, contextValues ?? record);
    },
    async stream(method, signal, timeoutMs, header, input, contextValues) {
      const record = recordFor("stream", timeoutMs, contextValues);
      const { t, timeoutMs: left } = await loaded(record, signal, timeoutMs);
      return t.stream(method, signal, left, header, input, contextValues ?? record);
    },
  } satisfies A2ATransport;
}
