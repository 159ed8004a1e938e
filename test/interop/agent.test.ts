// Proves the in-process official-SDK peer (demo/agent.ts), on each release it
// runs on (the installed one and 1.0.0-beta.0), with plain fetch, node:http/net
// and a bare grpc-js client, so later interop tests can rely on it.

import { request as httpRequest, Agent as HttpAgent } from "node:http";
import type { ClientRequest, IncomingMessage } from "node:http";
import { connect, type Socket } from "node:net";

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client as GrpcClient, Metadata, credentials, status as grpcStatus } from "@grpc/grpc-js";
import type { ServiceError } from "@grpc/grpc-js";
import { Role } from "@a2a-js/sdk";
import type { Message, SendMessageRequest } from "@a2a-js/sdk";
import { A2AService } from "@a2a-js/sdk/server/grpc";

import { startLocalAgent, type LocalAgent } from "../../demo/agent.js";
import { PEERS, SDK_1_0_BETA } from "../support/peers.js";

const V1 = { "A2A-Version": "1.0" } as const;
const JSON_V1 = { ...V1, "content-type": "application/json" } as const;

let nextId = 0;
function userMessage(text: string): Record<string, unknown> {
  return { messageId: `m${++nextId}`, role: "ROLE_USER", parts: [{ text }] };
}

function rpc(agent: LocalAgent, method: string, params: unknown, id: number | string = 1): Promise<Response> {
  return fetch(agent.jsonRpcUrl, {
    method: "POST",
    headers: JSON_V1,
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
  });
}

/** Splits a finished SSE body into the JSON payloads of its `data:` lines. */
function sseData(body: string): unknown[] {
  return body
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const data = block
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      return JSON.parse(data) as unknown;
    });
}

const completedCount2 = {
  status: { state: "TASK_STATE_COMPLETED" },
  artifacts: [{ artifactId: "result", parts: [{ text: "chunk-1" }, { text: "chunk-2" }] }],
};

