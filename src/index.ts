/**
 * a2a-connect: a typed A2A 1.0 client. This entry runs in browsers and in
 * Node: it imports no `node:` module and uses no `Buffer`. Code that only
 * some apps need is loaded on demand (card verification, the 0.3 wire) or
 * bundled only when imported (gRPC-web). `a2a-connect/trust` verifies and
 * signs cards; `a2a-connect/node` adds what only Node can do (gRPC over
 * HTTP/2); `a2a-connect/toolkit` has what transports and tools are built
 * from.
 *
 * This is the application API: each name below is listed on purpose, and
 * helpers of the implementation are not exported.
 *
 * @categoryDescription Connect and call
 * Start here: {@link connect} finds the agent's card and returns an
 * {@link AgentSession} whose `client` ({@link A2AClient}) has the A2A
 * operations; conversations ({@link replyTo}, {@link followUp}) and
 * pagination ({@link listAllTasks}).
 * @categoryDescription Messages and results
 * Building messages ({@link userMessage}, {@link text}, {@link data}),
 * reading results ({@link textOf}, {@link isTerminal}), and results as the
 * spec's JSON ({@link toProtoJson}, {@link fromProtoJson}).
 * @categoryDescription Streams and tracking
 * Streams that resume after drops ({@link StreamCallOptions},
 * {@link ResumeOptions}) and a task's state folded from its events
 * ({@link TaskTracker}, {@link taskIdOf}).
 * @categoryDescription Errors
 * One class per failure, whatever the binding: catch {@link A2AError} and
 * test `instanceof` a subclass, or its stable `code` ({@link A2AErrorCode}).
 * @categoryDescription Discovery and trust
 * Finding and caching Agent Cards ({@link resolveAgentCard}) and the
 * options of their signature check; verifying and signing are in
 * `a2a-connect/trust`.
 * @categoryDescription Auth
 * Credentials by the card's security schemes (`connect`'s `auth`,
 * {@link AuthCredentials}), or as interceptors ({@link bearerAuth},
 * {@link apiKeyAuth}, {@link clientCredentialsProvider}).
 * @categoryDescription Push
 * A webhook for push notifications ({@link createPushReceiver}) and the
 * pagination of a task's push configs.
 * @categoryDescription Transports
 * A client for one known interface, without a card:
 * {@link createJsonRpcTransport}, {@link createRestTransport},
 * {@link createGrpcWebTransport} (gRPC over HTTP/2 is in `a2a-connect/node`).
 * @categoryDescription Interceptors and observability
 * Call logs ({@link loggingInterceptor}), W3C trace context, and connect's
 * types for interceptors of one's own.
 * @categoryDescription Protocol types
 * The A2A 1.0 messages and enums, generated from the proto: what
 * operations take and return.
 * @categoryDescription ProtoJSON shapes
 * The spec's JSON form of each message, as {@link toProtoJson} writes it.
 * @categoryDescription Protocol schemas
 * The schema of each message, for {@link fromProtoJson} and the
 * protobuf runtime; {@link A2AService} describes the operations.
 *
 * @module a2a-connect
 */
// The generated A2A types and schemas, all of them.
export * from "../gen/lf/a2a/v1/a2a_pb.js";

// The client and the transports.
export { A2AClient, type CallOptions, type ClientOptions, type StreamCallOptions } from "./client/client.js";
export { createJsonRpcTransport, type JsonRpcTransportOptions } from "./bindings/jsonrpc/transport.js";
export { createRestTransport, type RestTransportOptions } from "./bindings/http-json/transport.js";
export { createJsonRpcTransportV03, createRestTransportV03 } from "./bindings/v0_3-lazy.js";
export { createGrpcWebTransport, type GrpcWebTransportOptions } from "./bindings/grpc/web.js";
export type { GrpcTlsOptions } from "./bindings/grpc/url.js";
export { createFetchHttpClient } from "./http/fetch-client.js";
export type { A2ATransport } from "./call/transport.js";
export type { RequestInput } from "./call/request.js";
export type { HttpTransportOptions, TransportOptions } from "./call/options.js";

