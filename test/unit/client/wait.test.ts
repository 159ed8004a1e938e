/**
 * waitForTask against the test agent in memory: how often it polls, that
 * it ends by its signal and deadline (no timer left), what it refuses, and
 * how it follows a subscription. The polls are those of a session whose
 * card declares no streaming, whose client refuses SubscribeToTask before
 * any request, so the wait polls GetTask; the agent's task moves on the
 * fake clock by its script's waits.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  AbortedError,
  CallTimeoutError,
  InvalidParamsError,
  MIN_POLL_MS,
  TaskNotFoundError,
  TaskState,
  connect,
  waitForTask,
  textOf,
  userMessage,
  type A2AClient,
} from "../../../src/index.js";
import { createTestAgent, steps, type Script, type TestAgent } from "../../../src/testing.js";

let agent: TestAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

/** A session with an agent running `script` for its first message, which it sends; `streaming: false` on the card makes the wait poll. */
async function started(script: Script, streaming: boolean): Promise<{ client: A2AClient; id: string }> {
  agent = createTestAgent({ script, card: { capabilities: { streaming } } });
  const { client } = await connect(agent.url, agent.connectOptions());
  const sent = await client.sendMessage({ message: userMessage("go"), configuration: { returnImmediately: true } });
  return { client, id: sent.payload.case === "task" ? sent.payload.value.id : "" };
}

/** When each GetTask reached the agent. */
const polls = () => (agent?.requests ?? []).filter((r) => r.method === "GetTask").map((r) => r.receivedAt);

describe("waitForTask, polling", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("polls at once, then every pollMs, half as long again while nothing changes, up to maxPollMs, and returns the final task", async () => {
    // SUBMITTED, WORKING from 100 ms, COMPLETED at 1300 ms.
    const { client, id } = await started(
      [steps.submitted(), steps.wait(100), steps.working(), steps.wait(1_200), steps.artifact("done"), steps.complete()],
      false,
    );
    const start = Date.now();
    const updates: TaskState[] = [];
    const waiting = waitForTask(client, id, { pollMs: 200, maxPollMs: 400, onUpdate: (t) => updates.push(t.status!.state) });
    await vi.advanceTimersByTimeAsync(5_000);
    const task = await waiting;
    expect(textOf(task)).toBe("done");
    // SUBMITTED at 0, WORKING (new) at 200, then 300, 400 (450 capped), 400.
    expect(polls().map((t) => t - start)).toEqual([0, 200, 400, 700, 1100, 1500]);
    expect(updates).toEqual([TaskState.SUBMITTED, TaskState.WORKING, TaskState.COMPLETED]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("ends at an interrupted state too (input required)", async () => {
    const { client, id } = await started([steps.working(), steps.wait(50), steps.inputRequired()], false);
    const waiting = waitForTask(client, id, { pollMs: 100 });
    await vi.advanceTimersByTimeAsync(100);
    expect((await waiting).status?.state).toBe(TaskState.INPUT_REQUIRED);
    expect(polls()).toHaveLength(2);
  });

  it("a task that never ends: timeoutMs fails the wait with CallTimeoutError naming the task and the time, leaving no timer", async () => {
    const { client, id } = await started([steps.working(), steps.untilCancelled()], false);
    const waiting = waitForTask(client, id, { pollMs: 1000, timeoutMs: 5_000 });
    const outcome = waiting.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(5_000);
    const e = await outcome;
    expect(e).toBeInstanceOf(CallTimeoutError);
    expect((e as Error).message).toBe(`task ${id} did not reach a final or interrupted state within 5000 ms`);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("timeoutMs: Infinity is no deadline, as for every other timeout: the wait lasts until the task ends", async () => {
    // WORKING until 2500 ms.
    const { client, id } = await started([steps.working(), steps.wait(2_500), steps.artifact("done"), steps.complete()], false);
    const waiting = waitForTask(client, id, { pollMs: 1000, maxPollMs: 1000, timeoutMs: Number.POSITIVE_INFINITY });
    await vi.advanceTimersByTimeAsync(3_000);
    expect(textOf(await waiting)).toBe("done");
    expect(polls()).toHaveLength(4);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("the caller's signal stops a poll sleep at once with AbortedError", async () => {
    const { client, id } = await started([steps.working(), steps.untilCancelled()], false);
    const controller = new AbortController();
    const outcome = waitForTask(client, id, { signal: controller.signal, pollMs: 60_000 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10);
    expect(polls()).toHaveLength(1);
    controller.abort();
    const e = await outcome;
    expect(e).toBeInstanceOf(AbortedError);
    expect((e as Error).message).toBe(`waiting for task ${id} was aborted`);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a poll interval longer than a timer holds (2^31 - 1 ms) waits that long, instead of polling every millisecond", async () => {
    const { client, id } = await started([steps.working(), steps.untilCancelled()], false);
    const controller = new AbortController();
    const outcome = waitForTask(client, id, { signal: controller.signal, pollMs: 3e9, maxPollMs: 3e9 }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(polls()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(0x7fffffff);
    expect(polls()).toHaveLength(2);
    controller.abort();
    expect(await outcome).toBeInstanceOf(AbortedError);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("an already aborted signal makes no call", async () => {
    const { client, id } = await started([steps.working(), steps.untilCancelled()], false);
    await expect(waitForTask(client, id, { signal: AbortSignal.abort(), subscribe: false })).rejects.toBeInstanceOf(AbortedError);
    expect(polls()).toHaveLength(0);
  });

  it("an agent's answer such as TaskNotFoundError is thrown at once", async () => {
    // The agent has no task t1.
    const { client } = await started([steps.complete()], false);
    await expect(waitForTask(client, "t1")).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(polls()).toHaveLength(1);
  });

  it("refuses, before any call, a missing id and intervals that would spin or never start, naming the option", async () => {
    const { client } = await started([steps.complete()], false);
    const bad: Array<[string, Parameters<typeof waitForTask>[2], RegExp]> = [
      ["", {}, /the task id must be a non-empty string/],
      ["t1", { pollMs: 10 }, new RegExp(`pollMs must be a finite number of at least ${MIN_POLL_MS} ms, got 10`)],
      ["t1", { pollMs: Number.NaN }, /pollMs must be a finite number/],
      ["t1", { pollMs: 2_000, maxPollMs: 1_000 }, /maxPollMs must be a finite number of at least 2000 ms/],
      ["t1", { timeoutMs: 0 }, /timeoutMs must be a finite number of at least 1 ms/],
      ["t1", { timeoutMs: Number.NaN }, /timeoutMs must be a finite number/],
    ];
    for (const [id, options, message] of bad) {
      const e = await waitForTask(client, id, options).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(InvalidParamsError);
      expect((e as Error).message).toMatch(message);
    }
    expect(polls()).toHaveLength(0);
  });
});

describe("waitForTask, subscribing", () => {
  it("follows the subscription to the final state and returns the task it describes, without polling", async () => {
    // Still WORKING when the wait subscribes: the subscription carries the chunk and the end.
    const { client, id } = await started([steps.working(), steps.artifact("all "), steps.wait(50), steps.complete()], true);
    const task = await waitForTask(client, id);
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(textOf(task)).toBe("all ");
    expect(polls()).toHaveLength(0);
  });

  it("a subscription refused with UnsupportedOperationError falls back to polling", async () => {
    // The card declares no streaming: the session's client refuses SubscribeToTask.
    const { client, id } = await started([steps.complete()], false);
    expect((await waitForTask(client, id)).status?.state).toBe(TaskState.COMPLETED);
    expect(polls()).toHaveLength(1);
  });
});
