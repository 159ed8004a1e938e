/**
 * Push notifications against each real peer (the official @a2a-js/sdk
 * server, current and 1.0.0-beta.0): webhooks registered through a session,
 * delivered by the SDK's push sender to our receiver on 127.0.0.1, and the
 * receiver's task view ending where the server's task ends. Also our
 * receiver's own checks, and the card's capability, checked before any request.
 */
import { clone, toJson } from "@bufbuild/protobuf";
import { execFile } from "node:child_process";
import { createServer, request, type Server } from "node:http";
import { fileURLToPath } from "node:url";
import type { AddressInfo } from "node:net";
import type { Interceptor } from "@connectrpc/connect";
import express from "express";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CURRENT_SDK, type LocalAgent } from "../../demo/agent.js";
import {
  AgentCardSchema,
  ArtifactSchema,
  PushNotificationNotSupportedError,
  TaskState,
  constantTimeEqual,
  createPushReceiver,
  resolveAgentCard,
  textOf,
  userMessage,
  type AgentSession,
  type PushReceiver,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
} from "../../src/index.js";
import { connect, createNodePushHandler } from "../../src/node.js";
import { PEERS, agentsOfPeers } from "../support/peers.js";

const TOKEN = "push-token-4b1f0c";
const CREDENTIALS = "webhook-credentials-9e2d";

interface Webhook {
  url: string;
  receiver: PushReceiver;
  events: StreamResponse[];
  /** Which headers each delivery carried (presence only). */
  deliveries: { token: boolean; authorization: boolean }[];
  server: Server;
}

