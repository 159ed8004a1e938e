// Keeps its fake server: streams ended cleanly early, SSE retry: hints and id checkpoints, ids of the server's choosing, subscriptions cut after their snapshot, another task's events, listings of the server's choosing and a task that moves between two calls are no step of the test agent.
/**
 * Resumption of dropped streams against fake servers: what is sent on the
 * reconnection, how long the client waits, when it gives up, and what the
 * consumer sees, where the server does what the test agent cannot
 * (resume-agent.test.ts has the rest, on the test agent).
 */
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  A2AClient,
  AbortedError,
  CallTimeoutError,
  ConnectionError,
  InvalidAgentResponseError,
  StreamResumeError,
  TaskNotFoundError,
  TaskState,
  TaskTracker,
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
import { closed, sendJson, sseFrame, startFakeServer, startSse, within, type FakeServer } from "../../support/fake-server.js";
import { recordBackoff } from "../../support/resume-backoff.js";
import { trackTimers } from "../../support/timers.js";

type HttpBinding = Extract<Binding, "JSONRPC" | "HTTP+JSON">;
const HTTP_BINDINGS: readonly HttpBinding[] = ["JSONRPC", "HTTP+JSON"];
/** Stack frames of the package's own code. */
const SRC = /[/\\]src[/\\]/;
const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";

/** Backoff small enough that no test waits on it, unless it asks to. */
const FAST: ResumeOptions = { backoff: { initialMs: 1, maxMs: 1 } };
/** A backoff of 1 ms that lets a server's hint of up to 2 s count. */
const HINTED: ResumeOptions = { backoff: { initialMs: 1, maxMs: 2000 } };

// --- Task JSON as the server sends it ----------------------------------------

const task = (state: string, chunks: string[] = []) => ({
  id: "t1",
  contextId: "c1",
  status: { state: `TASK_STATE_${state}` },
  artifacts: chunks.length ? [{ artifactId: "a", parts: chunks.map((text) => ({ text })) }] : [],
});
const snapshotEvent = (state: string, chunks: string[] = []) => ({ task: task(state, chunks) });
const statusEvent = (state: string) => ({ statusUpdate: { taskId: "t1", contextId: "c1", status: { state: `TASK_STATE_${state}` } } });
const chunkEvent = (text: string, append = true) => ({
  artifactUpdate: { taskId: "t1", contextId: "c1", artifact: { artifactId: "a", parts: [{ text }] }, append },
});

// --- A fake agent that answers the three calls a resumption makes -----------

type Kind = "send" | "subscribe" | "get" | "list";

interface Call {
  kind: Kind;
  /** Index among the calls of this kind, from 0. */
  n: number;
  res: ServerResponse;
  url: string;
  body: string;
  headers: IncomingHttpHeaders;
  /** When the request arrived (performance.now()). */
  at: number;
}

interface StreamScript {
  /** SSE ids, one per event (undefined: no id field). */
  ids?: (string | undefined)[];
  /** A `retry:` field sent before the events. */
  retry?: number;
  /** An `id:` block without data sent after the events (a checkpoint). */
  checkpoint?: string;
  /** After the events: end the response cleanly, cut the connection, or stay silent. */
  then: "end" | "cut" | "hold";
}

type Script = Partial<Record<Kind, (call: Call, reply: Reply) => void>>;

interface Reply {
  stream(results: unknown[], script: StreamScript): void;
  json(result: unknown): void;
  /** An A2A error as the binding reports it: a JSON-RPC error object, or a google.rpc.Status body. */
  error(error: { code: number; httpStatus: number; reason: string; message: string }, headers?: Record<string, string>): void;
}

let srv: FakeServer;
let calls: Call[];
/** When each drop happened on the server's side (performance.now()), in order. */
let drops: number[];

beforeEach(async () => {
  srv = await startFakeServer();
  calls = [];
  drops = [];
});
afterEach(async () => {
  vi.restoreAllMocks();
  await srv.close();
});

function kindOf(binding: HttpBinding, method: string, url: string, body: string): Kind {
  if (binding === "JSONRPC") {
    const m = (JSON.parse(body) as { method: string }).method;
    return m === "SendStreamingMessage" ? "send" : m === "SubscribeToTask" ? "subscribe" : m === "ListTasks" ? "list" : "get";
  }
  if (url.startsWith("/message:stream")) return "send";
  if (url.includes(":subscribe")) return "subscribe";
  if (method === "GET" && url.startsWith("/tasks/")) return "get";
  if (method === "GET" && (url === "/tasks" || url.startsWith("/tasks?"))) return "list";
  throw new Error(`unexpected request ${method} ${url}`);
}

function serve(binding: HttpBinding, script: Script): void {
  const counts: Record<Kind, number> = { send: 0, subscribe: 0, get: 0, list: 0 };
  srv.handle((req, res, body) => {
    const kind = kindOf(binding, req.method ?? "", req.url ?? "", body);
    const call: Call = { kind, n: counts[kind]++, res, url: req.url ?? "", body, headers: req.headers, at: performance.now() };
    calls.push(call);
    const envelope = (result: unknown) =>
      binding === "JSONRPC" ? { jsonrpc: "2.0", id: (JSON.parse(body) as { id: number }).id, result } : result;
    const reply: Reply = {
      stream(results, s) {
        startSse(res);
        if (s.retry !== undefined) res.write(`retry: ${s.retry}\n\n`);
        results.forEach((r, i) => {
          const id = s.ids?.[i];
          res.write((id === undefined ? "" : `id: ${id}\n`) + sseFrame(envelope(r)));
        });
        if (s.checkpoint !== undefined) res.write(`id: ${s.checkpoint}\n\n`);
        if (s.then === "end") {
          res.end(() => drops.push(performance.now()));
        } else if (s.then === "cut") {
          // Once what was written is out, the connection goes away mid-stream.
          res.write("", () => {
            drops.push(performance.now());
            res.socket?.destroy();
          });
        }
      },
      json(result) {
        sendJson(res, 200, envelope(result));
      },
      error(e, headers = {}) {
        if (binding === "JSONRPC") {
          sendJson(
            res,
            e.httpStatus === 200 ? 200 : e.httpStatus,
            { jsonrpc: "2.0", id: (JSON.parse(body) as { id: number }).id, error: { code: e.code, message: e.message } },
            headers,
          );
        } else {
          const details = [{ "@type": ERROR_INFO, reason: e.reason, domain: "a2a-protocol.org" }];
          sendJson(res, e.httpStatus, { error: { code: e.httpStatus, message: e.message, details } }, headers);
        }
      },
    };
    const handler = script[kind];
    if (!handler) throw new Error(`no ${kind} expected`);
    handler(call, reply);
  });
}

