/**
 * Multi-turn helpers against each real peer (the official @a2a-js/sdk
 * server, current and 1.0.0-beta.0), on every binding: answering an input-required task, following up in the same
 * context, and refusing to message a task that has ended.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Interceptor } from "@connectrpc/connect";
import {
  TaskState,
  TaskTerminalError,
  UnsupportedOperationError,
  InvalidParamsError,
  followUp,
  replyTo,
  textOf,
  userMessage,
  type A2AClient,
  type Task,
} from "../../src/index.js";
import { BINDINGS, clientFor } from "../support/bindings.js";
import { SDK_1_0_BETA, agentsOfPeers, peerCases } from "../support/peers.js";

const agentOf = agentsOfPeers();

function taskOf(res: { payload: { case: string | undefined; value?: unknown } }): Task {
  if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
  return res.payload.value as Task;
}

describe.each(peerCases(BINDINGS))("$label", ({ sdk, binding }) => {
  let client: A2AClient;
  let requests: string[] = [];
  beforeAll(() => {
    const agent = agentOf(sdk);
    const counter: Interceptor = (next) => (req) => {
      requests.push(req.method.name);
      return next(req);
    };
    client = clientFor(binding, agent, { interceptors: [counter] });
  });

  async function inputRequired(): Promise<Task> {
    const task = taskOf(await client.sendMessage({ message: userMessage("input") }));
    expect(task.status?.state).toBe(TaskState.INPUT_REQUIRED);
    expect(textOf(task.status!.message!)).toBe("need more");
    return task;
  }

  it("a reply continues the input-required task: same id and context, to a later state", async () => {
    const task = await inputRequired();
    const reply = replyTo(task, "count 2");
    expect(reply.taskId).toBe(task.id);
    expect(reply.contextId).toBe(task.contextId);

    const continued = taskOf(await client.sendMessage({ message: reply }));
    expect(continued.id).toBe(task.id);
    expect(continued.contextId).toBe(task.contextId);
    expect(continued.status?.state).toBe(TaskState.COMPLETED);
    expect(textOf(continued, ",")).toBe("chunk-1,chunk-2");
    const stored = await client.getTask({ id: task.id });
    expect(stored.history.map((m) => m.messageId)).toContain(reply.messageId);
  });

  it("a reply works on a stream too", async () => {
    const task = await inputRequired();
    const states: TaskState[] = [];
    for await (const e of client.sendStreamingMessage({ message: replyTo(task, "count 1") })) {
      if (e.payload.case === "statusUpdate") {
        expect(e.payload.value.taskId).toBe(task.id);
        states.push(e.payload.value.status!.state);
      }
    }
    expect(states.at(-1)).toBe(TaskState.COMPLETED);
  });

  it("a follow-up starts a new task in the same context that references the earlier one", async () => {
    const first = taskOf(await client.sendMessage({ message: userMessage("count 1") }));
    expect(first.status?.state).toBe(TaskState.COMPLETED);
    const message = followUp(first, "count 1");
    expect(message.taskId).toBe("");
    expect(message.referenceTaskIds).toEqual([first.id]);

    const second = taskOf(await client.sendMessage({ message }));
    expect(second.id).not.toBe(first.id);
    expect(second.contextId).toBe(first.contextId);
    const stored = await client.getTask({ id: second.id });
    const sent = stored.history.find((m) => m.messageId === message.messageId);
    expect(sent?.referenceTaskIds).toEqual([first.id]);

    // The beta lists nothing without a status filter (pagination.test.ts asserts it); both tasks are COMPLETED.
    const status = sdk === SDK_1_0_BETA ? TaskState.COMPLETED : undefined;
    const listed = await client.listTasks({ contextId: first.contextId, status });
    expect(listed.tasks.map((t) => t.id).sort()).toEqual([first.id, second.id].sort());
  });

  it("a message to a completed task fails before any request", async () => {
    const done = taskOf(await client.sendMessage({ message: userMessage("count 1") }));
    expect(done.status?.state).toBe(TaskState.COMPLETED);
    requests = [];
    let caught: unknown;
    try {
      await client.sendMessage({ message: replyTo(done, "more please") });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(TaskTerminalError);
    expect(caught).toBeInstanceOf(UnsupportedOperationError);
    expect((caught as TaskTerminalError).taskId).toBe(done.id);
    expect((caught as TaskTerminalError).state).toBe(TaskState.COMPLETED);
    expect(requests).toEqual([]);

    // What the agent itself answers for such a message: the same class.
    await expect(
      client.sendMessage({ message: userMessage("more please", { taskId: done.id, contextId: done.contextId }) }),
    ).rejects.toBeInstanceOf(UnsupportedOperationError);
    expect(requests).toEqual(["SendMessage"]);
  });

  it("every terminal state is refused; interrupted and working ones are not", () => {
    const at = (state: TaskState) => ({ id: "t", contextId: "c", status: { state } }) as unknown as Task;
    for (const s of [TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED]) {
      expect(() => replyTo(at(s), "x")).toThrow(TaskTerminalError);
    }
    for (const s of [TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED, TaskState.WORKING, TaskState.SUBMITTED]) {
      expect(replyTo(at(s), "x").taskId).toBe("t");
    }
    expect(() => replyTo({ ...at(TaskState.WORKING), id: "" }, "x")).toThrow(InvalidParamsError);
    expect(() => followUp({ ...at(TaskState.COMPLETED), contextId: "" }, "x")).toThrow(InvalidParamsError);
    expect(followUp(at(TaskState.FAILED), "x", { referenceTaskIds: ["t", "u"] }).referenceTaskIds).toEqual(["t", "u"]);
  });
});
