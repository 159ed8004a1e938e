/**
 * 1.0 calls over the 0.3 gRPC and HTTP+JSON bindings, against each real peer
 * (the official @a2a-js/sdk server, current and 1.0.0-beta.0) with its 0.3
 * compatibility layer, serving (and advertising) 0.3 only.
 */
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalAgent, type LocalAgent } from "../../demo/agent.js";
import {
  A2AClient,
  AbortedError,
  MethodNotFoundError,
  Role,
  TaskNotFoundError,
  TaskState,
  UnsupportedOperationError,
  VersionNotSupportedError,
  isTerminal,
  textOf,
  userMessage,
  type A2ATransport,
  type Message,
  type StreamResponse,
  type Task,
} from "../../src/index.js";
import type { TransportOptions } from "../../src/call/options.js";
import { createGrpcTransportV03 } from "../../src/bindings/grpc/v0_3.js";
import { createRestTransportV03 } from "../../src/bindings/http-json/v0_3.js";
import { V03_KIT } from "../../src/bindings/v0_3-kit.js";
import { GENERATED_JSON, onNodeHttp } from "../../src/node-runtime.js";
import { BINDINGS, collect, transportFor } from "../support/bindings.js";
import { agentsOfPeers, peerCases } from "../support/peers.js";

let agent: LocalAgent;
beforeAll(async () => {
  agent = await startLocalAgent({ versions: ["0.3"] });
});
afterAll(() => agent?.close());

type V03Binding = "GRPC" | "HTTP+JSON";
const V03_BINDINGS: readonly V03Binding[] = ["GRPC", "HTTP+JSON"];

function v03Transport(binding: V03Binding, a: LocalAgent, options: Omit<TransportOptions, "baseUrl"> = {}): A2ATransport {
  return binding === "GRPC"
    ? createGrpcTransportV03({ baseUrl: a.grpcAddress, ...options })
    : createRestTransportV03(V03_KIT, onNodeHttp({ baseUrl: a.restUrl, ...options }), GENERATED_JSON);
}

function taskOf(res: { payload: { case: string | undefined; value?: unknown } }): Task {
  if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
  return res.payload.value as Task;
}

const peerAgentOf = agentsOfPeers({ versions: ["0.3"] });

