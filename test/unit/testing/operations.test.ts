/**
 * The test agent's task store through the other operations, on every
 * binding, in memory and on loopback: GetTask, ListTasks and its pages,
 * CancelTask, SubscribeToTask from the task as it stands, the extended
 * card, the refusals an agent answers with, and how scripts are chosen.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  A2AClient,
  type A2AError,
  InvalidParamsError,
  TaskNotCancelableError,
  TaskNotFoundError,
  TaskState,
  textOf,
  userMessage,
  type StreamResponse,
  type Task,
} from "../../../src/index.js";
import { createTestAgent, steps, type TestAgent } from "../../../src/testing.js";
import { agentOnAll, CASES, sessionWith } from "./ways.js";

let agent: TestAgent;
afterEach(() => agent?.close());

const taskOf = (r: { payload: { case: string | undefined; value?: unknown } }): Task => r.payload.value as Task;

describe.each(CASES)("in %s, on %s", (way, binding) => {
  it("ListTasks pages through every task, newest first, with pageSize and pageToken; a context filters them", async () => {
    agent = agentOnAll({ script: [steps.artifact("result"), steps.complete()] });
    const { client } = await sessionWith(agent, way, binding);
    const sent: string[] = [];
    for (let i = 0; i < 5; i++)
      sent.push(taskOf(await client.sendMessage({ message: userMessage(`task ${i}`, { contextId: i < 2 ? "ctx-a" : "ctx-b" }) })).id);
    const pages: string[][] = [];
    let pageToken = "";
    do {
      const page = await client.listTasks({ pageSize: 2, pageToken });
      expect(page.totalSize).toBe(5);
      expect(page.pageSize).toBe(2);
      // Without includeArtifacts a listed task carries none.
      expect(page.tasks.every((t) => t.artifacts.length === 0)).toBe(true);
      pages.push(page.tasks.map((t) => t.id));
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual([...sent].reverse());
    const inA = await client.listTasks({ contextId: "ctx-a", includeArtifacts: true });
    expect(inA.tasks.map((t) => t.id)).toEqual([sent[1], sent[0]]);
    expect(inA.tasks.map((t) => textOf(t))).toEqual(["result", "result"]);
    await expect(client.listTasks({ pageSize: 101 })).rejects.toBeInstanceOf(InvalidParamsError);
  });

  it("GetTask cuts the history to historyLength; an unknown task is TaskNotFoundError", async () => {
    agent = agentOnAll({ script: [steps.working("thinking"), steps.complete("done")] });
    const { client } = await sessionWith(agent, way, binding);
    const { id } = taskOf(await client.sendMessage({ message: userMessage("question") }));
    expect((await client.getTask({ id })).history.map((m) => textOf(m))).toEqual(["question", "thinking", "done"]);
    expect((await client.getTask({ id, historyLength: 1 })).history.map((m) => textOf(m))).toEqual(["done"]);
    await expect(client.getTask({ id: "no-such-task" })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it("an ended task refuses to be cancelled, and takes no more messages", async () => {
    agent = agentOnAll();
    const { client } = await sessionWith(agent, way, binding);
    const done = taskOf(await client.sendMessage({ message: userMessage("quick") }));
    expect(done.status?.state).toBe(TaskState.COMPLETED);
    await expect(client.cancelTask({ id: done.id })).rejects.toBeInstanceOf(TaskNotCancelableError);
    const refused = await client.sendMessage({ message: userMessage("more", { taskId: done.id }) }).catch((e: unknown) => e);
    expect((refused as A2AError).code).toBe("UNSUPPORTED_OPERATION");
  });

  it("SubscribeToTask without Last-Event-ID opens with the task as it stands, then its events", async () => {
    agent = agentOnAll({ script: [steps.artifact("so far"), steps.untilCancelled()] });
    const { client } = await sessionWith(agent, way, binding);
    const { id } = taskOf(await client.sendMessage({ message: userMessage("long job") }));
    const seen: StreamResponse[] = [];
    for await (const event of client.subscribeToTask({ id })) {
      seen.push(event);
      if (seen.length === 1) await client.cancelTask({ id });
    }
    expect(seen.map((e) => e.payload.case)).toEqual(["task", "statusUpdate"]);
    expect([taskOf(seen[0]!).status?.state, textOf(seen[0])]).toEqual([TaskState.WORKING, "so far"]);
  });

  it("the extended card is served when the agent has one", async () => {
    agent = agentOnAll({ extendedCard: { name: "Test Agent (extended)" } });
    const session = await sessionWith(agent, way, binding);
    expect(session.publicCard.capabilities?.extendedAgentCard).toBe(true);
    expect((await session.extendedCard()).name).toBe("Test Agent (extended)");
    expect(agent.requests.some((r) => r.method === "GetExtendedAgentCard")).toBe(true);
  });

  it("without one, GetExtendedAgentCard is refused with the agent's error", async () => {
    agent = agentOnAll();
    const { client } = await sessionWith(agent, way, binding);
    const refused = await client.getExtendedAgentCard().catch((e: unknown) => e);
    expect((refused as A2AError).code).toBe("EXTENDED_AGENT_CARD_NOT_CONFIGURED");
  });
});

describe("the script of each message", () => {
  it("is the next queued one, then what the script function gives for the message", async () => {
    agent = createTestAgent({
      scripts: [[steps.reply("first")]],
      script: (message) => [steps.reply(`echo: ${textOf(message)}`)],
    });
    agent.enqueue([steps.reply("second")]);
    const client = new A2AClient(agent.transport("HTTP+JSON"));
    const answers: string[] = [];
    for (const text of ["a", "b", "c"]) answers.push(textOf(await client.sendMessage({ message: userMessage(text) })));
    expect(answers).toEqual(["first", "second", "echo: c"]);
  });

  it("may be shared by agents: a once step runs once for each", async () => {
    const shared = [steps.once(steps.reply("first time")), steps.reply("again")];
    const answers: string[] = [];
    for (let i = 0; i < 2; i++) {
      const each = createTestAgent({ script: shared });
      const client = new A2AClient(each.transport());
      for (const text of ["a", "b"]) answers.push(textOf(await client.sendMessage({ message: userMessage(text) })));
      await each.close();
    }
    expect(answers).toEqual(["first time", "again", "first time", "again"]);
  });

  it("is told the task a message continues, when its script had no steps left", async () => {
    const told: Array<TaskState | undefined> = [];
    agent = createTestAgent({
      script: (_message, task) => {
        told.push(task?.status?.state);
        return task ? [steps.complete("thanks")] : [steps.inputRequired("and?")];
      },
    });
    const client = new A2AClient(agent.transport());
    const asked = taskOf(await client.sendMessage({ message: userMessage("start") }));
    const done = taskOf(await client.sendMessage({ message: userMessage("more", { taskId: asked.id }) }));
    expect(done.status?.state).toBe(TaskState.COMPLETED);
    expect(told).toEqual([undefined, TaskState.INPUT_REQUIRED]);
  });
});
