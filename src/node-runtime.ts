/**
 * What the Node entry adds to the one `connect()`, at its import: gRPC over
 * HTTP/2 (A2A 1.0 and 0.3), the keep-alive `node:http` client as the default
 * of JSON-RPC and HTTP+JSON transports (hand-built ones too), and the generated ProtoJSON readers and
 * writers (see protocol/proto-json.ts). The only module of the package with an
 * import-time effect: package.json lists it in "sideEffects", so bundlers
 * keep it although the Node entry uses none of its exports.
 */
import { jsonReaders } from "../gen/lf/a2a/v1/a2a_json_readers.js";
import { jsonWriters } from "../gen/lf/a2a/v1/a2a_json_writers.js";
import { createGrpcTransport } from "./bindings/grpc/transport.js";
import { createGrpcTransportV03 } from "./bindings/grpc/v0_3.js";
import { forInterface, registerTransports } from "./bindings/registry.js";
import { installDefaultHttpClient } from "./http/default-client.js";
import { createNodeHttpClient } from "./http/node-client.js";
import { installJsonReaders, installJsonWriters } from "./protocol/proto-json.js";

// One keep-alive client for every JSON-RPC and HTTP+JSON transport given
// none, connect()'s and those built by hand alike, made on first use.
let nodeHttpClient: ReturnType<typeof createNodeHttpClient> | undefined;
installDefaultHttpClient(() => (nodeHttpClient ??= createNodeHttpClient()));

registerTransports({
  "GRPC@1.0": (c, s) => createGrpcTransport(forInterface(c, s)),
  // The `a2a.v1` service of A2A 0.3.
  "GRPC@0.3": (c, s) => createGrpcTransportV03(forInterface(c, s)),
});
installJsonReaders(jsonReaders);
installJsonWriters(jsonWriters);
