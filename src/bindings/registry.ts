/**
 * The transports `connect()` can build in every runtime. The Node entry adds
 * gRPC to these.
 */
import { createJsonRpcTransport } from "./jsonrpc/transport.js";
import { createRestTransport } from "./http-json/transport.js";
import { createJsonRpcTransportV03, createRestTransportV03 } from "../v0_3/lazy.js";
import { createConnect, type TransportFactories } from "../client/connect.js";

/** The factories of the browser-safe entry: JSON-RPC and HTTP+JSON, on A2A 1.0 and 0.3. */
export const httpTransportFactories: TransportFactories = {
  "JSONRPC@1.0": (c, s) => createJsonRpcTransport({ ...s, baseUrl: c.interface.url, protocolVersion: c.version }),
  "HTTP+JSON@1.0": (c, s) => createRestTransport({ ...s, baseUrl: c.interface.url, protocolVersion: c.version }),
  // Agents on A2A 0.3: the same 1.0 types, translated on the wire; the
  // translation is loaded when such an agent is first called.
  "JSONRPC@0.3": (c, s) => createJsonRpcTransportV03({ ...s, baseUrl: c.interface.url, protocolVersion: c.version }),
  "HTTP+JSON@0.3": (c, s) => createRestTransportV03({ ...s, baseUrl: c.interface.url, protocolVersion: c.version }),
};

/** Resolves an agent's card, chooses an interface and returns a session. JSON-RPC and HTTP+JSON. */
export const connect = createConnect(httpTransportFactories);
