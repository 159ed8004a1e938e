// a2a-connect voltagent peer: a VoltAgent agent on a scripted mock model,
// served over A2A by VoltAgent's own server: @voltagent/core 2.10.0 with
// @voltagent/a2a-server 2.0.3, mounted by @voltagent/server-hono 2.0.14 (the
// server VoltAgent apps run). The model is ai 6's MockLanguageModelV3
// (`ai/test`): VoltAgent has no mock model of its own.
//
// VoltAgent speaks A2A 0.3-style JSON-RPC only (message/send, message/stream,
// tasks/get, tasks/cancel), per A2A server and agent, at fixed paths:
//   card      GET  http://127.0.0.1:PORT/.well-known/a2a-connect-voltagent-peer/agent-card.json
//   JSON-RPC  POST http://127.0.0.1:PORT/a2a/a2a-connect-voltagent-peer
// Nothing is served at /.well-known/agent-card.json. There is no HTTP+JSON,
// no gRPC, no push notifications, no extended card and no card signing, so
// --grpc-port and --versions are accepted and ignored.
//
// VoltAgent turns every message into a task whose answer is the model's text
// (as the task's status message, not an artifact), so the script is what a
// model can say (see modelSays in common.js):
//   echo <text> answers <text>; count [n] [every ms] streams chunk-1 ..
//   chunk-n; hold says nothing until the task is canceled (VoltAgent aborts
//   the model then); input answers "need more"; fail and reject make the
//   model throw; anything else is "count 1".
//
// Usage: node voltagent.js --port HTTP_PORT --grpc-port GRPC_PORT
// Prints "ready" on stdout once HTTP listens; logs go to stderr. Stops on
// SIGTERM/SIGINT and when stdin reaches EOF.

import "./peer-setup.js";

import { Agent, VoltAgent, createTool } from "@voltagent/core";
import { A2AServer } from "@voltagent/a2a-server";
import { honoServer } from "@voltagent/server-hono";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";

import { parseArgs, sayReady, scriptedModelCalls, stopOnSignals } from "./common.js";

const HOST = "127.0.0.1";
// The A2A server's id is also the agent's: VoltAgent's routes take one id
// (/a2a/{id}) and look the agent up under that same id.
const AGENT_ID = "a2a-connect-voltagent-peer";

// ---------------------------------------------------------------------------
// The mock model

function usage(outputTokens) {
  return {
    inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 },
  };
}

const STOP = { unified: "stop", raw: "stop" };

const model = new MockLanguageModelV3({
  provider: "a2a-connect",
  modelId: "scripted",
  // message/send runs the agent's generateText (doGenerate), message/stream its streamText (doStream).
  ...scriptedModelCalls({ finishReason: STOP, usage }),
});

// ---------------------------------------------------------------------------
// The agent and its A2A server

// VoltAgent's card lists an agent's tools as its skills and nothing else, so
// the contract's skills are tools. The mock model never calls them; each
// does what its skill says, should anything else call it.
const tools = [
  createTool({
    name: "echo",
    description: "Replies with the text after `echo`.",
    parameters: z.object({ text: z.string() }),
    execute: async ({ text }) => text,
  }),
  createTool({
    name: "count",
    description: "Streams `count [n] [every ms]` as chunk-1 .. chunk-n.",
    parameters: z.object({ n: z.number().int().min(0).default(3) }),
    execute: async ({ n }) => Array.from({ length: n }, (_, i) => `chunk-${i + 1}`).join(""),
  }),
  createTool({
    name: "lifecycle",
    description: "`hold` waits for cancel; `input` asks for more; `fail` and `reject` fail, as far as a model can act them.",
    parameters: z.object({ command: z.enum(["hold", "input", "fail", "reject"]) }),
    execute: async ({ command }) => command,
  }),
];

const agent = new Agent({
  id: AGENT_ID,
  name: "a2a-connect voltagent peer",
  // The card's description.
  purpose: "Scripted VoltAgent agent on a mock model, served by @voltagent/a2a-server, for the a2a-connect interop tests.",
  instructions: "Follow the script.",
  model,
  tools,
  // A mock failure is final: retrying it would only run the script again.
  maxRetries: 0,
});

const { port } = parseArgs();
const origin = `http://${HOST}:${port}`;

const voltAgent = new VoltAgent({
  agents: { [AGENT_ID]: agent },
  a2aServers: {
    [AGENT_ID]: new A2AServer({
      id: AGENT_ID,
      name: "a2a-connect voltagent peer",
      version: "1.0.0",
      description: "A2A server of the a2a-connect voltagent peer.",
      provider: { organization: "a2a-connect", url: origin },
    }),
  },
  server: honoServer({ port, hostname: HOST, enableSwaggerUI: false }),
  // No look-ups of newer VoltAgent releases: the peer stays off the network.
  checkDependencies: false,
});

// VoltAgent starts its server by itself once initialised; wait for it to listen.
await voltAgent.ready;
const server = voltAgent.getServerInstance();
for (const started = Date.now(); !server?.isRunning(); ) {
  if (Date.now() - started > 30_000) throw new Error("VoltAgent's server did not start within 30 s");
  await new Promise((resolve) => setTimeout(resolve, 20));
}

console.error(`voltagent peer: card ${origin}/.well-known/${AGENT_ID}/agent-card.json, JSON-RPC ${origin}/a2a/${AGENT_ID}`);
sayReady();

stopOnSignals(() => voltAgent.shutdown());
