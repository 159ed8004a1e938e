/**
 * Resumption of dropped streams against the test agent on 127.0.0.1: the
 * agent's stream cut, gone idle, or its task found ended or waiting by
 * GetTask; GetTask cut, silent or refusing; a resubscribe refused; a cut
 * before the task is known, looked for by ListTasks or sent again; and
 * Retry-After as a floor for the backoff. The agent's task goes on after
 * the cut, with the steps that follow it. resume.test.ts has what the
 * agent cannot play.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  A2AClient,
  CallTimeoutError,
  ConnectionError,
  ServerError,
  StreamResumeError,
  TaskNotFoundError,
  TaskState,
  UnsupportedOperationError,
  createJsonRpcTransport,
  createRestTransport,
  isResumeSnapshot,
  userMessage,
  type Binding,
  type HttpTransportOptions,
  type ResumeOptions,
  type StreamResponse,
} from "../../../src/index.js";
import { createTestAgent, steps, type LoopbackServer, type TestAgent, type TestAgentOptions } from "../../../src/testing.js";
import { INTERFACE_PATHS } from "../../../src/testing/card.js";
import { recordBackoff } from "../../support/resume-backoff.js";

type HttpBinding = Extract<Binding, "JSONRPC" | "HTTP+JSON">;
const HTTP_BINDINGS: readonly HttpBinding[] = ["JSONRPC", "HTTP+JSON"];

/** Backoff small enough that no test waits on it, unless it asks to. */
const FAST: ResumeOptions = { backoff: { initialMs: 1, maxMs: 1 } };
/** A backoff of 1 ms that lets a server's hint of up to 2 s count. */
const HINTED: ResumeOptions = { backoff: { initialMs: 1, maxMs: 2000 } };

let agent: TestAgent | undefined;
let server: LoopbackServer;
beforeAll(async () => {
  // Loaded on demand by a stream's first drop: loaded here, so that no test's timing includes the load.
  await import("../../../src/client/resume.js");
  await import("../../../src/client/find-sent.js");
});
afterEach(async () => {
  vi.restoreAllMocks();
  await agent?.close();
  agent = undefined;
});

/** The test agent of the test, on loopback. */
async function serve(options: TestAgentOptions): Promise<void> {
  agent = createTestAgent(options);
  server = await agent.listen();
}

function clientOf(binding: HttpBinding, options: Partial<HttpTransportOptions> = {}): A2AClient {
  const settings = { baseUrl: server.url + INTERFACE_PATHS[binding], ...options };
  return new A2AClient(binding === "JSONRPC" ? createJsonRpcTransport(settings) : createRestTransport(settings));
}

async function drain(source: AsyncIterable<StreamResponse>): Promise<{ items: StreamResponse[]; error: unknown }> {
  const items: StreamResponse[] = [];
  try {
    for await (const x of source) items.push(x);
  } catch (error) {
    return { items, error };
  }
  return { items, error: undefined };
}

const KINDS: Record<string, string> = { SendStreamingMessage: "send", SubscribeToTask: "subscribe", GetTask: "get", ListTasks: "list" };
/** The calls the agent received, as send, get, subscribe, list. */
const kinds = () => (agent?.requests ?? []).map((r) => KINDS[r.method] ?? r.method);
/** When the agent received its calls of `kind`. */
const arrivals = (kind: string) => (agent?.requests ?? []).filter((r) => KINDS[r.method] === kind).map((r) => r.receivedAt);
const stateOf = (e: StreamResponse | undefined) =>
  e?.payload.case === "task"
    ? e.payload.value.status?.state
    : e?.payload.case === "statusUpdate"
      ? e.payload.value.status?.state
      : undefined;

/**
 * The common shape: the stream is cut after WORKING and a chunk; the task
 * goes on once the client resubscribes (GetTask finds it WORKING), and
 * ends, which the resubscribe carries.
 */
const cutOnce = () => [
  steps.working(),
  steps.artifact("1", { artifactId: "a" }),
  steps.once(steps.drop()),
  steps.untilSubscribed(),
  steps.artifact("2", { artifactId: "a", append: true }),
  steps.complete(),
];