describe.each(PEERS)("local official-SDK agent ($label)", (sdk) => {
  let agent: LocalAgent;
  beforeAll(async () => {
    agent = await startLocalAgent({ sdk });
  });
  afterAll(async () => {
    await agent?.close();
  });

  it("serves the 1.0 agent card listing all three bindings at their real URLs", async () => {
    expect(agent.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(agent.grpcAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(agent.cardUrl).toBe(`${agent.origin}/.well-known/agent-card.json`);

    const res = await fetch(agent.cardUrl, { headers: V1 });
    expect(res.status).toBe(200);
    const card = (await res.json()) as {
      supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[];
      capabilities: Record<string, unknown>;
      skills: { id: string }[];
    };
    expect(
      card.supportedInterfaces.map(({ url, protocolBinding, protocolVersion }) => ({ url, protocolBinding, protocolVersion })),
    ).toEqual([
      { url: agent.jsonRpcUrl, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: agent.restUrl, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: agent.grpcAddress, protocolBinding: "GRPC", protocolVersion: "1.0" },
    ]);
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true, extendedAgentCard: true });
    expect(card.skills.length).toBeGreaterThanOrEqual(2);
    expect(card.skills.map((s) => s.id)).not.toContain("secret-skill");
  });

  it("returns the extended card with the extra skill", async () => {
    const body = (await (await rpc(agent, "GetExtendedAgentCard", {})).json()) as {
      result: { skills: { id: string }[] };
    };
    expect(body.result.skills.map((s) => s.id)).toContain("secret-skill");
  });

  it("JSON-RPC SendMessage: `count 2` completes a task with the artifact, `echo hi` answers with a message", async () => {
    const res = await fetch(agent.jsonRpcUrl, {
      method: "POST",
      headers: JSON_V1,
      body: '{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"count 2"}]}}}',
    });
    expect(res.status).toBe(200);
    const counted = (await res.json()) as { jsonrpc: string; id: number; result: { task: { id: string } } };
    expect(counted).toMatchObject({ jsonrpc: "2.0", id: 1, result: { task: completedCount2 } });
    expect(counted.result.task.id).toEqual(expect.any(String));

    const echoed = await (await rpc(agent, "SendMessage", { message: userMessage("echo hi") }, 2)).json();
    expect(echoed).toEqual({
      jsonrpc: "2.0",
      id: 2,
      result: { message: { messageId: expect.any(String), contextId: expect.any(String), role: "ROLE_AGENT", parts: [{ text: "hi" }] } },
    });
  });

  it("JSON-RPC SendStreamingMessage: every SSE data payload is a JSON-RPC envelope around a StreamResponse", async () => {
    const res = await rpc(agent, "SendStreamingMessage", { message: userMessage("count 2") }, "s1");
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = sseData(await res.text()) as { jsonrpc: string; id: string; result: Record<string, unknown> }[];
    expect(events.every((e) => e.jsonrpc === "2.0" && e.id === "s1")).toBe(true);
    expect(events.map((e) => Object.keys(e.result))).toEqual([
      ["task"],
      ["statusUpdate"],
      ["artifactUpdate"],
      ["artifactUpdate"],
      ["statusUpdate"],
    ]);
    expect(events[2]?.result).toMatchObject({ artifactUpdate: { artifact: { artifactId: "result", parts: [{ text: "chunk-1" }] } } });
    expect(events[2]?.result).not.toHaveProperty("artifactUpdate.append");
    expect(events[3]?.result).toMatchObject({ artifactUpdate: { append: true, lastChunk: true } });
    expect(events[4]?.result).toMatchObject({ statusUpdate: { status: { state: "TASK_STATE_COMPLETED" } } });
  });

  it("JSON-RPC errors carry the A2A code and a google.rpc.ErrorInfo reason", async () => {
    const body = await (await rpc(agent, "GetTask", { id: "unknown" })).json();
    expect(body).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: {
        code: -32001,
        message: expect.any(String),
        data: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" }],
      },
    });

    // Without the header the server assumes 0.3, which this card does not offer.
    const unversioned = await fetch(agent.jsonRpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "GetTask", params: { id: "unknown" } }),
    });
    expect(await unversioned.json()).toMatchObject({ error: { code: -32009, data: [{ reason: "VERSION_NOT_SUPPORTED" }] } });
  });

  it("HTTP+JSON message:send behaves the same; errors are google.rpc.Status bodies", async () => {
    const send = (text: string): Promise<Response> =>
      fetch(`${agent.restUrl}/message:send`, {
        method: "POST",
        headers: JSON_V1,
        body: JSON.stringify({ message: userMessage(text) }),
      });

    const counted = await send("count 2");
    expect(counted.status).toBe(200);
    expect(await counted.json()).toMatchObject({ task: completedCount2 });

    const echoed = await send("echo hi");
    expect(echoed.status).toBe(200);
    expect(await echoed.json()).toMatchObject({ message: { role: "ROLE_AGENT", parts: [{ text: "hi" }] } });

    const missing = await fetch(`${agent.restUrl}/tasks/unknown`, { headers: V1 });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: {
        code: 404,
        status: "NOT_FOUND",
        message: expect.any(String),
        details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" }],
      },
    });
  });

  it("HTTP+JSON message:stream frames are bare StreamResponse objects", async () => {
    const res = await fetch(`${agent.restUrl}/message:stream`, {
      method: "POST",
      headers: JSON_V1,
      body: JSON.stringify({ message: userMessage("count 1") }),
    });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = sseData(await res.text()) as Record<string, unknown>[];
    expect(events.map((e) => Object.keys(e))).toEqual([["task"], ["statusUpdate"], ["artifactUpdate"], ["statusUpdate"]]);
  });

  const holdTitle =
    sdk === SDK_1_0_BETA
      ? "`hold` stays WORKING until canceled; GET :subscribe is a 404 naming `<id>:subscribe` (no GET route), a POST subscriber sees the snapshot, then CANCELED"
      : "`hold` stays WORKING until canceled; a subscriber sees the snapshot, then CANCELED";
  it(holdTitle, async () => {
    const sent = (await (
      await rpc(agent, "SendMessage", { message: userMessage("hold"), configuration: { returnImmediately: true } })
    ).json()) as { result: { task: { id: string; status: { state: string } } } };
    const task = sent.result.task;
    expect(task.status.state).toBe("TASK_STATE_WORKING");

    // The SDK flushes SSE headers only after the first event, so once fetch
    // resolves the subscription is attached to the task's event bus.
    const url = `${agent.restUrl}/tasks/${task.id}:subscribe`;
    const get = await fetch(url, { headers: V1 });
    let subscription = get;
    if (sdk === SDK_1_0_BETA) {
      // The beta has no GET route: the path falls to GetTask, which names "<id>:subscribe".
      expect(get.status).toBe(404);
      expect(await get.text()).toContain(`${task.id}:subscribe`);
      subscription = await fetch(url, { method: "POST", headers: JSON_V1, body: "{}" });
    }
    expect(subscription.status).toBe(200);

    const canceled = await (await rpc(agent, "CancelTask", { id: task.id })).json();
    expect(canceled).toMatchObject({ result: { id: task.id, status: { state: "TASK_STATE_CANCELED" } } });

    const events = sseData(await subscription.text());
    expect(events).toMatchObject([
      { task: { id: task.id, status: { state: "TASK_STATE_WORKING" } } },
      { statusUpdate: { taskId: task.id, status: { state: "TASK_STATE_CANCELED" } } },
    ]);
  });

  it("accepts gRPC calls on the gRPC port", async () => {
    const client = new GrpcClient(agent.grpcAddress, credentials.createInsecure());
    try {
      const metadata = new Metadata();
      metadata.set("a2a-version", "1.0");
      const message: Message = {
        messageId: "g1",
        contextId: "",
        taskId: "",
        role: Role.ROLE_USER,
        parts: [{ content: { $case: "text", value: "echo over grpc" }, metadata: undefined, filename: "", mediaType: "" }],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      };
      const request: SendMessageRequest = { tenant: "", message, configuration: undefined, metadata: undefined };
      const def = A2AService.sendMessage;
      const reply = await new Promise<ReturnType<typeof def.responseDeserialize>>((resolve, reject) => {
        client.makeUnaryRequest(def.path, def.requestSerialize, def.responseDeserialize, request, metadata, (err, value) =>
          err || value === undefined ? reject(err ?? new Error("no response")) : resolve(value),
        );
      });
      expect(reply.payload?.$case).toBe("message");
      if (reply.payload?.$case === "message") {
        expect(reply.payload.value.parts[0]?.content).toEqual({ $case: "text", value: "over grpc" });
      }

      const get = A2AService.getTask;
      const failure = await new Promise<ServiceError>((resolve, reject) => {
        client.makeUnaryRequest(get.path, get.requestSerialize, get.responseDeserialize, { tenant: "", id: "unknown" }, metadata, (err) =>
          err ? resolve(err) : reject(new Error("expected an error")),
        );
      });
      expect(failure.code).toBe(grpcStatus.NOT_FOUND);
      const details = failure.metadata.get("grpc-status-details-bin")[0];
      expect(Buffer.isBuffer(details)).toBe(true);
      expect((details as Buffer).toString("latin1")).toContain("TASK_NOT_FOUND");
    } finally {
      client.close();
    }
  });
});

