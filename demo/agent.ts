// A real A2A 1.0 peer for tests and the demo: the official @a2a-js/sdk server
// (JSON-RPC, HTTP+JSON and gRPC bindings over one DefaultRequestHandler),
// started in-process on 127.0.0.1 and driven by a small scripted executor.
//
// Script, chosen by the first text part of the user message:
//   echo <text>  direct Message (no task) whose single text part is <text>
//   count [n] [every ms] [wide]
//                task: SUBMITTED, WORKING, n chunks of artifact "result"
//                ("chunk-1".."chunk-n"), COMPLETED; n defaults to 3; with
//                "every ms", one chunk every ms milliseconds; with "wide",
//                each chunk's text ends in multi-byte characters
//                ("chunk-1-é中𝄞")
//   hold         task in WORKING that stays live until it is canceled
//   input        task that ends in INPUT_REQUIRED ("need more")
//   fail         task that ends in FAILED ("failed on purpose")
//   reject       task that ends in REJECTED
//   anything else behaves like "count 1"

import { randomUUID } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";

import express from "express";
import type { NextFunction, Request, Response } from "express";
import { Server as GrpcServer, ServerCredentials } from "@grpc/grpc-js";
import type { ChannelOptions, Metadata } from "@grpc/grpc-js";

import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { AgentCard as SdkAgentCard, Role, Task as SdkTask, TaskState } from "@a2a-js/sdk";
import type { AgentCard, AgentSkill, Artifact, Message, Part, Task, TaskStatus } from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultExecutionEventBusManager,
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  UnauthenticatedUser,
} from "@a2a-js/sdk/server";
import type { AgentExecutor, ExecutionEventBus, RequestContext, ServerCallContext, User } from "@a2a-js/sdk/server";
import { A2AError } from "@a2a-js/sdk/errors";
import { agentCardHandler, jsonRpcHandler, restHandler } from "@a2a-js/sdk/server/express";
import { A2AService, grpcService } from "@a2a-js/sdk/server/grpc";
import { LegacyA2AService, legacyGrpcService } from "@a2a-js/sdk/compat/v0_3/server/grpc";

/**
 * The server pieces of one @a2a-js/sdk release. The agent runs on the
 * installed release by default; another one (an older release installed
 * under an npm alias) serves the same script behind the same card.
 */
export interface ServerSdk {
  /** Which release this is, for test titles. */
  label: string;
  DefaultExecutionEventBusManager: typeof DefaultExecutionEventBusManager;
  DefaultPushNotificationSender: typeof DefaultPushNotificationSender;
  DefaultRequestHandler: typeof DefaultRequestHandler;
  InMemoryPushNotificationStore: typeof InMemoryPushNotificationStore;
  InMemoryTaskStore: typeof InMemoryTaskStore;
  UnauthenticatedUser: typeof UnauthenticatedUser;
  agentCardHandler: typeof agentCardHandler;
  jsonRpcHandler: typeof jsonRpcHandler;
  restHandler: typeof restHandler;
  A2AService: typeof A2AService;
  grpcService: typeof grpcService;
  LegacyA2AService: typeof LegacyA2AService;
  legacyGrpcService: typeof legacyGrpcService;
}

/** The installed @a2a-js/sdk. */
export const CURRENT_SDK: ServerSdk = {
  label: "@a2a-js/sdk",
  DefaultExecutionEventBusManager,
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  UnauthenticatedUser,
  agentCardHandler,
  jsonRpcHandler,
  restHandler,
  A2AService,
  grpcService,
  LegacyA2AService,
  legacyGrpcService,
};

import { AgentCardSchema } from "../gen/lf/a2a/v1/a2a_pb.js";
import { signAgentCard } from "../src/trust.js";
import { LOOPBACK_NAMES } from "../src/trust/loopback-names.js";

