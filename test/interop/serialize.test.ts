/**
 * Every result the operations return, as ProtoJSON through JSON text and
 * back, against each real peer on JSON-RPC; and textOf, taskIdOf on what a
 * real agent answers (artifacts, or a status message).
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { DescMessage, JsonObject, MessageShape } from "@bufbuild/protobuf";
import {
  AgentCardSchema,
  ListTaskPushNotificationConfigsResponseSchema,
  ListTasksResponseSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
  TaskState,
  fromProtoJson,
  roleName,
  taskIdOf,
  taskStateName,
  textOf,
  toProtoJson,
  userMessage,
  type A2AClient,
  type Task,
} from "../../src/index.js";
import { clientFor, collect } from "../support/bindings.js";
import { SDK_1_0_BETA, agentsOfPeers, peerCases } from "../support/peers.js";

const agentOf = agentsOfPeers();
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** `value` through `JSON.stringify` and `JSON.parse` and back: equal to what it was; returns the parsed JSON. */
function roundTrip<S extends DescMessage>(schema: S, value: MessageShape<S>): JsonObject {
  const text = JSON.stringify(toProtoJson(value));
  expect(text).not.toContain("$typeName");
  const json = JSON.parse(text) as JsonObject;
  expect(fromProtoJson(schema, json)).toEqual(value);
  return json;
}

function taskOf(res: { payload: { case: string | undefined; value?: unknown } }): Task {
  if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
  return res.payload.value as Task;
}

describe.each(peerCases(["JSONRPC"] as const))("$label", ({ sdk, binding }) => {
  let client: A2AClient;
  beforeAll(() => {
    client = clientFor(binding, agentOf(sdk));
  });

  it("SendMessage's task and direct message round-trip through JSON text, enums by name and timestamps in RFC 3339", async () => {
    const res = await client.sendMessage({ message: userMessage("count 2") });
    const json = roundTrip(SendMessageResponseSchema, res) as {
      task: { status: { state: string; timestamp: string }; history: Array<{ role: string }> };
    };
    expect(json.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(json.task.status.timestamp).toMatch(RFC3339);
    expect(json.task.history[0]!.role).toBe("ROLE_USER");
    const task = taskOf(res);
    expect(taskStateName(task.status!.state)).toBe("TASK_STATE_COMPLETED");
    expect(roleName(task.history[0]!.role)).toBe("ROLE_USER");
    expect(taskIdOf(res)).toBe(task.id);

    const reply = await client.sendMessage({ message: userMessage("echo hi") });
    expect((roundTrip(SendMessageResponseSchema, reply) as { message: { role: string } }).message.role).toBe("ROLE_AGENT");
    expect(taskIdOf(reply)).toBeUndefined();
  });

  it("every event of SendStreamingMessage and SubscribeToTask round-trips, and taskIdOf names its task", async () => {
    const events = await collect(client.sendStreamingMessage({ message: userMessage("count 2") }));
    const id = taskOf(events[0]!).id;
    expect(new Set(events.map((e) => e.payload.case))).toEqual(new Set(["task", "statusUpdate", "artifactUpdate"]));
    for (const e of events) {
      roundTrip(StreamResponseSchema, e);
      expect(taskIdOf(e)).toBe(id);
    }

    const held = taskOf(await client.sendMessage({ message: userMessage("hold"), configuration: { returnImmediately: true } }));
    const stream = client.subscribeToTask({ id: held.id })[Symbol.asyncIterator]();
    const first = await stream.next();
    expect(first.done).toBe(false);
    roundTrip(StreamResponseSchema, first.value!);
    expect(taskIdOf(first.value!)).toBe(held.id);
    await stream.return?.();
    roundTrip(TaskSchema, await client.cancelTask({ id: held.id }));
  });

  it("GetTask, ListTasks and GetExtendedAgentCard round-trip", async () => {
    const contextId = `ctx-serialize-${Date.now()}`;
    const task = taskOf(await client.sendMessage({ message: userMessage("count 1", { contextId }) }));
    roundTrip(TaskSchema, await client.getTask({ id: task.id }));
    // 1.0.0-beta.0 lists nothing without a status filter.
    const listed = await client.listTasks({ contextId, ...(sdk === SDK_1_0_BETA ? { status: TaskState.COMPLETED } : {}) });
    expect(listed.tasks.map((t) => t.id)).toEqual([task.id]);
    roundTrip(ListTasksResponseSchema, listed);
    const card = roundTrip(AgentCardSchema, await client.getExtendedAgentCard()) as { name: string; supportedInterfaces: unknown[] };
    expect(card.name).not.toBe("");
    expect(card.supportedInterfaces.length).toBeGreaterThan(0);
  });

  it("push notification configs round-trip (create, get, list; delete returns nothing)", async () => {
    const held = taskOf(await client.sendMessage({ message: userMessage("hold"), configuration: { returnImmediately: true } }));
    try {
      const created = await client.createTaskPushNotificationConfig({ taskId: held.id, url: "https://hooks.example.com/a2a", token: "t" });
      expect(roundTrip(TaskPushNotificationConfigSchema, created)).toMatchObject({ taskId: held.id, url: "https://hooks.example.com/a2a" });
      roundTrip(TaskPushNotificationConfigSchema, await client.getTaskPushNotificationConfig({ taskId: held.id, id: created.id }));
      const list = await client.listTaskPushNotificationConfigs({ taskId: held.id });
      expect(list.configs).toHaveLength(1);
      roundTrip(ListTaskPushNotificationConfigsResponseSchema, list);
      expect(await client.deleteTaskPushNotificationConfig({ taskId: held.id, id: created.id })).toBeUndefined();
    } finally {
      await client.cancelTask({ id: held.id });
    }
  });

  it("textOf reads a task's status message when the agent answers there, its artifacts otherwise", async () => {
    const input = taskOf(await client.sendMessage({ message: userMessage("input") }));
    expect(input.status?.state).toBe(TaskState.INPUT_REQUIRED);
    expect(input.artifacts).toEqual([]);
    expect(textOf(input)).toBe("need more");

    const failed = taskOf(await client.sendMessage({ message: userMessage("fail") }));
    expect(textOf(failed)).toBe("failed on purpose");
    expect(textOf(await client.getTask({ id: failed.id }))).toBe("failed on purpose");

    const counted = await client.sendMessage({ message: userMessage("count 2") });
    expect(textOf(counted, ",")).toBe("chunk-1,chunk-2");

    const events = await collect(client.sendStreamingMessage({ message: userMessage("input") }));
    expect(events.map((e) => textOf(e)).filter((t) => t !== "")).toEqual(["need more"]);
  });
});
