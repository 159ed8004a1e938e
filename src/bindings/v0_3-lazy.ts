/**
 * The HTTP transports for agents on A2A 0.3, as the browser-safe entry and
 * `connect()` offer them: the 0.3 wire (its schema, shapes and translation)
 * is loaded on the first call, so apps that only meet 1.0 agents never
 * download it. Options are checked at once, as on every transport.
 */
import { serviceHeaders, type HttpTransportOptions } from "../call/options.js";
import { lazyTransport } from "../call/lazy.js";
import { checkHttpBaseUrl, checkTransportOptions } from "../call/option-checks.js";
import type { A2ATransport } from "../call/transport.js";
import type { GeneratedJson } from "../protocol/proto-json.js";
import { V03_KIT } from "./v0_3-kit.js";

/**
 * A transport for 1.0 calls to an agent that speaks A2A 0.3 over JSON-RPC.
 * It announces `A2A-Version: 0.3` (override with `protocolVersion`).
 * Operations 0.3 lacks (ListTasks) fail with `UnsupportedOperationError`
 * before any request is sent.
 * @category Transports
 */
export function createJsonRpcTransportV03(options: HttpTransportOptions): A2ATransport {
  return jsonRpcTransportV03(options);
}

/** The JSON-RPC 0.3 transport, with the `generated` ProtoJSON code where given (the Node entry's). */
export function jsonRpcTransportV03(options: HttpTransportOptions, generated?: GeneratedJson): A2ATransport {
  check(options);
  return lazyTransport("JSONRPC", async () =>
    (await import("./v0_3-transports.js")).createJsonRpcTransportV03(V03_KIT, options, generated),
  );
}

/**
 * A transport for 1.0 calls to an agent that speaks A2A 0.3 over HTTP+JSON.
 * `baseUrl` is the interface URL, without the `/v1` the routes add.
 * `protocolVersion` defaults to "0.3". Operations 0.3 lacks (ListTasks)
 * fail with `UnsupportedOperationError` without a request. Interceptors see
 * the 1.0 messages.
 * @category Transports
 */
export function createRestTransportV03(options: HttpTransportOptions): A2ATransport {
  return restTransportV03(options);
}

/** The HTTP+JSON 0.3 transport, with the `generated` ProtoJSON code where given (the Node entry's). */
export function restTransportV03(options: HttpTransportOptions, generated?: GeneratedJson): A2ATransport {
  check(options);
  return lazyTransport("HTTP+JSON", async () => (await import("./v0_3-transports.js")).createRestTransportV03(V03_KIT, options, generated));
}

function check(options: HttpTransportOptions): void {
  checkTransportOptions(options, checkHttpBaseUrl);
  serviceHeaders({ ...options, protocolVersion: options.protocolVersion ?? "0.3" });
}