function clientOf(binding: HttpBinding, options: Partial<HttpTransportOptions> = {}): A2AClient {
  const transport =
    binding === "JSONRPC"
      ? createJsonRpcTransport({ baseUrl: srv.url, ...options })
      : createRestTransport({ baseUrl: srv.url, ...options });
  return new A2AClient(transport);
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

const kinds = () => calls.map((c) => c.kind);
const messageIdOf = (binding: HttpBinding, body: string): string => {
  const json = JSON.parse(body) as { params?: { message: { messageId: string } }; message?: { messageId: string } };
  return (binding === "JSONRPC" ? json.params!.message : json.message!).messageId;
};
const stateOf = (e: StreamResponse | undefined) =>
  e?.payload.case === "task"
    ? e.payload.value.status?.state
    : e?.payload.case === "statusUpdate"
      ? e.payload.value.status?.state
      : undefined;

/** The common shape: the first stream drops after a snapshot; GetTask says WORKING; the resubscribe completes. */
const dropOnce = (first: StreamScript["then"] = "end"): Script => ({
  send: (_c, r) => r.stream([snapshotEvent("SUBMITTED"), statusEvent("WORKING"), chunkEvent("1", false)], { then: first }),
  get: (_c, r) => r.json(task("WORKING", ["1", "2"])),
  subscribe: (_c, r) => r.stream([snapshotEvent("WORKING", ["1", "2"]), chunkEvent("3"), statusEvent("COMPLETED")], { then: "end" }),
});

describe.each(HTTP_BINDINGS)("resumption (%s)", (binding) => {
  it("a stream that ends early is resumed with GetTask, then SubscribeToTask; the snapshot is marked", async () => {
    serve(binding, dropOnce("end"));
    const { items, error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "get", "subscribe"]);
    expect(items.map((e) => e.payload.case)).toEqual(["task", "statusUpdate", "artifactUpdate", "task", "artifactUpdate", "statusUpdate"]);
    expect(items.map(isResumeSnapshot)).toEqual([false, false, false, true, false, false]);
    expect(stateOf(items.at(-1))).toBe(TaskState.COMPLETED);
    // The resubscribe is for the task the first stream named.
    const sub = calls[2]!;
    if (binding === "JSONRPC") expect(JSON.parse(sub.body)).toMatchObject({ method: "SubscribeToTask", params: { id: "t1" } });
    else expect(sub.url).toBe("/tasks/t1:subscribe");
  });

  it("a task that works quietly for longer than the budget is followed to its end: each resumed stream's idle timeout starts it again", async () => {
    serve(binding, {
      send: (_c, r) => r.stream([snapshotEvent("SUBMITTED")], { then: "hold" }),
      get: (_c, r) => r.json(task("WORKING")),
      // The agent is there (GetTask answers, every stream opens with its snapshot), the task just says nothing for a while.
      subscribe: (c, r) =>
        c.n < 4
          ? r.stream([snapshotEvent("WORKING")], { then: "hold" })
          : r.stream([snapshotEvent("WORKING"), statusEvent("COMPLETED")], { then: "end" }),
    });
    const { items, error } = await drain(
      // Four quiet spells of the idle timeout (600 ms) outlast the budget (250 ms) together, not one by one;
      // the budget leaves room for a resumption's own round trips on a loaded machine.
      clientOf(binding, { idleTimeoutMs: 150 }).sendStreamingMessage(
        { message: userMessage("go") },
        { resume: { maxElapsedMs: 250, backoff: { initialMs: 1, maxMs: 1 } } },
      ),
    );
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", ...Array.from({ length: 5 }, () => ["get", "subscribe"]).flat()]);
    expect(stateOf(items.at(-1))).toBe(TaskState.COMPLETED);
  });

  it("a resubscribe whose response never starts is given up after the idle timeout, and resumed", async () => {
    serve(binding, {
      ...dropOnce("cut"),
      // The first resubscribe gets no response at all, not even headers.
      subscribe: (c, r) =>
        c.n === 0 ? undefined : r.stream([snapshotEvent("WORKING", ["1", "2"]), statusEvent("COMPLETED")], { then: "end" }),
    });
    const { items, error } = await drain(
      clientOf(binding, { idleTimeoutMs: 100 }).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }),
    );
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "get", "subscribe", "get", "subscribe"]);
    expect(stateOf(items.at(-1))).toBe(TaskState.COMPLETED);
  });

  it("resume: false on a stream whose response never starts reports the idle timeout", async () => {
    serve(binding, { subscribe: () => undefined });
    const timers = trackTimers(SRC);
    try {
      const { error } = await drain(clientOf(binding, { idleTimeoutMs: 100 }).subscribeToTask({ id: "t1" }, { resume: false }));
      expect(error).toBeInstanceOf(CallTimeoutError);
      expect(error).toMatchObject({ kind: "idle", binding });
      expect(await timers.live()).toEqual([]);
    } finally {
      timers.stop();
    }
  });

  it("SubscribeToTask resumes too", async () => {
    serve(binding, {
      subscribe: (c, r) =>
        c.n === 0
          ? r.stream([snapshotEvent("WORKING", ["1"])], { then: "cut" })
          : r.stream([snapshotEvent("WORKING", ["1", "2"]), statusEvent("COMPLETED")], { then: "end" }),
      get: (_c, r) => r.json(task("WORKING", ["1", "2"])),
    });
    const { items, error } = await drain(clientOf(binding).subscribeToTask({ id: "t1" }, { resume: FAST }));
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["subscribe", "get", "subscribe"]);
    expect(items.map(isResumeSnapshot)).toEqual([false, true, false]);
  });

  it("Last-Event-ID is sent on the resubscribe when the server numbered its events", async () => {
    serve(binding, {
      send: (_c, r) => r.stream([snapshotEvent("SUBMITTED"), chunkEvent("1", false)], { ids: ["e-1", "e-2"], then: "cut" }),
      get: (_c, r) => r.json(task("WORKING", ["1"])),
      subscribe: (c, r) =>
        c.n === 0
          ? r.stream([snapshotEvent("WORKING", ["1"]), chunkEvent("2")], { ids: [undefined, "e-3"], then: "end" })
          : r.stream([snapshotEvent("WORKING", ["1", "2"]), statusEvent("COMPLETED")], { then: "end" }),
    });
    const { error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "get", "subscribe", "get", "subscribe"]);
    expect(calls[0]!.headers["last-event-id"]).toBeUndefined();
    // The GetTask in between is not a stream: no Last-Event-ID there.
    expect(calls[1]!.headers["last-event-id"]).toBeUndefined();
    expect(calls[2]!.headers["last-event-id"]).toBe("e-2");
    expect(calls[4]!.headers["last-event-id"]).toBe("e-3");
  });

  it("Last-Event-ID follows an id: block without data (a checkpoint) sent after the last event", async () => {
    serve(binding, {
      send: (_c, r) =>
        r.stream([snapshotEvent("SUBMITTED"), chunkEvent("1", false)], { ids: ["e-1", "e-2"], checkpoint: "e-9", then: "cut" }),
      get: (_c, r) => r.json(task("WORKING", ["1"])),
      subscribe: (_c, r) => r.stream([snapshotEvent("WORKING", ["1"]), statusEvent("COMPLETED")], { then: "end" }),
    });
    const { error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "get", "subscribe"]);
    expect(calls[2]!.headers["last-event-id"]).toBe("e-9");
  });

  it("no Last-Event-ID when the server gave no ids", async () => {
    serve(binding, dropOnce("cut"));
    await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(kinds()).toEqual(["send", "get", "subscribe"]);
    expect(calls.map((c) => c.headers["last-event-id"])).toEqual([undefined, undefined, undefined]);
  });

  it("the backoff waits at least the server's SSE retry:", async () => {
    const delays = recordBackoff();
    serve(binding, {
      ...dropOnce(),
      send: (_c, r) => r.stream([snapshotEvent("SUBMITTED")], { retry: 300, then: "cut" }),
    });
    const { error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: HINTED }));
    expect(error).toBeUndefined();
    // The backoff alone would wait at most 1 ms.
    expect(delays).toEqual([300]);
    const get = calls.find((c) => c.kind === "get")!;
    // Timers may fire a little early; a generous margin below, none above.
    expect(get.at - drops[0]!).toBeGreaterThanOrEqual(280);
  });

  it("a server's retry: longer than backoff.maxMs ends the stream with its drop, not called early: retry: 86400000 with maxMs 100", async () => {
    const delays = recordBackoff();
    serve(binding, { ...dropOnce(), send: (_c, r) => r.stream([snapshotEvent("SUBMITTED")], { retry: 86_400_000, then: "cut" }) });
    const { items, error } = await drain(
      clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: { backoff: { initialMs: 1, maxMs: 100 } } }),
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect(items).toHaveLength(1);
    expect(kinds()).toEqual(["send"]);
    expect(delays).toEqual([]);
  });

  it("a stream that ends cleanly after a retry: longer than backoff.maxMs: StreamResumeError naming the hint", async () => {
    serve(binding, { ...dropOnce(), send: (_c, r) => r.stream([snapshotEvent("SUBMITTED")], { retry: 86_400_000, then: "end" }) });
    const { error } = await drain(
      clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: { backoff: { initialMs: 1, maxMs: 100 } } }),
    );
    expect(error).toBeInstanceOf(StreamResumeError);
    expect((error as Error).message).toMatch(/retry: 86400000 ms.*backoff\.maxMs \(100 ms\)/);
    expect(kinds()).toEqual(["send"]);
  });

  it("the retry: hint holds for the later reconnections too", async () => {
    const delays = recordBackoff();
    serve(binding, {
      send: (_c, r) => r.stream([snapshotEvent("SUBMITTED")], { retry: 40, then: "cut" }),
      get: (_c, r) => r.json(task("WORKING")),
      subscribe: (c, r) =>
        c.n === 0
          ? r.stream([snapshotEvent("WORKING")], { then: "end" })
          : r.stream([snapshotEvent("WORKING"), statusEvent("COMPLETED")], { then: "end" }),
    });
    const { error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: HINTED }));
    expect(error).toBeUndefined();
    expect(delays).toEqual([40, 40]);
  });

  it("the backoff grows exponentially up to maxMs, with equal jitter", async () => {
    const delays = recordBackoff();
    vi.spyOn(Math, "random").mockReturnValue(0.5);
    serve(binding, {
      send: (_c, r) => r.stream([snapshotEvent("SUBMITTED")], { then: "cut" }),
      get: (_c, r) => r.json(task("WORKING")),
      // Every resubscribe drops right after its snapshot: no progress, the attempts add up.
      subscribe: (c, r) =>
        c.n < 4
          ? r.stream([snapshotEvent("WORKING")], { then: "end" })
          : r.stream([snapshotEvent("WORKING"), statusEvent("COMPLETED")], { then: "end" }),
    });
    const resume = { maxAttempts: 5, backoff: { initialMs: 4, maxMs: 20, multiplier: 2 } };
    const { error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume }));
    expect(error).toBeUndefined();
    // Ceilings 4, 8, 16, 20, 20; the delay is half the ceiling plus random() times the other half.
    expect(delays).toEqual([3, 6, 12, 15, 15]);
  });

  it("gives up after maxAttempts reconnections without progress: StreamResumeError with the task and the attempts", async () => {
    serve(binding, {
      send: (_c, r) => r.stream([snapshotEvent("SUBMITTED"), statusEvent("WORKING")], { then: "cut" }),
      get: (_c, r) => r.json(task("WORKING")),
      subscribe: (_c, r) => r.stream([snapshotEvent("WORKING")], { then: "end" }),
    });
    const { items, error } = await drain(
      clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: { ...FAST, maxAttempts: 3 } }),
    );
    expect(error).toBeInstanceOf(StreamResumeError);
    expect(error).toMatchObject({ taskId: "t1", attempts: 3, binding });
    expect(kinds()).toEqual(["send", "get", "subscribe", "get", "subscribe", "get", "subscribe"]);
    expect(items.filter(isResumeSnapshot)).toHaveLength(3);
  });

  it("attempts count again from zero after an event that is progress", async () => {
    serve(binding, {
      send: (_c, r) => r.stream([snapshotEvent("SUBMITTED")], { then: "cut" }),
      get: (c, r) =>
        r.json(
          task(
            "WORKING",
            Array.from({ length: c.n }, (_, i) => String(i)),
          ),
        ),
      // Each resubscribe brings one new chunk, then drops; the fifth completes.
      subscribe: (c, r) =>
        r.stream(c.n < 4 ? [snapshotEvent("WORKING"), chunkEvent(String(c.n))] : [snapshotEvent("WORKING"), statusEvent("COMPLETED")], {
          then: c.n % 2 ? "end" : "cut",
        }),
    });
    const { items, error } = await drain(
      clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: { ...FAST, maxAttempts: 1 } }),
    );
    expect(error).toBeUndefined();
    expect(stateOf(items.at(-1))).toBe(TaskState.COMPLETED);
    expect(kinds().filter((k) => k === "subscribe")).toHaveLength(5);
  });

  it("GetTask cut in the middle of its body counts as an attempt", async () => {
    serve(binding, {
      send: (_c, r) => r.stream([snapshotEvent("SUBMITTED")], { then: "cut" }),
      get: (c, r) => {
        if (c.n > 0) return r.json(task("COMPLETED"));
        c.res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "500" });
        c.res.write('{"id":"t1","contextId":"c1","sta', () => c.res.socket?.destroy());
      },
    });
    const { items, error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "get", "get"]);
    expect(stateOf(items.at(-1))).toBe(TaskState.COMPLETED);
  });

  it("a resubscribe refused because the task ended meanwhile: GetTask again, its final task is the last event", async () => {
    serve(binding, {
      ...dropOnce("cut"),
      // WORKING when asked, finished by the time of the resubscribe.
      get: (c, r) => r.json(c.n === 0 ? task("WORKING", ["1"]) : task("COMPLETED", ["1", "2"])),
      subscribe: (_c, r) =>
        r.error({
          code: -32004,
          httpStatus: binding === "JSONRPC" ? 200 : 400,
          reason: "UNSUPPORTED_OPERATION",
          message: "task is in a terminal state",
        }),
    });
    const { items, error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "get", "subscribe", "get"]);
    const last = items.at(-1)!;
    expect(stateOf(last)).toBe(TaskState.COMPLETED);
    expect(isResumeSnapshot(last)).toBe(true);
  });

  it("a resubscribe answered TaskNotFound for a task that ended meanwhile (a2a-go 2.3.1): GetTask again, its final task is the last event", async () => {
    serve(binding, {
      ...dropOnce("cut"),
      get: (c, r) => r.json(c.n === 0 ? task("WORKING", ["1"]) : task("COMPLETED", ["1", "2"])),
      subscribe: (_c, r) =>
        r.error({
          code: -32001,
          httpStatus: binding === "JSONRPC" ? 200 : 404,
          reason: "TASK_NOT_FOUND",
          message: "task not found: no active execution",
        }),
    });
    const { items, error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "get", "subscribe", "get"]);
    expect(stateOf(items.at(-1)!)).toBe(TaskState.COMPLETED);
  });

  it.each([
    ["with resumption", FAST],
    ["without", false],
  ] as const)(
    "SubscribeToTask answered TaskNotFound for a task GetTask finds ended is UnsupportedOperationError, %s",
    async (_, resume) => {
      serve(binding, {
        get: (c, r) => r.json(task(c.n === 0 ? "COMPLETED" : "WORKING")),
        subscribe: (_c, r) =>
          r.error({ code: -32001, httpStatus: binding === "JSONRPC" ? 200 : 404, reason: "TASK_NOT_FOUND", message: "task not found" }),
      });
      const ended = await drain(clientOf(binding).subscribeToTask({ id: "t1" }, { resume }));
      expect(ended.error).toBeInstanceOf(UnsupportedOperationError);
      expect((ended.error as Error).message).toBe(
        "task t1 is COMPLETED, so it cannot be subscribed to (the agent answered TaskNotFound: task not found)",
      );
      expect((ended.error as Error).cause).toBeInstanceOf(TaskNotFoundError);
      expect(kinds()).toEqual(["subscribe", "get"]);
      // A task that goes on, or none at all: the agent's answer as it is.
      const working = await drain(clientOf(binding).subscribeToTask({ id: "t1" }, { resume }));
      expect(working.error).toBeInstanceOf(TaskNotFoundError);
    },
  );

  it("an agent with no SubscribeToTask (VoltAgent 2.0.3) is followed by GetTask: each change passed on as the task, to its end", async () => {
    serve(binding, {
      ...dropOnce("cut"),
      get: (c, r) =>
        r.json(c.n <= 1 ? task("WORKING", ["1"]) : c.n <= 3 ? task("WORKING", ["1", "2"]) : task("COMPLETED", ["1", "2", "3"])),
      subscribe: (_c, r) =>
        r.error({ code: -32601, httpStatus: binding === "JSONRPC" ? 200 : 404, reason: "METHOD_NOT_FOUND", message: "Unknown method" }),
    });
    const { items, error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeUndefined();
    // Subscribed once; then GetTask until the task ended, without subscribing again.
    expect(kinds().filter((k) => k === "subscribe").length).toBe(binding === "JSONRPC" ? 1 : 2);
    expect(kinds().slice(0, 2)).toEqual(["send", "get"]);
    expect(kinds().at(-1)).toBe("get");
    // The tasks passed on: as GetTask found it after the subscribe was refused, then what changed, then the end.
    const snapshots = items.filter((e) => e.payload.case === "task").slice(1);
    expect(
      snapshots.map((e) => [stateOf(e), (e.payload.value as { artifacts: { parts: unknown[] }[] }).artifacts[0]?.parts.length]),
    ).toEqual([
      [TaskState.WORKING, 1],
      [TaskState.WORKING, 2],
      [TaskState.COMPLETED, 3],
    ]);
    const tracker = new TaskTracker();
    for (const e of items) tracker.apply(e);
    expect(tracker.task?.status?.state).toBe(TaskState.COMPLETED);
  });

  // --- What a resumed stream's agent says that is not the task's progress ---

  it("an agent that answers every resubscribe with a message, not the task, is given up on: a message is no progress", async () => {
    serve(binding, {
      ...dropOnce("end"),
      // Past 40 only keeps an endless resumption out of this test.
      subscribe: (c, r) =>
        c.n < 40
          ? r.stream([{ message: { messageId: `m${c.n}`, role: "ROLE_AGENT", parts: [{ text: "hello" }] } }], { then: "end" })
          : r.error({ code: -32001, httpStatus: binding === "JSONRPC" ? 200 : 404, reason: "TASK_NOT_FOUND", message: "enough" }),
    });
    const { items, error } = await drain(
      clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: { ...FAST, maxAttempts: 3 } }),
    );
    // The attempts run out rather than starting again after each message.
    expect(error).toBeInstanceOf(StreamResumeError);
    expect(error).toMatchObject({ taskId: "t1", state: TaskState.WORKING, attempts: 3 });
    expect(kinds()).toEqual(["send", "get", "subscribe", "get", "subscribe", "get", "subscribe"]);
    // Each message is passed on as the agent sent it, after the task GetTask found.
    expect(items.slice(3).map((e) => e.payload.case)).toEqual(["task", "message", "task", "message", "task", "message"]);
  });

  it("another task's final state neither ends the stream nor counts as its progress", async () => {
    const other = { statusUpdate: { taskId: "t2", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } } };
    serve(binding, {
      send: (_c, r) => r.stream([snapshotEvent("WORKING"), other], { then: "end" }),
      get: (_c, r) => r.json(task("COMPLETED", ["1"])),
    });
    const { items, error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeUndefined();
    // t2's COMPLETED is passed on as the agent said it, but t1 is followed to its own end.
    expect(kinds()).toEqual(["send", "get"]);
    expect(items.map((e) => e.payload.case)).toEqual(["task", "statusUpdate", "task"]);
    expect(items.at(-1)).toMatchObject({ payload: { value: { id: "t1", status: { state: TaskState.COMPLETED } } } });
    calls = [];
    const unresumed = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: false }));
    expect(unresumed.error).toBeInstanceOf(StreamResumeError);
    expect(unresumed.error).toMatchObject({ taskId: "t1", state: TaskState.WORKING, attempts: 0 });
  });

  it("a resubscribe that does not open with the task: the task GetTask found comes first, marked, so no chunk is lost", async () => {
    serve(binding, {
      send: (_c, r) => r.stream([snapshotEvent("WORKING"), chunkEvent("1", false)], { then: "cut" }),
      // Chunk 2 was sent while the client was away; this agent does not open a resubscribe with the task.
      get: (_c, r) => r.json(task("WORKING", ["1", "2"])),
      subscribe: (_c, r) => r.stream([chunkEvent("3"), statusEvent("COMPLETED")], { then: "end" }),
    });
    const tracker = new TaskTracker();
    const { items, error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    for (const e of items) tracker.apply(e);
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "get", "subscribe"]);
    expect(items.map((e) => e.payload.case)).toEqual(["task", "artifactUpdate", "task", "artifactUpdate", "statusUpdate"]);
    expect(items.map(isResumeSnapshot)).toEqual([false, false, true, false, false]);
    expect(tracker.task?.artifacts[0]?.parts.map((p) => p.content.value)).toEqual(["1", "2", "3"]);
    expect(tracker.task?.status?.state).toBe(TaskState.COMPLETED);
  });

  it("a resubscribe that replays what followed Last-Event-ID, without the task: nothing is put before the replay, so no chunk comes twice", async () => {
    serve(binding, {
      send: (_c, r) => r.stream([snapshotEvent("WORKING"), chunkEvent("1", false), chunkEvent("2")], { ids: ["1", "2", "3"], then: "cut" }),
      // Chunk 3 was sent while the client was away: GetTask has it, and the agent replays it after event 3.
      get: (_c, r) => r.json(task("WORKING", ["1", "2", "3"])),
      subscribe: (_c, r) => r.stream([chunkEvent("3"), statusEvent("COMPLETED")], { ids: ["4", "5"], then: "end" }),
    });
    const tracker = new TaskTracker();
    const { items, error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    for (const e of items) tracker.apply(e);
    expect(error).toBeUndefined();
    expect(calls[2]!.headers["last-event-id"]).toBe("3");
    expect(items.map((e) => e.payload.case)).toEqual(["task", "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    expect(tracker.task?.artifacts[0]?.parts.map((p) => p.content.value)).toEqual(["1", "2", "3"]);
    expect(tracker.task?.status?.state).toBe(TaskState.COMPLETED);
  });

  it("GetTask answering with another task ends the stream with InvalidAgentResponseError, not that task", async () => {
    serve(binding, {
      send: (_c, r) => r.stream([snapshotEvent("WORKING")], { then: "end" }),
      get: (_c, r) => r.json({ ...task("COMPLETED"), id: "t2" }),
    });
    const { items, error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeInstanceOf(InvalidAgentResponseError);
    expect((error as Error).message).toContain("t1");
    expect(items).toHaveLength(1);
  });

  it("next() asked again before its answer came waits its turn: the stream is resumed once, its end comes once", async () => {
    serve(binding, dropOnce("end"));
    const it = clientOf(binding)
      .sendStreamingMessage({ message: userMessage("go") }, { resume: FAST })
      [Symbol.asyncIterator]();
    const answers = await Promise.all(Array.from({ length: 9 }, () => it.next()));
    expect(answers.map((r) => (r.done ? "done" : r.value.payload.case))).toEqual([
      "task",
      "statusUpdate",
      "artifactUpdate",
      "task",
      "artifactUpdate",
      "statusUpdate",
      "done",
      "done",
      "done",
    ]);
    expect(stateOf(answers[5]!.value as StreamResponse)).toBe(TaskState.COMPLETED);
    expect(kinds()).toEqual(["send", "get", "subscribe"]);
  });

  it("a stream is one stream: two loops over it at once share its events, and the message is sent once", async () => {
    serve(binding, dropOnce("end"));
    const stream = clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST });
    const [a, b] = await Promise.all([drain(stream), drain(stream)]);
    expect([a.error, b.error]).toEqual([undefined, undefined]);
    expect(a.items.length + b.items.length).toBe(6);
    expect(kinds()).toEqual(["send", "get", "subscribe"]);
  });

  it("a loop over a stream that another loop read to its end gets nothing, and sends nothing", async () => {
    serve(binding, { ...dropOnce("end"), subscribe: (_c, r) => r.stream([snapshotEvent("COMPLETED")], { then: "end" }) });
    for (const resume of [FAST, false] as const) {
      calls = [];
      const sent = clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume });
      const subscribed = clientOf(binding).subscribeToTask({ id: "t1" }, { resume });
      for (const stream of [sent, subscribed]) {
        expect((await drain(stream)).items.length).toBeGreaterThan(0);
        expect(await drain(stream)).toEqual({ items: [], error: undefined });
      }
      expect(kinds().filter((k) => k === "send")).toHaveLength(1);
    }
  });

  // --- A drop before the task id is known: the agent is asked before anything is sent again ---

  /** The agent refuses ListTasks (or anything else asked), as one without it would. */
  const unsupported = (r: Reply) =>
    r.error({ code: -32004, httpStatus: binding === "JSONRPC" ? 200 : 400, reason: "UNSUPPORTED_OPERATION", message: "not here" });
  /** The ListTasks request's fields, whatever the binding. */
  const listParams = (c: Call): Record<string, unknown> =>
    binding === "JSONRPC"
      ? (JSON.parse(c.body) as { params: Record<string, unknown> }).params
      : Object.fromEntries(new URL(c.url, "http://x").searchParams);
  /** A task whose history holds the message of the first send. */
  const startedBy = (sendBody: string, state = "WORKING") => ({
    ...task(state),
    history: [{ messageId: messageIdOf(binding, sendBody), role: "ROLE_USER", parts: [{ text: "go" }] }],
  });
  const page = (tasks: unknown[], nextPageToken = "") => ({ tasks, nextPageToken, pageSize: tasks.length, totalSize: tasks.length });

  it("a stream that ends before naming its task, on an agent without ListTasks: StreamResumeError", async () => {
    serve(binding, { send: (_c, r) => r.stream([], { then: "end" }), list: (_c, r) => unsupported(r) });
    const { error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeInstanceOf(StreamResumeError);
    expect((error as Error).message).toMatch(/ended before naming a task/);
    expect(kinds()).toEqual(["send", "list"]);
  });

  it("no task holds the message: it is sent again, once, with the same messageId", async () => {
    serve(binding, {
      send: (c, r) =>
        c.n === 0 ? c.res.socket?.destroy() : r.stream([snapshotEvent("SUBMITTED"), statusEvent("COMPLETED")], { then: "end" }),
      list: (_c, r) =>
        r.json(page([{ ...task("COMPLETED"), id: "older", history: [{ messageId: "m-older", role: "ROLE_USER", parts: [] }] }])),
    });
    const { items, error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "list", "send"]);
    expect(messageIdOf(binding, calls[2]!.body)).toBe(messageIdOf(binding, calls[0]!.body));
    expect(stateOf(items.at(-1))).toBe(TaskState.COMPLETED);
  });

  it("an agent that lists nothing without a status filter: the task is found state by state and resumed, not run again", async () => {
    serve(binding, {
      send: (c) => c.res.socket?.destroy(),
      // What @a2a-js/sdk 1.0.0-beta.0 does: no status filter reads as "status UNSPECIFIED".
      list: (c, r) => r.json(page(listParams(c).status === "TASK_STATE_WORKING" ? [startedBy(calls[0]!.body)] : [])),
      get: (_c, r) => r.json(task("WORKING", ["1"])),
      subscribe: (_c, r) => r.stream([snapshotEvent("WORKING", ["1"]), statusEvent("COMPLETED")], { then: "end" }),
    });
    const { items, error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "list", "list", "list", "get", "subscribe"]);
    expect(calls.slice(1, 4).map((c) => listParams(c).status)).toEqual([undefined, "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"]);
    expect(stateOf(items.at(-1))).toBe(TaskState.COMPLETED);
  });

  it("no task in any state: sent again once; tasks in some state, none with the message, decide as well", async () => {
    serve(binding, {
      send: (c, r) =>
        c.n === 0 ? c.res.socket?.destroy() : r.stream([snapshotEvent("SUBMITTED"), statusEvent("COMPLETED")], { then: "end" }),
      list: (_c, r) => r.json(page([])),
    });
    const { error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", ...Array<string>(9).fill("list"), "send"]);
    // Every state once, in lifecycle order, after the unfiltered listing.
    expect(calls.slice(1, 10).map((c) => listParams(c).status)).toEqual([
      undefined,
      ...["SUBMITTED", "WORKING", "INPUT_REQUIRED", "AUTH_REQUIRED", "COMPLETED", "FAILED", "CANCELED", "REJECTED"].map(
        (s) => `TASK_STATE_${s}`,
      ),
    ]);

    // Only a state's listing shows tasks, and they keep no history: nobody can tell.
    calls.length = 0;
    serve(binding, {
      send: (c) => c.res.socket?.destroy(),
      list: (c, r) => r.json(page(listParams(c).status === "TASK_STATE_COMPLETED" ? [{ ...task("COMPLETED"), history: [] }] : [])),
    });
    const again = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(again.error).toBeInstanceOf(ConnectionError);
    expect(kinds()).toEqual(["send", ...Array<string>(9).fill("list")]);
  });

  it("a lookup that cannot decide (pages run out, or no history kept) does not send again", async () => {
    let token = 0;
    serve(binding, {
      send: (c) => c.res.socket?.destroy(),
      // Always another page, never the message.
      list: (_c, r) => r.json(page([{ ...task("WORKING"), id: `x${token}`, history: [] }], `p${++token}`)),
    });
    const { error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(kinds()).toEqual(["send", "list", "list", "list"]);
    expect(listParams(calls[2]!).pageToken).toBe("p1");

    calls.length = 0;
    serve(binding, { send: (c) => c.res.socket?.destroy(), list: (_c, r) => r.json(page([{ ...task("WORKING"), history: [] }])) });
    const again = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(again.error).toBeInstanceOf(ConnectionError);
    expect(kinds()).toEqual(["send", "list"]);

    // A history as long as asked for may have been cut before the message.
    calls.length = 0;
    const long = Array.from({ length: 50 }, (_, i) => ({ messageId: `m${i}`, role: "ROLE_AGENT", parts: [] }));
    serve(binding, { send: (c) => c.res.socket?.destroy(), list: (_c, r) => r.json(page([{ ...task("WORKING"), history: long }])) });
    const cut = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: FAST }));
    expect(cut.error).toBeInstanceOf(ConnectionError);
    expect(kinds()).toEqual(["send", "list"]);
  });

  it("a message for a known task is looked for in that task's history", async () => {
    serve(binding, {
      send: (c) => c.res.socket?.destroy(),
      get: (c, r) => r.json(c.n === 0 ? startedBy(calls[0]!.body) : task("COMPLETED")),
    });
    const { items, error } = await drain(
      clientOf(binding).sendStreamingMessage({ message: userMessage("go", { taskId: "t1", contextId: "c1" }) }, { resume: FAST }),
    );
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "get", "get"]);
    expect(stateOf(items.at(-1))).toBe(TaskState.COMPLETED);
  });

  it("resendBeforeTask, on an agent without ListTasks: the same message, with the same messageId, is sent again", async () => {
    serve(binding, {
      send: (c, r) =>
        c.n === 0 ? c.res.socket?.destroy() : r.stream([snapshotEvent("SUBMITTED"), statusEvent("COMPLETED")], { then: "end" }),
      list: (_c, r) => unsupported(r),
    });
    const { items, error } = await drain(
      clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: { ...FAST, resendBeforeTask: true } }),
    );
    expect(error).toBeUndefined();
    expect(kinds()).toEqual(["send", "list", "send"]);
    const sends = calls.filter((c) => c.kind === "send");
    const [first, second] = sends.map((c) => messageIdOf(binding, c.body));
    expect(first).toBeTruthy();
    expect(second).toBe(first);
    // The request is the same; a JSON-RPC request gets a new request id.
    if (binding === "JSONRPC") {
      const params = sends.map((c) => (JSON.parse(c.body) as { params: unknown }).params);
      expect(params[1]).toEqual(params[0]);
    } else {
      expect(sends[1]!.body).toBe(sends[0]!.body);
    }
    expect(items.map(isResumeSnapshot)).toEqual([true, false]);
    expect(stateOf(items.at(-1))).toBe(TaskState.COMPLETED);
  });

  it("resume: false: a stream that ends before a final or interrupted state is reported, naming the task and its state", async () => {
    serve(binding, {
      send: (_c, r) => r.stream([snapshotEvent("SUBMITTED"), statusEvent("WORKING"), chunkEvent("1", false)], { then: "end" }),
      subscribe: (_c, r) => r.stream([snapshotEvent("WORKING")], { then: "end" }),
    });
    const sent = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: false }));
    expect(sent.items).toHaveLength(3);
    expect(sent.error).toBeInstanceOf(StreamResumeError);
    expect(sent.error).toMatchObject({ taskId: "t1", state: TaskState.WORKING, attempts: 0, binding });
    expect((sent.error as Error).message).toMatch(
      /task t1 ended in state TASK_STATE_WORKING, before the task reached a final or interrupted state/,
    );
    const watched = await drain(clientOf(binding).subscribeToTask({ id: "t1" }, { resume: false }));
    expect(watched.error).toMatchObject({ taskId: "t1", state: TaskState.WORKING });
    expect(kinds()).toEqual(["send", "subscribe"]);
  });

  it("resume: false: a stream that ends after a final or interrupted state, or a direct reply, ends quietly", async () => {
    const endings = [
      [snapshotEvent("WORKING"), statusEvent("COMPLETED"), chunkEvent("late")],
      [snapshotEvent("WORKING"), statusEvent("INPUT_REQUIRED")],
      [{ message: { messageId: "r1", role: "ROLE_AGENT", parts: [{ text: "hi" }] } }],
    ];
    serve(binding, { send: (c, r) => r.stream(endings[c.n]!, { then: "end" }) });
    for (const _ of endings) {
      const { error } = await drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { resume: false }));
      expect(error).toBeUndefined();
    }
  });

  it("resume: false: next() asked again before its answer came waits its turn: no event of a batch is lost", async () => {
    let more!: () => void;
    const later = new Promise<void>((resolve) => (more = resolve));
    serve(binding, {
      send: (c) => {
        const frame = (r: unknown) =>
          sseFrame(binding === "JSONRPC" ? { jsonrpc: "2.0", id: (JSON.parse(c.body) as { id: number }).id, result: r } : r);
        startSse(c.res);
        // Two events in each write: each arrives as one batch of two.
        c.res.write(frame(snapshotEvent("WORKING")) + frame(chunkEvent("1", false)));
        void later.then(() => c.res.end(frame(chunkEvent("2")) + frame(statusEvent("COMPLETED"))));
      },
    });
    const it = clientOf(binding)
      .sendStreamingMessage({ message: userMessage("go") }, { resume: false })
      [Symbol.asyncIterator]();
    const reads = Array.from({ length: 6 }, () => it.next());
    await reads[0];
    more();
    const answers = await Promise.all(reads);
    expect(answers.map((r) => (r.done ? "done" : r.value.payload.case))).toEqual([
      "task",
      "artifactUpdate",
      "artifactUpdate",
      "statusUpdate",
      "done",
      "done",
    ]);
  });

  it("resume: false on an idle stream reports the idle timeout", async () => {
    serve(binding, { subscribe: (_c, r) => r.stream([snapshotEvent("WORKING")], { then: "hold" }) });
    const { items, error } = await drain(clientOf(binding, { idleTimeoutMs: 100 }).subscribeToTask({ id: "t1" }, { resume: false }));
    expect(items).toHaveLength(1);
    expect(error).toBeInstanceOf(CallTimeoutError);
    expect(kinds()).toEqual(["subscribe"]);
  });
});

