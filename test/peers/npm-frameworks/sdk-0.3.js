// a2a-connect a2a-js 0.3 peer: the scripted agent of the peer contract on
// @a2a-js/sdk 0.3.14, the A2A 0.3 release that Gemini CLI's A2A server and
// most npm frameworks embed, served through that release's own server API:
// DefaultRequestHandler with InMemoryTaskStore, InMemoryPushNotificationStore
// and DefaultPushNotificationSender, on every transport 0.3.14 has:
//   JSON-RPC   POST http://127.0.0.1:PORT/a2a/jsonrpc
//   HTTP+JSON  http://127.0.0.1:PORT/a2a/rest  (0.3 routes: /v1/message:send, ...)
//   gRPC       127.0.0.1:GRPC_PORT, service a2a.v1.A2AService
//   card       GET http://127.0.0.1:PORT/.well-known/agent-card.json
// It speaks A2A 0.3 only (0.3.14 has no 1.0), so --versions is ignored.
// 0.3.14 has no card signer: the card is served unsigned.
//
// Usage: node sdk-0.3.js --port HTTP_PORT --grpc-port GRPC_PORT
// Prints "ready" on stdout once HTTP and gRPC listen; logs go to stderr.
// Stops on SIGTERM/SIGINT and when stdin reaches EOF.

import "./peer-setup.js";

import { randomUUID } from "node:crypto";

import express from "express";
import { Server as GrpcServer, ServerCredentials } from "@grpc/grpc-js";
import { AGENT_CARD_PATH } from "@a2a-js/sdk";
import {
  DefaultExecutionEventBusManager,
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
} from "@a2a-js/sdk/server";
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from "@a2a-js/sdk/server/express";
import { A2AService, grpcService, UserBuilder as GrpcUserBuilder } from "@a2a-js/sdk/server/grpc";

import { SKILLS, parseArgs, parseCommand, sayReady, sleep, stopOnSignals } from "./common.js";

const HOST = "127.0.0.1";
const JSONRPC_PATH = "/a2a/jsonrpc";
const REST_PATH = "/a2a/rest";

// ---------------------------------------------------------------------------
// Scripted executor (0.3 event shapes: kind "task" / "status-update" / ...)

function firstText(message) {
  for (const part of message?.parts ?? []) {
    if (part.kind === "text") return part.text;
  }
  return "";
}

function agentMessage(text, contextId, taskId) {
  return { kind: "message", messageId: randomUUID(), role: "agent", parts: [{ kind: "text", text }], contextId, taskId };
}

const FINAL_STATES = new Set(["completed", "failed", "canceled", "rejected"]);
// 0.3 ends a stream (and a blocking send) on a status update marked final:
// a terminal state, or one that waits on the caller.
const ENDS_TURN = new Set([...FINAL_STATES, "input-required", "auth-required"]);

class ScriptedExecutor {
  /** Tasks parked by `hold`: calling the function lets execute() finish them. */
  held = new Map();
  /** Paced counts still publishing, by task id: aborting one stops its chunks. */
  running = new Map();

  /** The handler's task store: cancelTask reads a task's contextId from it. */
  constructor(taskStore) {
    this.taskStore = taskStore;
  }

  async execute(ctx, bus) {
    const command = parseCommand(firstText(ctx.userMessage));
    const { taskId, contextId } = ctx;

    if (command.kind === "echo") {
      // A direct reply: no task is made (the handler stops on a message).
      bus.publish(agentMessage(command.text, contextId, undefined));
      bus.finished();
      return;
    }

    const status = (state, text) => ({
      state,
      message: text === undefined ? undefined : agentMessage(text, contextId, taskId),
      timestamp: new Date().toISOString(),
    });
    const setStatus = (state, text) =>
      bus.publish({ kind: "status-update", taskId, contextId, status: status(state, text), final: ENDS_TURN.has(state) });
    // A follow-up turn on an existing task continues it rather than
    // pretending it was just submitted.
    const snapshot = (state) =>
      ctx.task
        ? { ...structuredClone(ctx.task), status: status(state) }
        : { kind: "task", id: taskId, contextId, status: status(state), artifacts: [], history: [ctx.userMessage] };

    if (command.kind === "hold") {
      // Registered before the task is published, so a cancel can never come
      // for a held task that is not in the map yet.
      const released = new Promise((resolve) => this.held.set(taskId, resolve));
      bus.publish(snapshot("working"));
      await released;
      setStatus("canceled");
      bus.finished();
      return;
    }

    bus.publish(snapshot(ctx.task ? "working" : "submitted"));
    switch (command.kind) {
      case "reject":
        setStatus("rejected");
        break;
      case "input":
        setStatus("working");
        setStatus("input-required", "need more");
        break;
      case "fail":
        setStatus("working");
        setStatus("failed", "failed on purpose");
        break;
      case "count": {
        setStatus("working");
        const abort = new AbortController();
        this.running.set(taskId, abort);
        try {
          for (let i = 1; i <= command.n; i++) {
            if (command.everyMs > 0) await sleep(command.everyMs, abort.signal);
            bus.publish({
              kind: "artifact-update",
              taskId,
              contextId,
              artifact: { artifactId: "result", name: "result", parts: [{ kind: "text", text: `chunk-${i}` }] },
              append: i > 1,
              lastChunk: i === command.n,
            });
          }
        } catch {
          // Canceled between chunks: cancelTask has published CANCELED.
          return;
        } finally {
          this.running.delete(taskId);
        }
        setStatus("completed");
        break;
      }
    }
    bus.finished();
  }

