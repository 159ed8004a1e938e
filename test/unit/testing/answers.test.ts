/**
 * The test agent's answers, on every binding, in memory and on loopback,
 * driven through the client's own `connect()`: a direct reply, a task that
 * completes with artifacts, streamed status and artifact chunks, input- and
 * auth-required turns that continue on the next message, a task that runs
 * until cancelled, failure and rejection.
 */
import { afterEach, describe, expect, it } from "vitest";
import { TaskState, textOf, userMessage, UnsupportedOperationError, type StreamResponse, type Task } from "../../../src/index.js";
import { steps, type TestAgent } from "../../../src/testing.js";
import { agentOnAll, CASES, sessionWith } from "./ways.js";

let agent: TestAgent;
afterEach(() => agent?.close());

const taskOf = (r: { payload: { case: string | undefined; value?: unknown } }): Task => {
  expect(r.payload.case).toBe("task");
  return r.payload.value as Task;
};

async function collect(events: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe.each(CASES)("in %s, on %s", (way, binding) => {
  it("a direct reply is a message, and makes no task", async () => {
    agent = agentOnAll({ script: [steps.reply("hello there")] });
    const { client } = await sessionWith(agent, way, binding);
    const answer = await client.sendMessage({ message: userMessage("hi", { contextId: "ctx-1" }) });
    expect(answer.payload.case).toBe("message");
    expect(textOf(answer)).toBe("hello there");
    expect(answer.payload.value?.contextId).toBe("ctx-1");
    expect(agent.tasks()).toEqual([]);
  });

  it("a task goes through its states and completes with its artifacts, in the store with the message and context", async () => {
    agent = agentOnAll({ script: [steps.working("on it"), steps.artifact("forty-two", { name: "answer" }), steps.complete("done")] });
    const { client } = await sessionWith(agent, way, binding);
    const task = taskOf(await client.sendMessage({ message: userMessage("6 x 7?", { contextId: "ctx-7" }) }));
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(task.contextId).toBe("ctx-7");
    expect(task.artifacts.map((a) => [a.name, textOf(a)])).toEqual([["answer", "forty-two"]]);
    expect(task.history.map((m) => textOf(m))).toEqual(["6 x 7?", "on it", "done"]);
    const stored = await client.getTask({ id: task.id });
    expect(stored.status?.state).toBe(TaskState.COMPLETED);
    expect(textOf(stored)).toBe("forty-two");
  });

  it("a stream carries the task, its status updates and artifact chunks (append, last chunk), then closes", async () => {
    agent = agentOnAll({
      script: [
        steps.working(),
        steps.artifact("part one", { artifactId: "doc" }),
        steps.artifact(", part two", { artifactId: "doc", append: true, lastChunk: true }),
        steps.complete(),
      ],
    });
    const { client } = await sessionWith(agent, way, binding);
    const events = await collect(client.sendStreamingMessage({ message: userMessage("write") }));
    expect(events.map((e) => e.payload.case)).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    const chunks = events.flatMap((e) => (e.payload.case === "artifactUpdate" ? [e.payload.value] : []));
    expect(chunks.map((c) => [textOf(c), c.append, c.lastChunk])).toEqual([
      ["part one", false, false],
      [", part two", true, true],
    ]);
    const last = events.at(-1)!;
    expect(last.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.COMPLETED);
    const id = (events[0]!.payload.value as Task).id;
    expect(textOf(await client.getTask({ id }))).toBe("part one, part two");
  });

  it("an input-required turn pauses the script; the next message to the task runs the rest", async () => {
    agent = agentOnAll({
      script: [steps.working(), steps.inputRequired("which city?"), steps.artifact("sunny in Lyon"), steps.complete()],
    });
    const { client } = await sessionWith(agent, way, binding);
    const asked = taskOf(await client.sendMessage({ message: userMessage("weather?") }));
    expect(asked.status?.state).toBe(TaskState.INPUT_REQUIRED);
    expect(textOf(asked)).toBe("which city?");
    const done = taskOf(await client.sendMessage({ message: userMessage("Lyon", { taskId: asked.id, contextId: asked.contextId }) }));
    expect(done.id).toBe(asked.id);
    expect(done.status?.state).toBe(TaskState.COMPLETED);
    expect(textOf(done)).toBe("sunny in Lyon");
    expect(done.history.filter((m) => m.role === 1).map((m) => textOf(m))).toEqual(["weather?", "Lyon"]);
  });

  it("an auth-required turn ends the stream; the next message's stream opens with the task and goes on", async () => {
    agent = agentOnAll({ script: [steps.authRequired("sign in first"), steps.working(), steps.complete("signed in")] });
    const { client } = await sessionWith(agent, way, binding);
    const first = await collect(client.sendStreamingMessage({ message: userMessage("my files") }));
    const last = first.at(-1)!;
    expect(last.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.AUTH_REQUIRED);
    const id = (first[0]!.payload.value as Task).id;
    const second = await collect(client.sendStreamingMessage({ message: userMessage("done", { taskId: id }) }));
    expect(second.map((e) => e.payload.case)).toEqual(["task", "statusUpdate", "statusUpdate"]);
    expect(textOf(second.at(-1))).toBe("signed in");
  });

  it("a task that runs until cancelled: SendMessage answers it WORKING, CancelTask ends it, its open stream ends CANCELED", async () => {
    agent = agentOnAll({ script: [steps.untilCancelled()] });
    const { client } = await sessionWith(agent, way, binding);
    const running = taskOf(await client.sendMessage({ message: userMessage("watch") }));
    expect(running.status?.state).toBe(TaskState.WORKING);
    const watching = collect(client.subscribeToTask({ id: running.id }));
    // The subscription is open once the agent has it in its log.
    await expect.poll(() => agent.requests.filter((r) => r.method === "SubscribeToTask").length).toBe(1);
    const cancelled = await client.cancelTask({ id: running.id });
    expect(cancelled.status?.state).toBe(TaskState.CANCELED);
    const seen = await watching;
    expect(seen[0]!.payload.case).toBe("task");
    const end = seen.at(-1)!;
    expect(end.payload.case === "statusUpdate" && end.payload.value.status?.state).toBe(TaskState.CANCELED);
    await expect(client.subscribeToTask({ id: running.id })[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(
      UnsupportedOperationError,
    );
  });

  it("returnImmediately answers with the task as it starts; its script goes on (submitted, any status)", async () => {
    agent = agentOnAll({
      script: [steps.submitted("queued"), steps.wait(5), steps.status(TaskState.WORKING, "started"), steps.complete()],
    });
    const { client } = await sessionWith(agent, way, binding);
    const started = taskOf(await client.sendMessage({ message: userMessage("later"), configuration: { returnImmediately: true } }));
    expect(started.status?.state).toBe(TaskState.SUBMITTED);
    await expect.poll(async () => (await client.getTask({ id: started.id })).status?.state).toBe(TaskState.COMPLETED);
    expect((await client.getTask({ id: started.id })).history.map((m) => textOf(m))).toEqual(["later", "queued", "started"]);
  });

  it.each([
    ["fail", TaskState.FAILED],
    ["reject", TaskState.REJECTED],
  ] as const)("%s ends the task in its state, with the agent's message", async (kind, state) => {
    agent = agentOnAll({ script: [steps[kind]("cannot do that")] });
    const { client } = await sessionWith(agent, way, binding);
    const task = taskOf(await client.sendMessage({ message: userMessage("impossible") }));
    expect(task.status?.state).toBe(state);
    expect(textOf(task)).toBe("cannot do that");
  });
});
