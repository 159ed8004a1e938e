/**
 * `createTestAgent`: a scriptable A2A 1.0 agent for tests, with a real task
 * store, run in memory (an `httpClient` and a `fetch` that call its handler
 * directly, in any runtime) or on a loopback server (`listen()`), the two
 * sharing one handler. The script for each message is the next of the
 * queued ones, else what `script` gives (a script, or a function of the
 * message), else a task that completes at once; a message to a task that
 * paused for input runs the steps its script had left.
 */
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import { AgentCardSchema, type AgentCard, type AgentCardJson, type Message, type Task } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { messageFromJson } from "../protocol/proto-json.js";
import type { HttpTransportOptions } from "../call/options.js";
import type { A2ATransport } from "../call/transport.js";
import { createJsonRpcTransport } from "../bindings/jsonrpc/transport.js";
import { createRestTransport } from "../bindings/http-json/transport.js";
import { createGrpcWebTransport, type GrpcWebTransportOptions } from "../bindings/grpc/web.js";
import { cardJson, INTERFACE_PATHS, type TestBinding } from "./card.js";
import { createGrpcHandler } from "./grpc-handler.js";
import { createHandler, type HandlerParts } from "./handler.js";
import { listenLoopback, type LoopbackServer } from "./loopback.js";
import { memoryFetch, memoryHttpClient } from "./memory.js";
import type { OperationFaults } from "./operation-faults.js";
import type { AgentState } from "./operations.js";
import { PushNotifier, type PushDelivery, type TestPushOptions } from "./push.js";
import type { ReceivedRequest } from "./request-log.js";
import { CardSigner, type CardKeySet, type TestCardSigning } from "./sign.js";
import type { Script } from "./steps.js";
import { snapshot, TaskStore } from "./store.js";
import type { TestVersion } from "./v0_3-card.js";

/** Chooses the script for a message; `task` is the task it continues, if any. @category Testing */
export type ScriptChoice = (message: Message, task: Task | undefined) => Script;

/** Options of `createTestAgent`. @category Testing */
export interface TestAgentOptions {
  /** The script for every message (or a function choosing one per message) once the queue (`scripts`) is empty. Default: a task that completes at once. */
  script?: Script | ScriptChoice | undefined;
  /** Scripts for the next messages, one each, in order (`enqueue` adds more). */
  scripts?: readonly Script[] | undefined;
  /**
   * The card's interfaces, in order. Default `["JSONRPC", "HTTP+JSON"]`.
   * `"GRPC"` adds gRPC: over HTTP/2 on the loopback server (at its origin,
   * the port of its other interfaces), and as gRPC-web there and in memory.
   */
  bindings?: readonly TestBinding[] | undefined;
  /**
   * The protocol versions it speaks, each on every binding (0.3 on JSON-RPC and HTTP+JSON only: gRPC is
   * served at 1.0), the card listing them in this order.
   * Default `["1.0"]`; `["0.3"]` is an agent on A2A 0.3 (its card, methods, shapes and error codes),
   * `["1.0", "0.3"]` one that serves both, as the official SDKs' servers can.
   */
  versions?: readonly TestVersion[] | undefined;
  /** Members laid over the card's (name, skills, securitySchemes, ...). */
  card?: Partial<AgentCardJson> | undefined;
  /** An extended card (members laid over the public card's): the card then says it has one, and GetExtendedAgentCard returns it. */
  extendedCard?: Partial<AgentCardJson> | undefined;
  /**
   * Steps run before the agent answers each request of an operation: waits, and faults that answer
   * it instead (a `once` fault, the first request only), e.g. `{ GetTask: [steps.once(steps.drop())] }`.
   */
  faults?: OperationFaults | undefined;
  /** The origin the agent answers on in memory. Default `http://localhost`. */
  url?: string | undefined;
  /**
   * Takes push notification configs and delivers each task's events to them
   * (`true`, or how to deliver); the card then declares
   * `capabilities.pushNotifications`. Default: no push (the config
   * operations answer PUSH_NOTIFICATION_NOT_SUPPORTED).
   */
  push?: boolean | TestPushOptions | undefined;
  /**
   * Signs the card it serves, and its extended card, with a key pair made
   * with the agent (ES256), the key set served beside the card (`true`, or
   * how to sign): `cardKeys()` gives the public key set to pin.
   */
  signCard?: boolean | TestCardSigning | undefined;
}

/** The `connect()` options that reach a test agent in memory. @category Testing */
export interface InMemoryConnectOptions {
  /** The agent's `fetch`, for the card. */
  fetch: typeof fetch;
  /** The agent's `httpClient`, for the transports. */
  transport: Pick<HttpTransportOptions, "httpClient">;
  /** With a `GRPC` interface: gRPC-web over the agent's `fetch`, for the card's GRPC interface. */
  grpcWeb?: ((options: GrpcWebTransportOptions) => A2ATransport) | undefined;
}