// ---------------------------------------------------------------------------

type HandleCounts = { servers: number; sockets: number; timers: number };

function handleCounts(): HandleCounts {
  const info = process.getActiveResourcesInfo();
  return {
    servers: info.filter((r) => r === "TCPServerWrap").length,
    sockets: info.filter((r) => r === "TCPSocketWrap").length,
    timers: info.filter((r) => r === "Timeout").length,
  };
}

function closed(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) resolve();
    else socket.once("close", () => resolve());
  });
}

/** Resolves with the request's socket and its response once headers arrive. */
function open(req: ClientRequest): Promise<{ socket: Socket; res: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    let socket: Socket | undefined;
    req.on("socket", (s) => {
      socket = s;
      s.on("error", () => {});
    });
    req.on("error", reject);
    req.on("response", (res) => {
      res.on("error", () => {});
      resolve({ socket: socket ?? res.socket, res });
    });
  });
}

function refused(port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once("error", (err: NodeJS.ErrnoException) => resolve(err.code));
  });
}

describe("LocalAgent.close()", () => {
  it("drops open connections, frees both ports and leaves no TCP handles behind", async () => {
    const before = handleCounts();
    const agent = await startLocalAgent();
    const httpPort = Number(new URL(agent.origin).port);
    const grpcPort = Number(agent.grpcAddress.split(":")[1]);
    expect(handleCounts().servers).toBe(before.servers + 2);

    // 1. an idle keep-alive connection
    const keepAlive = new HttpAgent({ keepAlive: true });
    const card = await open(httpRequest(agent.cardUrl, { agent: keepAlive, headers: V1 }).end());
    card.res.resume();
    await new Promise((resolve) => card.res.once("end", resolve));

    // 2. a live SSE stream on a task that never finishes by itself
    const streamReq = httpRequest(agent.jsonRpcUrl, { method: "POST", agent: false, headers: JSON_V1 });
    streamReq.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: { message: userMessage("hold") } }));
    const stream = await open(streamReq);
    expect(stream.res.headers["content-type"]).toMatch(/^text\/event-stream/);
    const firstEvent = await new Promise<string>((resolve) => {
      let text = "";
      const onData = (chunk: Buffer): void => {
        text += chunk.toString();
        if (!text.includes("\n\n")) return;
        stream.res.off("data", onData);
        resolve(text);
      };
      stream.res.on("data", onData);
    });
    expect(firstEvent).toContain("TASK_STATE_WORKING");

    // 3. an HTTP/2 connection to the gRPC port, with no call on it: send the
    // client preface and wait for the server's SETTINGS frame, which proves
    // the server has accepted the connection and opened a session for it.
    const grpcSocket = connect(grpcPort, "127.0.0.1");
    grpcSocket.on("error", () => {});
    const settings = new Promise<Buffer>((resolve) => grpcSocket.once("data", resolve));
    grpcSocket.write(Buffer.concat([Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])]));
    expect((await settings)[3]).toBe(4); // frame type SETTINGS

    // Three server ends plus the client ends of the stream and of the gRPC
    // connection (the pooled keep-alive client socket is unref'd, so it is
    // not listed as an active resource).
    expect(handleCounts().sockets).toBeGreaterThanOrEqual(before.sockets + 5);

    await agent.close();
    await Promise.all([closed(card.socket), closed(stream.socket), closed(grpcSocket)]);
    keepAlive.destroy();

    const after = handleCounts();
    expect(after.servers).toBe(before.servers);
    expect(after.sockets).toBeLessThanOrEqual(before.sockets);
    expect(after.timers).toBeLessThanOrEqual(before.timers);

    expect(await refused(httpPort)).toBe("ECONNREFUSED");
    expect(await refused(grpcPort)).toBe("ECONNREFUSED");

    await agent.close(); // idempotent
  });
});
