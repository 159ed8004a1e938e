/**
 * The test agent's faults, on every binding, in memory and on loopback,
 * as the client meets them: a wait, a hang ended by the call's deadline, a
 * connection cut before the answer and in the middle of a stream (which
 * the client resumes from its Last-Event-ID, or on gRPC, which has none,
 * from the task as it stands), HTTP statuses (a 503 retried after its
 * Retry-After, a 429, a 401 with its challenge), A2A errors of every kind
 * as their classes, raw bytes, malformed content, and `once`.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  A2AError,
  AuthenticationError,
  CallTimeoutError,
  ConnectionError,
  ProtocolError,
  TaskNotFoundError,
  TaskState,
  textOf,
  userMessage,
  type StreamResponse,
  type Task,
} from "../../../src/index.js";
import { steps, TEST_ERROR_KINDS, type TestAgent } from "../../../src/testing.js";
import { agentOnAll, CASES, GRPC_CASES, SSE_CASES, sessionWith } from "./ways.js";

let agent: TestAgent;
afterEach(() => agent?.close());

/** A resumption that waits next to nothing between attempts. */
const FAST_RESUME = { resume: { backoff: { initialMs: 1, maxMs: 5 } } };

const stateOf = (r: { payload: { case: string | undefined; value?: unknown } }) => (r.payload.value as Task).status?.state;

