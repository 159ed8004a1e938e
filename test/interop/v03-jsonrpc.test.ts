/**
 * The 0.3 JSON-RPC transport against each real peer (the official
 * @a2a-js/sdk server, current and 1.0.0-beta.0) with its 0.3 compatibility
 * layer: 1.0 types in and out, 0.3 on the wire.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { LocalAgent } from "../../demo/agent.js";
import {
  A2AClient,
  Role,
  TaskNotCancelableError,
  TaskNotFoundError,
  TaskState,
  UnsupportedOperationError,
  createFetchHttpClient,
  isTerminal,
  textOf,
  userMessage,
  type HttpTransportOptions,
  type Message,
  type StreamResponse,
  type Task,
} from "../../src/index.js";
import { createJsonRpcTransportV03 } from "../../src/bindings/jsonrpc/v0_3.js";
import { V03_KIT } from "../../src/bindings/v0_3-kit.js";
import { GENERATED_JSON } from "../../src/node-runtime.js";
import { collect } from "../support/bindings.js";
import { PEERS, agentsOfPeers } from "../support/peers.js";

let agent: LocalAgent;
let client: A2AClient;
/** The JSON-RPC method and A2A-Version header of every request the client sent. */
const sent: { method: string; version: string | null }[] = [];

const agentOf = agentsOfPeers({ versions: ["0.3"] });

/** The default fetch client, noting what each request was. */
function recording(): HttpTransportOptions["httpClient"] {
  const fetchClient = createFetchHttpClient();
  return async (req) => {
    const body: Uint8Array[] = [];
    if (req.body) for await (const chunk of req.body) body.push(chunk);
    const json = JSON.parse(Buffer.concat(body).toString("utf8")) as { method: string };
    sent.push({ method: json.method, version: req.header.get("A2A-Version") });
    return fetchClient({ ...req, body: single(Buffer.concat(body)) });
  };
}

async function* single(chunk: Uint8Array): AsyncIterable<Uint8Array> {
  yield chunk;
}

function taskOf(res: { payload: { case: string | undefined; value?: unknown } }): Task {
  if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
  return res.payload.value as Task;
}

/** A task that stays WORKING until canceled. */
async function holdTask(): Promise<Task> {
  const task = taskOf(await client.sendMessage({ message: userMessage("hold"), configuration: { returnImmediately: true } }));
  expect(task.status?.state).toBe(TaskState.WORKING);
  return task;
}