export interface LocalAgent {
  /** "http://127.0.0.1:PORT": serves the card, JSON-RPC and HTTP+JSON. */
  origin: string;
  /** JSON-RPC endpoint (POST). */
  jsonRpcUrl: string;
  /** HTTP+JSON base URL: routes such as `POST {restUrl}/message:send`. */
  restUrl: string;
  /** "127.0.0.1:PORT2": plain gRPC over HTTP/2, no TLS; "grpcs://127.0.0.1:PORT2" with `grpcTls`. */
  grpcAddress: string;
  /** `{origin}/.well-known/agent-card.json` */
  cardUrl: string;
  /** Where the card signatures' `jku` points: `{origin}/.well-known/jwks.json`. */
  jwksUrl: string;
  /** The public key that signs both cards, as a JWK Set. */
  jwks: { keys: JWK[] };
  /** The `kid` of that key. */
  signingKid: string;
  /** The task as the server's task store holds it (ProtoJSON), or undefined when it holds none under that id and tenant. */
  storedTask(id: string, tenant?: string): Promise<JsonValue | undefined>;
  /** Stops both servers and drops every open connection. */
  close(): Promise<void>;
}

export interface LocalAgentOptions {
  /** HTTP port; 0 (default) picks a free one. */
  port?: number;
  /** gRPC port; 0 (default) picks a free one. */
  grpcPort?: number;
  /**
   * When set, GetExtendedAgentCard returns the extended card only to callers
   * that send `Authorization: Bearer <token>` (HTTP header or gRPC metadata);
   * anyone else gets the public card, which is what the SDK itself does for
   * unauthenticated callers. When unset, every caller gets the extended card.
   */
  extendedCardToken?: string;
  /**
   * A careless agent: a call with an `Authorization` that is not
   * `extendedCardToken` fails with an error quoting the header it got, on
   * every binding (what the client does with an echoed secret is tested
   * against it).
   */
  echoRejectedCredentials?: boolean;
  /**
   * Protocol versions served, newest first. Default ["1.0"]. "0.3" turns on
   * the SDK's 0.3 compatibility layer on every binding.
   */
  versions?: readonly ProtocolVersion[];
  /**
   * Versions the published card lists, when they should differ from what is
   * served: e.g. ["1.0", "0.3"] over versions ["0.3"] is an agent that
   * rejects the 1.0 its card claims. Default: `versions`.
   */
  advertisedVersions?: readonly ProtocolVersion[];
  /**
   * Answer CORS preflights and add the CORS headers browsers need to every
   * HTTP route (card, JWKS, JSON-RPC, HTTP+JSON), for pages served from
   * another origin. Default false.
   */
  cors?: boolean;
  /** Whether the card offers push notifications (the SDK then refuses push configs). Default true. */
  pushNotifications?: boolean;
  /** Whether the card offers streaming (the SDK then refuses SendStreamingMessage and SubscribeToTask). Default true. */
  streaming?: boolean;
  /** The SDK release that serves; default the installed one (`CURRENT_SDK`). */
  sdk?: ServerSdk;
  /** What answers the calls; default the scripted executor described at the top of this file. */
  executor?: AgentExecutor;
  /** Where the JSON-RPC and HTTP+JSON endpoints are mounted; default `/a2a/jsonrpc` and `/a2a/rest`. */
  paths?: { jsonRpc: string; rest: string };
  /** The card's name, description, skills and input modes, for an agent other than the scripted one. */
  describe?: Pick<AgentCard, "name" | "description" | "skills" | "defaultInputModes">;
  /** Extension URIs the card declares as required: the SDK refuses messages from callers that do not activate them. */
  requiredExtensions?: readonly string[];
  /** Whether the SDK refuses parts whose media type the card's input modes lack (the installed release only). Default false. */
  validateInputModes?: boolean;
  /** Whether the card's extended card is served; false: the card offers one, but none is configured. Default true. */
  extendedCard?: boolean;
  /**
   * Serve gRPC over TLS with this certificate and key (PEM); with
   * `clientCa`, only to clients presenting a certificate it issued.
   * Default: plaintext.
   */
  grpcTls?: { cert: string; key: string; clientCa?: string };
  /** Options of the gRPC server (@grpc/grpc-js), e.g. `{ "grpc.max_concurrent_streams": 1 }`. */
  grpcServerOptions?: ChannelOptions;
}

