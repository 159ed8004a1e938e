/**
 * The code of the start that the 0.3 wire (v0_3-transports.ts, loaded on
 * demand) builds its transports on: the HTTP bindings' runner, codecs and
 * routes, the fetch client, the option checks, the lazy transport, what
 * tells a 0.3 card from a 1.0 one. Every loader of the wire hands it over,
 * as the client hands the retry loop the attempt rules, rather than the
 * wire importing it: a module of the start that code on demand imports too
 * leaves the start's chunk for a chunk shared with it, and every app loads
 * each of those at start (docs/size.md, "Where the bytes go").
 */
import { lazyTransport } from "../call/lazy.js";
import { checkHttpBaseUrl, checkTransportOptions } from "../call/option-checks.js";
import { serviceHeaders } from "../call/options.js";
import { noteSentUrl, urlAbove, urlFromAbove } from "../call/target.js";
import { createHttpBindingTransport } from "../http/binding-transport.js";
import { createFetchHttpClient } from "../http/fetch-client.js";
import { messageToJson } from "../protocol/proto-json.js";
import { isV03Card } from "../v0_3/card-version.js";
import { V03_RUNNER_KIT } from "../v0_3/runner-kit.js";
import { createRestTransportWithRoutes } from "./http-json/transport.js";
import { routesFromRule, routesOf } from "./http-json/routes.js";
import { jsonRpcCodec } from "./jsonrpc/transport.js";

export const V03_KIT = {
  ...V03_RUNNER_KIT,
  lazyTransport,
  checkHttpBaseUrl,
  checkTransportOptions,
  serviceHeaders,
  noteSentUrl,
  urlAbove,
  urlFromAbove,
  createHttpBindingTransport,
  createFetchHttpClient,
  messageToJson,
  isV03Card,
  createRestTransportWithRoutes,
  routesFromRule,
  routesOf,
  jsonRpcCodec,
} as const;

/** The type of `V03_KIT`. */
export type V03Kit = typeof V03_KIT;