describe.each(CASES)("in %s, on %s", (way, binding) => {
  it("a wait holds the answer back for its milliseconds", async () => {
    agent = agentOnAll({ script: [steps.wait(30), steps.complete()] });
    const { client } = await sessionWith(agent, way, binding);
    const started = performance.now();
    expect(stateOf(await client.sendMessage({ message: userMessage("slow") }))).toBe(TaskState.COMPLETED);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });

  it("a hang never answers: the call's timeoutMs ends it", async () => {
    agent = agentOnAll({ script: [steps.hang()] });
    const { client } = await sessionWith(agent, way, binding);
    const started = performance.now();
    const failure = await client.sendMessage({ message: userMessage("anyone?") }, { timeoutMs: 60 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(CallTimeoutError);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(agent.requests.filter((r) => r.method === "SendMessage")).toHaveLength(1);
  });

  it("a wait longer than the call's deadline ends with the deadline, not the wait", async () => {
    agent = agentOnAll({ script: [steps.wait(10_000), steps.complete()] });
    const { client } = await sessionWith(agent, way, binding);
    const started = performance.now();
    await expect(client.sendMessage({ message: userMessage("slow") }, { timeoutMs: 50 })).rejects.toBeInstanceOf(CallTimeoutError);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("a hang in the middle of a stream is ended by the stream's idle timeout", async () => {
    agent = agentOnAll({ script: [steps.working(), steps.hang()] });
    // Long enough that the two events before the hang always arrive first on a loaded machine
    // (at 60 ms the first event itself came after the timeout now and then).
    const { client } = await sessionWith(agent, way, binding, { transport: { idleTimeoutMs: 200 } });
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const e of client.sendStreamingMessage({ message: userMessage("then nothing") }, { resume: false }))
        seen.push(e.payload.case ?? "");
    })().catch((e: unknown) => e);
    expect(seen).toEqual(["task", "statusUpdate"]);
    expect(failure).toBeInstanceOf(CallTimeoutError);
    expect((failure as CallTimeoutError).kind).toBe("idle");
  });

  it.each(["close", "reset"] as const)("a drop (%s) before the answer is a lost connection; the task it started goes on", async (how) => {
    agent = agentOnAll({ script: [steps.working(), steps.drop(how), steps.complete()] });
    const { client } = await sessionWith(agent, way, binding);
    const failure = await client.sendMessage({ message: userMessage("cut") }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConnectionError);
    expect((failure as ConnectionError).kind).toBe("reset");
    await expect.poll(() => agent.tasks()[0]?.status?.state).toBe(TaskState.COMPLETED);
  });

  it("a 503 with Retry-After, once, is waited out and retried", async () => {
    agent = agentOnAll({ script: [steps.once(steps.httpStatus(503, { "Retry-After": "0.03" })), steps.complete()] });
    const { client } = await sessionWith(agent, way, binding, { retry: { attempts: 2, initialDelayMs: 1, maxDelayMs: 1_000 } });
    const started = performance.now();
    expect(stateOf(await client.sendMessage({ message: userMessage("busy?") }))).toBe(TaskState.COMPLETED);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    const sent = agent.requests.filter((r) => r.method === "SendMessage");
    expect(sent).toHaveLength(2);
    // The same message went again.
    expect(sent[1]!.request).toEqual(sent[0]!.request);
  });

  it("a 429 is a transient error with its Retry-After", async () => {
    agent = agentOnAll({ script: [steps.httpStatus(429, { "Retry-After": "7" })] });
    const { client } = await sessionWith(agent, way, binding);
    const failure = (await client.sendMessage({ message: userMessage("again") }).catch((e: unknown) => e)) as A2AError;
    expect(failure).toBeInstanceOf(A2AError);
    expect([failure.httpStatus, failure.transient, failure.retryAfterMs]).toEqual([429, true, 7_000]);
  });

  it("a 401 with a challenge is an AuthenticationError carrying it", async () => {
    agent = agentOnAll({ script: [steps.httpStatus(401, { "WWW-Authenticate": 'Bearer realm="test"' })] });
    const { client } = await sessionWith(agent, way, binding);
    const failure = await client.sendMessage({ message: userMessage("me") }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AuthenticationError);
    expect((failure as AuthenticationError).challenge).toBe('Bearer realm="test"');
  });

  it("an A2A error of each kind arrives as the error of that code", async () => {
    agent = agentOnAll({ scripts: TEST_ERROR_KINDS.map((kind) => [steps.error(kind, `a ${kind}`)]) });
    const { client } = await sessionWith(agent, way, binding);
    const codes: string[] = [];
    for (const kind of TEST_ERROR_KINDS) {
      const failure = await client.sendMessage({ message: userMessage(kind) }).catch((e: unknown) => e);
      expect(failure, kind).toBeInstanceOf(A2AError);
      codes.push((failure as A2AError).code);
    }
    expect(codes).toEqual(TEST_ERROR_KINDS);
  });

  it("an error inside a stream ends it with that error, after the events before it", async () => {
    agent = agentOnAll({ script: [steps.working(), steps.error("TASK_NOT_FOUND", "gone")] });
    const { client } = await sessionWith(agent, way, binding);
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const e of client.sendStreamingMessage({ message: userMessage("go") }, { resume: false })) seen.push(e.payload.case ?? "");
    })().catch((e: unknown) => e);
    expect(seen).toEqual(["task", "statusUpdate"]);
    expect(failure).toBeInstanceOf(TaskNotFoundError);
  });

  it("raw bytes are the answer as they are: a gateway's HTML page under 502", async () => {
    agent = agentOnAll({ script: [steps.raw("<html>Bad gateway</html>", { status: 502, contentType: "text/html" })] });
    const { client } = await sessionWith(agent, way, binding);
    const failure = (await client.sendMessage({ message: userMessage("hi") }).catch((e: unknown) => e)) as A2AError;
    expect(failure).toBeInstanceOf(A2AError);
    expect(failure.httpStatus).toBe(502);
  });

  it("malformed content (JSON cut short; on gRPC a frame that is not the message), as an answer or as a stream event, is a ProtocolError", async () => {
    agent = agentOnAll({ scripts: [[steps.malformed()], [steps.working(), steps.malformed()]] });
    const { client } = await sessionWith(agent, way, binding);
    await expect(client.sendMessage({ message: userMessage("one") })).rejects.toBeInstanceOf(ProtocolError);
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const e of client.sendStreamingMessage({ message: userMessage("two") }, { resume: false }))
        seen.push(e.payload.case ?? "");
    })().catch((e: unknown) => e);
    expect(seen).toEqual(["task", "statusUpdate"]);
    expect(failure).toBeInstanceOf(ProtocolError);
  });

  it("once: the step acts on the script's first run only", async () => {
    agent = agentOnAll({ script: [steps.once(steps.error("INTERNAL_ERROR")), steps.reply("fine now")] });
    const { client } = await sessionWith(agent, way, binding);
    await expect(client.sendMessage({ message: userMessage("1") })).rejects.toBeInstanceOf(A2AError);
    expect(textOf(await client.sendMessage({ message: userMessage("2") }))).toBe("fine now");
  });
});

