/**
 * `steps.untilSubscribed()`, on every binding (gRPC too), in memory and on loopback:
 * after a drop the task stays as it is until the client resumes with
 * SubscribeToTask, however long its backoff, and what follows reaches the
 * client by that subscription; a CancelTask ends the wait.
 */
import { afterEach, describe, expect, it } from "vitest";
import { isResumeSnapshot, TaskState, userMessage, type StreamResponse } from "../../../src/index.js";
import { steps, type TestAgent } from "../../../src/testing.js";
import { agentOnAll, CASES, sessionWith } from "./ways.js";

let agent: TestAgent;
afterEach(() => agent?.close());

const stateOf = (e: StreamResponse | undefined) =>
  e?.payload.case === "task"
    ? e.payload.value.status?.state
    : e?.payload.case === "statusUpdate"
      ? e.payload.value.status?.state
      : undefined;

describe.each(CASES)("in %s, on %s", (way, binding) => {
  it("after a drop the task waits for the resubscribe, which carries the rest to the end", async () => {
    agent = agentOnAll({
      script: [
        steps.working(),
        steps.artifact("one", { artifactId: "a" }),
        steps.once(steps.drop()),
        steps.untilSubscribed(),
        steps.artifact(" two", { artifactId: "a", append: true }),
        steps.complete(),
      ],
    });
    const { client } = await sessionWith(agent, way, binding);
    const seen: StreamResponse[] = [];
    // A backoff far longer than the resumption itself takes: the task is still WORKING when the client comes back.
    for await (const e of client.sendStreamingMessage(
      { message: userMessage("go") },
      { resume: { backoff: { initialMs: 100, maxMs: 100 } } },
    ))
      seen.push(e);
    const calls = agent.requests.filter((r) => r.method !== "AgentCard").map((r) => r.method);
    expect(calls).toEqual(["SendStreamingMessage", "GetTask", "SubscribeToTask"]);
    const last = seen.at(-1);
    expect(last?.payload.case).toBe("statusUpdate");
    expect(stateOf(last)).toBe(TaskState.COMPLETED);
    expect(isResumeSnapshot(last!)).toBe(false);
    expect(seen.filter((e) => e.payload.case === "artifactUpdate")).toHaveLength(2);
  });

  it("a CancelTask ends the wait: the steps after it do not run", async () => {
    agent = agentOnAll({ script: [steps.working(), steps.untilSubscribed(), steps.complete()] });
    const { client } = await sessionWith(agent, way, binding);
    const sent = await client.sendMessage({ message: userMessage("go"), configuration: { returnImmediately: true } });
    const id = sent.payload.case === "task" ? sent.payload.value.id : "";
    expect(agent.task(id)?.status?.state).toBe(TaskState.WORKING);
    expect((await client.cancelTask({ id })).status?.state).toBe(TaskState.CANCELED);
    expect(agent.task(id)?.status?.state).toBe(TaskState.CANCELED);
  });
});