describe.each(peerCases(V03_BINDINGS))("$label over A2A 0.3", ({ sdk, binding }) => {
  let agent: LocalAgent;
  let client: A2AClient;
  beforeAll(() => {
    agent = peerAgentOf(sdk);
    client = new A2AClient(v03Transport(binding, agent));
  });

  /** A task that stays WORKING until canceled: returnImmediately is 0.3's blocking = false. */
  async function holdTask(): Promise<Task> {
    const task = taskOf(await client.sendMessage({ message: userMessage("hold"), configuration: { returnImmediately: true } }));
    expect(task.status?.state).toBe(TaskState.WORKING);
    return task;
  }

  it("reports its binding", () => {
    expect(client.binding).toBe(binding);
  });

  it("SendMessage returns the completed task with its artifact and history", async () => {
    const sent = userMessage("count 2");
    const task = taskOf(await client.sendMessage({ message: sent }));
    expect(task.$typeName).toBe("lf.a2a.v1.Task");
    expect(task.id).not.toBe("");
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(task.artifacts.map((a) => a.artifactId)).toEqual(["result"]);
    expect(textOf(task, ",")).toBe("chunk-1,chunk-2");
    expect(task.history.some((m) => m.messageId === sent.messageId && m.role === Role.USER && textOf(m) === "count 2")).toBe(true);
  });

  it("SendMessage returns a direct message when no task is needed", async () => {
    const res = await client.sendMessage({ message: userMessage("echo hello there") });
    expect(res.payload.case).toBe("message");
    const reply = res.payload.value as Message;
    expect(reply.$typeName).toBe("lf.a2a.v1.Message");
    expect(reply.role).toBe(Role.AGENT);
    expect(textOf(reply)).toBe("hello there");
  });

  it("SendStreamingMessage delivers the events in order and ends at the terminal state", async () => {
    const events = await collect(client.sendStreamingMessage({ message: userMessage("count 3") }));
    expect(events.every((e) => e.$typeName === "lf.a2a.v1.StreamResponse")).toBe(true);
    expect(events.map((e) => e.payload.case)).toEqual([
      "task",
      "statusUpdate",
      "artifactUpdate",
      "artifactUpdate",
      "artifactUpdate",
      "statusUpdate",
    ]);
    const taskId = taskOf(events[0]!).id;
    const artifacts = events.flatMap((e) => (e.payload.case === "artifactUpdate" ? [e.payload.value] : []));
    expect(artifacts.map((a) => textOf(a.artifact!))).toEqual(["chunk-1", "chunk-2", "chunk-3"]);
    expect(artifacts.map((a) => a.append)).toEqual([false, true, true]);
    expect(artifacts.map((a) => a.lastChunk)).toEqual([false, false, true]);
    expect(artifacts.every((a) => a.taskId === taskId)).toBe(true);
    const states = events.flatMap((e) => (e.payload.case === "statusUpdate" ? [e.payload.value.status!.state] : []));
    expect(states).toEqual([TaskState.WORKING, TaskState.COMPLETED]);
  });

  it("GetTask returns the task and honours historyLength, 0 included", async () => {
    const created = taskOf(await client.sendMessage({ message: userMessage("count 1") }));
    const full = await client.getTask({ id: created.id });
    expect(full.id).toBe(created.id);
    expect(full.status?.state).toBe(TaskState.COMPLETED);
    expect(full.history.length).toBeGreaterThan(0);
    const trimmed = await client.getTask({ id: created.id, historyLength: 1 });
    expect(trimmed.history).toHaveLength(1);
    expect(trimmed.history[0]).toEqual(full.history.at(-1));
    expect((await client.getTask({ id: created.id, historyLength: 0 })).history).toEqual([]);
  });

  it("a historyLength above the history's length keeps the whole history, on GetTask and SendMessage's task", async () => {
    // A task of three messages: the question, the agent's request for input, the answer.
    const asked = taskOf(await client.sendMessage({ message: userMessage("input") }));
    const answer = { ...userMessage("count 1"), taskId: asked.id, contextId: asked.contextId };
    const done = taskOf(await client.sendMessage({ message: answer, configuration: { historyLength: 4 } }));
    const full = await client.getTask({ id: asked.id });
    expect(full.history.length).toBe(3);
    for (const cap of [3, 4, 5, 100])
      expect((await client.getTask({ id: asked.id, historyLength: cap })).history, `cap ${cap}`).toEqual(full.history);
    expect(done.history).toEqual(full.history);
    expect((await client.getTask({ id: asked.id, historyLength: 2 })).history).toEqual(full.history.slice(1));
  });

  it("CancelTask cancels a running task", async () => {
    const task = await holdTask();
    const canceled = await client.cancelTask({ id: task.id });
    expect(canceled.id).toBe(task.id);
    expect(canceled.status?.state).toBe(TaskState.CANCELED);
    expect((await client.getTask({ id: task.id })).status?.state).toBe(TaskState.CANCELED);
  });

  it("SubscribeToTask starts with a snapshot and follows the task until CANCELED", async () => {
    const task = await holdTask();
    const seen: StreamResponse[] = [];
    const stream = client.subscribeToTask({ id: task.id })[Symbol.asyncIterator]();
    const first = await stream.next();
    expect(first.done).toBe(false);
    seen.push(first.value as StreamResponse);
    expect(taskOf(seen[0]!).id).toBe(task.id);
    expect(taskOf(seen[0]!).status?.state).toBe(TaskState.WORKING);
    await client.cancelTask({ id: task.id });
    for (let r = await stream.next(); !r.done; r = await stream.next()) seen.push(r.value);
    const last = seen.at(-1)!;
    expect(last.payload.case).toBe("statusUpdate");
    const state = last.payload.case === "statusUpdate" ? last.payload.value.status?.state : undefined;
    expect(state).toBe(TaskState.CANCELED);
    expect(isTerminal(state!)).toBe(true);
  });

  it("aborting a subscription ends it with AbortedError; the task lives on", async () => {
    const task = await holdTask();
    const controller = new AbortController();
    const stream = client.subscribeToTask({ id: task.id }, { signal: controller.signal })[Symbol.asyncIterator]();
    expect((await stream.next()).done).toBe(false);
    const pending = stream.next();
    controller.abort();
    await expect(pending).rejects.toThrow(AbortedError);
    expect((await client.getTask({ id: task.id })).status?.state).toBe(TaskState.WORKING);
    await client.cancelTask({ id: task.id });
  });

  it("creates, reads, lists and deletes push notification configs", async () => {
    const task = await holdTask();
    try {
      const created = await client.createTaskPushNotificationConfig({
        taskId: task.id,
        url: "https://hooks.example.com/a2a",
        token: "opaque-token",
        authentication: { scheme: "Bearer", credentials: "hook-secret" },
      });
      expect(created.$typeName).toBe("lf.a2a.v1.TaskPushNotificationConfig");
      expect(created.id).not.toBe("");
      expect(created.taskId).toBe(task.id);
      expect(created.url).toBe("https://hooks.example.com/a2a");
      expect(created.authentication?.scheme).toBe("Bearer");

      const read = await client.getTaskPushNotificationConfig({ taskId: task.id, id: created.id });
      expect([read.taskId, read.id, read.url, read.token]).toEqual([task.id, created.id, "https://hooks.example.com/a2a", "opaque-token"]);

      const listed = await client.listTaskPushNotificationConfigs({ taskId: task.id });
      expect(listed.configs.map((c) => [c.taskId, c.id])).toEqual([[task.id, created.id]]);

      await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: created.id });
      expect((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs).toEqual([]);
    } finally {
      await client.cancelTask({ id: task.id });
    }
  });

  it("GetExtendedAgentCard (0.3 GetAgentCard) returns the extended card in the 1.0 shape", async () => {
    const card = await client.getExtendedAgentCard();
    expect(card.$typeName).toBe("lf.a2a.v1.AgentCard");
    expect(card.skills.map((s) => s.id)).toContain("secret-skill");
    expect(card.capabilities?.extendedAgentCard).toBe(true);
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.protocolVersion])).toEqual([
      ["JSONRPC", agent.jsonRpcUrl, "0.3"],
      ["HTTP+JSON", agent.restUrl, "0.3"],
      ["GRPC", agent.grpcAddress, "0.3"],
    ]);
  });

  it("ListTasks fails with UnsupportedOperationError without a round trip", async () => {
    const calls: string[] = [];
    const counting: Interceptor = (next) => (req) => {
      calls.push(req.method.name);
      return next(req);
    };
    // Nothing listens on port 1: a request would fail with a ConnectionError.
    const nowhere = { ...agent, grpcAddress: "127.0.0.1:1", restUrl: "http://127.0.0.1:1/a2a/rest" };
    const offline = new A2AClient(v03Transport(binding, nowhere, { interceptors: [counting] }));
    const e = await offline.listTasks({ pageSize: 5 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UnsupportedOperationError);
    expect((e as Error).message).toMatch(/the agent speaks A2A 0\.3.*ListTasks/);
    expect((e as UnsupportedOperationError).binding).toBe(binding);
    expect(calls).toEqual([]);
    await expect(client.listTasks()).rejects.toThrow(UnsupportedOperationError);
  });

  it("an unknown task is TaskNotFoundError", async () => {
    await expect(client.getTask({ id: "no-such-task" })).rejects.toThrow(TaskNotFoundError);
    await expect(client.cancelTask({ id: "no-such-task" })).rejects.toThrow(TaskNotFoundError);
    await expect(collect(client.subscribeToTask({ id: "no-such-task" }))).rejects.toThrow(TaskNotFoundError);
  });

  it("interceptors see the 1.0 messages and the 0.3 version header, and their changes are sent", async () => {
    const seen: string[] = [];
    const interceptor: Interceptor = (next) => async (req) => {
      seen.push(`${req.method.parent.typeName}.${req.method.name} ${req.header.get("A2A-Version")}`);
      if (!req.stream) {
        const message = req.message as MessageShape<DescMessage> & { message?: Message };
        seen.push(message.$typeName);
        // Rewrites the text: the agent must receive the rewritten request.
        if (message.message) message.message.parts = [{ ...message.message.parts[0]!, content: { case: "text", value: "echo rewritten" } }];
        const res = await next(req);
        seen.push((res.message as MessageShape<DescMessage>).$typeName);
        return res;
      }
      const res = await next(req);
      if (!res.stream) return res;
      // Each event as it passes, already in its 1.0 form.
      const events = res.message;
      return {
        ...res,
        message: (async function* () {
          for await (const e of events) {
            seen.push((e as MessageShape<DescMessage>).$typeName);
            yield e;
          }
        })(),
      };
    };
    const intercepted = new A2AClient(v03Transport(binding, agent, { interceptors: [interceptor] }));
    const reply = await intercepted.sendMessage({ message: userMessage("echo original") });
    expect(textOf(reply.payload.value as Message)).toBe("rewritten");
    const events = await collect(intercepted.sendStreamingMessage({ message: userMessage("count 1") }));
    expect(events.at(-1)?.payload.case).toBe("statusUpdate");
    expect(seen).toEqual([
      "lf.a2a.v1.A2AService.SendMessage 0.3",
      "lf.a2a.v1.SendMessageRequest",
      "lf.a2a.v1.SendMessageResponse",
      "lf.a2a.v1.A2AService.SendStreamingMessage 0.3",
      ...events.map(() => "lf.a2a.v1.StreamResponse"),
    ]);
    expect(events.length).toBeGreaterThan(2);
  });
});

describe("the 0.3-only agent and 1.0 requests", () => {
  it.each(BINDINGS)("%s at 1.0 gets VersionNotSupportedError", async (binding) => {
    const client = new A2AClient(transportFor(binding, agent));
    const e = await client.sendMessage({ message: userMessage("echo hi") }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(VersionNotSupportedError);
    expect((e as Error).message).toMatch(/'1\.0' is not supported/);
  });
});

describe("a 1.0-only agent and 0.3 requests", () => {
  let modern: LocalAgent;
  beforeAll(async () => {
    modern = await startLocalAgent();
  });
  afterAll(() => modern?.close());

  it("gRPC: the 0.3 service is not there (UNIMPLEMENTED)", async () => {
    const client = new A2AClient(v03Transport("GRPC", modern));
    await expect(client.sendMessage({ message: userMessage("echo hi") })).rejects.toThrow(MethodNotFoundError);
  });

  it("HTTP+JSON: VersionNotSupportedError for A2A-Version 0.3", async () => {
    const client = new A2AClient(v03Transport("HTTP+JSON", modern));
    const e = await client.sendMessage({ message: userMessage("echo hi") }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(VersionNotSupportedError);
    expect((e as Error).message).toMatch(/'0\.3' is not supported/);
  });
});