const HOST = "127.0.0.1";
const CARD_PATH = "/.well-known/agent-card.json";
const JWKS_PATH = "/.well-known/jwks.json";
const SIGNING_KID = "local-agent-es256";
const JSONRPC_PATH = "/a2a/jsonrpc";
const REST_PATH = "/a2a/rest";

// ---------------------------------------------------------------------------
// Scripted executor

type Command =
  | { kind: "echo"; text: string }
  | { kind: "count"; n: number; everyMs: number; wide: boolean }
  | { kind: "hold" }
  | { kind: "input" }
  | { kind: "fail" }
  | { kind: "reject" };

function parseCommand(text: string): Command {
  const trimmed = text.trim();
  const echo = /^echo(?:\s+([\s\S]*))?$/.exec(trimmed);
  if (echo) return { kind: "echo", text: echo[1] ?? "" };
  // `count n` streams n chunks at once; `count n every ms` paces them, so a
  // stream can be cut while the task is still running.
  const count = /^count(?:\s+(\d+))?(?:\s+every\s+(\d+))?(\s+wide)?$/.exec(trimmed);
  if (count) {
    return {
      kind: "count",
      n: count[1] === undefined ? 3 : Number(count[1]),
      everyMs: Number(count[2] ?? 0),
      wide: count[3] !== undefined,
    };
  }
  switch (trimmed) {
    case "hold":
    case "input":
    case "fail":
    case "reject":
      return { kind: trimmed };
    default:
      return { kind: "count", n: 1, everyMs: 0, wide: false };
  }
}

function firstText(message: Message | undefined): string {
  for (const part of message?.parts ?? []) {
    if (part.content?.$case === "text") return part.content.value;
  }
  return "";
}

function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" };
}

function agentMessage(text: string, contextId: string, taskId: string): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** Two-, three- and four-byte UTF-8 characters, so a cut byte stream can split one. */
const WIDE = "é中𝄞";

const FINAL_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

class ScriptedExecutor implements AgentExecutor {
  /** Tasks parked by `hold`: calling the function lets execute() finish them. */
  private readonly held = new Map<string, () => void>();
  /** contextId of every task started here that has not reached a final state. */
  private readonly live = new Map<string, string>();

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const command = parseCommand(firstText(ctx.userMessage));
    if (command.kind === "echo") {
      bus.publish(AgentEvent.message(agentMessage(command.text, ctx.contextId, "")));
      return;
    }

