/**
 * The test agent's push notifications, received by our own webhook
 * receiver (createPushReceiver): configs sent with a message or made
 * through the client, on both bindings, the agent in memory and on
 * loopback; deliveries in memory straight into the receiver's handler and
 * over a loopback socket; the token and authentication the receiver
 * checks; failed deliveries, retried or not; and an agent without push.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  A2AClient,
  constantTimeEqual,
  createPushReceiver,
  InvalidParamsError,
  PushNotificationNotSupportedError,
  replyTo,
  TaskNotFoundError,
  TaskState,
  textOf,
  userMessage,
  type StreamResponse,
  type Task,
} from "../../../src/index.js";
import { createNodePushHandler } from "../../../src/node.js";
import { createTestAgent, MASK, steps, type TestAgent } from "../../../src/testing.js";
import { agentOnAll, CASES, sessionWith } from "./ways.js";

let agent: TestAgent;
let server: Server | undefined;
afterEach(async () => {
  await agent?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

const HOOK = "https://hooks.example/a2a";
const taskOf = (r: { payload: { value?: unknown } }): Task => r.payload.value as Task;

/** A receiver checking `token`, and the events it took, in order. */
function receiverWith(token: string) {
  const events: StreamResponse[] = [];
  const receiver = createPushReceiver({ token, onEvent: (event) => void events.push(event) });
  return { receiver, events };
}

