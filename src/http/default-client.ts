/**
 * The HTTP client of a JSON-RPC or HTTP+JSON transport that is given none.
 * It is fetch unless the runtime installed another: the Node entry installs
 * its keep-alive node:http client, so a transport built by hand gets the same
 * client as the ones `connect()` builds.
 */
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import { createFetchHttpClient } from "./fetch-client.js";

let installed: (() => UniversalClientFn) | undefined;

/** Makes `make` the source of the default client (the Node entry's side effect calls it once). */
export function installDefaultHttpClient(make: () => UniversalClientFn): void {
  installed = make;
}

/** The client for a transport given none: the installed one, else a fetch client. */
export function defaultHttpClient(): UniversalClientFn {
  return installed ? installed() : createFetchHttpClient();
}