/** Connections the fake server has open. */
function openConnections(): Promise<number> {
  return new Promise((resolve, reject) => srv.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
}

function tcpSockets(): number {
  return process.getActiveResourcesInfo().filter((r) => r === "TCPSocketWrap").length;
}

describe.each(HTTP_BINDINGS)("aborting a resumption (%s)", (binding) => {
  it("the caller's signal stops the backoff sleep with AbortedError; no timer, socket or request is left", async () => {
    const timers = trackTimers(SRC);
    try {
      const socketsBefore = tcpSockets();
      // A long backoff, so the abort lands in the sleep.
      vi.spyOn(Math, "random").mockReturnValue(0.99);
      serve(binding, dropOnce("cut"));
      const controller = new AbortController();
      const started = performance.now();
      const run = drain(
        clientOf(binding).sendStreamingMessage(
          { message: userMessage("go") },
          { signal: controller.signal, resume: { backoff: { initialMs: 10_000, maxMs: 10_000 } } },
        ),
      );
      await within(
        (async () => {
          while (drops.length === 0) await new Promise((r) => setTimeout(r, 5));
        })(),
        2000,
        "the first stream's drop",
      );
      await new Promise((r) => setTimeout(r, 50));
      controller.abort();
      const { items, error } = await run;
      expect(error).toBeInstanceOf(AbortedError);
      expect(performance.now() - started).toBeLessThan(5000);
      expect(items).toHaveLength(3);
      expect(kinds()).toEqual(["send"]);
      expect(await timers.live()).toEqual([]);
      // The cut connection is gone on both sides; nothing else was opened.
      await within(
        (async () => {
          while ((await openConnections()) > 0 || tcpSockets() > socketsBefore) await new Promise((r) => setTimeout(r, 5));
        })(),
        2000,
        "sockets closed",
      );
    } finally {
      timers.stop();
    }
  });

  it("a reader that closes the stream while it waits to resume: return() comes at once, nothing more is sent, no timer is left", async () => {
    const timers = trackTimers(SRC);
    try {
      // A long backoff, so the close lands in the sleep.
      vi.spyOn(Math, "random").mockReturnValue(0.99);
      const delays = recordBackoff();
      serve(binding, dropOnce("end"));
      const it = clientOf(binding)
        .sendStreamingMessage({ message: userMessage("go") }, { resume: { backoff: { initialMs: 10_000, maxMs: 10_000 } } })
        [Symbol.asyncIterator]();
      for (let i = 0; i < 3; i++) await it.next();
      // The next read finds the drop; the resumption waits out its backoff.
      const pending = it.next();
      await within(
        (async () => {
          while (delays.length === 0) await new Promise((r) => setTimeout(r, 5));
        })(),
        2000,
        "the backoff's start",
      );
      await within(it.return!(), 1000, "return() during the backoff");
      expect(await within(pending, 1000, "the pending read")).toEqual({ done: true, value: undefined });
      expect(kinds()).toEqual(["send"]);
      expect(await timers.live()).toEqual([]);
    } finally {
      timers.stop();
    }
  });

  it("a reader that closes the stream during a GetTask that does not answer: the call is given up at once", async () => {
    let asked!: () => void;
    const getting = new Promise<void>((resolve) => (asked = resolve));
    let gone: Promise<void> | undefined;
    serve(binding, {
      ...dropOnce("end"),
      // Never answered: only the close can end it.
      get: (c) => {
        gone = closed(c.res);
        asked();
      },
    });
    const it = clientOf(binding)
      .sendStreamingMessage({ message: userMessage("go") }, { resume: FAST })
      [Symbol.asyncIterator]();
    for (let i = 0; i < 3; i++) await it.next();
    const pending = it.next();
    await within(getting, 2000, "the GetTask");
    await within(it.return!(), 1000, "return() during the GetTask");
    expect(await within(pending, 1000, "the pending read")).toEqual({ done: true, value: undefined });
    await within(gone!, 2000, "the GetTask's connection closed");
    expect(kinds()).toEqual(["send", "get"]);
  });

  it("an abort during the resumed stream ends it with AbortedError, not another attempt", async () => {
    let resumed!: (res: ServerResponse) => void;
    const resubscribed = new Promise<ServerResponse>((r) => (resumed = r));
    serve(binding, {
      ...dropOnce("cut"),
      subscribe: (c, r) => {
        r.stream([snapshotEvent("WORKING")], { then: "hold" });
        resumed(c.res);
      },
    });
    const timers = trackTimers(SRC);
    try {
      const controller = new AbortController();
      const items: StreamResponse[] = [];
      let error: unknown;
      const run = (async () => {
        try {
          for await (const e of clientOf(binding).sendStreamingMessage(
            { message: userMessage("go") },
            { signal: controller.signal, resume: FAST },
          )) {
            items.push(e);
            if (isResumeSnapshot(e)) controller.abort();
          }
        } catch (e) {
          error = e;
        }
      })();
      const res = await within(resubscribed, 2000, "the resubscribe");
      await within(run, 2000, "the end of the stream");
      expect(error).toBeInstanceOf(AbortedError);
      expect(kinds()).toEqual(["send", "get", "subscribe"]);
      await within(closed(res), 2000, "server-side close after the abort");
      expect(await timers.live()).toEqual([]);
    } finally {
      timers.stop();
    }
  });

  /** Reads the first stream's three events by hand, and asks for the next, which the drop leaves pending. */
  async function pendingAfterDrop(binding: HttpBinding, resume: ResumeOptions) {
    const it = clientOf(binding)
      .sendStreamingMessage({ message: userMessage("go") }, { resume })
      [Symbol.asyncIterator]();
    for (let i = 0; i < 3; i++) expect((await it.next()).done).toBe(false);
    return { it, pending: it.next() };
  }

  it("a reader that returns while the resumption waits out its backoff ends it at once: no request after it, no timer", async () => {
    const timers = trackTimers(SRC);
    try {
      vi.spyOn(Math, "random").mockReturnValue(0.99);
      const backoff = recordBackoff();
      serve(binding, dropOnce("end"));
      const { it, pending } = await pendingAfterDrop(binding, { backoff: { initialMs: 10_000, maxMs: 10_000 } });
      await within(
        (async () => {
          while (backoff.length === 0) await new Promise((r) => setTimeout(r, 5));
        })(),
        2000,
        "the backoff",
      );
      await within(it.return!(), 500, "the reader's return");
      expect(await within(pending, 500, "the read left pending")).toEqual({ done: true, value: undefined });
      expect(kinds()).toEqual(["send"]);
      expect(await timers.live()).toEqual([]);
    } finally {
      timers.stop();
    }
  });

  it("a reader that returns while the resumption's GetTask goes unanswered ends it at once, and the GetTask's connection", async () => {
    let asked!: (res: ServerResponse) => void;
    const getTask = new Promise<ServerResponse>((r) => (asked = r));
    serve(binding, { ...dropOnce("end"), get: (c) => asked(c.res) });
    const { it, pending } = await pendingAfterDrop(binding, FAST);
    const res = await within(getTask, 2000, "the GetTask");
    await within(it.return!(), 500, "the reader's return");
    expect(await within(pending, 500, "the read left pending")).toEqual({ done: true, value: undefined });
    await within(closed(res), 2000, "the GetTask's connection closing");
    expect(kinds()).toEqual(["send", "get"]);
  });

  it("an already aborted signal sends nothing", async () => {
    serve(binding, dropOnce());
    const controller = new AbortController();
    controller.abort();
    const { error } = await drain(
      clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { signal: controller.signal, resume: FAST }),
    );
    expect(error).toBeInstanceOf(AbortedError);
    expect(calls).toEqual([]);
  });
});

