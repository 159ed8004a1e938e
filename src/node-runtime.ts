/**
 * What the Node entry adds to the one `connect()`, at its import: gRPC over
 * HTTP/2 (A2A 1.0 and 0.3), the keep-alive `node:http` client as the default
 * of JSON-RPC and HTTP+JSON, and the generated ProtoJSON readers (see
 * protocol/proto-json.ts). The only module of the package with an
 * import-time effect: package.json lists it in "sideEffects", so bundlers
 * keep it although the Node entry uses none of its exports.
 */
import { jsonReaders } from "../gen/lf/a2a/v1/a2a_json_readers.js";
import { createGrpcTransport } from "./bindings/grpc/transport.js";
import { createGrpcTransportV03 } from "./bindings/grpc/v0_3.js";
import { forInterface, registerTransports, transportFactories, type TransportFactories } from "./bindings/registry.js";
import { createNodeHttpClient } from "./http/node-client.js";
import { installJsonReaders } from "./protocol/proto-json.js";

// One client for every transport that is given none, made on first use.
let nodeHttpClient: ReturnType<typeof createNodeHttpClient> | undefined;

// The HTTP bindings as registered, with the node:http client unless the settings give one.
const overNodeHttp: TransportFactories = Object.fromEntries(
  Object.entries(transportFactories).map(([key, factory]) => [
    key,
    (c, s) => factory!(c, s.httpClient ? s : { ...s, httpClient: (nodeHttpClient ??= createNodeHttpClient()) }),
  ]),
);

registerTransports({
  ...overNodeHttp,
  "GRPC@1.0": (c, s) => createGrpcTransport(forInterface(c, s)),
  // The `a2a.v1` service of A2A 0.3.
  "GRPC@0.3": (c, s) => createGrpcTransportV03(forInterface(c, s)),
});
installJsonReaders(jsonReaders);