async function startWebhook(options: Parameters<typeof createPushReceiver>[0]): Promise<Webhook> {
  const events: StreamResponse[] = [];
  const receiver = createPushReceiver({ ...options, onEvent: (e) => void events.push(e) });
  const handler = createNodePushHandler(receiver);
  const deliveries: Webhook["deliveries"] = [];
  const server = createServer((req, res) => {
    deliveries.push({
      token: req.headers["x-a2a-notification-token"] !== undefined,
      authorization: req.headers.authorization !== undefined,
    });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/webhook`, receiver, events, deliveries, server };
}

function taskOf(res: SendMessageResponse): Task {
  if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
  return res.payload.value;
}

function taskIdOf(e: StreamResponse): string | undefined {
  return e.payload.case === "task" ? e.payload.value.id : e.payload.value?.taskId;
}

const artifactsJson = (task: Task) => task.artifacts.map((a) => toJson(ArtifactSchema, a));

const agentOf = agentsOfPeers();
/** The installed release's agent, for what does not depend on the peer. */
let agent: LocalAgent;
let withToken: Webhook;
let withAuth: Webhook;

beforeAll(async () => {
  // The official push sender logs every delivery it makes.
  vi.spyOn(console, "info").mockImplementation(() => {});
  agent = agentOf(CURRENT_SDK);
  withToken = await startWebhook({ token: TOKEN });
  withAuth = await startWebhook({ authenticate: (authorization) => constantTimeEqual(authorization ?? "", `Bearer ${CREDENTIALS}`) });
});
afterAll(async () => {
  vi.restoreAllMocks();
  for (const w of [withToken, withAuth]) {
    if (!w) continue;
    w.server.closeAllConnections();
    await new Promise((resolve) => w.server.close(resolve));
  }
});

describe.each(PEERS)("push notifications from $label", (sdk) => {
  let session: AgentSession;
  beforeAll(async () => {
    const peer = agentOf(sdk);
    session = await connect(peer.cardUrl, { verification: { keys: peer.jwks } });
  });

  /** Waits until the receiver's view of the task is in a final state, then returns it with the server's. */
  async function settled(webhook: Webhook, id: string, state: TaskState): Promise<{ pushed: Task; server: Task }> {
    await vi.waitFor(() => expect(webhook.receiver.task(id)?.status?.state).toBe(state), { timeout: 5000, interval: 20 });
    return { pushed: webhook.receiver.task(id)!, server: await session.client.getTask({ id }) };
  }

  it("a task registered with a token: the receiver's view ends as the server's task, artifacts and all", async () => {
    const res = await session.client.sendMessage({
      message: userMessage("count 3 every 20"),
      configuration: { returnImmediately: true, taskPushNotificationConfig: { url: withToken.url, token: TOKEN } },
    });
    const { id } = taskOf(res);
    const { pushed, server } = await settled(withToken, id, TaskState.COMPLETED);
    expect(server.status?.state).toBe(TaskState.COMPLETED);
    expect(pushed.id).toBe(server.id);
    expect(pushed.contextId).toBe(server.contextId);
    expect(artifactsJson(pushed)).toEqual(artifactsJson(server));
    expect(textOf(pushed, ",")).toBe("chunk-1,chunk-2,chunk-3");
    const mine = withToken.events.filter((e) => taskIdOf(e) === id);
    expect(mine.filter((e) => e.payload.case === "artifactUpdate")).toHaveLength(3);
    expect(withToken.deliveries.every((d) => d.token)).toBe(true);
  });

  it("a webhook with token and authentication: deliveries carry `Authorization: Bearer ...`, checked by authenticate", async () => {
    const res = await session.client.sendMessage({
      message: userMessage("count 3 every 20"),
      configuration: {
        returnImmediately: true,
        taskPushNotificationConfig: {
          url: withAuth.url,
          token: TOKEN,
          authentication: { scheme: "Bearer", credentials: CREDENTIALS },
        },
      },
    });
    const { id } = taskOf(res);
    const { pushed, server } = await settled(withAuth, id, TaskState.COMPLETED);
    expect(artifactsJson(pushed)).toEqual(artifactsJson(server));
    expect(withAuth.deliveries.length).toBeGreaterThan(0);
    expect(withAuth.deliveries.every((d) => d.authorization)).toBe(true);
  });

  it("a config created on a running task: the cancel is pushed, duplicates and all, and the view is CANCELED", async () => {
    const res = await session.client.sendMessage({ message: userMessage("hold"), configuration: { returnImmediately: true } });
    const { id } = taskOf(res);
    const config = await session.client.createTaskPushNotificationConfig({ taskId: id, url: withToken.url, token: TOKEN });
    expect(config.url).toBe(withToken.url);
    expect((await session.client.getTaskPushNotificationConfig({ taskId: id, id: config.id })).token).toBe(TOKEN);
    expect((await session.client.listTaskPushNotificationConfigs({ taskId: id })).configs.map((c) => c.id)).toEqual([config.id]);
    const before = withToken.deliveries.length;
    await session.client.cancelTask({ id });
    const { pushed, server } = await settled(withToken, id, TaskState.CANCELED);
    expect(server.status?.state).toBe(TaskState.CANCELED);
    expect(pushed.status?.state).toBe(server.status?.state);
    // The official server pushes the cancel twice (once per consumer of the task's events): reported once.
    await vi.waitFor(() => expect(withToken.deliveries.length - before).toBe(2), { timeout: 5000, interval: 20 });
    const cancels = withToken.events.filter((e) => taskIdOf(e) === id && e.payload.case === "statusUpdate");
    expect(cancels).toHaveLength(1);
    await session.client.deleteTaskPushNotificationConfig({ taskId: id, id: config.id });
    expect((await session.client.listTaskPushNotificationConfigs({ taskId: id })).configs).toEqual([]);
  });
});

describe("our receiver's checks", () => {
  it("rejects deliveries with a wrong or missing token, or wrong credentials, with 401", async () => {
    const body = JSON.stringify({ statusUpdate: { taskId: "forged", contextId: "c", status: { state: "TASK_STATE_COMPLETED" } } });
    const send = (url: string, headers: Record<string, string>) =>
      fetch(url, { method: "POST", headers: { "Content-Type": "application/a2a+json", ...headers }, body });
    const wrong: Record<string, string>[] = [
      { "X-A2A-Notification-Token": "wrong" },
      {},
      { "X-A2A-Notification-Token": `${TOKEN}x` },
      { "X-A2A-Notification-Token": TOKEN.slice(1) },
    ];
    for (const headers of wrong) {
      const res = await send(withToken.url, headers);
      expect(res.status).toBe(401);
      expect(await res.text()).not.toContain(TOKEN);
    }
    expect((await send(withAuth.url, { Authorization: "Bearer wrong" })).status).toBe(401);
    expect((await send(withAuth.url, { "X-A2A-Notification-Token": TOKEN })).status).toBe(401);
    expect(withToken.receiver.task("forged")).toBeUndefined();
    expect(withAuth.receiver.task("forged")).toBeUndefined();
    // The same delivery with the right token is accepted.
    expect((await send(withToken.url, { "X-A2A-Notification-Token": TOKEN })).status).toBe(204);
    expect(withToken.receiver.task("forged")?.status?.state).toBe(TaskState.COMPLETED);
  });

  it("the node adapter answers 405, 415 and 413 over HTTP", async () => {
    const h = { "X-A2A-Notification-Token": TOKEN };
    expect((await fetch(withToken.url)).status).toBe(405);
    expect((await fetch(withToken.url, { method: "POST", headers: { ...h, "Content-Type": "text/plain" }, body: "{}" })).status).toBe(415);
    const big = JSON.stringify({ statusUpdate: { taskId: "big", contextId: "x".repeat(1024 * 1024), status: {} } });
    expect((await fetch(withToken.url, { method: "POST", headers: { ...h, "Content-Type": "application/json" }, body: big })).status).toBe(
      413,
    );
    expect((await fetch(withToken.url, { method: "POST", headers: { ...h, "Content-Type": "application/json" }, body: "{" })).status).toBe(
      400,
    );
  });

  it("the node adapter stops reading a chunked body at the limit and answers 413", async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(withToken.url, {
        method: "POST",
        headers: { "X-A2A-Notification-Token": TOKEN, "Content-Type": "application/json" },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on("error", reject);
      // No Content-Length: 2 MiB in 64 KiB chunks; the answer may come before the last one is written.
      const chunk = "x".repeat(64 * 1024);
      let sent = 0;
      const write = (): void => {
        while (sent < 32) {
          sent++;
          if (!req.write(chunk)) return void req.once("drain", write);
        }
        req.end();
      };
      write();
    });
    expect(status).toBe(413);
  });

  it("the node adapter answers TRACE, which a fetch Request cannot carry, 405 as any other method but POST", async () => {
    const { port } = withToken.server.address() as AddressInfo;
    for (const method of ["TRACE", "GET"]) {
      const answer = await new Promise<{ status: number; allow: string | undefined }>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port, method, path: "/webhook" }, (res) => {
          res.resume();
          resolve({ status: res.statusCode!, allow: res.headers.allow });
        });
        req.on("error", reject);
        req.end();
      });
      expect(answer).toEqual({ status: 405, allow: "POST" });
    }
  });

  describe("behind Express body parsers, which read the body before the handler", () => {
    let server: Server;
    let base: string;
    let receiver: PushReceiver;
    beforeAll(async () => {
      receiver = createPushReceiver({ token: TOKEN });
      const handler = createNodePushHandler(receiver);
      const app = express();
      app.post("/json", express.json(), handler);
      app.post("/raw", express.raw({ type: "*/*" }), handler);
      // A middleware that reads the body and keeps nothing of it.
      app.post("/drained", (req, _res, next) => req.resume().once("end", () => next()), handler);
      server = createServer(app);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
    });

    const deliver = (path: string, taskId: string, token = TOKEN) =>
      fetch(`${base}${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-A2A-Notification-Token": token },
        body: JSON.stringify({ statusUpdate: { taskId, contextId: "c", status: { state: "TASK_STATE_WORKING" } } }),
        // Bounded: a handler waiting for a body already read would never answer.
        signal: AbortSignal.timeout(5000),
      });

    it("takes what express.json() or express.raw() made of it: the delivery is answered and applied", async () => {
      expect((await deliver("/json", "after-json")).status).toBe(204);
      expect((await deliver("/raw", "after-raw")).status).toBe(204);
      expect(receiver.task("after-json")?.status?.state).toBe(TaskState.WORKING);
      expect(receiver.task("after-raw")?.status?.state).toBe(TaskState.WORKING);
      // The token is still checked.
      expect((await deliver("/json", "forged-json", "wrong")).status).toBe(401);
      expect(receiver.task("forged-json")).toBeUndefined();
    });

    it("answers 500 at once, saying so, when a middleware read the body and kept nothing", async () => {
      const res = await deliver("/drained", "drained");
      expect(res.status).toBe(500);
      expect(await res.text()).toMatch(/body was read by an earlier handler/);
      expect(receiver.task("drained")).toBeUndefined();
    });
  });
});

