/**
 * Where an SDK peer departs from the A2A specification, each named once:
 * peer and release, where (binding and version), what it does, the spec
 * section it departs from, and what this client does about it. The interop
 * suite (suite.ts) looks a deviation up by peer, interface and feature, puts
 * its id in the test's title and asserts what the client does; the matrix
 * (docs/interop.md, scripts/interop-matrix.ts) lists them. A deviation here
 * is never a skip: the test still runs and asserts.
 */
import type { Binding } from "../../src/index.js";
import type { PeerId, PeerVersion, Served } from "../support/sdk-peers.js";

/** What the suite proves per interface, in the matrix's column order. */
export const FEATURES = [
  "discovery",
  "send",
  "message",
  "stream",
  "get-task",
  "input-required",
  "fail",
  "cancel",
  "subscribe",
  "resume",
  "list-tasks",
  "push-config",
  "push-delivery",
  "extended-card",
  "errors",
  "version",
  "tenant",
  "extensions",
] as const;
export type Feature = (typeof FEATURES)[number];

export interface Deviation {
  /** Short, stable, unique: the matrix's footnote and the test title name it. */
  id: string;
  peer: PeerId;
  /** The release the behaviour was seen on. */
  release: string;
  /** Where it shows; unset fields match every binding or version. */
  binding?: Binding;
  version?: PeerVersion;
  /** The feature it shows in; "surface": the whole interface, which the suite then only tries once. */
  feature: Feature | "surface";
  /** What the peer does. */
  does: string;
  /** The section of the specification it departs from. */
  spec: string;
  /** What this client does about it (the test asserts this). */
  client: string;
}

/** The id of a peer's deviation that it routes no `/{tenant}/` paths on HTTP+JSON (see `noTenantRoutes`). */
export const noTenantRoutesId = (peer: PeerId) => `${peer}-rest-no-tenant`;

/** A server that routes no `/{tenant}/` paths on HTTP+JSON 1.0, the same departure in more than one SDK. */
function noTenantRoutes(peer: PeerId, release: string): Deviation {
  return {
    id: noTenantRoutesId(peer),
    peer,
    release,
    binding: "HTTP+JSON",
    version: "1.0",
    feature: "tenant",
    does: "routes no /{tenant}/... paths: a request that carries a tenant is answered 404 without an A2A error",
    spec: "the 1.0 proto's google.api.http additional bindings (/{tenant}/message:send, ...); 8.3.2 has clients send an interface's tenant",
    client:
      "reports MethodNotFoundError naming the URL it was sent to; an agent whose card gives no tenant is never sent one, so this meets only apps that set a tenant of their own",
  };
}