describe.each(SSE_CASES)("in %s, on %s", (way, binding) => {
  it("raw bytes inside a stream go in as they are: an SSE comment passes unseen", async () => {
    agent = agentOnAll({ script: [steps.working(), steps.raw(": keep-alive\n\n"), steps.complete()] });
    const { client } = await sessionWith(agent, way, binding);
    const seen: string[] = [];
    for await (const e of client.sendStreamingMessage({ message: userMessage("go") })) seen.push(e.payload.case ?? "");
    expect(seen).toEqual(["task", "statusUpdate", "statusUpdate"]);
  });

  it.each(["close", "reset"] as const)(
    "a stream dropped (%s) mid-way is resumed with SubscribeToTask from its Last-Event-ID, and misses nothing",
    async (how) => {
      agent = agentOnAll({
        script: [
          steps.working(),
          steps.artifact("one"),
          steps.once(steps.drop(how)),
          steps.artifact(" two", { append: true }),
          steps.untilCancelled(),
        ],
      });
      const { client } = await sessionWith(agent, way, binding);
      const seen: StreamResponse[] = [];
      for await (const event of client.sendStreamingMessage({ message: userMessage("count") }, FAST_RESUME)) {
        seen.push(event);
        // The chunk sent after the drop reached the client through the resumption: the task may end.
        if (event.payload.case === "artifactUpdate" && textOf(event) === " two")
          await client.cancelTask({ id: event.payload.value.taskId });
      }
      const chunks = seen.filter((e) => e.payload.case === "artifactUpdate").map((e) => textOf(e));
      expect(chunks).toEqual(["one", " two"]);
      const end = seen.at(-1)!.payload;
      expect(end.case === "statusUpdate" && end.value.status?.state).toBe(TaskState.CANCELED);
      const resumed = agent.requests.filter((r) => r.method === "SubscribeToTask");
      expect(resumed).toHaveLength(1);
      expect(resumed[0]!.headers["last-event-id"]).toBe("3");
      expect(textOf(agent.tasks()[0])).toBe("one two");
    },
  );
});

describe.each(GRPC_CASES)("in %s, on %s", (way, binding) => {
  it("raw bytes inside a stream go in as they are: bytes that are no message frame fail it as a ProtocolError", async () => {
    agent = agentOnAll({ script: [steps.working(), steps.raw("not a frame"), steps.complete()] });
    const { client } = await sessionWith(agent, way, binding);
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const e of client.sendStreamingMessage({ message: userMessage("go") }, { resume: false })) seen.push(e.payload.case ?? "");
    })().catch((e: unknown) => e);
    expect(seen).toEqual(["task", "statusUpdate"]);
    expect(failure).toBeInstanceOf(ProtocolError);
  });

  it("a stream dropped mid-way is resumed with SubscribeToTask, which opens with the task as it stands (gRPC has no Last-Event-ID)", async () => {
    agent = agentOnAll({
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
      // The resumed stream opened with the task, the chunk sent after the drop in it: the task may end.
      if (event.payload.case === "task" && textOf(event) === "one two") await client.cancelTask({ id: event.payload.value.id });
    }
    expect(seen.map((e) => [e.payload.case, textOf(e)])).toEqual([
      ["task", ""],
      ["statusUpdate", ""],
      ["artifactUpdate", "one"],
      ["task", "one two"],
      ["statusUpdate", ""],
    ]);
    const end = seen.at(-1)!.payload;
    expect(end.case === "statusUpdate" && end.value.status?.state).toBe(TaskState.CANCELED);
    // The client looked the task up, then subscribed to it, with nothing to say where it had left off.
    const calls = agent.requests.filter((r) => r.binding === "GRPC");
    expect(calls.map((r) => r.method)).toEqual(["SendStreamingMessage", "GetTask", "SubscribeToTask", "CancelTask"]);
    expect(calls[2]!.headers["last-event-id"]).toBeUndefined();
  });

  it("an HTTP status inside a stream, which gRPC cannot send, fails the stream with INTERNAL saying so", async () => {
    agent = agentOnAll({ script: [steps.working(), steps.httpStatus(503)] });
    const { client } = await sessionWith(agent, way, binding);
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const e of client.sendStreamingMessage({ message: userMessage("go") }, { resume: false })) seen.push(e.payload.case ?? "");
    })().catch((e: unknown) => e);
    expect(seen).toEqual(["task", "statusUpdate"]);
    expect(failure).toBeInstanceOf(A2AError);
    expect((failure as A2AError).message).toContain("HTTP 503 inside a gRPC stream");
  });
});