describe.each(PEERS)("A2A 0.3 over JSON-RPC, 1.0 types ($label)", (sdk) => {
  beforeAll(() => {
    agent = agentOf(sdk);
    client = new A2AClient(createJsonRpcTransportV03(V03_KIT, { baseUrl: agent.jsonRpcUrl, httpClient: recording() }, GENERATED_JSON));
  });

  it("SendMessage returns the completed task, announcing A2A-Version 0.3", async () => {
    const before = sent.length;
    const message = userMessage("count 2");
    const task = taskOf(await client.sendMessage({ message }));
    expect(sent.slice(before)).toEqual([{ method: "message/send", version: "0.3" }]);
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(task.status?.timestamp).toBeDefined();
    expect(task.artifacts.map((a) => a.artifactId)).toEqual(["result"]);
    expect(textOf(task, ",")).toBe("chunk-1,chunk-2");
    const mine = task.history.find((m) => m.messageId === message.messageId);
    expect(mine?.role).toBe(Role.USER);
    expect(mine?.parts[0]?.content).toEqual({ case: "text", value: "count 2" });
  });

  it("SendMessage returns a direct message", async () => {
    const res = await client.sendMessage({ message: userMessage("echo hello there") });
    expect(res.payload.case).toBe("message");
    const reply = res.payload.value as Message;
    expect(reply.role).toBe(Role.AGENT);
    expect(textOf(reply)).toBe("hello there");
  });

  it("SendStreamingMessage delivers the events in order up to the terminal state", async () => {
    const events = await collect(client.sendStreamingMessage({ message: userMessage("count 3") }));
    expect(events.map((e) => e.payload.case)).toEqual([
      "task",
      "statusUpdate",
      "artifactUpdate",
      "artifactUpdate",
      "artifactUpdate",
      "statusUpdate",
    ]);
    const taskId = (events[0]!.payload.value as Task).id;
    expect((events[0]!.payload.value as Task).status?.state).toBe(TaskState.SUBMITTED);
    const artifacts = events.flatMap((e) => (e.payload.case === "artifactUpdate" ? [e.payload.value] : []));
    expect(artifacts.map((a) => textOf(a.artifact!))).toEqual(["chunk-1", "chunk-2", "chunk-3"]);
    expect(artifacts.map((a) => a.append)).toEqual([false, true, true]);
    expect(artifacts.map((a) => a.lastChunk)).toEqual([false, false, true]);
    const statuses = events.flatMap((e) => (e.payload.case === "statusUpdate" ? [e.payload.value] : []));
    expect(statuses.map((s) => s.status?.state)).toEqual([TaskState.WORKING, TaskState.COMPLETED]);
    for (const e of [...artifacts, ...statuses]) expect(e.taskId).toBe(taskId);
  });

  it("GetTask returns the task and honours historyLength", async () => {
    const created = taskOf(await client.sendMessage({ message: userMessage("count 1") }));
    const full = await client.getTask({ id: created.id });
    expect(full.id).toBe(created.id);
    expect(full.status?.state).toBe(TaskState.COMPLETED);
    expect(full.history.length).toBeGreaterThan(0);
    // Without a cap, the whole history: what a cap above its length keeps.
    expect((await client.getTask({ id: created.id, historyLength: 100 })).history).toEqual(full.history);
    const trimmed = await client.getTask({ id: created.id, historyLength: 1 });
    expect(trimmed.history).toHaveLength(1);
    expect(trimmed.history[0]).toEqual(full.history.at(-1));
  });

  it("CancelTask cancels a running task", async () => {
    const task = await holdTask();
    const canceled = await client.cancelTask({ id: task.id });
    expect(canceled.id).toBe(task.id);
    expect(canceled.status?.state).toBe(TaskState.CANCELED);
    expect((await client.getTask({ id: task.id })).status?.state).toBe(TaskState.CANCELED);
  });

  it("SubscribeToTask starts with a snapshot and follows the task to CANCELED", async () => {
    const task = await holdTask();
    const stream = client.subscribeToTask({ id: task.id })[Symbol.asyncIterator]();
    const first = await stream.next();
    expect(first.done).toBe(false);
    const seen: StreamResponse[] = [first.value as StreamResponse];
    expect(seen[0]!.payload.case).toBe("task");
    expect((seen[0]!.payload.value as Task).id).toBe(task.id);
    await client.cancelTask({ id: task.id });
    for (let r = await stream.next(); !r.done; r = await stream.next()) seen.push(r.value);
    const last = seen.at(-1)!;
    const state = last.payload.case === "statusUpdate" ? last.payload.value.status?.state : (last.payload.value as Task).status?.state;
    expect(state).toBe(TaskState.CANCELED);
  });

  it("creates, reads, lists and deletes push notification configs", async () => {
    const task = await holdTask();
    try {
      const created = await client.createTaskPushNotificationConfig({
        taskId: task.id,
        url: "https://hooks.example.com/a2a",
        token: "opaque-token",
        authentication: { scheme: "Bearer", credentials: "secret" },
      });
      expect(created.id).not.toBe("");
      expect(created.taskId).toBe(task.id);
      expect(created.url).toBe("https://hooks.example.com/a2a");
      expect(created.authentication?.scheme).toBe("Bearer");

      const read = await client.getTaskPushNotificationConfig({ taskId: task.id, id: created.id });
      expect(read.taskId).toBe(task.id);
      expect(read.url).toBe("https://hooks.example.com/a2a");
      expect(read.token).toBe("opaque-token");
      expect(read.authentication).toMatchObject({ scheme: "Bearer", credentials: "secret" });

      const listed = await client.listTaskPushNotificationConfigs({ taskId: task.id });
      expect(listed.configs.map((c) => c.id)).toEqual([created.id]);
      expect(listed.nextPageToken).toBe("");

      await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: created.id });
      expect((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs).toEqual([]);
    } finally {
      await client.cancelTask({ id: task.id });
    }
  });

  it("GetExtendedAgentCard returns the extended card in the 1.0 shape", async () => {
    const card = await client.getExtendedAgentCard();
    expect(card.skills.map((s) => s.id)).toContain("secret-skill");
    expect(card.capabilities?.extendedAgentCard).toBe(true);
    expect(card.supportedInterfaces[0]).toMatchObject({ url: agent.jsonRpcUrl, protocolBinding: "JSONRPC", protocolVersion: "0.3" });
  });

  it("ListTasks fails with UnsupportedOperationError and sends nothing", async () => {
    const before = sent.length;
    const err = await client.listTasks({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsupportedOperationError);
    expect((err as Error).message).toMatch(/A2A 0\.3.*ListTasks/);
    expect(sent.length).toBe(before);
  });

  it("an unknown task is TaskNotFoundError", async () => {
    const err = await client.getTask({ id: "no-such-task" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TaskNotFoundError);
    expect(err).toMatchObject({ jsonRpcCode: -32001, binding: "JSONRPC" });
  });

  it("canceling a finished task is TaskNotCancelableError", async () => {
    const done = taskOf(await client.sendMessage({ message: userMessage("count 1") }));
    expect(isTerminal(done.status!.state)).toBe(true);
    const err = await client.cancelTask({ id: done.id }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TaskNotCancelableError);
    expect(err).toMatchObject({ jsonRpcCode: -32002 });
  });
});
