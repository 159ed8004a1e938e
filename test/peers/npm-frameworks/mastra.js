// a2a-connect mastra peer: a Mastra agent on a scripted mock model, served
// over A2A by Mastra's own HTTP server: @mastra/core 0.24.9 with
// createNodeServer from @mastra/deployer 0.24.9 (the server `mastra build`
// and `mastra dev` run), whose A2A routes are @mastra/server 0.24.9's
// handlers. 0.24.9 is the newest Mastra that runs on Node 20 (1.x needs
// Node 22). The model is a scripted AI SDK LanguageModelV2 (the model
// interface Mastra 0.24 runs its agents on), written out here: ai 5's
// MockLanguageModelV2 (`ai/test`) cannot load without msw, a test-only
// package, and Mastra's own createMockModel loads that same module and
// answers one fixed text, whatever it is asked.
//
// Mastra speaks A2A 0.3-style JSON-RPC only (message/send, message/stream,
// tasks/get, tasks/cancel), per agent, at fixed paths:
//   card      GET  http://127.0.0.1:PORT/.well-known/a2a-connect-mastra-peer/agent-card.json
//   JSON-RPC  POST http://127.0.0.1:PORT/a2a/a2a-connect-mastra-peer
// Nothing is served at /.well-known/agent-card.json, and the card cannot be
// configured (Mastra fills in its provider, version and a relative URL).
// There is no HTTP+JSON, no gRPC, no push notifications, no extended card
// and no card signing, so --grpc-port and --versions are accepted and
// ignored.
//
// Mastra turns every message into a task whose answer is the model's whole
// text (as the task's status message), so the script is what a model can say
// (see modelSays in common.js): echo <text> answers <text>; count [n]
// [every ms] answers chunk-1 .. chunk-n; hold [ms] answers "released" after
// ms (default 2000: Mastra's cancel never reaches the model); input answers
// "need more"; fail and reject make the model throw; anything else is
// "count 1".
//
// Usage: node mastra.js --port HTTP_PORT --grpc-port GRPC_PORT
// Prints "ready" on stdout once HTTP listens; logs go to stderr. Stops on
// SIGTERM/SIGINT and when stdin reaches EOF.

import "./peer-setup.js";

import { Mastra } from "@mastra/core";
import { Agent } from "@mastra/core/agent";
import { ConsoleLogger } from "@mastra/core/logger";
import { createTool } from "@mastra/core/tools";
import { createNodeServer } from "@mastra/deployer/server";
import { z } from "zod";

import { parseArgs, sayReady, scriptedModelCalls, stopOnSignals } from "./common.js";

const HOST = "127.0.0.1";
// The agent's id is its path segment in Mastra's A2A routes and its card's name.
const AGENT_ID = "a2a-connect-mastra-peer";
// Mastra's tasks/cancel only marks the task canceled: the model runs on, so
// an endless hold would never answer. It holds for a bounded time instead.
const HOLD_MS = 2000;

// ---------------------------------------------------------------------------
// The mock model

const usage = (outputTokens) => ({ inputTokens: 0, outputTokens, totalTokens: outputTokens });

// A LanguageModelV2: what the AI SDK's provider packages hand Mastra.
const model = {
  specificationVersion: "v2",
  provider: "a2a-connect",
  modelId: "scripted",
  // No URLs are passed through as such: the script only reads text.
  supportedUrls: {},
  // Mastra's A2A routes only run generate() (doGenerate); agent.stream()
  // callers elsewhere in Mastra's server get the same script (doStream).
  ...scriptedModelCalls({ finishReason: "stop", usage, holdMs: HOLD_MS }),
};

// ---------------------------------------------------------------------------
// The agent and its server

// Mastra's card lists an agent's tools as its skills and nothing else, so the
// contract's skills are tools. The mock model never calls them; each does
// what its skill says, should anything else call it.
const tools = {
  echo: createTool({
    id: "echo",
    description: "Replies with the text after `echo`.",
    inputSchema: z.object({ text: z.string() }),
    execute: async ({ context }) => context.text,
  }),
  count: createTool({
    id: "count",
    description: "Answers `count [n] [every ms]` with chunk-1 .. chunk-n.",
    inputSchema: z.object({ n: z.number().int().min(0).default(3) }),
    execute: async ({ context }) => Array.from({ length: context.n }, (_, i) => `chunk-${i + 1}`).join(""),
  }),
  lifecycle: createTool({
    id: "lifecycle",
    description: "`hold` answers after a while; `input` asks for more; `fail` and `reject` fail, as far as a model can act them.",
    inputSchema: z.object({ command: z.enum(["hold", "input", "fail", "reject"]) }),
    execute: async ({ context }) => context.command,
  }),
};

const agent = new Agent({
  id: AGENT_ID,
  name: AGENT_ID,
  // Mastra's card takes its description from the instructions.
  instructions: "Scripted Mastra agent on a mock model, served by Mastra's A2A routes, for the a2a-connect interop tests.",
  model,
  tools,
  // generate() calls the model up to three times when it throws (a retry
  // default of 2 that the agent's own maxRetries does not reach); a mock
  // failure is final, and retrying it only delays the answer by 3 s.
  defaultVNextStreamOptions: { modelSettings: { maxRetries: 0 } },
});

const { port } = parseArgs();
const origin = `http://${HOST}:${port}`;

const mastra = new Mastra({
  agents: { [AGENT_ID]: agent },
  server: { port, host: HOST },
  // Mastra's console logger, so its logs reach stderr too.
  logger: new ConsoleLogger({ name: "mastra", level: "info" }),
  // No OpenTelemetry exporters: the peer stays off the network.
  telemetry: { enabled: false },
});

const server = await createNodeServer(mastra, { tools: {} });
if (!server.listening) {
  await new Promise((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
}

console.error(`mastra peer: card ${origin}/.well-known/${AGENT_ID}/agent-card.json, JSON-RPC ${origin}/a2a/${AGENT_ID}`);
sayReady();

stopOnSignals(async () => {
  server.closeAllConnections?.();
  await new Promise((resolve) => server.close(() => resolve()));
});