describe.each(HTTP_BINDINGS)("a stream's own timeoutMs bounds the whole stream, resumptions included (%s)", (binding) => {
  const TIMEOUT_MS = 300;
  /** The stream's end may come this much after its timeout. */
  const MARGIN_MS = 700;

  async function timedOut(run: Promise<{ error: unknown }>): Promise<CallTimeoutError> {
    const started = performance.now();
    const { error } = await within(run, TIMEOUT_MS + 3000, "the stream ending");
    expect(error).toBeInstanceOf(CallTimeoutError);
    expect(error).toMatchObject({ kind: "deadline", binding });
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    return error as CallTimeoutError;
  }

  it("a server that drops every stream after an event of progress, before the timeout, cannot keep it open", async () => {
    const timers = trackTimers(SRC);
    try {
      serve(binding, {
        send: (_c, r) => r.stream([snapshotEvent("WORKING"), statusEvent("WORKING")], { then: "end" }),
        get: (_c, r) => r.json(task("WORKING")),
        subscribe: (_c, r) => r.stream([snapshotEvent("WORKING"), statusEvent("WORKING")], { then: "end" }),
      });
      const error = await timedOut(
        drain(clientOf(binding).sendStreamingMessage({ message: userMessage("go") }, { timeoutMs: TIMEOUT_MS, resume: FAST })),
      );
      expect(error.message).toContain(`${TIMEOUT_MS} ms`);
      // It was resumed, within the timeout.
      expect(kinds()).toContain("subscribe");
      expect(await timers.live()).toEqual([]);
    } finally {
      timers.stop();
    }
  });

  /** A stream that drops at once and would wait a minute to resume: it ends by its timeout, with no request after the first. */
  async function endsByTimeoutDuringBackoff(): Promise<void> {
    serve(binding, { subscribe: (_c, r) => r.stream([snapshotEvent("WORKING")], { then: "end" }) });
    await timedOut(
      drain(
        clientOf(binding).subscribeToTask(
          { id: "t1" },
          { timeoutMs: TIMEOUT_MS, resume: { backoff: { initialMs: 60_000, maxMs: 60_000 }, maxElapsedMs: 120_000 } },
        ),
      ),
    );
    expect(kinds()).toEqual(["subscribe"]);
  }

  it("a backoff longer than what is left ends with the timeout, and sends nothing after it", async () => {
    const timers = trackTimers(SRC);
    try {
      await endsByTimeoutDuringBackoff();
      expect(await timers.live()).toEqual([]);
    } finally {
      timers.stop();
    }
  });

  it("a backoff the timeout cuts ends the stream even when its timer fires before the deadline's clock has run out", async () => {
    // Node starts a timer from the event loop's cached time, which a busy loop leaves behind: the
    // wait then ends a few ms early by performance.now(). Here every wait the client makes of
    // more than 20 ms ends 10 ms early.
    const real = globalThis.setTimeout;
    const early = vi
      .spyOn(globalThis, "setTimeout")
      .mockImplementation(((fn: () => void, ms?: number, ...rest: unknown[]) =>
        real(fn, ms !== undefined && ms > 20 ? ms - 10 : ms, ...rest)) as typeof setTimeout);
    try {
      await endsByTimeoutDuringBackoff();
    } finally {
      early.mockRestore();
    }
  });

  it("a GetTask that never answers gets only what is left, and its connection is closed", async () => {
    const timers = trackTimers(SRC);
    try {
      let getTask: ServerResponse | undefined;
      serve(binding, {
        subscribe: (_c, r) => r.stream([snapshotEvent("WORKING")], { then: "end" }),
        get: (c) => {
          getTask = c.res;
        },
      });
      await timedOut(drain(clientOf(binding).subscribeToTask({ id: "t1" }, { timeoutMs: TIMEOUT_MS, resume: FAST })));
      expect(kinds()).toEqual(["subscribe", "get"]);
      await within(closed(getTask!), 2000, "the GetTask's connection closing");
      expect(await timers.live()).toEqual([]);
    } finally {
      timers.stop();
    }
  });
});
