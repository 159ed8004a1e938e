/**
 * waitForTask against each real peer on every binding: it subscribes where
 * the card offers streaming and polls GetTask where it does not, and ends at
 * a final or interrupted state. Tasks are moved on by events (a cancel once
 * the wait has seen the task), never by sleeping.
 */
import { describe, expect, it } from "vitest";
import { TaskState, textOf, userMessage, waitForTask, type AgentSession, type Task } from "../../src/index.js";
import { BINDINGS } from "../support/bindings.js";
import { agentsOfPeers, peerCases } from "../support/peers.js";
import { recordedSession } from "../support/recorded-session.js";

const streaming = agentsOfPeers();
const polling = agentsOfPeers({ streaming: false });

/** Starts `text` as a task and returns at once, while it runs. */
async function started(s: AgentSession, text: string): Promise<Task> {
  const res = await s.client.sendMessage({ message: userMessage(text), configuration: { returnImmediately: true } });
  if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
  return res.payload.value;
}

describe.each(peerCases(BINDINGS))("waitForTask on $label", ({ sdk, binding }) => {
  it("subscribes where the card offers streaming: a held task is waited for until canceled, without polling", async () => {
    const { s, sent } = await recordedSession(streaming(sdk), binding);
    const { id } = await started(s, "hold");
    sent.length = 0;
    let canceled: Promise<Task> | undefined;
    const task = await waitForTask(s.client, id, {
      timeoutMs: 10_000,
      // Once the wait has seen the task running, the task is canceled.
      onUpdate: (t) => void (canceled ??= t.status?.state === TaskState.WORKING ? s.client.cancelTask({ id }) : undefined),
    });
    await canceled;
    expect(task.id).toBe(id);
    expect(task.status?.state).toBe(TaskState.CANCELED);
    expect(sent).toEqual(["SubscribeToTask", "CancelTask"]);
  });

  it("returns what the subscription folded, artifacts included, and stops at an interrupted state", async () => {
    const { s } = await recordedSession(streaming(sdk), binding);
    const counted = await started(s, "count 3 every 20");
    const done = await waitForTask(s.client, counted.id, { timeoutMs: 10_000 });
    expect(done.status?.state).toBe(TaskState.COMPLETED);
    expect(textOf(done)).toBe(textOf(await s.client.getTask({ id: counted.id })));
    const asking = await started(s, "input");
    expect((await waitForTask(s.client, asking.id, { timeoutMs: 10_000 })).status?.state).toBe(TaskState.INPUT_REQUIRED);
  });

  it("a task that has already ended is returned at once, status message and all", async () => {
    const { s } = await recordedSession(streaming(sdk), binding);
    const res = await s.client.sendMessage({ message: userMessage("fail") });
    const id = res.payload.case === "task" ? res.payload.value.id : "";
    const task = await waitForTask(s.client, id, { timeoutMs: 10_000 });
    expect(task.status?.state).toBe(TaskState.FAILED);
    expect(textOf(task)).toBe("failed on purpose");
  });

  it("polls GetTask where the card does not offer streaming, and never subscribes", async () => {
    const { s, sent } = await recordedSession(polling(sdk), binding);
    expect(s.card.capabilities?.streaming).toBe(false);
    const { id } = await started(s, "hold");
    sent.length = 0;
    let canceled: Promise<Task> | undefined;
    const task = await waitForTask(s.client, id, {
      pollMs: 100,
      timeoutMs: 10_000,
      onUpdate: (t) => void (canceled ??= t.status?.state === TaskState.WORKING ? s.client.cancelTask({ id }) : undefined),
    });
    await canceled;
    expect(task.status?.state).toBe(TaskState.CANCELED);
    expect(sent[0]).toBe("GetTask");
    expect(sent).toContain("CancelTask");
    expect(sent).not.toContain("SubscribeToTask");
  });
});
