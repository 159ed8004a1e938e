/**
 * a2a-connect: a typed A2A 1.0 client. This entry runs in browsers and in
 * Node: it imports no `node:` module and uses no `Buffer`. Code that only
 * some apps need is loaded on demand (card verification, the 0.3 wire) or
 * bundled only when imported (gRPC-web). `a2a-connect/trust` verifies and
 * signs cards; `a2a-connect/node` adds what only Node can do (gRPC over
 * HTTP/2).
 *
 * @module a2a-connect
 */
export * from "../gen/lf/a2a/v1/a2a_pb.js";
export { A2AClient, type CallOptions, type ClientOptions, type StreamCallOptions } from "./client/client.js";
export { createJsonRpcTransport, type JsonRpcTransportOptions } from "./bindings/jsonrpc/transport.js";
export { createRestTransport, type RestTransportOptions } from "./bindings/http-json/transport.js";
export { createJsonRpcTransportV03, createRestTransportV03 } from "./v0_3/lazy.js";
export { createFetchHttpClient } from "./http/fetch-client.js";
export { createGrpcWebTransport, type GrpcWebTransportOptions } from "./bindings/grpc/web.js";
export type { A2ATransport } from "./call/transport.js";
export type { HttpTransportOptions, TransportOptions } from "./call/options.js";
export * from "./errors/family.js";
export type { A2AErrorCode } from "./errors/codes.js";
export { errorFromServer, fromConnectError, reasonFromDetails, toA2AError, type ServerErrorFacts } from "./errors/classify.js";
export type { Binding } from "./protocol/bindings.js";
export { isRecord } from "./util.js";
export { parseRetryAfter } from "./http/retry-after.js";
export * from "./protocol/messages.js";
export {
  resolveAgentCard,
  cardUrlCandidates,
  parseCard,
  type ResolveOptions,
  type ResolvedAgentCard,
  type ParsedAgentCard,
} from "./discovery/resolve.js";
export { MemoryCardStore, type CardStore, type StoredCard } from "./discovery/cache.js";
export type { RedirectPolicy, DocumentFetchOptions } from "./discovery/fetch-document.js";
// Verifying and signing cards are in "a2a-connect/trust"; discovery loads
// them on demand. Their option and result types are here too.
export type { VerifyOptions, VerifyPolicy, VerificationKey, KeyStore, KeyLookup, JkuOptions, SignOptions } from "./trust/options.js";
export type { VerificationResult, VerificationFailure, VerificationFailureCode } from "./trust/result.js";
export type { JwksCacheOptions } from "./trust/jwks-cache.js";
export { AgentSession, type SessionOptions } from "./client/session.js";
export { TaskTracker } from "./client/tracker.js";
export { isResumeSnapshot, type ResumeOptions } from "./client/resume.js";
export { connect } from "./bindings/registry.js";
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
export { replyTo, followUp, assertAcceptsMessages, type MessageContent, type TurnOptions } from "./client/conversation.js";
export {
  listTasksPages,
  listAllTasks,
  listTaskPushNotificationConfigsPages,
  listAllTaskPushNotificationConfigs,
  checkPageSize,
  MIN_PAGE_SIZE,
  MAX_PAGE_SIZE,
  type ListTasksInit,
  type ListPushConfigsInit,
} from "./client/paginate.js";
export {
  loggingInterceptor,
  traceparentInterceptor,
  newTraceparent,
  isTraceparent,
  type CallLogEntry,
  type LoggingOptions,
  type TraceContext,
} from "./observability.js";
export {
  createPushReceiver,
  constantTimeEqual,
  type PushReceiver,
  type PushReceiverOptions,
} from "./push/receiver.js";
// Auth: each function loads its implementation on first use.
export {
  bearerAuth,
  basicAuth,
  apiKeyAuth,
  httpAuth,
  clientCredentialsProvider,
  discoveredTokenProvider,
  discoverTokenEndpoint,
  authInterceptors,
} from "./auth/lazy.js";
export type { TokenProvider, TokenSource, ApiKeyOptions, BasicCredentials } from "./auth/interceptors.js";
export type { ClientCredentialsOptions, ClientCredentialsProviderOptions, DiscoveredProviderOptions } from "./auth/oauth.js";
export type {
  AuthCredentials,
  AuthPlanOptions,
  Credential,
  TokenCredential,
  ApiKeyCredential,
  BasicCredential,
  ClientCredential,
  ExternalCredential,
} from "./auth/plan.js";
export { authRequired, type AuthRequired } from "./auth/required.js";