describe.each(HTTP_BINDINGS)("resumption (%s)", (binding) => {
  it("a cut connection is resumed the same way", async () => {
    await serve({ script: cutOnce() });
    const { items, error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "get", "subscribe"]);
    expect(stateOf(items.at(-1))).toBe(TaskState.COMPLETED);
  });

  it("an idle stream is resumed", async () => {
    // Silent for longer than the idle timeout; the task ends once the client resubscribes.
    await serve({ script: [steps.working(), steps.artifact("1"), steps.untilSubscribed(), steps.complete()] });
    const { items, error } = await drain(
      clientOf(binding, { idleTimeoutMs: 100 }).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }),
    );
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "get", "subscribe"]);
    expect(stateOf(items.at(-1))).toBe(TaskState.COMPLETED);
  });

  it("a task found ended by GetTask after a drop is the last event, marked as a snapshot; no resubscribe", async () => {
    await serve({
      script: [
        steps.artifact("1", { artifactId: "a" }),
        steps.once(steps.drop()),
        steps.artifact("2", { artifactId: "a", append: true }),
        steps.complete(),
      ],
    });
    const { items, error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "get"]);
    const last = items.at(-1)!;
    expect(last.payload.case).toBe("task");
    expect(stateOf(last)).toBe(TaskState.COMPLETED);
    expect(isResumeSnapshot(last)).toBe(true);
    expect(last.payload.case === "task" && last.payload.value.artifacts[0]!.parts.map((p) => p.content.value)).toEqual(["1", "2"]);
  });

  it("a task found waiting for input by GetTask ends the stream the same way", async () => {
    await serve({ script: [steps.working(), steps.once(steps.drop()), steps.inputRequired()] });
    const { items, error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "get"]);
    expect(stateOf(items.at(-1))).toBe(TaskState.INPUT_REQUIRED);
  });

  it("GetTask failing to connect counts as an attempt", async () => {
    await serve({
      script: [steps.submitted(), steps.once(steps.drop()), steps.complete()],
      faults: { GetTask: [steps.once(steps.drop())] },
    });
    const { items, error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "get", "get"]);
    expect(stateOf(items.at(-1))).toBe(TaskState.COMPLETED);
  });

  it("GetTask that outlives its timeout counts as an attempt", async () => {
    await serve({
      script: [steps.submitted(), steps.once(steps.drop()), steps.complete()],
      // The first GetTask gets no answer at all.
      faults: { GetTask: [steps.once(steps.hang())] },
    });
    const { items, error } = await drain(
      clientOf(binding, { timeoutMs: 150 }).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }),
    );
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "get", "get"]);
    expect(stateOf(items.at(-1))).toBe(TaskState.COMPLETED);
  });

  it("GetTask timing out every time runs out of attempts", async () => {
    await serve({ script: [steps.submitted(), steps.once(steps.drop()), steps.complete()], faults: { GetTask: [steps.hang()] } });
    // 150 ms, as the test above: at 50 ms a loaded machine's first answer could come after it.
    const { error } = await drain(
      clientOf(binding, { timeoutMs: 150 }).sendStreamingMessage({ message: userMessage("go") }, { resume: { ...FAST, maxAttempts: 2 } }),
    );
    expect(error).toBeInstanceOf(StreamResumeError);
    expect((error as StreamResumeError).cause).toBeInstanceOf(CallTimeoutError);
    expect(kinds()).toEqual(["send", "get", "get"]);
  });

  it("an agent with no SubscribeToTask whose task does not move runs the budget out, as a silent stream does", async () => {
    await serve({
      script: [steps.working(), steps.artifact("1"), steps.once(steps.drop()), steps.untilCancelled()],
      faults: { SubscribeToTask: [steps.error("METHOD_NOT_FOUND", "Unknown method")] },
    });
    const { error } = await drain(
      clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: { ...FAST, maxElapsedMs: 200 } }),
    );
    expect(error).toBeInstanceOf(StreamResumeError);
  });

  it("a resubscribe refused for a task that goes on is reported", async () => {
    await serve({
      script: [steps.working(), steps.artifact("1"), steps.once(steps.drop()), steps.untilCancelled()],
      faults: { SubscribeToTask: [steps.error("UNSUPPORTED_OPERATION", "no resubscribing here")] },
    });
    const { error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeInstanceOf(UnsupportedOperationError);
    expect(error).toMatchObject({ message: "no resubscribing here" });
    expect(kinds()).toEqual(["send", "get", "subscribe", "get"]);
  });

  it("a server-reported error on the resubscribe is not retried", async () => {
    await serve({
      script: [steps.working(), steps.artifact("1"), steps.once(steps.drop()), steps.untilCancelled()],
      faults: { SubscribeToTask: [steps.error("TASK_NOT_FOUND", "gone")] },
    });
    const { error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeInstanceOf(TaskNotFoundError);
    // GetTask is asked once more, whether the task ended meanwhile (a2a-go's answer then); it goes on, so the error stands.
    expect(kinds()).toEqual(["send", "get", "subscribe", "get"]);
  });

  it("a server-reported error from GetTask is not retried", async () => {
    await serve({ script: cutOnce(), faults: { GetTask: [steps.error("TASK_NOT_FOUND", "gone")] } });
    const { error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeInstanceOf(TaskNotFoundError);
    expect(kinds()).toEqual(["send", "get"]);
  });

  /** The parameters of a ListTasks the agent received, as the specification's JSON. */
  const listParams = (i: number): Record<string, unknown> => agent!.requests[i]!.request as Record<string, unknown>;

  it("the task the message started is found by ListTasks (messageId in its history) and resumed, not run again", async () => {
    // Cut before the first event; the task the message started goes on.
    await serve({ script: [steps.once(steps.drop()), steps.working(), steps.artifact("1"), steps.untilSubscribed(), steps.complete()] });
    const { items, error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "list", "get", "subscribe"]);
    expect(stateOf(items.at(-1))).toBe(TaskState.COMPLETED);
    expect(items.map(isResumeSnapshot)).toEqual([true, false]);
    // No contextId is invented; the lookup is bounded and asks for history.
    const asked = listParams(1);
    expect(asked.contextId).toBeUndefined();
    expect(Number(asked.pageSize)).toBe(50);
    expect(Number(asked.historyLength)).toBe(50);
  });

  it("a message with a contextId is looked for among that context's tasks only", async () => {
    await serve({ script: [steps.once(steps.drop()), steps.artifact("1"), steps.complete()] });
    const { items, error } = await drain(
      clientOf(binding).sendStreamingMessage({ message: userMessage("go", { contextId: "c1" }) }, { resume: FAST }),
    );
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "list", "get"]);
    expect(listParams(1).contextId).toBe("c1");
    expect(stateOf(items.at(-1))).toBe(TaskState.COMPLETED);
  });

  /** ListTasks refused, as an agent that does not list tasks answers it. */
  const noListTasks = [steps.error("UNSUPPORTED_OPERATION", "not here")];

  it("a drop before the task id is known, on an agent without ListTasks: reported, not sent again", async () => {
    await serve({ faults: { SendStreamingMessage: [steps.drop()], ListTasks: noListTasks } });
    const { items, error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(items).toEqual([]);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(kinds()).toEqual(["send", "list"]);
  });

  it("a lookup that cannot reach the agent counts as an attempt, and is made again", async () => {
    await serve({ script: [steps.once(steps.drop()), steps.complete()], faults: { ListTasks: [steps.once(steps.drop())] } });
    const { error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "list", "list", "get"]);
  });

  it("resendBeforeTask: a message without an id gets one, the same on every send", async () => {
    // The first two sends are cut before the agent takes the message; the third completes.
    await serve({ faults: { SendStreamingMessage: [steps.once(steps.drop()), steps.once(steps.drop())], ListTasks: noListTasks } });
    const message = { role: userMessage("x").role, parts: [{ content: { case: "text" as const, value: "go" } }] };
    const { error } = await drain(clientOf(binding).sendStreamingMessage({ message }, { resume: { ...FAST, resendBeforeTask: true } }));
    expect(error).toBeUndefined();
    const ids = agent!.requests
      .filter((r) => r.method === "SendStreamingMessage")
      .map((r) => (r.request as { message: { messageId: string } }).message.messageId);
    expect(ids).toHaveLength(3);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(1);
  });

  it("resume: false reports the drop as an error", async () => {
    await serve({ script: cutOnce() });
    const { items, error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: false }));
    expect(items.map((e) => e.payload.case)).toEqual(["task", "statusUpdate", "artifactUpdate"]);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(kinds()).toEqual(["send"]);
  });
});