describe("the card's pushNotifications capability", () => {
  it("without it, the four config operations fail with PushNotificationNotSupportedError and no request", async () => {
    const resolved = await resolveAgentCard(agent.cardUrl, { verification: { keys: agent.jwks } });
    const card = clone(AgentCardSchema, resolved.card);
    card.capabilities!.pushNotifications = false;
    card.signatures = [];
    let requests = 0;
    const counter: Interceptor = (next) => (req) => (requests++, next(req));
    const s = await connect(card, { transport: { interceptors: [counter] } });
    const calls = [
      () => s.client.createTaskPushNotificationConfig({ taskId: "t", url: withToken.url }),
      () => s.client.getTaskPushNotificationConfig({ taskId: "t", id: "c" }),
      () => s.client.listTaskPushNotificationConfigs({ taskId: "t" }),
      () => s.client.deleteTaskPushNotificationConfig({ taskId: "t", id: "c" }),
    ];
    for (const call of calls) await expect(call()).rejects.toBeInstanceOf(PushNotificationNotSupportedError);
    expect(requests).toBe(0);
    // Everything else goes through, and is counted.
    expect(taskOf(await s.client.sendMessage({ message: userMessage("count 1") })).status?.state).toBe(TaskState.COMPLETED);
    expect(requests).toBe(1);
  });

  it("with it, they reach the agent", async () => {
    let requests = 0;
    const counter: Interceptor = (next) => (req) => (requests++, next(req));
    const s = await connect(agent.cardUrl, { verification: { keys: agent.jwks }, transport: { interceptors: [counter] } });
    expect(s.card.capabilities?.pushNotifications).toBe(true);
    const { id } = taskOf(await s.client.sendMessage({ message: userMessage("count 1") }));
    expect((await s.client.listTaskPushNotificationConfigs({ taskId: id })).configs).toEqual([]);
    expect(requests).toBe(2);
  });
});

describe("examples/webhook-receiver.ts", () => {
  it("runs a task against the local agent and prints what was pushed", async () => {
    const root = fileURLToPath(new URL("../..", import.meta.url));
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      execFile(
        process.execPath,
        ["--import", "tsx", "examples/webhook-receiver.ts"],
        { cwd: root, timeout: 15_000 },
        (error, stdout, stderr) => (error ? reject(error) : resolve({ stdout, stderr })),
      );
    });
    expect(stdout).toContain("pushed artifactUpdate: chunk-3");
    expect(stdout).toContain('as pushed: COMPLETED, "chunk-1,chunk-2,chunk-3"');
    expect(stderr).toBe("");
  });
});