    const { taskId, contextId } = ctx;
    const setStatus = (state: TaskState, text?: string): void => {
      if (FINAL_STATES.has(state)) this.live.delete(taskId);
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: this.status(state, contextId, taskId, text),
          metadata: undefined,
        }),
      );
    };

    this.live.set(taskId, contextId);
    if (command.kind === "hold") {
      // Registered before the task is published, so a cancel can never
      // arrive for a held task that is not in the map yet.
      const released = new Promise<void>((resolve) => this.held.set(taskId, resolve));
      bus.publish(AgentEvent.task(this.taskSnapshot(ctx, TaskState.TASK_STATE_WORKING)));
      await released;
      setStatus(TaskState.TASK_STATE_CANCELED);
      return;
    }

    // A follow-up turn on an existing task continues it rather than
    // pretending it was just submitted.
    const first = ctx.task ? TaskState.TASK_STATE_WORKING : TaskState.TASK_STATE_SUBMITTED;
    bus.publish(AgentEvent.task(this.taskSnapshot(ctx, first)));

    switch (command.kind) {
      case "reject":
        setStatus(TaskState.TASK_STATE_REJECTED);
        return;
      case "input":
        setStatus(TaskState.TASK_STATE_WORKING);
        setStatus(TaskState.TASK_STATE_INPUT_REQUIRED, "need more");
        return;
      case "fail":
        setStatus(TaskState.TASK_STATE_WORKING);
        setStatus(TaskState.TASK_STATE_FAILED, "failed on purpose");
        return;
      case "count": {
        setStatus(TaskState.TASK_STATE_WORKING);
        for (let i = 1; i <= command.n; i++) {
          if (command.everyMs > 0) await new Promise((resolve) => setTimeout(resolve, command.everyMs));
          const artifact: Artifact = {
            artifactId: "result",
            name: "result",
            description: "",
            parts: [textPart(command.wide ? `chunk-${i}-${WIDE}` : `chunk-${i}`)],
            metadata: undefined,
            extensions: [],
          };
          bus.publish(
            AgentEvent.artifactUpdate({
              taskId,
              contextId,
              artifact,
              append: i > 1,
              lastChunk: i === command.n,
              metadata: undefined,
            }),
          );
        }
        setStatus(TaskState.TASK_STATE_COMPLETED);
        return;
      }
    }
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const release = this.held.get(taskId);
    if (release) {
      // execute() publishes CANCELED itself once released; the request
      // handler is already listening on this bus for it.
      this.held.delete(taskId);
      release();
      return;
    }
    // Any other live task (e.g. one waiting in INPUT_REQUIRED) has no running
    // execute() to finish it, so cancel it here.
    const contextId = this.live.get(taskId) ?? "";
    this.live.delete(taskId);
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: this.status(TaskState.TASK_STATE_CANCELED, contextId, taskId),
        metadata: undefined,
      }),
    );
  }

  private status(state: TaskState, contextId: string, taskId: string, text?: string): TaskStatus {
    return {
      state,
      message: text === undefined ? undefined : agentMessage(text, contextId, taskId),
      timestamp: new Date().toISOString(),
    };
  }

  private taskSnapshot(ctx: RequestContext, state: TaskState): Task {
    const status = this.status(state, ctx.contextId, ctx.taskId);
    if (ctx.task) return { ...structuredClone(ctx.task), status };
    return {
      id: ctx.taskId,
      contextId: ctx.contextId,
      status,
      artifacts: [],
      history: [ctx.userMessage],
      metadata: undefined,
    };
  }
}

// ---------------------------------------------------------------------------
// Cards

const SKILLS: AgentSkill[] = [
  {
    id: "echo",
    name: "Echo",
    description: "Replies with a direct message repeating the text after `echo`.",
    tags: ["test", "message"],
    examples: ["echo hello"],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  },
  {
    id: "count",
    name: "Count",
    description: "Runs a task that streams n chunks of one artifact, then completes.",
    tags: ["test", "task", "streaming"],
    examples: ["count 3"],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  },
  {
    id: "lifecycle",
    name: "Task lifecycle",
    description: "`hold` waits for cancel; `input`, `fail` and `reject` end in those states.",
    tags: ["test", "task"],
    examples: ["hold", "input", "fail", "reject"],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  },
];

const SECRET_SKILL: AgentSkill = {
  id: "secret-skill",
  name: "Secret skill",
  description: "Listed only on the extended agent card.",
  tags: ["test", "extended"],
  examples: [],
  inputModes: [],
  outputModes: [],
  securityRequirements: [],
};

export type ProtocolVersion = "1.0" | "0.3";

function buildCard(
  urls: { jsonRpcUrl: string; restUrl: string; grpcAddress: string; origin: string },
  versions: readonly ProtocolVersion[],
  pushNotifications = true,
  describe: LocalAgentOptions["describe"] = undefined,
  streaming = true,
  requiredExtensions: readonly string[] = [],
): AgentCard {
  // Newest version first, each on all three bindings. A 0.3 HTTP+JSON
  // interface shares the base URL: its routes live under `/v1/...`.
  const supportedInterfaces = versions.flatMap((protocolVersion) => [
    { url: urls.jsonRpcUrl, protocolBinding: "JSONRPC", tenant: "", protocolVersion },
    { url: urls.restUrl, protocolBinding: "HTTP+JSON", tenant: "", protocolVersion },
    { url: urls.grpcAddress, protocolBinding: "GRPC", tenant: "", protocolVersion },
  ]);
  return {
    name: "a2a-connect local agent",
    description: "Scripted A2A agent served by the official SDK, for tests and demos.",
    supportedInterfaces,
    provider: { organization: "a2a-connect", url: urls.origin },
    version: "1.0.0",
    capabilities: {
      streaming,
      pushNotifications,
      extendedAgentCard: true,
      extensions: requiredExtensions.map((uri) => ({ uri, description: "", required: true, params: undefined })),
    },
    // The SDK's well-known handler serialises the card with JSON.stringify, so
    // oneof-based fields (security schemes) would leak ts-proto's `$case`
    // wrappers onto the wire: the card therefore declares none.
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: SKILLS,
    signatures: [],
    ...describe,
  };
}