export const DEVIATIONS: readonly Deviation[] = [
  {
    id: "py-card-signature",
    peer: "python",
    release: "1.3.0",
    feature: "discovery",
    does: "serves a card with 0.3 interfaces with the 0.3 fields merged in (url, preferredTransport, protocolVersion, additionalInterfaces, supportsAuthenticatedExtendedCard), under a signature that covers only the 1.0 fields it knows (empty values dropped, RFC 8785)",
    spec: "8.4 (the signature covers the card as served, in its canonical form)",
    client:
      "verifies the signature over the fields the 1.0 schema knows, one of the forms it accepts; the session's card is what was verified, the 0.3 fields left out",
  },
  {
    id: "py-jsonrpc03-delete",
    peer: "python",
    release: "1.3.0",
    binding: "JSONRPC",
    version: "0.3",
    feature: "push-config",
    does: "answers tasks/pushNotificationConfig/delete with a response that has neither result nor error",
    spec: "JSON-RPC 2.0 section 5 (result is REQUIRED on success)",
    client: "reads a success without result as done for a method whose result is empty (delete), and nowhere else",
  },
  {
    id: "py-rest03-push-body",
    peer: "python",
    release: "1.3.0",
    binding: "HTTP+JSON",
    version: "0.3",
    feature: "push-config",
    does: "reads the body of POST /v1/tasks/{id}/pushNotificationConfigs as the whole CreateTaskPushNotificationConfigRequest (parent, config), not as the config the 0.3 proto's http rule names as body",
    spec: "0.3: the proto's google.api.http rule says body: config; the specification's text shows { config }",
    client:
      "sends the config's fields and, beside them, parent and config: each reading finds what it needs (this server's, a2a-js 0.3.14's, and a2a-js 1.3's, which reads the config), and the config is created; only the Java SDK's 0.3 servers refuse the fields beside (java03-rest-push-body)",
  },
  {
    id: "py-rest03-no-delete",
    peer: "python",
    release: "1.3.0",
    binding: "HTTP+JSON",
    version: "0.3",
    feature: "push-config",
    does: 'has no route for DELETE /v1/tasks/{id}/pushNotificationConfigs/{configId}: the request falls into its 1.0 tenant routes (tenant "v1") and is answered 400 VersionNotSupported',
    spec: "0.3 7.8 and 3.2.3 (every method on every transport the agent serves)",
    client: "reports the agent's answer, VersionNotSupportedError, naming the URL and what the card offers; the config stays",
  },
  {
    id: "py-rest03-subscribe-ended",
    peer: "python",
    release: "1.3.0",
    binding: "HTTP+JSON",
    version: "0.3",
    feature: "errors",
    does: "answers a subscribe to a finished task with 200 and an event stream, then drops the connection without an event (its UnsupportedOperationError escapes the stream)",
    spec: "3.1.6 / 0.3 7.9: UnsupportedOperationError for a task in a final state",
    client:
      "takes the drop as any drop: GetTask finds the task COMPLETED and the stream ends with it (with resume: false, ConnectionError); the other errors are the same classes as everywhere",
  },
  {
    id: "go-push-token-header",
    peer: "go",
    release: "2.3.1",
    feature: "push-delivery",
    does: "sends the config's token in A2A-Notification-Token",
    spec: "4.3.3 names no header for it; the 0.3 specification's example (9.5), and the TypeScript and Python SDKs, use X-A2A-Notification-Token",
    client: "createPushReceiver takes the token from either header (both, with different values, is refused)",
  },
  {
    id: "go-subscribe-ended",
    peer: "go",
    release: "2.3.1",
    feature: "errors",
    does: 'answers SubscribeToTask for a finished task with TaskNotFoundError ("no active execution"), inside a 200 event stream on JSON-RPC and HTTP+JSON',
    spec: "3.1.6: UnsupportedOperationError for a task in a final state",
    client:
      "asks GetTask after such an answer before the first event: a task in a final state is reported as UnsupportedOperationError, with the agent's error as its cause; a resubscribe so answered ends with the final task",
  },
  noTenantRoutes("go", "2.3.1"),
  noTenantRoutes("rust", "0.5.3"),
  {
    id: "go-jsonrpc-delete",
    peer: "go",
    release: "2.3.1",
    binding: "JSONRPC",
    feature: "push-config",
    does: "answers a successful DeleteTaskPushNotificationConfig with neither result nor error, on 1.0 and 0.3",
    spec: "JSON-RPC 2.0 section 5 (result is REQUIRED on success)",
    client: "reads a success without result as done for a method whose result is empty (delete), and nowhere else",
  },
  {
    id: "go-jsonrpc03-null-list",
    peer: "go",
    release: "2.3.1",
    binding: "JSONRPC",
    version: "0.3",
    feature: "push-config",
    does: "answers tasks/pushNotificationConfig/list for a task without configs with result null",
    spec: "0.3 7.7: the result is an array of TaskPushNotificationConfig",
    client: "reads null as an empty list; any other non-list is refused",
  },
  {
    id: "go-jsonrpc03-plain-errors",
    peer: "go",
    release: "2.3.1",
    binding: "JSONRPC",
    version: "0.3",
    feature: "errors",
    does: "sends its JSON-RPC error responses with Content-Type text/plain",
    spec: "0.3 3.2.1: JSON-RPC requests and responses use application/json",
    client:
      "reads an error object in JSON as the error it is, whatever its label (still checked against the request's id); a result so labelled is refused",
  },
  {
    id: "go-rest03-dialect",
    peer: "go",
    release: "2.3.1",
    binding: "HTTP+JSON",
    version: "0.3",
    feature: "surface",
    does: "serves its 0.3 HTTP+JSON surface in the JSON-RPC data model (kind, parts, role user, bare results and events) rather than the 0.3 proto's JSON that the TypeScript and Python SDKs serve, and has no /v1/card",
    spec: "0.3 3.2.3 (structurally equivalent to the core data structures; the routes and messages of the 0.3 proto)",
    client:
      "speaks the 0.3 proto's JSON, which this surface refuses: the first call fails with the server's InvalidParamsError (message parts is required). connect() takes the card's first interface, JSON-RPC 1.0 here, unless a session is held to this one",
  },
  {
    id: "ts03-subscribe-ended",
    peer: "typescript-0.3",
    release: "0.3.14",
    feature: "errors",
    does: "answers tasks/resubscribe for a task in a final state with the task as it ended, then closes the stream",
    spec: "not a deviation: 0.3 7.9 defines no error for it (1.0 3.1.6 has UnsupportedOperationError); named because the 1.0 peers' 0.3 surfaces answer otherwise",
    client: "passes the task on and ends the stream, as the agent said; a TaskTracker ends with the task in its final state",
  },
  {
    id: "ts03-rest-subscribe-500",
    peer: "typescript-0.3",
    release: "0.3.14",
    binding: "HTTP+JSON",
    version: "0.3",
    feature: "errors",
    does: 'answers a subscribe to a task it does not have with HTTP 500 "Bug: toJson serializer and body must be provided for non-204 responses" (its REST handler fails to write the TaskNotFound error)',
    spec: "0.3 8.2 (TaskNotFoundError, -32001) and 3.2.3 (status codes that correspond to A2A error types)",
    client: "reports what came, InternalError with the agent's message; GetTask and CancelTask of the same id are TaskNotFoundError",
  },
  {
    id: "java03-subscribe-no-task",
    peer: "java-0.3",
    release: "0.3.3.Final",
    feature: "subscribe",
    does: "answers SubscribeToTask (tasks/resubscribe, POST /v1/tasks/{id}:subscribe) for a live task with nothing, not even the response's headers, until the task's next event; the task itself is never sent",
    spec: "1.0 3.1.6 (the stream starts with the Task); 0.3 7.9 leaves the first event open",
    client:
      "passes on the events as they come: the first is the task's next change (a chunk or a status update), and the stream ends at the final state",
  },
  {
    id: "java03-subscribe-ended",
    peer: "java-0.3",
    release: "0.3.3.Final",
    feature: "errors",
    does: 'answers SubscribeToTask for a finished task with TaskNotFoundError ("Task not found"): -32001 inside a 200 event stream on JSON-RPC, NOT_FOUND on gRPC, and on HTTP+JSON in the form java03-rest-error-body names',
    spec: "1.0 3.1.6: UnsupportedOperationError for a task in a final state; 0.3 7.9 names none",
    client:
      "asks GetTask after such an answer before the first event: a task in a final state is reported as UnsupportedOperationError, with the agent's error as its cause (as for go-subscribe-ended), on HTTP+JSON too, where the error is read from the class the event names (java03-rest-error-body)",
  },
  {
    id: "java03-stream-order",
    peer: "java-0.3",
    release: "0.3.3.Final",
    version: "0.3",
    feature: "stream",
    does: "now and then sends a stream's events out of the order its agent enqueued them, when they follow each other closely: of three chunks enqueued one after another, chunk-3, chunk-1, chunk-2, or the final status before some chunks (on HTTP+JSON with their SSE ids in order). Seen here on HTTP+JSON in 26 of 300 streams read raw, on JSON-RPC in 2 of 80 (and in a CI run), on gRPC in none of 280; most often while the peer's JVM is fresh",
    spec: "1.0 3.5.2 (events MUST be delivered in the order they were generated, whatever the binding); 0.3 states no order",
    client:
      "passes the events on in the order the binding reads them, each chunk with its own append and lastChunk, and ends the stream at the final state: the caller gets what the peer sent up to it, in that order, and no chunk the peer sent after it",
  },
  {
    id: "java03-rest-error-body",
    peer: "java-0.3",
    release: "0.3.3.Final",
    binding: "HTTP+JSON",
    version: "0.3",
    feature: "errors",
    does: 'writes its HTTP+JSON errors as {"error": "<Java class name>", "message"} (io.a2a.spec.TaskNotFoundError with 404, TaskNotCancelableError with 409, and, for a subscribe to a task it does not have or that has finished, TaskNotFoundError as the only event of a 200 stream), with no A2A error code',
    spec: "0.3 3.2.3 and 8.2 (HTTP+JSON errors carry the A2A error: code and message); 1.0 11.6 (google.rpc.Status with an ErrorInfo)",
    client:
      "on 0.3 HTTP+JSON, reads a body whose error is a string naming one of the SDK's twelve A2A error classes (the name after the last \".\") and whose message is a string as that error, with the server's message and the HTTP status it came with (200 in a stream): a 404 is TaskNotFoundError, a 409 TaskNotCancelableError, a stream's only event ends the stream with its error; a class of no A2A name (its JSONRPCError) or a message that is no string is read by the HTTP status as before (a 404 MethodNotFoundError naming the URL, a 409 ServerError), and as a stream's event refused as malformed; on a 1.0 interface, such bodies are read by the status alone",
  },
  {
    id: "java03-jsonrpc-push-set-id",
    peer: "java-0.3",
    release: "0.3.3.Final",
    binding: "JSONRPC",
    version: "0.3",
    feature: "push-config",
    does: 'answers tasks/pushNotificationConfig/set with the request\'s id as a string (id 2 comes back "2"); its other methods echo the id as sent',
    spec: "JSON-RPC 2.0 section 5 (the response id is the same as the request's)",
    client:
      'reads the answer as this request\'s: an id that is exactly the decimal string of the request\'s numeric id (String(id)) names it unmistakably, on every JSON-RPC method, 0.3 and 1.0; any other id ("02", "2.0", another number) is still a ProtocolError naming both ids',
  },
  {
    id: "java03-rest-push-body",
    peer: "java-0.3",
    release: "0.3.3.Final",
    binding: "HTTP+JSON",
    version: "0.3",
    feature: "push-config",
    does: 'reads the body of POST /v1/tasks/{id}/pushNotificationConfigs as the whole CreateTaskPushNotificationConfigRequest and refuses any field it does not know: HTTP 422, "Cannot find field: name"',
    spec: "0.3: the proto's google.api.http rule says body: config; the specification's text shows { config }",
    client:
      "sends the config's fields and, beside them, parent and config (see py-rest03-push-body) first; on this refusal exactly (422, Cannot find field: ... in message a2a.v1.CreateTaskPushNotificationConfigRequest), where nothing was created, it sends the request alone (parent, config) once more, which creates the config, and sends the request alone from then on on that transport; get, list and delete follow as on every peer",
  },
  {
    id: "java03-send-push-config",
    peer: "java-0.3",
    release: "0.3.3.Final",
    feature: "push-delivery",
    does: "ignores the pushNotificationConfig in message/send's configuration for a new task (only message/stream stores it): nothing is delivered, and the task has no config",
    spec: "0.3 7.1 (MessageSendConfiguration.pushNotificationConfig: where the server sends updates for the task)",
    client: "returns the task the agent answered; the task completes on the server, and the push receiver gets nothing",
  },
  {
    id: "java03-grpc-not-cancelable",
    peer: "java-0.3",
    release: "0.3.3.Final",
    binding: "GRPC",
    version: "0.3",
    feature: "errors",
    does: 'answers CancelTask for a finished task with UNIMPLEMENTED ("TaskNotCancelableError: Task cannot be canceled ...")',
    spec: "1.0 table 5.4 (TaskNotCancelableError is FAILED_PRECONDITION on gRPC); 0.3 gives gRPC no table, and UNIMPLEMENTED is the status of a method the server does not have",
    client:
      "reads the status as gRPC defines it: MethodNotFoundError, whose message names the agent's TaskNotCancelableError; the other errors are the same classes as everywhere",
  },
  {
    id: "java03-grpc-push-parent",
    peer: "java-0.3",
    release: "0.3.3.Final",
    binding: "GRPC",
    version: "0.3",
    feature: "push-config",
    does: "takes the task of CreateTaskPushNotificationConfig from config.name, read as a config name (tasks/{id}/pushNotificationConfigs[/{config id}]), not from parent: the task's own name there (tasks/{id}) is INTERNAL \"Invalid name format for TaskPushNotificationConfig: tasks/{id}\" (a 500 on HTTP+JSON); without a config id in it, the config gets the task's id",
    spec: "0.3 proto: CreateTaskPushNotificationConfigRequest.parent is tasks/{task_id}; the config's name is the resource's own",
    client:
      "names a config the caller gives no id tasks/{id}/pushNotificationConfigs, on gRPC and HTTP+JSON, as the Java SDK's own client does (every other 0.3 server takes the task from parent, a2a-js 1.3's HTTP+JSON from this name's tasks/{id}): the config is created, with the task's id as its id, and read, listed and deleted as on every peer",
  },
  {
    id: "java03-grpc-extended-card",
    peer: "java-0.3",
    release: "0.3.3.Final",
    binding: "GRPC",
    version: "0.3",
    feature: "extended-card",
    does: "answers GetAgentCard with the public card, though the card says supportsAuthenticatedExtendedCard and JSON-RPC and HTTP+JSON serve the extended one",
    spec: "0.3 7.10 (agent/getAuthenticatedExtendedCard; GetAgentCard on gRPC) and 5.5",
    client: "returns the card the agent answered: the public card, without the extended card's skills",
  },
  {
    id: "voltagent-card-path",
    peer: "voltagent",
    release: "2.0.3",
    feature: "discovery",
    does: 'serves its card at /.well-known/{agent id}/agent-card.json only, a 0.3 card without protocolVersion whose modes are "text" rather than media types',
    spec: "0.3 5.3 and 1.0 8.2 (the card at /.well-known/agent-card.json)",
    client:
      "given the agent's URL (…/a2a/{agent id}), finds the card at /.well-known/{last path segment}/agent-card.json on the same origin after the usual places, and reads it as a 0.3 card",
  },
  {
    id: "voltagent-fail-as-error",
    peer: "voltagent",
    release: "2.0.3",
    feature: "fail",
    does: "answers a run that fails with a JSON-RPC error (-32603, HTTP 400) carrying the model's message; the task stays working and its id is never given",
    spec: "0.3 6.3 (a task that fails ends in the failed state)",
    client: "reports the agent's error, InternalError with its message",
  },
  {
    id: "voltagent-cancel-overwritten",
    peer: "voltagent",
    release: "2.0.3",
    feature: "cancel",
    does: "answers CancelTask with the task canceled, then lets the stopped run overwrite it: GetTask later says completed",
    spec: "0.3 6.3 (canceled is a final state)",
    client: "returns the canceled task the agent answered; what GetTask says later is the agent's",
  },
  {
    id: "voltagent-run-bound-to-stream",
    peer: "voltagent",
    release: "2.0.3",
    feature: "resume",
    does: "stops a streamed run when its connection is cut: the task stays working for good; it also has no tasks/resubscribe",
    spec: "0.3 7.9 (a client reconnects to a task that goes on after its stream was interrupted)",
    client:
      "follows the task by GetTask, as it does any agent without SubscribeToTask, passing on each change; this one never changes, so the resumption's budget (maxElapsedMs) ends it with StreamResumeError naming the state it was left in",
  },
  {
    id: "mastra-random-ids",
    peer: "mastra",
    release: "0.24.9",
    binding: "JSONRPC",
    version: "0.3",
    feature: "surface",
    does: "answers every JSON-RPC request with a random UUID as the response id, and message/stream with text/plain JSON objects rather than an event stream",
    spec: "JSON-RPC 2.0 section 5 (the response id is the request's); 0.3 3.3.1 (streams are Server-Sent Events)",
    client:
      "refuses every answer, since one with another id could be meant for another request: ProtocolError naming both ids (where the agent sent an error, also JSON-RPC 2.0 section 5, with the agent's error as cause); a stream is refused naming the content type it got",
  },
  {
    id: "fasta2a-zoneless-times",
    peer: "fasta2a",
    release: "2.1.1",
    feature: "send",
    does: "writes task timestamps in the server's local time with no zone (2026-12-03T16:23:00.084905), on every task it returns",
    spec: "5.6.1 (timestamps are ISO 8601 strings in UTC)",
    client:
      "reads such a timestamp as absent, since the instant it names depends on a zone it does not give, and the rest of the task as sent",
  },
  {
    id: "fasta2a-returns-at-once",
    peer: "fasta2a",
    release: "2.1.1",
    feature: "send",
    does: "answers every SendMessage at once with the task SUBMITTED, returnImmediately or not",
    spec: "3.2.2 (without returnImmediately, SendMessage waits for a terminal or interrupted state)",
    client: "returns the task as the agent gave it; waitForTask (or a stream) follows it to its end",
  },
];

/** The peer's deviations on this interface and feature. */
export function deviationsOf(peer: PeerId, served: Served, feature: Feature | "surface"): Deviation[] {
  return DEVIATIONS.filter(
    (d) =>
      d.peer === peer &&
      d.feature === feature &&
      (d.binding === undefined || d.binding === served.binding) &&
      (d.version === undefined || d.version === served.version),
  );
}

/** A test title: `feature: what`, and `[deviation id, ...]` where the peer has some here. */
export function titled(feature: Feature | "surface", what: string, deviations: readonly Deviation[]): string {
  return deviations.length > 0 ? `${feature}: ${what} [deviation ${deviations.map((d) => d.id).join(", ")}]` : `${feature}: ${what}`;
}
