/**
 * `a2a send` on a task that takes its time, run in this process against
 * the local agent (one that streams, one whose card says it does not): the
 * task id on stderr as soon as it is known, stdout holding only the result;
 * the task's states on a terminal; a timeout that names what to run
 * instead; and --no-wait.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalAgent, type LocalAgent } from "../../demo/agent.js";
import { EXIT } from "../../src/cli/exit-codes.js";
import { A2AClient, TaskState, createJsonRpcTransport } from "../../src/index.js";
import { cardJson } from "../support/cards.js";
import { sendJson, startFakeServer } from "../support/fake-server.js";
import { runCli } from "../support/run-cli.js";

let streaming: LocalAgent;
let polling: LocalAgent;

beforeAll(async () => {
  [streaming, polling] = await Promise.all([startLocalAgent(), startLocalAgent({ streaming: false })]);
});
afterAll(async () => {
  await Promise.all([streaming?.close(), polling?.close()]);
});

const clientOf = (agent: LocalAgent) => new A2AClient(createJsonRpcTransport({ baseUrl: agent.jsonRpcUrl }));

/** The JSON lines of a --json run's stderr. */
const jsonLines = (stderr: string) =>
  stderr
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, Record<string, unknown>>);

describe("a2a send: the task id on stderr, stdout left to the result", () => {
  it.each([
    ["streams", () => streaming],
    ["does not stream", () => polling],
  ])("--json, to an agent that %s: one {task:{id}} line on stderr, the SendMessageResponse alone on stdout", async (_, agent) => {
    const { code, stdout, stderr } = await runCli(["send", agent().origin, "count 2 every 30", "--json"]);
    expect(code, stderr).toBe(0);
    const res = JSON.parse(stdout) as { task: { id: string; contextId: string; status: { state: string }; artifacts: unknown[] } };
    expect(res.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(res.task.artifacts).toMatchObject([{ parts: [{ text: "chunk-1" }, { text: "chunk-2" }] }]);
    expect(jsonLines(stderr)).toEqual([{ task: { id: res.task.id, contextId: res.task.contextId } }]);
  });

  it("for people, without a terminal: one `task: <id>` line, no states", async () => {
    const { code, stdout, stderr } = await runCli(["send", streaming.origin, "count 2 every 30"]);
    expect(code, stderr).toBe(0);
    const id = /^task (\S+) COMPLETED$/m.exec(stdout)?.[1];
    expect(id, stdout).toBeDefined();
    expect(stderr).toBe(`via JSONRPC 1.0 ${streaming.jsonRpcUrl}\ntask: ${id}\n`);
  });

  it("says nothing of a task when the agent answers with a message", async () => {
    const { code, stderr } = await runCli(["send", polling.origin, "echo hi", "--json"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
  });

  it.each([
    ["streams", () => streaming],
    ["does not stream", () => polling],
  ])("on a terminal, to an agent that %s: each state as it changes, the final one left to the result", async (_, agent) => {
    const { code, stdout, stderr } = await runCli(["send", agent().origin, "count 2 every 150"], { stderrIsTTY: true });
    expect(code, stderr).toBe(0);
    const id = /^task (\S+) COMPLETED$/m.exec(stdout)![1]!;
    const lines = stderr.split("\n").filter((l) => l.startsWith("task"));
    expect(lines[0]).toBe(`task: ${id}`);
    expect(lines).toContain(`task ${id} WORKING`);
    expect(lines).not.toContain(`task ${id} COMPLETED`);
    // Each state once, in the order seen.
    expect(new Set(lines).size).toBe(lines.length);
  });
});

describe("a2a send past --timeout", () => {
  it.each([
    ["streams", () => streaming],
    ["does not stream", () => polling],
  ])("to an agent that %s: exit 5, the id known before, and the error names task get --wait, stream and --no-wait", async (_, agent) => {
    const { code, stdout, stderr } = await runCli(["send", agent().origin, "hold", "--json", "--timeout", "400"]);
    const lines = jsonLines(stderr);
    const id = lines[0]?.task?.id as string;
    try {
      expect(code, stderr).toBe(EXIT.connection);
      expect(stdout).toBe("");
      expect(lines).toHaveLength(2);
      const error = lines[1]!.error as { name: string; message: string };
      expect(error.name).toBe("CallTimeoutError");
      expect(error.message).toBe(
        `task ${id} did not reach a final or interrupted state within 400 ms; it may still be running: ` +
          `\`a2a task get ${agent().origin} ${id} --wait\` waits for it; ` +
          "`a2a stream` shows a task's events as they come, and `a2a send --no-wait` returns the task at once",
      );
      // As the message says, the task goes on.
      expect((await clientOf(agent()).getTask({ id })).status?.state).toBe(TaskState.WORKING);
    } finally {
      if (id) await clientOf(agent()).cancelTask({ id });
    }
  });
});

describe("a2a send to an agent that answers only at the end", () => {
  it("past --timeout, with no task known yet: the error names stream and --no-wait, then task get --wait", async () => {
    // It does not stream and never answers SendMessage, returnImmediately or not.
    const silent = await startFakeServer((req, res) => {
      if (req.method === "GET") {
        const supportedInterfaces = [{ url: `${silent.url}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }];
        sendJson(res, 200, cardJson({ supportedInterfaces, capabilities: { streaming: false } }));
      }
    });
    try {
      const { code, stdout, stderr } = await runCli(["send", silent.url, "hi", "--json", "--timeout", "300"]);
      expect(code, stderr).toBe(EXIT.connection);
      expect(stdout).toBe("");
      const lines = jsonLines(stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]!.error).toMatchObject({ name: "CallTimeoutError" });
      expect(lines[0]!.error!.message).toMatch(
        new RegExp(
          "; a task it started may still be running: `a2a stream` shows a task's events as they come, and " +
            "`a2a send --no-wait` returns the task at once, to wait for with " +
            `\`a2a task get ${silent.url} <id> --wait\`$`,
        ),
      );
      expect(silent.requests.filter((r) => r.method === "POST").map((r) => JSON.parse(r.body).params.configuration)).toEqual([
        { returnImmediately: true },
      ]);
    } finally {
      await silent.close();
    }
  });
});

describe("a2a send --help", () => {
  it("says how send knows the task before the reply, where its id goes, and what to run after a timeout", async () => {
    const { code, stdout } = await runCli(["send", "--help"]);
    expect(code).toBe(0);
    const help = stdout.replace(/\s+/g, " ");
    for (const s of [
      "SendStreamingMessage where the card declares streaming",
      "SendMessage returning at once, the task then polled with GetTask",
      `"task: <id>", or with --json {"task":{"id":...}}`,
      "--timeout (default 60000) bounds the whole send",
      `"a2a task get <url> <id> --wait"`,
      "--no-wait print the task as soon as the agent has one",
    ])
      expect(help).toContain(s);
  });
});

describe("a2a send --no-wait", () => {
  it("prints the task as the agent returns it, at once, while it runs", async () => {
    const { code, stdout, stderr } = await runCli(["send", streaming.origin, "hold", "--no-wait", "--json"]);
    const { task } = JSON.parse(stdout) as { task: { id: string; status: { state: string } } };
    try {
      expect(code, stderr).toBe(0);
      expect(task.status.state).toBe("TASK_STATE_WORKING");
      expect(jsonLines(stderr)).toEqual([{ task: { id: task.id, contextId: expect.any(String) } }]);
      expect((await clientOf(streaming).getTask({ id: task.id })).status?.state).toBe(TaskState.WORKING);
    } finally {
      await clientOf(streaming).cancelTask({ id: task.id });
    }
  });
});