// ---------------------------------------------------------------------------
// Authentication (only used to gate the extended card)

class BearerUser implements User {
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return "bearer";
  }
}

function userFor(authorization: string | undefined, token: string | undefined, sdk: ServerSdk, echo = false): User {
  if (token !== undefined && authorization === `Bearer ${token}`) return new BearerUser();
  if (echo && authorization !== undefined) {
    throw new A2AError({ message: `no user for the credentials "${authorization}"`, metadata: { credentials: authorization } });
  }
  return new sdk.UnauthenticatedUser();
}

// Tasks, push configs and event buses are scoped per owner by default;
// authenticating only to read the extended card must not hide a caller's
// tasks from its unauthenticated calls, so everyone shares one scope.
const sharedOwner = (): string => "shared";

// ---------------------------------------------------------------------------

/**
 * The origin a request reached this port by, from its Host header, when
 * that names the port by one of its loopback names (`localhost`,
 * `127.0.0.1`, `[::1]`); undefined for any other Host, which a page on
 * another name (DNS rebinding) could send: such a request gets the card of
 * the address the agent listens on.
 */
function loopbackOriginOf(host: string | undefined, port: number): string | undefined {
  let url: URL;
  try {
    url = new URL(`http://${host ?? ""}`);
  } catch {
    return undefined;
  }
  return LOOPBACK_NAMES.includes(url.hostname) && url.port === String(port) && url.host === host?.toLowerCase() ? url.origin : undefined;
}

/** Signs a card of the SDK's type with a2a-connect's signer (RFC 8785 + JWS, spec 8.4). */
async function signCard(card: AgentCard, key: CryptoKey, jku: string): Promise<AgentCard> {
  const ours = fromJson(AgentCardSchema, SdkAgentCard.toJSON(card) as JsonValue, { ignoreUnknownFields: true });
  const signed = await signAgentCard(ours, key, { kid: SIGNING_KID, jku });
  return {
    ...card,
    signatures: signed.signatures.map((s) => ({ protected: s.protected, signature: s.signature, header: undefined })),
  };
}

// ---------------------------------------------------------------------------
// CORS (option `cors`)

const CORS_METHODS = "GET, POST, DELETE, OPTIONS";
const CORS_REQUEST_HEADERS = "Content-Type, Authorization, A2A-Version, A2A-Extensions, Last-Event-ID";
const CORS_EXPOSED_HEADERS = "ETag, Retry-After, WWW-Authenticate";

/** Allows the calling page's origin, and answers preflights itself. */
function cors(req: Request, res: Response, next: NextFunction): void {
  const origin = req.header("origin");
  if (origin === undefined) {
    next();
    return;
  }
  res.vary("Origin");
  res.setHeader("Access-Control-Allow-Origin", origin);
  res.setHeader("Access-Control-Expose-Headers", CORS_EXPOSED_HEADERS);
  if (req.method === "OPTIONS" && req.header("access-control-request-method") !== undefined) {
    res.setHeader("Access-Control-Allow-Methods", CORS_METHODS);
    res.setHeader("Access-Control-Allow-Headers", CORS_REQUEST_HEADERS);
    res.setHeader("Access-Control-Max-Age", "600");
    res.status(204).end();
    return;
  }
  next();
}

