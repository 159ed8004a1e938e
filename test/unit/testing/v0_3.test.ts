/**
 * The test agent on A2A 0.3, on both bindings, in memory and on loopback,
 * driven through the client's own `connect()`: a 0.3-only agent is used at
 * 0.3 (sendMessage, a stream dropped and resumed with tasks/resubscribe, an
 * input-required turn, GetTask, CancelTask, A2A errors in 0.3's codes, the
 * extended card); a client that speaks only 1.0 is refused it; an agent
 * that serves both versions is used at 1.0, and at 0.3 when its 1.0
 * interface refuses the version and the client opts into falling back.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  NoCompatibleInterfaceError,
  replyTo,
  TaskNotCancelableError,
  TaskNotFoundError,
  TaskState,
  textOf,
  userMessage,
  VersionNotSupportedError,
  type StreamResponse,
  type Task,
} from "../../../src/index.js";
import { createTestAgent, steps, type TestAgent } from "../../../src/testing.js";
import { SSE_CASES, sessionWith } from "./ways.js";

let agent: TestAgent;
afterEach(() => agent?.close());

const FAST_RESUME = { resume: { backoff: { initialMs: 1, maxMs: 5 } } };

const taskOf = (r: { payload: { case: string | undefined; value?: unknown } }): Task => {
  expect(r.payload.case).toBe("task");
  return r.payload.value as Task;
};

/** The requests of an A2A operation the agent saw, as [binding, method, version, path]. */
const calls = (a: TestAgent) =>
  a.requests.filter((r) => r.binding !== undefined).map((r) => [r.binding, r.method, r.version, r.path.split("?")[0]]);