// Errors.
export {
  A2AError,
  TaskNotFoundError,
  TaskNotCancelableError,
  PushNotificationNotSupportedError,
  UnsupportedOperationError,
  ContentTypeNotSupportedError,
  InvalidAgentResponseError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  VersionNotSupportedError,
  JsonRpcParseError,
  InvalidRequestError,
  MethodNotFoundError,
  InvalidParamsError,
  InternalError,
  AuthenticationError,
  AuthorizationError,
  ConnectionError,
  CallTimeoutError,
  AbortedError,
  ProtocolError,
  ServerError,
  AgentCardNotFoundError,
  InvalidAgentCardError,
  RedirectRefusedError,
  AgentCardVerificationError,
  NoCompatibleInterfaceError,
  StreamResumeError,
  TaskTerminalError,
  type A2AErrorInit,
  type ConnectionFailure,
  type InvalidCardProblem,
} from "./errors/family.js";
export type { A2AErrorCode } from "./errors/codes.js";

// Messages.
export {
  text,
  data,
  fileUrl,
  fileBytes,
  userMessage,
  isTerminal,
  isInterrupted,
  textOf,
  type PartOptions,
  type MessageOptions,
  type TextSource,
} from "./protocol/messages.js";
export { taskIdOf } from "./protocol/events.js";
// Results and events as the spec's JSON, and back.
export { toProtoJson, fromProtoJson, taskStateName, roleName } from "./protocol/serialize.js";
// Discovery. Verifying and signing cards are in "a2a-connect/trust";
// discovery loads them on demand. Their option and result types are here too.
export { resolveAgentCard, type ResolveOptions, type ResolvedAgentCard } from "./discovery/resolve.js";
export { MemoryCardStore, type CardStore, type StoredCard } from "./discovery/cache.js";
export type { RedirectPolicy, DocumentFetchOptions } from "./trust/fetch-document.js";
export type { LocalUrlPolicy } from "./trust/local-urls.js";
export type { VerifyOptions, VerifyPolicy, VerificationKey, KeyStore, KeyLookup, JkuOptions, SignOptions } from "./trust/options.js";
export type { VerificationResult, VerificationFailure, VerificationFailureCode } from "./errors/verification-result.js";
export type { JwksCacheOptions } from "./trust/jwks-cache.js";

// Sessions, tasks, streams that survive disconnects.
export { AgentSession, type SessionOptions } from "./client/session.js";
export { TaskTracker } from "./client/tracker.js";
export { isResumeSnapshot } from "./client/task-events.js";
export type { ResumeOptions } from "./client/resume-policy.js";
export { waitForTask, MIN_POLL_MS, type WaitOptions, type TaskWaiter } from "./client/wait.js";

// Connecting and sessions.
export { connect, type ConnectOptions, type ConnectTarget } from "./client/connect.js";
export type { TransportSettings } from "./bindings/registry.js";
export type { VersionFallback } from "./call/failover.js";
// Retries of unary calls, off unless `retry` is given (the loop loads on first use).
export type { RetryPolicy } from "./call/retry.js";
export { BINDINGS, type Binding, type Candidate } from "./base/bindings.js";

// Conversations and pagination.
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

// Observability.
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
  tracingInterceptor,
  type TracingOptions,
  type TracerLike,
  type SpanLike,
  type SpanContextLike,
  type SpanLinkLike,
  type SpanAttributes,
} from "./tracing.js";
export { callTargetKey, type CallTarget } from "./call/target.js";

// connect's types, for interceptors of one's own (passed as `interceptors`),
// so that an app need not depend on @connectrpc/connect itself. Its
// StreamResponse is left out: that name is the protocol's stream event here.
export type { Interceptor, UnaryRequest, StreamRequest, UnaryResponse } from "@connectrpc/connect";

// Push notifications.
export { createPushReceiver, constantTimeEqual, type PushReceiver, type PushReceiverOptions, type PushSender } from "./push/receiver.js";

// Auth: each function loads its implementation on first use.
export { bearerAuth, httpAuth, basicAuth, apiKeyAuth } from "./auth/schemes.js";
export { clientCredentialsProvider, discoveredTokenProvider, discoverTokenEndpoint } from "./auth/providers.js";
export { authInterceptors } from "./auth/for-card.js";
export { authRequired, type AuthRequired } from "./auth/required.js";
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