function listenHttp(server: HttpServer, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    server.once("error", onError);
    server.listen(port, HOST, () => {
      server.off("error", onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function bindGrpc(server: GrpcServer, port: number, tls: LocalAgentOptions["grpcTls"]): Promise<number> {
  const credentials = tls
    ? ServerCredentials.createSsl(
        tls.clientCa === undefined ? null : Buffer.from(tls.clientCa),
        [{ private_key: Buffer.from(tls.key), cert_chain: Buffer.from(tls.cert) }],
        tls.clientCa !== undefined,
      )
    : ServerCredentials.createInsecure();
  return new Promise((resolve, reject) => {
    server.bindAsync(`${HOST}:${port}`, credentials, (err, bound) => {
      if (err) reject(err);
      else resolve(bound);
    });
  });
}

function closeHttp(server: HttpServer): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      server.closeAllConnections();
      resolve();
      return;
    }
    // close() stops accepting and waits for open sockets; closeAllConnections()
    // ends keep-alive sockets and open SSE streams so that wait is immediate.
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function closeGrpc(server: GrpcServer): Promise<void> {
  return new Promise((resolve) => {
    // tryShutdown reports when the listener and every session are gone;
    // forceShutdown then destroys the sessions instead of letting open
    // streams (a held task's subscription, say) keep them alive.
    server.tryShutdown(() => resolve());
    server.forceShutdown();
  });
}

function nextLoopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

async function shutdown(httpServer: HttpServer, grpcServer: GrpcServer): Promise<void> {
  await Promise.all([closeHttp(httpServer), closeGrpc(grpcServer)]);
  // Both servers report "closed" once their handles are closing; libuv
  // releases them in the close phase of the loop. Two check-phase turns
  // guarantee that phase has run, so no TCP handle is listed by
  // process.getActiveResourcesInfo() once close() resolves.
  await nextLoopTurn();
  await nextLoopTurn();
}

function grpcAuthorization(metadata: Metadata): string | undefined {
  const value = metadata.get("authorization")[0];
  return value === undefined ? undefined : value.toString();
}

export async function startLocalAgent(options: LocalAgentOptions = {}): Promise<LocalAgent> {
  const token = options.extendedCardToken;
  const sdk = options.sdk ?? CURRENT_SDK;
  const app = express();
  app.disable("x-powered-by");
  const httpServer = createServer(app);
  const grpcServer = new GrpcServer(options.grpcServerOptions);

  let httpPort: number;
  let grpcPort: number;
  try {
    httpPort = await listenHttp(httpServer, options.port ?? 0);
    grpcPort = await bindGrpc(grpcServer, options.grpcPort ?? 0, options.grpcTls);
  } catch (err) {
    await shutdown(httpServer, grpcServer);
    throw err;
  }

  const origin = `http://${HOST}:${httpPort}`;
  const paths = options.paths ?? { jsonRpc: JSONRPC_PATH, rest: REST_PATH };
  const jsonRpcUrl = `${origin}${paths.jsonRpc}`;
  const restUrl = `${origin}${paths.rest}`;
  const grpcAddress = options.grpcTls ? `grpcs://${HOST}:${grpcPort}` : `${HOST}:${grpcPort}`;
  const cardUrl = `${origin}${CARD_PATH}`;

  // A fresh key per start: the cards are signed as agent authors would sign
  // theirs, and the public half is published for `jku`.
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: SIGNING_KID, alg: "ES256", use: "sig" }] };
  const jwksUrl = `${origin}${JWKS_PATH}`;
  const sign = (c: AgentCard, keysAt = jwksUrl) => signCard(c, privateKey, keysAt);

  const versions = options.versions ?? ["1.0"];
  const legacyCompat = { enabled: versions.includes("0.3") };
  const urls = { origin, jsonRpcUrl, restUrl, grpcAddress };
  const unsigned = buildCard(urls, versions, options.pushNotifications, options.describe, options.streaming, options.requiredExtensions);
  const card = await sign(unsigned);
  const publishedUnsigned = options.advertisedVersions
    ? buildCard(
        urls,
        options.advertisedVersions,
        options.pushNotifications,
        options.describe,
        options.streaming,
        options.requiredExtensions,
      )
    : unsigned;
  const published = options.advertisedVersions ? await sign(publishedUnsigned) : card;
  const extendedCard: AgentCard = await sign({
    ...unsigned,
    description: `${unsigned.description} Extended card.`,
    skills: [...unsigned.skills, SECRET_SKILL],
  });

  const pushStore = new sdk.InMemoryPushNotificationStore(sharedOwner);
  const taskStore = new sdk.InMemoryTaskStore(sharedOwner);
  const requestHandler = new sdk.DefaultRequestHandler(
    card,
    taskStore,
    options.executor ?? new ScriptedExecutor(),
    new sdk.DefaultExecutionEventBusManager(sharedOwner),
    pushStore,
    new sdk.DefaultPushNotificationSender(pushStore),
    // A function provider decides per call. (Given a plain AgentCard instead,
    // the SDK returns it only when context.user.isAuthenticated and falls back
    // to the public card otherwise.)
    options.extendedCard === false
      ? undefined
      : async (context: ServerCallContext) => (token === undefined || context.user?.isAuthenticated ? extendedCard : card),
    undefined,
    { validateInputModes: options.validateInputModes ?? false },
  );

  const echo = options.echoRejectedCredentials;
  const httpUser = async (req: Request): Promise<User> => userFor(req.header("authorization"), token, sdk, echo);
  const grpcUser = async (call: { metadata: Metadata }): Promise<User> => userFor(grpcAuthorization(call.metadata), token, sdk, echo);

  // The SDK routers parse their own bodies: nothing else that reads one goes
  // in front of them (the CORS handler only sets headers).
  if (options.cors) app.use(cors);
  // The published card names its key set on the origin it was fetched from
  // (a client trusts key sets on the card's own origin): one card per
  // loopback name of this port, each signed once, so that its ETag holds.
  const cardHandlers = new Map([[origin, sdk.agentCardHandler({ agentCardProvider: async () => published, legacyCompat })]]);
  app.use(CARD_PATH, (req, res, next) => {
    const servedAt = loopbackOriginOf(req.header("host"), httpPort) ?? origin;
    let handler = cardHandlers.get(servedAt);
    if (handler === undefined) {
      const signed = sign(publishedUnsigned, `${servedAt}${JWKS_PATH}`);
      handler = sdk.agentCardHandler({ agentCardProvider: () => signed, legacyCompat });
      cardHandlers.set(servedAt, handler);
    }
    handler(req, res, next);
  });
  app.get(JWKS_PATH, (_req, res) => {
    res.type("application/jwk-set+json").send(JSON.stringify(jwks));
  });
  app.use(paths.jsonRpc, sdk.jsonRpcHandler({ requestHandler, userBuilder: httpUser, legacyCompat }));
  app.use(paths.rest, sdk.restHandler({ requestHandler, userBuilder: httpUser, legacyCompat }));
  grpcServer.addService(sdk.A2AService, sdk.grpcService({ requestHandler, userBuilder: grpcUser }));
  if (legacyCompat.enabled) {
    grpcServer.addService(sdk.LegacyA2AService, sdk.legacyGrpcService({ requestHandler, userBuilder: grpcUser }));
  }

  let closing: Promise<void> | undefined;
  return {
    origin,
    jsonRpcUrl,
    restUrl,
    grpcAddress,
    cardUrl,
    jwksUrl,
    jwks,
    signingKid: SIGNING_KID,
    async storedTask(id, tenant = "") {
      // The store scopes by tenant and owner; every caller here shares one owner.
      const task = await taskStore.load(id, { tenant } as ServerCallContext);
      return task === undefined ? undefined : (SdkTask.toJSON(task) as JsonValue);
    },
    close() {
      closing ??= shutdown(httpServer, grpcServer);
      return closing;
    },
  };
}