/** A scriptable A2A agent for tests. @category Testing */
export interface TestAgent {
  /** The agent's origin in memory (its card is at `/.well-known/agent-card.json`); a loopback server has its own `url`. */
  readonly url: string;
  /** An HTTP client that calls the agent in memory: the `httpClient` of a transport, or of `connect()`'s `transport` option. */
  readonly httpClient: UniversalClientFn;
  /** A `fetch` that calls the agent in memory: `connect()`'s `fetch` option, for the card. */
  readonly fetch: typeof fetch;
  /** Every request the agent received, in order, credentials masked. */
  readonly requests: readonly ReceivedRequest[];
  /** Every push delivery attempt the agent made, in order, credentials masked (`push`). */
  readonly deliveries: readonly PushDelivery[];
  /** Resolves once every push delivery queued so far has been made, answered or failed. */
  delivered(): Promise<void>;
  /** The public key set that verifies the card it serves (`signCard`): `verification: { keys: await agent.cardKeys() }` pins it. */
  cardKeys(): Promise<CardKeySet>;
  /** `connect()` options that reach the agent in memory: `connect(agent.url, { ...agent.connectOptions() })`. */
  connectOptions(): InMemoryConnectOptions;
  /** A transport to the agent's 1.0 interface in memory, for `new A2AClient(...)` (an agent on 0.3 alone is reached with `connect()`); `"GRPC"`: gRPC-web. */
  transport(binding?: TestBinding, options?: Omit<HttpTransportOptions, "baseUrl" | "httpClient">): A2ATransport;
  /** Queues scripts for the next messages. */
  enqueue(...scripts: Script[]): void;
  /** A task as the agent holds it now. */
  task(id: string): Task | undefined;
  /** Every task, the most recently updated first. */
  tasks(): Task[];
  /** Starts a loopback server on 127.0.0.1 (Node). */
  listen(): Promise<LoopbackServer>;
  /** Ends the tasks' scripts and every loopback server. */
  close(): Promise<void>;
}

/**
 * A scriptable A2A agent for tests.
 * @example
 * ```ts
 * import { connect, textOf, userMessage } from "a2a-connect";
 * import { createTestAgent, steps } from "a2a-connect/testing";
 *
 * const agent = createTestAgent({ script: [steps.working(), steps.artifact("42"), steps.complete()] });
 * const { client } = await connect(agent.url, agent.connectOptions());
 * const answer = await client.sendMessage({ message: userMessage("6 x 7?") });
 * console.log(textOf(answer)); // "42"
 * await agent.close();
 * ```
 * @category Testing
 */
export function createTestAgent(options: TestAgentOptions = {}): TestAgent {
  const bindings = options.bindings ?? ["JSONRPC", "HTTP+JSON"];
  const versions = options.versions ?? ["1.0"];
  const url = (options.url ?? "http://localhost").replace(/\/+$/, "");
  const queue: Script[] = [...(options.scripts ?? [])];
  const closing = new AbortController();
  const push = options.push ? new PushNotifier(options.push === true ? {} : options.push, closing.signal) : undefined;
  const signer = options.signCard ? new CardSigner(options.signCard === true ? {} : options.signCard) : undefined;
  const store = new TaskStore(push);
  const log: ReceivedRequest[] = [];
  const servers = new Set<LoopbackServer>();
  const extendedCard: AgentCard | undefined =
    options.extendedCard === undefined
      ? undefined
      : messageFromJson(AgentCardSchema, { ...cardJson(url, bindings, options.card, true, versions), ...options.extendedCard });
  const chosen = options.script;
  const state: AgentState = {
    store,
    extendedCard,
    push,
    signer,
    closing: closing.signal,
    onceRan: new WeakSet(),
    faults: options.faults ?? {},
    scriptFor(message, task) {
      const next = queue.shift();
      if (next) return next;
      if (typeof chosen === "function") return chosen(message, task);
      return chosen ?? [];
    },
  };
  const parts: HandlerParts = {
    agent: state,
    bindings,
    versions,
    log,
    card: (origin) => withPush(cardJson(origin, bindings, options.card, extendedCard !== undefined, versions), push !== undefined),
    signer,
  };
  const handle = createHandler(parts);
  const grpc = bindings.includes("GRPC") ? createGrpcHandler(parts) : undefined;
  const httpClient = memoryHttpClient(handle);
  const fetch = memoryFetch(handle);
  const grpcWeb = (o: GrpcWebTransportOptions) => createGrpcWebTransport({ ...o, fetch });
  return {
    url,
    httpClient,
    fetch,
    requests: log,
    deliveries: push?.deliveries ?? [],
    delivered: async () => push?.settled(),
    async cardKeys() {
      if (!signer) throw new TypeError("cardKeys: this test agent does not sign its card (signCard)");
      return signer.keySet();
    },
    connectOptions: () => ({ fetch, transport: { httpClient }, ...(grpc && { grpcWeb }) }),
    transport(binding = bindings[0] ?? "JSONRPC", transportOptions = {}) {
      const settings = { ...transportOptions, baseUrl: url + INTERFACE_PATHS[binding], httpClient };
      if (binding === "GRPC") return grpcWeb(settings);
      return binding === "JSONRPC" ? createJsonRpcTransport(settings) : createRestTransport(settings);
    },
    enqueue: (...scripts) => void queue.push(...scripts),
    task: (id) => {
      const record = store.get(id);
      return record && snapshot(record);
    },
    tasks: () => store.newestFirst().map((r) => snapshot(r)),
    async listen() {
      const server = await listenLoopback(handle, closing.signal, grpc);
      servers.add(server);
      return server;
    },
    async close() {
      closing.abort();
      store.close();
      await Promise.all([push?.settled(), ...[...servers].map((s) => s.close())]);
    },
  };
}

/** The card, declaring push notifications when the agent takes them (unless the test's own capabilities say otherwise). */
function withPush(card: AgentCardJson, push: boolean): AgentCardJson {
  if (!push) return card;
  return { ...card, capabilities: { ...card.capabilities, pushNotifications: card.capabilities?.pushNotifications ?? true } };
}
