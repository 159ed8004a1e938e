/**
 * The official @a2a-js/sdk server (DefaultRequestHandler over an
 * InMemoryTaskStore) for B1 against a real server, in a process of its own
 * on 127.0.0.1: JSON-RPC and HTTP+JSON on one express app, gRPC on a
 * @grpc/grpc-js server. The agent answers every message at once with a
 * message of its own, so no task is stored and the server does the same
 * work on the last call of a run as on the first.
 *
 * Sends `{ jsonRpcUrl, restUrl, grpcAddress }` to a fork parent (or prints it).
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { Server as GrpcServer, ServerCredentials } from "@grpc/grpc-js";
import { Role, type AgentCard } from "@a2a-js/sdk";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from "@a2a-js/sdk/server";
import { jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import { A2AService, grpcService, UserBuilder as GrpcUserBuilder } from "@a2a-js/sdk/server/grpc";

const HOST = "127.0.0.1";

/** Replies to every message with one text message, and is done. */
const replyAtOnce: AgentExecutor = {
  async execute(ctx, bus) {
    bus.publish(
      AgentEvent.message({
        messageId: randomUUID(),
        contextId: ctx.contextId,
        taskId: "",
        role: Role.ROLE_AGENT,
        parts: [{ content: { $case: "text", value: "x".repeat(200) }, metadata: undefined, filename: "", mediaType: "" }],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      }),
    );
    // The request handler closes the bus once execute() returns.
  },
  async cancelTask() {},
};

function card(urls: { jsonRpcUrl: string; restUrl: string; grpcAddress: string }): AgentCard {
  return {
    name: "official",
    description: "the official SDK server, answering at once",
    supportedInterfaces: [
      { url: urls.jsonRpcUrl, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
      { url: urls.restUrl, protocolBinding: "HTTP+JSON", tenant: "", protocolVersion: "1.0" },
      { url: urls.grpcAddress, protocolBinding: "GRPC", tenant: "", protocolVersion: "1.0" },
    ],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
    signatures: [],
  } as unknown as AgentCard;
}

async function main(): Promise<void> {
  const app = express();
  app.disable("x-powered-by");
  const http = createServer(app);
  http.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => http.listen(0, HOST, resolve));
  const grpc = new GrpcServer();
  const grpcPort = await new Promise<number>((resolve, reject) =>
    grpc.bindAsync(`${HOST}:0`, ServerCredentials.createInsecure(), (err, port) => (err ? reject(err) : resolve(port))),
  );
  const origin = `http://${HOST}:${(http.address() as AddressInfo).port}`;
  const urls = { jsonRpcUrl: `${origin}/a2a/jsonrpc`, restUrl: `${origin}/a2a/rest`, grpcAddress: `${HOST}:${grpcPort}` };

  const requestHandler = new DefaultRequestHandler(card(urls), new InMemoryTaskStore(), replyAtOnce);
  app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use("/a2a/rest", restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  grpc.addService(A2AService, grpcService({ requestHandler, userBuilder: GrpcUserBuilder.noAuthentication }));

  if (process.send) process.send(urls);
  else console.log(JSON.stringify(urls));
  // The parent going away ends this process, servers and all.
  process.on("disconnect", () => {
    http.closeAllConnections();
    grpc.forceShutdown();
    process.exit(0);
  });
}

await main();
