/**
 * The `faults` option, on every binding (gRPC too), in memory and on loopback, as the
 * client meets it: faults before an operation's answer for the operations
 * that run no script (a GetTask cut then retried, a 503 with Retry-After
 * retried, an A2A error, a wait), `once` faults failing that many requests
 * before the operation answers, and faults before a stream's first event.
 */
import { afterEach, describe, expect, it } from "vitest";
import { CallTimeoutError, ConnectionError, ServerError, TaskNotFoundError, TaskState, userMessage } from "../../../src/index.js";
import { createTestAgent, steps, type TestAgent } from "../../../src/testing.js";
import { agentOnAll, CASES, SSE_CASES, sessionWith } from "./ways.js";

let agent: TestAgent;
afterEach(() => agent?.close());

const called = (method: string) => agent.requests.filter((r) => r.method === method).length;

describe.each(CASES)("in %s, on %s", (way, binding) => {
  it("two once faults fail the first two GetTasks; the retry policy's third attempt gets the task", async () => {
    agent = agentOnAll({
      faults: { GetTask: [steps.once(steps.drop()), steps.once(steps.httpStatus(503, { "Retry-After": "0.01" }))] },
    });
    const { client } = await sessionWith(agent, way, binding, { retry: { attempts: 3, initialDelayMs: 1 } });
    const task = await client.sendMessage({ message: userMessage("hi") });
    const id = task.payload.case === "task" ? task.payload.value.id : "";
    expect((await client.getTask({ id })).status?.state).toBe(TaskState.COMPLETED);
    expect(called("GetTask")).toBe(3);
    // The faults ran their once: later GetTasks answer at once.
    expect((await client.getTask({ id }, { retry: false })).id).toBe(id);
  });

  it("a fault that is not once answers every request: the attempts run out with its error", async () => {
    agent = agentOnAll({ faults: { GetTask: [steps.drop()], ListTasks: [steps.httpStatus(503, { "Retry-After": "0.01" })] } });
    const { client } = await sessionWith(agent, way, binding, { retry: { attempts: 2, initialDelayMs: 1 } });
    expect(await client.getTask({ id: "t1" }).catch((e: unknown) => e)).toBeInstanceOf(ConnectionError);
    expect(called("GetTask")).toBe(2);
    const busy = await client.listTasks({}).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(ServerError);
    expect((busy as ServerError).httpStatus).toBe(503);
    expect(called("ListTasks")).toBe(2);
  });

  it("an error fault answers in the binding's shape; a wait delays the answer; a hang leaves it to the deadline", async () => {
    agent = agentOnAll({
      faults: { CancelTask: [steps.error("TASK_NOT_FOUND", "gone")], GetTask: [steps.wait(30)], ListTasks: [steps.hang()] },
    });
    const { client } = await sessionWith(agent, way, binding);
    await expect(client.cancelTask({ id: "t1" })).rejects.toBeInstanceOf(TaskNotFoundError);
    const started = performance.now();
    // After the wait, the operation answers as it would: there is no such task.
    await expect(client.getTask({ id: "t1" })).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    await expect(client.listTasks({}, { timeoutMs: 50 })).rejects.toBeInstanceOf(CallTimeoutError);
  });

  it("a fault before a stream's first event answers as a unary call would; the script runs on the next message", async () => {
    agent = agentOnAll({
      script: [steps.working(), steps.complete()],
      faults: { SendStreamingMessage: [steps.once(steps.httpStatus(429))] },
    });
    const { client } = await sessionWith(agent, way, binding);
    const first = await (async () => {
      for await (const _ of client.sendStreamingMessage({ message: userMessage("busy?") }, { resume: false }));
    })().catch((e: unknown) => e);
    expect((first as ServerError).httpStatus).toBe(429);
    // The refused message made no task.
    expect(agent.tasks()).toHaveLength(0);
    const seen: string[] = [];
    for await (const e of client.sendStreamingMessage({ message: userMessage("now") })) seen.push(e.payload.case ?? "");
    expect(seen).toEqual(["task", "statusUpdate", "statusUpdate"]);
  });
});

describe.each(SSE_CASES)("on the 0.3 wire, in %s, on %s", (way, binding) => {
  it("the faults of an operation run there too: a GetTask cut once is tried again by the retry policy", async () => {
    agent = createTestAgent({ versions: ["0.3"], faults: { GetTask: [steps.once(steps.drop())] } });
    const { client } = await sessionWith(agent, way, binding, { retry: { attempts: 2, initialDelayMs: 1 } });
    const task = await client.sendMessage({ message: userMessage("hi") });
    const id = task.payload.case === "task" ? task.payload.value.id : "";
    expect((await client.getTask({ id })).id).toBe(id);
    expect(agent.requests.filter((r) => r.method === "GetTask").map((r) => r.version)).toEqual(["0.3", "0.3"]);
  });
});