describe.each(CASES)("in %s, on %s", (way, binding) => {
  it("delivers every event of a task whose message carried a config, in order, with its token, into our receiver", async () => {
    const { receiver, events } = receiverWith("t0ken");
    agent = agentOnAll({
      push: { fetch: receiver.handle },
      script: [steps.working(), steps.artifact("forty-two"), steps.complete("done")],
    });
    const { client, card } = await sessionWith(agent, way, binding);
    expect(card.capabilities?.pushNotifications).toBe(true);
    const sent = await client.sendMessage({
      message: userMessage("6 x 7?"),
      configuration: { taskPushNotificationConfig: { url: HOOK, token: "t0ken" } },
    });
    const { id } = taskOf(sent);
    await agent.delivered();
    expect(events.map((e) => e.payload.case)).toEqual(["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    const view = receiver.task(id);
    expect(view?.status?.state).toBe(TaskState.COMPLETED);
    expect(textOf(view?.artifacts[0])).toBe("forty-two");
    expect(agent.deliveries).toHaveLength(4);
    for (const d of agent.deliveries) {
      expect(d).toMatchObject({ taskId: id, url: HOOK, status: 204, attempt: 1, error: undefined });
      expect(d.headers["x-a2a-notification-token"]).toBe(MASK);
      expect(d.headers["content-type"]).toBe("application/a2a+json");
    }
    expect(agent.requests.find((r) => r.method === "SendMessage")?.request).toMatchObject({
      configuration: { taskPushNotificationConfig: { url: HOOK, token: MASK } },
    });
    expect(agent.deliveries[2]?.event).toMatchObject({ artifactUpdate: { taskId: id, artifact: { parts: [{ text: "forty-two" }] } } });
  });

  it("takes configs made through the client: Create, Get, List and Delete, deliveries from then on, with its authentication", async () => {
    const seen: (string | null)[] = [];
    const receiver = createPushReceiver({
      authenticate: (authorization) => {
        seen.push(authorization);
        return constantTimeEqual(authorization ?? "", "Bearer s3cret");
      },
    });
    agent = agentOnAll({
      push: { fetch: receiver.handle },
      script: [steps.inputRequired("which city?"), steps.artifact("sunny"), steps.complete()],
    });
    const { client } = await sessionWith(agent, way, binding);
    const waiting = taskOf(await client.sendMessage({ message: userMessage("weather?") }));
    expect(waiting.status?.state).toBe(TaskState.INPUT_REQUIRED);
    const config = await client.createTaskPushNotificationConfig({
      taskId: waiting.id,
      url: HOOK,
      authentication: { scheme: "Bearer", credentials: "s3cret" },
    });
    expect(config.id).not.toBe("");
    expect(config.taskId).toBe(waiting.id);
    expect((await client.getTaskPushNotificationConfig({ taskId: waiting.id, id: config.id })).url).toBe(HOOK);
    const other = await client.createTaskPushNotificationConfig({ taskId: waiting.id, id: "second", url: `${HOOK}/2` });
    expect((await client.listTaskPushNotificationConfigs({ taskId: waiting.id })).configs.map((c) => c.id)).toEqual([config.id, "second"]);
    await client.deleteTaskPushNotificationConfig({ taskId: waiting.id, id: other.id });
    expect((await client.listTaskPushNotificationConfigs({ taskId: waiting.id })).configs.map((c) => c.id)).toEqual([config.id]);
    await expect(client.getTaskPushNotificationConfig({ taskId: waiting.id, id: "second" })).rejects.toBeInstanceOf(TaskNotFoundError);

    await client.sendMessage({ message: replyTo(waiting, "Lyon") });
    await agent.delivered();
    // From the config on: the task set working by the answer, its artifact, its end; nothing before.
    expect(agent.deliveries.map((d) => Object.keys(d.event as object)[0])).toEqual(["statusUpdate", "artifactUpdate", "statusUpdate"]);
    expect(agent.deliveries.every((d) => d.status === 204 && d.headers.authorization === `Bearer ${MASK}`)).toBe(true);
    expect(seen.every((a) => a === "Bearer s3cret")).toBe(true);
    // The config's secret is not in the log of what the agent received.
    const created = agent.requests.find((r) => r.method === "CreateTaskPushNotificationConfig");
    expect(created?.request).toMatchObject({ taskId: waiting.id, url: HOOK, authentication: { scheme: "Bearer", credentials: MASK } });
    expect(receiver.task(waiting.id)?.status?.state).toBe(TaskState.COMPLETED);
  });
});

describe("push deliveries", () => {
  it("go over a loopback socket with the global fetch to a node:http receiver, the agent on loopback too", async () => {
    const { receiver, events } = receiverWith("on-the-wire");
    server = createServer(createNodePushHandler(receiver));
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    agent = createTestAgent({
      push: true,
      script: [steps.working(), steps.artifact("a"), steps.artifact("b", { append: true }), steps.complete()],
    });
    const { client } = await sessionWith(agent, "loopback", "HTTP+JSON");
    const stream = client.sendStreamingMessage({
      message: userMessage("go"),
      configuration: { taskPushNotificationConfig: { url: hook, token: "on-the-wire" } },
    });
    let id = "";
    for await (const e of stream) if (e.payload.case === "task") id = e.payload.value.id;
    await agent.delivered();
    expect(events.map((e) => e.payload.case)).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    expect(textOf(receiver.task(id)?.artifacts[0])).toBe("ab");
    expect(agent.deliveries.map((d) => d.status)).toEqual([204, 204, 204, 204, 204]);
  });

  it("that the receiver refuses are noted with its status: a wrong token is 401, tried `attempts` times", async () => {
    const { receiver, events } = receiverWith("right");
    agent = createTestAgent({ push: { fetch: receiver.handle, attempts: 2 }, script: [steps.complete()] });
    const client = new A2AClient(agent.transport());
    await client.sendMessage({ message: userMessage("hi"), configuration: { taskPushNotificationConfig: { url: HOOK, token: "wrong" } } });
    await agent.delivered();
    expect(events).toEqual([]);
    // Two events (the task, its end), each tried twice: no answer of the receiver's is a 2xx.
    expect(agent.deliveries.map((d) => [d.attempt, d.status])).toEqual([
      [1, 401],
      [2, 401],
      [1, 401],
      [2, 401],
    ]);
  });

  it("that fail once are tried again when `attempts` allows, so the receiver misses nothing; without, they are not", async () => {
    for (const attempts of [2, 1]) {
      const { receiver, events } = receiverWith("tok");
      let failures = 0;
      const flaky = (request: Request) => (failures++ === 0 ? Promise.reject(new TypeError("fetch failed")) : receiver.handle(request));
      agent = createTestAgent({ push: { fetch: flaky, attempts }, script: [steps.artifact("x"), steps.complete()] });
      const client = new A2AClient(agent.transport("HTTP+JSON"));
      await client.sendMessage({ message: userMessage("hi"), configuration: { taskPushNotificationConfig: { url: HOOK, token: "tok" } } });
      await agent.delivered();
      expect(agent.deliveries[0]).toMatchObject({ attempt: 1, status: undefined, error: "fetch failed" });
      expect(events.map((e) => e.payload.case)).toEqual(
        attempts === 2 ? ["task", "artifactUpdate", "statusUpdate"] : ["artifactUpdate", "statusUpdate"],
      );
      await agent.close();
    }
  });

  it("end when the agent closes: a receiver that never answers holds nothing", async () => {
    agent = createTestAgent({ push: { fetch: () => new Promise<Response>(() => {}) }, script: [steps.complete()] });
    const client = new A2AClient(agent.transport());
    await client.sendMessage({ message: userMessage("hi"), configuration: { taskPushNotificationConfig: { url: HOOK } } });
    await agent.close();
    expect(agent.deliveries).toEqual([expect.objectContaining({ attempt: 1, status: undefined, error: "the agent closed" })]);
  });

  it("are refused by an agent without push: its card declares none, and it answers PUSH_NOTIFICATION_NOT_SUPPORTED", async () => {
    agent = createTestAgent();
    const { card, client } = await sessionWith(agent, "memory", "JSONRPC");
    expect(card.capabilities?.pushNotifications).toBeUndefined();
    const direct = new A2AClient(agent.transport());
    const { id } = taskOf(await direct.sendMessage({ message: userMessage("hi") }));
    await expect(client.createTaskPushNotificationConfig({ taskId: id, url: HOOK })).rejects.toBeInstanceOf(
      PushNotificationNotSupportedError,
    );
    await expect(direct.createTaskPushNotificationConfig({ taskId: id, url: HOOK })).rejects.toBeInstanceOf(
      PushNotificationNotSupportedError,
    );
    await expect(
      direct.sendMessage({ message: userMessage("hi"), configuration: { taskPushNotificationConfig: { url: HOOK } } }),
    ).rejects.toBeInstanceOf(PushNotificationNotSupportedError);
    expect(agent.deliveries).toEqual([]);
  });

  it("need a task the agent holds and an http(s) URL without user info", async () => {
    agent = createTestAgent({ push: true });
    const client = new A2AClient(agent.transport());
    await expect(client.createTaskPushNotificationConfig({ taskId: "no-such-task", url: HOOK })).rejects.toBeInstanceOf(TaskNotFoundError);
    const { id } = taskOf(await client.sendMessage({ message: userMessage("hi") }));
    await expect(client.createTaskPushNotificationConfig({ taskId: id, url: "ftp://hooks.example/a2a" })).rejects.toBeInstanceOf(
      InvalidParamsError,
    );
    const withUser = await client
      .createTaskPushNotificationConfig({ taskId: id, url: "https://me:pw@hooks.example/a2a" })
      .catch((e: unknown) => e);
    expect(withUser).toBeInstanceOf(InvalidParamsError);
    expect(String((withUser as Error).message)).not.toContain("pw");
    await expect(client.listTaskPushNotificationConfigs({ taskId: "no-such-task" })).rejects.toBeInstanceOf(TaskNotFoundError);
  });
});
