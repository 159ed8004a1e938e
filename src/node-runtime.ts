/**
 * What `a2a-connect/node` adds, given to its own functions only, so that
 * importing it changes nothing of the root entry's: gRPC over HTTP/2 (A2A
 * 1.0 and 0.3) in its `connect()`'s table, and for its JSON-RPC and
 * HTTP+JSON transports (connect()'s and those built by hand) the keep-alive
 * `node:http` client as default and the generated ProtoJSON readers and
 * writers (see protocol/proto-json.ts). A module apart from the entry, so
 * that the CLI loads it with the commands that call an agent.
 */
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import { jsonReaders } from "../gen/lf/a2a/v1/a2a_json_readers.js";
import { jsonWriters } from "../gen/lf/a2a/v1/a2a_json_writers.js";
import { createGrpcTransport } from "./bindings/grpc/transport.js";
import { createGrpcTransportV03 } from "./bindings/grpc/v0_3.js";
import { restTransport, type RestTransportOptions } from "./bindings/http-json/transport.js";
import { jsonRpcTransport, type JsonRpcTransportOptions } from "./bindings/jsonrpc/transport.js";
import { forInterface, httpFactories, type TransportFactories } from "./bindings/registry.js";
import type { HttpTransportOptions } from "./call/options.js";
import type { A2ATransport } from "./call/transport.js";
import { createConnect } from "./client/connect.js";
import { createNodeHttpClient } from "./http/node-client.js";
import type { GeneratedJson } from "./protocol/proto-json.js";
import { jsonRpcTransportV03, restTransportV03 } from "./bindings/v0_3-lazy.js";

/** The generated ProtoJSON readers and writers, which this entry's HTTP transports are given. */
export const GENERATED_JSON: GeneratedJson = { readers: jsonReaders, writers: jsonWriters };

// One keep-alive client for every JSON-RPC and HTTP+JSON transport of this
// entry given none, connect()'s and those built by hand alike, made on first use.
let nodeHttpClient: UniversalClientFn | undefined;

/** `options` with the shared keep-alive `node:http` client, unless they name a client. */
export function onNodeHttp<O extends HttpTransportOptions>(options: O): O {
  return options.httpClient ? options : { ...options, httpClient: (nodeHttpClient ??= createNodeHttpClient()) };
}

const nodeFactories: TransportFactories = {
  ...httpFactories(onNodeHttp, GENERATED_JSON),
  "GRPC@1.0": (c, s) => createGrpcTransport(forInterface(c, s)),
  // The `a2a.v1` service of A2A 0.3.
  "GRPC@0.3": (c, s) => createGrpcTransportV03(forInterface(c, s)),
};

/**
 * `connect` of the root entry with what Node adds: the card's GRPC
 * interfaces over HTTP/2 (A2A 1.0 and 0.3), and JSON-RPC and HTTP+JSON over
 * a keep-alive `node:http` client (unless `transport.httpClient` names
 * another), reading and writing ProtoJSON with generated code. Importing
 * this entry leaves the root's `connect` as it is: browser-safe, on `fetch`.
 * @example
 * ```ts
 * import { connect, userMessage, textOf } from "a2a-connect/node";
 *
 * const session = await connect("https://agent.example.com", { preferredBindings: ["GRPC"] });
 * const res = await session.client.sendMessage({ message: userMessage("hello") });
 * console.log(session.interface?.binding, textOf(res));
 * ```
 * @category Connect and call
 */
export const connect = createConnect(nodeFactories);

/**
 * A frozen copy of the factories this entry's `connect` builds with (the
 * HTTP bindings over `node:http` and gRPC over HTTP/2), to pass to
 * `createConnect` with factories of one's own.
 * @category For tool authors
 */
export function registeredTransports(): TransportFactories {
  return Object.freeze({ ...nodeFactories });
}

/**
 * `createJsonRpcTransport` of the root entry, on the keep-alive `node:http`
 * client unless given `httpClient`, with generated ProtoJSON code.
 * @category Transports
 */
export function createJsonRpcTransport(options: JsonRpcTransportOptions): A2ATransport {
  return jsonRpcTransport(onNodeHttp(options), GENERATED_JSON);
}

/**
 * `createRestTransport` of the root entry, on the keep-alive `node:http`
 * client unless given `httpClient`, with generated ProtoJSON code.
 * @category Transports
 */
export function createRestTransport(options: RestTransportOptions): A2ATransport {
  return restTransport(onNodeHttp(options), GENERATED_JSON);
}

/**
 * `createJsonRpcTransportV03` of the root entry (an agent on A2A 0.3), on
 * the keep-alive `node:http` client unless given `httpClient`.
 * @category Transports
 */
export function createJsonRpcTransportV03(options: HttpTransportOptions): A2ATransport {
  return jsonRpcTransportV03(onNodeHttp(options), GENERATED_JSON);
}

/**
 * `createRestTransportV03` of the root entry (an agent on A2A 0.3), on the
 * keep-alive `node:http` client unless given `httpClient`.
 * @category Transports
 */
export function createRestTransportV03(options: HttpTransportOptions): A2ATransport {
  return restTransportV03(onNodeHttp(options), GENERATED_JSON);
}
