/**
 * a2a-connect/toolkit: what transports and tools are built from, for code
 * that goes beyond `connect()` and `A2AClient`: a `connect()` over
 * factories of one's own, transports that load on demand, the error
 * conversion every transport applies, and card parsing. Runs in browsers
 * and in Node, as the root entry does.
 *
 * @module a2a-connect/toolkit
 */
export { createConnect } from "./client/connect.js";
export { registeredTransports, type TransportFactories, type TransportFactory } from "./bindings/registry.js";
export type { Selection } from "./client/session.js";
export type { FailoverTransport } from "./call/failover.js";
export { lazyTransport } from "./call/lazy.js";
export { toA2AError } from "./http/masked-a2a-error.js";
export { cardUrlCandidates, type ParsedAgentCard } from "./discovery/resolve.js";
export { parseCard } from "./discovery/parse-card.js";