describe("Retry-After is a floor for the backoff", () => {
  it("JSON-RPC: a resubscribe answered 503 with Retry-After is retried after that long", async () => {
    const delays = recordBackoff();
    await serve({
      script: cutOnce(),
      faults: { SubscribeToTask: [steps.once(steps.httpStatus(503, { "Retry-After": "1" }, "busy"))] },
    });
    const { items, error } = await drain(clientOf("JSONRPC").sendStreamingMessage({ message: userMessage("go") }, { resume: HINTED }));
    expect(error).toBeUndefined();
    expect(stateOf(items.at(-1))).toBe(TaskState.COMPLETED);
    expect(kinds()).toEqual(["send", "get", "subscribe", "get", "subscribe"]);
    expect(delays).toHaveLength(2);
    expect(delays[0]).toBeLessThanOrEqual(1);
    expect(delays[1]).toBe(1000);
    expect(arrivals("get")[1]! - arrivals("subscribe")[0]!).toBeGreaterThanOrEqual(980);
  });

  it("HTTP+JSON: GetTask answered 503 with Retry-After is retried after that long", async () => {
    const delays = recordBackoff();
    await serve({
      script: [steps.submitted(), steps.once(steps.drop()), steps.complete()],
      faults: { GetTask: [steps.once(steps.httpStatus(503, { "Retry-After": "1" }, "busy"))] },
    });
    const { items, error } = await drain(clientOf("HTTP+JSON").sendStreamingMessage({ message: userMessage("go") }, { resume: HINTED }));
    expect(error).toBeUndefined();
    expect(stateOf(items.at(-1))).toBe(TaskState.COMPLETED);
    expect(kinds()).toEqual(["send", "get", "get"]);
    expect(delays[1]).toBe(1000);
    expect(arrivals("get")[1]! - arrivals("get")[0]!).toBeGreaterThanOrEqual(980);
  });

  it("a Retry-After longer than backoff.maxMs ends the stream with the server's error: a day's Retry-After with maxMs 100", async () => {
    const delays = recordBackoff();
    await serve({
      script: [steps.submitted(), steps.once(steps.drop()), steps.complete()],
      faults: { GetTask: [steps.once(steps.httpStatus(503, { "Retry-After": "86400" }, "busy"))] },
    });
    const { error } = await drain(
      clientOf("HTTP+JSON").sendStreamingMessage({ message: userMessage("go") }, { resume: { backoff: { initialMs: 1, maxMs: 100 } } }),
    );
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ httpStatus: 503, retryAfterMs: 86_400_000 });
    expect(kinds()).toEqual(["send", "get"]);
    expect(delays).toHaveLength(1);
  });

  it("a 503 without Retry-After is a server error, not retried", async () => {
    await serve({ script: cutOnce(), faults: { GetTask: [steps.httpStatus(503, {}, "busy")] } });
    const { error } = await drain(clientOf("HTTP+JSON").sendStreamingMessage({ message: userMessage("go") }, { resume: HINTED }));
    expect(error).toMatchObject({ httpStatus: 503 });
    expect(error).not.toBeInstanceOf(StreamResumeError);
    expect(kinds()).toEqual(["send", "get"]);
  });
});