  async cancelTask(taskId, bus) {
    const release = this.held.get(taskId);
    if (release) {
      // execute() publishes CANCELED itself once released; the request
      // handler already listens on this bus for it.
      this.held.delete(taskId);
      release();
      return;
    }
    // The handler only asks while an execution's bus is live, i.e. for a
    // task whose execute() is still publishing (a paced count): stop it and
    // end the task here.
    this.running.get(taskId)?.abort();
    const task = await this.taskStore.load(taskId);
    bus.publish({
      kind: "status-update",
      taskId,
      contextId: task?.contextId ?? "",
      status: { state: "canceled", timestamp: new Date().toISOString() },
      final: true,
    });
    bus.finished();
  }
}

// ---------------------------------------------------------------------------
// Cards

function publicCard(origin, grpcPort) {
  const jsonRpcUrl = `${origin}${JSONRPC_PATH}`;
  return {
    protocolVersion: "0.3.0",
    name: "a2a-connect a2a-js 0.3 peer",
    description: "Scripted agent on @a2a-js/sdk 0.3.14 for the a2a-connect interop tests.",
    version: "1.0.0",
    provider: { organization: "a2a-connect", url: origin },
    // 0.3 names the main interface by url + preferredTransport and lists
    // every interface (that one included) in additionalInterfaces.
    url: jsonRpcUrl,
    preferredTransport: "JSONRPC",
    additionalInterfaces: [
      { url: jsonRpcUrl, transport: "JSONRPC" },
      { url: `${origin}${REST_PATH}`, transport: "HTTP+JSON" },
      // The 0.3 SDKs dial gRPC at host:port.
      { url: `${HOST}:${grpcPort}`, transport: "GRPC" },
    ],
    capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: false },
    // 0.3's flag for GetExtendedAgentCard (agent/getAuthenticatedExtendedCard).
    supportsAuthenticatedExtendedCard: true,
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: SKILLS,
  };
}

function extendedCard(card) {
  return {
    ...card,
    description: `${card.description} Extended card.`,
    skills: [
      ...card.skills,
      { id: "secret-skill", name: "Secret skill", description: "Listed on the extended card only.", tags: ["test", "extended"] },
    ],
  };
}

// ---------------------------------------------------------------------------
// Servers

const { port, grpcPort } = parseArgs();
const origin = `http://${HOST}:${port}`;
const card = publicCard(origin, grpcPort);
const extended = extendedCard(card);

const taskStore = new InMemoryTaskStore();
const pushStore = new InMemoryPushNotificationStore();
const requestHandler = new DefaultRequestHandler(
  card,
  taskStore,
  new ScriptedExecutor(taskStore),
  new DefaultExecutionEventBusManager(),
  pushStore,
  // POSTs the task to every push config's URL on each event.
  new DefaultPushNotificationSender(pushStore),
  // A function is served to every caller, authenticated or not, as the
  // contract asks (a plain card would go to authenticated users only).
  async () => extended,
);

// Each handler mounted on the contract's path. (0.3.14's A2AExpressApp mounts
// the same jsonRpcHandler and agentCardHandler, but both under one base
// path, and no HTTP+JSON.)
const app = express();
app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
app.use(JSONRPC_PATH, jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
app.use(REST_PATH, restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));

const http = await new Promise((resolve, reject) => {
  const server = app.listen(port, HOST, (err) => (err ? reject(err) : resolve(server)));
  server.once("error", reject);
});

const grpc = new GrpcServer();
grpc.addService(A2AService, grpcService({ requestHandler, userBuilder: GrpcUserBuilder.noAuthentication }));
await new Promise((resolve, reject) =>
  grpc.bindAsync(`${HOST}:${grpcPort}`, ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
);

console.error(
  `a2a-js 0.3.14 peer: card ${origin}/${AGENT_CARD_PATH}, JSON-RPC ${origin}${JSONRPC_PATH}, REST ${origin}${REST_PATH}, gRPC ${HOST}:${grpcPort}`,
);
sayReady();

stopOnSignals(async () => {
  grpc.forceShutdown();
  http.closeAllConnections();
  await new Promise((resolve) => http.close(() => resolve()));
});