// The 0.3 wire is served on the HTTP bindings (the kit has no gRPC 0.3).
describe.each(SSE_CASES)("a 0.3 agent, in %s, on %s", (way, binding) => {
  const base = binding === "JSONRPC" ? "/v0.3/jsonrpc" : "/v0.3/rest/v1";

  it("is used at 0.3: a message runs its script to a completed task, and the log notes the 0.3 wire", async () => {
    agent = createTestAgent({
      versions: ["0.3"],
      script: [steps.working("on it"), steps.artifact("forty-two", { name: "answer" }), steps.complete("done")],
    });
    const session = await sessionWith(agent, way, binding);
    expect([session.interface?.binding, session.interface?.version]).toEqual([binding, "0.3"]);
    const task = taskOf(await session.client.sendMessage({ message: userMessage("6 x 7?", { contextId: "ctx-3" }) }));
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(task.contextId).toBe("ctx-3");
    expect(task.artifacts.map((a) => [a.name, textOf(a)])).toEqual([["answer", "forty-two"]]);
    expect(task.history.map((m) => textOf(m))).toEqual(["6 x 7?", "on it", "done"]);
    const [sent] = agent.requests.filter((r) => r.method === "SendMessage");
    expect([sent!.binding, sent!.version, sent!.path]).toEqual([binding, "0.3", binding === "JSONRPC" ? base : `${base}/message:send`]);
    expect(sent!.request).toMatchObject({ message: { role: "ROLE_USER", parts: [{ text: "6 x 7?" }], contextId: "ctx-3" } });
  });

  it("a stream dropped mid-way is resumed with tasks/resubscribe from its Last-Event-ID, and misses nothing", async () => {
    agent = createTestAgent({
      versions: ["0.3"],
      script: [
        steps.working(),
        steps.artifact("one"),
        steps.once(steps.drop()),
        steps.artifact(" two", { append: true }),
        steps.untilCancelled(),
      ],
    });
    const { client } = await sessionWith(agent, way, binding);
    const seen: StreamResponse[] = [];
    for await (const event of client.sendStreamingMessage({ message: userMessage("count") }, FAST_RESUME)) {
      seen.push(event);
      if (event.payload.case === "artifactUpdate" && textOf(event) === " two") await client.cancelTask({ id: event.payload.value.taskId });
    }
    expect(seen.filter((e) => e.payload.case === "artifactUpdate").map((e) => textOf(e))).toEqual(["one", " two"]);
    const end = seen.at(-1)!.payload;
    expect(end.case === "statusUpdate" && end.value.status?.state).toBe(TaskState.CANCELED);
    const resumed = agent.requests.filter((r) => r.method === "SubscribeToTask");
    expect(resumed.map((r) => [r.version, r.headers["last-event-id"]])).toEqual([["0.3", "3"]]);
    expect(textOf(agent.tasks()[0])).toBe("one two");
  });

  it("an input-required turn pauses the script; the next message to the task runs the rest", async () => {
    agent = createTestAgent({
      versions: ["0.3"],
      script: [steps.inputRequired("which city?"), steps.artifact("sunny in Lyon"), steps.complete()],
    });
    const { client } = await sessionWith(agent, way, binding);
    const asked = taskOf(await client.sendMessage({ message: userMessage("weather?") }));
    expect(asked.status?.state).toBe(TaskState.INPUT_REQUIRED);
    expect(textOf(asked.status?.message)).toBe("which city?");
    const done = taskOf(await client.sendMessage({ message: replyTo(asked, "Lyon") }));
    expect([done.id, done.status?.state, textOf(done)]).toEqual([asked.id, TaskState.COMPLETED, "sunny in Lyon"]);
  });

  it("GetTask reads the store, its history capped; CancelTask cancels, and a task that has ended is not cancelable", async () => {
    agent = createTestAgent({ versions: ["0.3"], scripts: [[steps.working("a"), steps.complete("b")], [steps.untilCancelled()]] });
    const { client } = await sessionWith(agent, way, binding);
    const done = taskOf(await client.sendMessage({ message: userMessage("first") }));
    const got = await client.getTask({ id: done.id, historyLength: 1 });
    expect([got.status?.state, got.history.map((m) => textOf(m))]).toEqual([TaskState.COMPLETED, ["b"]]);
    expect((await client.getTask({ id: done.id })).history).toHaveLength(3);
    const running = taskOf(await client.sendMessage({ message: userMessage("second") }));
    expect(running.status?.state).toBe(TaskState.WORKING);
    expect((await client.cancelTask({ id: running.id })).status?.state).toBe(TaskState.CANCELED);
    await expect(client.cancelTask({ id: running.id })).rejects.toBeInstanceOf(TaskNotCancelableError);
    expect(calls(agent).map((c) => c[1])).toEqual(["SendMessage", "GetTask", "GetTask", "SendMessage", "CancelTask", "CancelTask"]);
  });

  it("an A2A error arrives as its class: a step's, an unknown task's, and one that ends a stream", async () => {
    agent = createTestAgent({
      versions: ["0.3"],
      scripts: [[steps.error("TASK_NOT_FOUND", "no such task")], [steps.working(), steps.error("TASK_NOT_FOUND", "gone")]],
    });
    const { client } = await sessionWith(agent, way, binding);
    const failure = await client.sendMessage({ message: userMessage("x") }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TaskNotFoundError);
    expect((failure as TaskNotFoundError).message).toContain("no such task");
    await expect(client.getTask({ id: "nope" })).rejects.toBeInstanceOf(TaskNotFoundError);
    const seen: string[] = [];
    const inStream = await (async () => {
      for await (const e of client.sendStreamingMessage({ message: userMessage("go") }, { resume: false })) seen.push(e.payload.case ?? "");
    })().catch((e: unknown) => e);
    expect(seen).toEqual(["task", "statusUpdate"]);
    expect(inStream).toBeInstanceOf(TaskNotFoundError);
  });

  it("serves its extended card in 0.3's shape, read back as the card it is", async () => {
    agent = createTestAgent({
      versions: ["0.3"],
      extendedCard: { name: "Test Agent (extended)", skills: [{ id: "more", name: "More", description: "d", tags: [] }] },
    });
    const session = await sessionWith(agent, way, binding);
    expect(session.card.capabilities?.extendedAgentCard).toBe(true);
    const extended = await session.extendedCard();
    expect([extended.name, extended.skills.map((s) => s.id)]).toEqual(["Test Agent (extended)", ["more"]]);
    expect(agent.requests.find((r) => r.method === "GetExtendedAgentCard")?.version).toBe("0.3");
  });

  it("is refused by a client that speaks only 1.0, with the reason", async () => {
    agent = createTestAgent({ versions: ["0.3"] });
    const failure = await sessionWith(agent, way, binding, { protocolVersions: ["1.0"] }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(NoCompatibleInterfaceError);
    expect((failure as NoCompatibleInterfaceError).message).toMatch(/0\.3/);
    expect(calls(agent)).toEqual([]);
  });
});

describe.each(SSE_CASES)("an agent on 1.0 and 0.3, in %s, on %s", (way, binding) => {
  it("is used at 1.0, the version its card lists first", async () => {
    agent = createTestAgent({ versions: ["1.0", "0.3"] });
    const session = await sessionWith(agent, way, binding);
    expect(session.interface?.version).toBe("1.0");
    await session.client.sendMessage({ message: userMessage("hi") });
    expect(calls(agent).map((c) => c[2])).toEqual(["1.0"]);
  });

  it('falls back to 0.3 when its 1.0 interface refuses the version, with versionFallback: "auto"', async () => {
    agent = createTestAgent({
      versions: ["1.0", "0.3"],
      script: [steps.once(steps.error("VERSION_NOT_SUPPORTED")), steps.artifact("old but fine"), steps.complete()],
    });
    const session = await sessionWith(agent, way, binding, { versionFallback: "auto" });
    const task = taskOf(await session.client.sendMessage({ message: userMessage("hi") }));
    expect(textOf(task)).toBe("old but fine");
    expect(calls(agent).map((c) => [c[1], c[2]])).toEqual([
      ["SendMessage", "1.0"],
      ["SendMessage", "0.3"],
    ]);
    await session.client.getTask({ id: task.id });
    expect(calls(agent).at(-1)?.slice(1, 3)).toEqual(["GetTask", "0.3"]);
  });

  it("without the opt-in, the refusal is a VersionNotSupportedError naming the version it could fall back to", async () => {
    agent = createTestAgent({ versions: ["1.0", "0.3"], script: [steps.error("VERSION_NOT_SUPPORTED")] });
    const { client } = await sessionWith(agent, way, binding);
    const failure = await client.sendMessage({ message: userMessage("hi") }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(VersionNotSupportedError);
    expect((failure as VersionNotSupportedError).message).toMatch(/versionFallback: "auto" to use 0\.3/);
    expect(calls(agent).map((c) => c[2])).toEqual(["1.0"]);
  });
});
