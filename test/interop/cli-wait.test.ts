/**
 * `a2a task get --wait`, run in this process against the local agent (one
 * that streams, one whose card says it does not): the task once it has
 * reached a final or interrupted state, progress on stderr, and an end by
 * --timeout or Ctrl-C.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalAgent, type LocalAgent } from "../../demo/agent.js";
import { A2AClient, createJsonRpcTransport, userMessage } from "../../src/index.js";
import { runCli } from "../support/run-cli.js";

let streaming: LocalAgent;
let polling: LocalAgent;

beforeAll(async () => {
  [streaming, polling] = await Promise.all([startLocalAgent(), startLocalAgent({ streaming: false })]);
});
afterAll(async () => {
  await Promise.all([streaming?.close(), polling?.close()]);
});

/** Starts `text` as a task on `agent` and returns its id at once, while it runs. */
async function started(agent: LocalAgent, text: string): Promise<{ id: string; client: A2AClient }> {
  const client = new A2AClient(createJsonRpcTransport({ baseUrl: agent.jsonRpcUrl }));
  const res = await client.sendMessage({ message: userMessage(text), configuration: { returnImmediately: true } });
  if (res.payload.case !== "task") throw new Error("expected a task");
  return { id: res.payload.value.id, client };
}

describe("a2a task get --wait", () => {
  it("prints the task once it has ended, each new state on stderr as it is seen", async () => {
    const { id, client } = await started(streaming, "hold");
    let canceled: Promise<unknown> | undefined;
    const { code, stdout, stderr } = await runCli(["task", "get", streaming.origin, id, "--wait"], {
      // Once the wait has reported the task running, it is canceled.
      onStderr: (all) => void (all.includes(`task ${id} WORKING`) && (canceled ??= client.cancelTask({ id }))),
    });
    await canceled;
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^task ${id} CANCELED\n`));
    expect(stderr.split("\n").filter((l) => l.startsWith("task "))).toEqual([`task ${id} WORKING`, `task ${id} CANCELED`]);
  });

  it("--json prints the final Task alone on stdout, progress left out", async () => {
    const { id } = await started(streaming, "count 2 every 30");
    const { code, stdout, stderr } = await runCli(["task", "get", streaming.origin, id, "--wait", "--json"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    expect(JSON.parse(stdout)).toMatchObject({
      id,
      status: { state: "TASK_STATE_COMPLETED" },
      artifacts: [{ parts: [{ text: "chunk-1" }, { text: "chunk-2" }] }],
    });
  });

  it("polls an agent whose card does not offer streaming, and stops at an interrupted state", async () => {
    const { id } = await started(polling, "input");
    const { code, stdout } = await runCli(["task", "get", polling.origin, id, "--wait", "--json"]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ id, status: { state: "TASK_STATE_INPUT_REQUIRED" } });
  });

  it("ends a wait on a task that never finishes by --timeout: exit 5, a CallTimeoutError naming the task", async () => {
    const { id, client } = await started(streaming, "hold");
    try {
      const { code, stdout, stderr } = await runCli(["task", "get", streaming.origin, id, "--wait", "--json", "--timeout", "300"]);
      expect(code).toBe(5);
      expect(stdout).toBe("");
      expect(JSON.parse(stderr)).toMatchObject({
        error: { name: "CallTimeoutError", exitCode: 5, message: `task ${id} did not reach a final or interrupted state within 300 ms` },
      });
    } finally {
      await client.cancelTask({ id });
    }
  });

  it("ends by Ctrl-C (exit 130) once it has seen the task running", async () => {
    const { id, client } = await started(streaming, "hold");
    const ctrlC = new AbortController();
    try {
      const { code } = await runCli(["task", "get", streaming.origin, id, "--wait"], {
        signal: ctrlC.signal,
        onStderr: (all) => all.includes(`task ${id} WORKING`) && ctrlC.abort(),
      });
      expect(ctrlC.signal.aborted).toBe(true);
      expect(code).toBe(130);
    } finally {
      await client.cancelTask({ id });
    }
  });
});
