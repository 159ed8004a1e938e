/**
 * Every A2A operation, on every binding, against each real peer (the
 * official @a2a-js/sdk server, current and 1.0.0-beta.0) running in-process.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { LocalAgent } from "../../demo/agent.js";
import { Role, TaskState, isTerminal, textOf, userMessage, type A2AClient, type StreamResponse, type Task } from "../../src/index.js";
import { BINDINGS, clientFor, collect } from "../support/bindings.js";
import { SDK_1_0_BETA, agentsOfPeers, peerCases } from "../support/peers.js";

const agentOf = agentsOfPeers();
let agent: LocalAgent;

function taskOf(res: { payload: { case: string | undefined; value?: unknown } }): Task {
  if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
  return res.payload.value as Task;
}

/** Starts a task that stays WORKING until canceled. */
async function holdTask(client: A2AClient): Promise<Task> {
  const res = await client.sendMessage({ message: userMessage("hold"), configuration: { returnImmediately: true } });
  const task = taskOf(res);
  expect(isTerminal(task.status!.state)).toBe(false);
  return task;
}

describe.each(peerCases(BINDINGS))("$label", ({ sdk, binding }) => {
  let client: A2AClient;
  beforeAll(() => {
    agent = agentOf(sdk);
    client = clientFor(binding, agent);
  });

  it("SendMessage returns the completed task with its artifact and history", async () => {
    const sent = userMessage("count 2");
    const task = taskOf(await client.sendMessage({ message: sent }));
    expect(task.id).not.toBe("");
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts[0]!.artifactId).toBe("result");
    expect(textOf(task, ",")).toBe("chunk-1,chunk-2");
    expect(task.history.some((m) => m.messageId === sent.messageId && m.role === Role.USER)).toBe(true);
  });

  it("SendMessage returns a direct message when no task is needed", async () => {
    const res = await client.sendMessage({ message: userMessage("echo hello there") });
    expect(res.payload.case).toBe("message");
    const reply = res.payload.value as import("../../src/index.js").Message;
    expect(reply.role).toBe(Role.AGENT);
    expect(textOf(reply)).toBe("hello there");
  });

  it("SendStreamingMessage delivers the events in order and ends at the terminal state", async () => {
    const events = await collect(client.sendStreamingMessage({ message: userMessage("count 3") }));
    const kinds = events.map((e) => e.payload.case);
    expect(kinds[0]).toBe("task");
    const artifacts = events.flatMap((e) => (e.payload.case === "artifactUpdate" ? [e.payload.value] : []));
    expect(artifacts.map((a) => textOf(a.artifact!))).toEqual(["chunk-1", "chunk-2", "chunk-3"]);
    expect(artifacts.map((a) => a.append)).toEqual([false, true, true]);
    expect(artifacts.map((a) => a.lastChunk)).toEqual([false, false, true]);
    const states = events.flatMap((e) => (e.payload.case === "statusUpdate" ? [e.payload.value.status!.state] : []));
    expect(states).toEqual([TaskState.WORKING, TaskState.COMPLETED]);
    // Status WORKING comes before the first chunk, COMPLETED after the last.
    expect(kinds.indexOf("artifactUpdate")).toBeGreaterThan(kinds.indexOf("statusUpdate"));
    expect(kinds.at(-1)).toBe("statusUpdate");
    const taskId = (events[0]!.payload.value as Task).id;
    for (const a of artifacts) expect(a.taskId).toBe(taskId);
  });

  it("GetTask returns the task and honours historyLength", async () => {
    const created = taskOf(await client.sendMessage({ message: userMessage("count 1") }));
    const full = await client.getTask({ id: created.id });
    expect(full.id).toBe(created.id);
    expect(full.status?.state).toBe(TaskState.COMPLETED);
    expect(full.history.length).toBeGreaterThan(0);
    const trimmed = await client.getTask({ id: created.id, historyLength: 1 });
    expect(trimmed.history).toHaveLength(1);
    expect(trimmed.history[0]).toEqual(full.history.at(-1));
  });

  it("ListTasks filters by context and state and pages with nextPageToken", async () => {
    const contextId = `ctx-${binding}-${Date.now()}`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(taskOf(await client.sendMessage({ message: userMessage("count 1", { contextId }) })).id);
    }
    // 1.0.0-beta.0 reads an absent status filter as TASK_STATE_UNSPECIFIED
    // and keeps only tasks in that state: without a filter it lists none.
    const filter = sdk === SDK_1_0_BETA ? { status: TaskState.COMPLETED } : {};
    if (sdk === SDK_1_0_BETA) expect((await client.listTasks({ contextId })).tasks).toEqual([]);
    const page1 = await client.listTasks({ contextId, pageSize: 2, ...filter });
    expect(page1.tasks).toHaveLength(2);
    expect(page1.totalSize).toBe(3);
    expect(page1.nextPageToken).not.toBe("");
    const page2 = await client.listTasks({ contextId, pageSize: 2, pageToken: page1.nextPageToken, ...filter });
    expect(page2.tasks).toHaveLength(1);
    expect(page2.nextPageToken).toBe("");
    expect([...page1.tasks, ...page2.tasks].map((t) => t.id).sort()).toEqual([...ids].sort());
    expect(page1.tasks.every((t) => t.contextId === contextId)).toBe(true);

    const working = await client.listTasks({ contextId, status: TaskState.WORKING });
    expect(working.tasks).toHaveLength(0);
    const completed = await client.listTasks({ contextId, status: TaskState.COMPLETED });
    expect(completed.tasks).toHaveLength(3);
  });

  it("CancelTask cancels a running task", async () => {
    const task = await holdTask(client);
    const canceled = await client.cancelTask({ id: task.id });
    expect(canceled.id).toBe(task.id);
    expect(canceled.status?.state).toBe(TaskState.CANCELED);
    expect((await client.getTask({ id: task.id })).status?.state).toBe(TaskState.CANCELED);
  });

  it("SubscribeToTask starts with a snapshot and follows the task to its end", async () => {
    const task = await holdTask(client);
    const seen: StreamResponse[] = [];
    const stream = client.subscribeToTask({ id: task.id })[Symbol.asyncIterator]();
    const first = await stream.next();
    expect(first.done).toBe(false);
    seen.push(first.value as StreamResponse);
    expect(seen[0]!.payload.case).toBe("task");
    expect((seen[0]!.payload.value as Task).id).toBe(task.id);
    await client.cancelTask({ id: task.id });
    for (let r = await stream.next(); !r.done; r = await stream.next()) seen.push(r.value);
    const last = seen.at(-1)!;
    const finalState = last.payload.case === "statusUpdate" ? last.payload.value.status?.state : (last.payload.value as Task).status?.state;
    expect(finalState).toBe(TaskState.CANCELED);
  });

  it("creates, reads, lists and deletes push notification configs", async () => {
    const task = await holdTask(client);
    try {
      // On HTTP+JSON the task id is in the path and, as the official clients
      // send it, in the body too, where 1.0.0-beta.0 looks for it.
      const config = { taskId: task.id, url: "https://hooks.example.com/a2a", token: "opaque-token" };
      const created = await client.createTaskPushNotificationConfig(config);
      expect(created.id).not.toBe("");
      expect(created.taskId).toBe(task.id);
      expect(created.url).toBe("https://hooks.example.com/a2a");

      const read = await client.getTaskPushNotificationConfig({ taskId: task.id, id: created.id });
      expect(read.url).toBe("https://hooks.example.com/a2a");
      expect(read.token).toBe("opaque-token");

      const listed = await client.listTaskPushNotificationConfigs({ taskId: task.id });
      expect(listed.configs.map((c) => c.id)).toEqual([created.id]);

      await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: created.id });
      expect((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs).toEqual([]);
    } finally {
      await client.cancelTask({ id: task.id });
    }
  });

  it("GetExtendedAgentCard returns the extended card", async () => {
    const card = await client.getExtendedAgentCard();
    expect(card.name).not.toBe("");
    expect(card.skills.map((s) => s.id)).toContain("secret-skill");
  });
});
