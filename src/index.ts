/**
 * a2a-connect: a typed A2A 1.0 client. This entry runs in browsers and in
 * Node; `a2a-connect/node` adds what only Node can do (gRPC).
 */
export * from "../gen/lf/a2a/v1/a2a_pb.js";
export { A2AClient, type CallOptions, type ClientOptions, type StreamCallOptions } from "./client/client.js";
export { createJsonRpcTransport, type JsonRpcTransportOptions } from "./transport/jsonrpc.js";
export { createRestTransport, type RestTransportOptions } from "./transport/rest.js";
export { createJsonRpcTransportV03 } from "./transport/v0_3/jsonrpc.js";
export { createRestTransportV03 } from "./transport/v0_3/rest.js";
export { createFetchHttpClient } from "./transport/fetch-client.js";
export type { A2ATransport } from "./transport/transport.js";
export type { HttpTransportOptions, TransportOptions } from "./transport/options.js";
export * from "./errors.js";
export * from "./helpers.js";
export {
  resolveAgentCard,
  cardUrlCandidates,
  parseCard,
  type ResolveOptions,
  type ResolvedAgentCard,
} from "./discovery/resolve.js";
export { MemoryCardStore, type CardStore, type StoredCard } from "./discovery/cache.js";
export type { RedirectPolicy, DocumentFetchOptions } from "./discovery/fetch-document.js";
export {
  verifyAgentCard,
  signAgentCard,
  applyVerifyPolicy,
  assertVerified,
  JwksCache,
  DEFAULT_ALGORITHMS,
  type VerifyOptions,
  type VerifyPolicy,
  type VerificationResult,
  type VerificationFailure,
  type VerificationFailureCode,
  type VerificationKey,
  type KeyStore,
  type KeyLookup,
  type JkuOptions,
  type JwksCacheOptions,
  type SignOptions,
} from "./discovery/verify.js";
export { canonicalCardBytes, canonicalCardJson } from "./discovery/canonical.js";
export { AgentSession, type SessionOptions } from "./client/session.js";
export { TaskTracker } from "./client/tracker.js";
export { isResumeSnapshot, type ResumeOptions } from "./client/resume.js";
export { connect } from "./client/factories.js";
export {
  createConnect,
  type ConnectOptions,
  type ConnectTarget,
  type TransportFactories,
  type TransportFactory,
  type TransportSettings,
} from "./client/connect.js";
export { BINDINGS, rankInterfaces, type Candidate, type PassedOver, type SelectionRules } from "./client/select.js";
export { FailoverTransport, type VersionFallback } from "./client/failover.js";
export type { Selection } from "./client/session.js";
