/**
 * The push notification receiver: every answer it gives, the constant-time
 * comparison, and a task view that redeliveries and late events cannot
 * corrupt.
 */
import { create, toBinary, toJson, type JsonValue } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import { createServer } from "node:http";
import * as net from "node:net";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import {
  StreamResponseSchema,
  TaskSchema,
  TaskState,
  InvalidParamsError,
  constantTimeEqual,
  createPushReceiver,
  text,
  textOf,
  type StreamResponse,
  type Task,
} from "../../../src/index.js";
import { createNodePushHandler } from "../../../src/node.js";
import { within } from "../../support/fake-server.js";

const URL_ = "http://127.0.0.1/webhook";
const TOKEN = "tok-0123456789";

function json(event: StreamResponse): string {
  return JSON.stringify(toJson(StreamResponseSchema, event));
}

function post(body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}): Request {
  return new Request(URL_, {
    method: "POST",
    headers: { "Content-Type": "application/a2a+json", "X-A2A-Notification-Token": TOKEN, ...headers },
    body,
  });
}

function snapshot(id: string, state: TaskState, ms: number): StreamResponse {
  return create(StreamResponseSchema, {
    payload: { case: "task", value: create(TaskSchema, { id, contextId: "c", status: { state, timestamp: timestampFromMs(ms) } }) },
  });
}

function status(id: string, state: TaskState, ms?: number): StreamResponse {
  return create(StreamResponseSchema, {
    payload: {
      case: "statusUpdate",
      value: { taskId: id, contextId: "c", status: { state, timestamp: ms === undefined ? undefined : timestampFromMs(ms) } },
    },
  });
}

function chunk(id: string, part: string, append: boolean): StreamResponse {
  return create(StreamResponseSchema, {
    payload: {
      case: "artifactUpdate",
      value: { taskId: id, contextId: "c", append, artifact: { artifactId: "result", parts: [text(part)] } },
    },
  });
}

describe("answers", () => {
  const valid = json(status("t1", TaskState.WORKING, 1000));

  it("204 for a valid payload, with application/a2a+json or application/json", async () => {
    const receiver = createPushReceiver({ token: TOKEN });
    const a = await receiver.handle(post(valid));
    expect(a.status).toBe(204);
    expect(await a.text()).toBe("");
    const b = await receiver.handle(post(valid, { "Content-Type": "application/json; charset=utf-8" }));
    expect(b.status).toBe(204);
    expect(receiver.task("t1")?.status?.state).toBe(TaskState.WORKING);
  });

  it("405 for anything but POST", async () => {
    const receiver = createPushReceiver();
    for (const method of ["GET", "PUT", "DELETE"]) {
      const res = await receiver.handle(new Request(URL_, { method, body: method === "GET" ? null : valid }));
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
  });

  it("401 for a missing or wrong token, without echoing either", async () => {
    const receiver = createPushReceiver({ token: TOKEN });
    const missing = new Request(URL_, { method: "POST", headers: { "Content-Type": "application/json" }, body: valid });
    expect((await receiver.handle(missing)).status).toBe(401);
    for (const wrong of ["nope", `${TOKEN}x`, TOKEN.slice(0, -1), "", TOKEN.toUpperCase()]) {
      const res = await receiver.handle(post(valid, { "X-A2A-Notification-Token": wrong }));
      expect(res.status).toBe(401);
      const body = await res.text();
      expect(body).not.toContain(TOKEN);
      if (wrong) expect(body).not.toContain(wrong);
    }
    expect(receiver.taskIds()).toEqual([]);
  });

  it("401 when authentication fails; the callback sees the Authorization header", async () => {
    const seen: (string | null)[] = [];
    const receiver = createPushReceiver({
      authenticate: (authorization) => {
        seen.push(authorization);
        return constantTimeEqual(authorization ?? "", "Bearer s3cret");
      },
    });
    expect((await receiver.handle(post(valid, { Authorization: "Bearer s3cret" }))).status).toBe(204);
    const bad = await receiver.handle(post(valid, { Authorization: "Bearer wrong" }));
    expect(bad.status).toBe(401);
    expect(await bad.text()).not.toContain("wrong");
    expect((await receiver.handle(post(valid))).status).toBe(401);
    expect(seen).toEqual(["Bearer s3cret", "Bearer wrong", null]);
  });

  it("401 unless both the token and the authentication pass, when both are configured", async () => {
    const receiver = createPushReceiver({ token: TOKEN, authenticate: async (a) => a === "Basic abc" });
    expect((await receiver.handle(post(valid, { Authorization: "Basic abc" }))).status).toBe(204);
    expect((await receiver.handle(post(valid))).status).toBe(401);
    expect((await receiver.handle(post(valid, { Authorization: "Basic abc", "X-A2A-Notification-Token": "x" }))).status).toBe(401);
  });

  it("takes the token from A2A-Notification-Token too (a2a-go 2.3.1's name); two different tokens are none", async () => {
    const receiver = createPushReceiver({ token: TOKEN });
    const only = (headers: Record<string, string>) =>
      new Request(URL_, { method: "POST", headers: { "Content-Type": "application/a2a+json", ...headers }, body: valid });
    expect((await receiver.handle(only({ "A2A-Notification-Token": TOKEN }))).status).toBe(204);
    expect((await receiver.handle(only({ "A2A-Notification-Token": "wrong" }))).status).toBe(401);
    expect((await receiver.handle(only({ "A2A-Notification-Token": TOKEN, "X-A2A-Notification-Token": TOKEN }))).status).toBe(204);
    expect((await receiver.handle(only({ "A2A-Notification-Token": TOKEN, "X-A2A-Notification-Token": "other" }))).status).toBe(401);
    expect((await receiver.handle(only({ "A2A-Notification-Token": "other", "X-A2A-Notification-Token": TOKEN }))).status).toBe(401);
  });

  it("reads an A2A 0.3 agent's delivery, its task in 0.3's shape (0.3 section 9.5, as @a2a-js/sdk 0.3.x sends it)", async () => {
    const receiver = createPushReceiver({ token: TOKEN });
    const task03 = {
      kind: "task",
      id: "t03",
      contextId: "c",
      status: { state: "completed", timestamp: "2026-12-03T10:00:00Z" },
      artifacts: [{ artifactId: "a", parts: [{ kind: "text", text: "done" }] }],
    };
    expect((await receiver.handle(post(JSON.stringify(task03)))).status).toBe(204);
    expect(receiver.task("t03")?.status?.state).toBe(TaskState.COMPLETED);
    expect(receiver.task("t03")?.artifacts[0]?.parts[0]?.content).toEqual({ case: "text", value: "done" });
    const update03 = { kind: "status-update", taskId: "t04", contextId: "c", status: { state: "working" }, final: false };
    expect((await receiver.handle(post(JSON.stringify(update03)))).status).toBe(204);
    expect(receiver.task("t04")?.status?.state).toBe(TaskState.WORKING);
    // Of another kind, or malformed: refused as any payload that is not an event.
    expect((await receiver.handle(post(JSON.stringify({ kind: "report", id: "x" })))).status).toBe(400);
  });

  it("checks the credentials before the body is read", async () => {
    const receiver = createPushReceiver({ token: TOKEN, maxBytes: 10 });
    const res = await receiver.handle(post("x".repeat(100), { "X-A2A-Notification-Token": "bad", "Content-Type": "text/plain" }));
    expect(res.status).toBe(401);
  });

  it("415 for other content types", async () => {
    const receiver = createPushReceiver({ token: TOKEN });
    for (const type of ["text/plain", "application/xml", "application/jsonp", "multipart/form-data"]) {
      expect((await receiver.handle(post(valid, { "Content-Type": type }))).status).toBe(415);
    }
    const none = new Request(URL_, { method: "POST", headers: { "X-A2A-Notification-Token": TOKEN }, body: new Uint8Array([123, 125]) });
    expect((await receiver.handle(none)).status).toBe(415);
  });

  it("413 over maxBytes, whether declared or streamed", async () => {
    const receiver = createPushReceiver({ maxBytes: 64 });
    const big = JSON.stringify({ statusUpdate: { taskId: "t".repeat(100), contextId: "c", status: { state: "TASK_STATE_WORKING" } } });
    expect((await receiver.handle(post(big, { "Content-Length": String(big.length) }))).status).toBe(413);
    // No length given: the limit holds while reading.
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 10; i++) c.enqueue(new TextEncoder().encode("x".repeat(20)));
        c.close();
      },
    });
    const streamed = new Request(URL_, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect((await receiver.handle(streamed)).status).toBe(413);
    // Exactly at the limit is fine.
    const atLimit = json(status("t", TaskState.WORKING));
    const fits = createPushReceiver({ maxBytes: new TextEncoder().encode(atLimit).length });
    expect((await fits.handle(post(atLimit))).status).toBe(204);
  });

  it("408 for a body that stops coming before it is whole, within bodyTimeoutMs; the body is let go", async () => {
    const receiver = createPushReceiver({ bodyTimeoutMs: 50 });
    let cancelled = false;
    // Half a delivery, then nothing: a sender that never finishes sending.
    const stalled = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode(valid.slice(0, 10)));
      },
      cancel() {
        cancelled = true;
      },
    });
    const request = new Request(URL_, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: stalled,
      duplex: "half",
    } as RequestInit);
    const started = performance.now();
    const res = await within(receiver.handle(request), 2000, "the answer");
    expect(res.status).toBe(408);
    expect(await res.text()).toContain("50 ms");
    expect(performance.now() - started).toBeLessThan(1000);
    expect(cancelled).toBe(true);
    // A body that comes whole in time is unaffected.
    expect((await receiver.handle(post(valid))).status).toBe(204);
  });

  it("through node:http: a sender that stalls mid-body is answered 408 and its connection closed", async () => {
    const server = createServer(createNodePushHandler({ bodyTimeoutMs: 50 }));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const socket = net.connect((server.address() as AddressInfo).port, "127.0.0.1");
    try {
      let answer = "";
      socket.on("data", (c: Buffer) => (answer += c.toString("latin1")));
      const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
      socket.write(`POST /hook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"statusUpdate":`);
      await within(ended, 2000, "the connection closing");
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("defaults maxBytes to 1 MiB", async () => {
    const receiver = createPushReceiver();
    const pad = "x".repeat(1024 * 1024);
    const over = JSON.stringify({ statusUpdate: { taskId: "t", contextId: pad, status: { state: "TASK_STATE_WORKING" } } });
    expect((await receiver.handle(post(over))).status).toBe(413);
    const under = JSON.stringify({ statusUpdate: { taskId: "t", contextId: pad.slice(0, 1000), status: {} } });
    expect((await receiver.handle(post(under))).status).toBe(204);
  });

  it("400 for malformed JSON and for payloads that are not a StreamResponse", async () => {
    const receiver = createPushReceiver();
    const bad = [
      "{",
      "",
      "null",
      "[]",
      '"task"',
      "{}", // no payload
      '{"statusUpdate": 5}',
      '{"task": {"id": 7}}',
      '{"statusUpdate": {"taskId": ["t"]}}',
      '{"artifactUpdate": {"taskId": "t", "append": "yes"}}',
      '{"task": {"id": "a"}, "message": {"messageId": "m"}}', // two cases of the oneof
      // REQUIRED fields absent, as a stream event may not lack them either.
      '{"statusUpdate": {"contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}}',
      '{"statusUpdate": {"taskId": "t", "contextId": "c"}}',
      '{"task": {"id": "t", "contextId": "c"}}',
      '{"task": {"contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}}',
      '{"artifactUpdate": {"taskId": "t", "contextId": "c"}}',
      '{"artifactUpdate": {"taskId": "t", "contextId": "c", "artifact": {"parts": [{"text": "x"}]}}}',
      '{"message": {"role": "ROLE_AGENT", "parts": [{"text": "x"}]}}',
      new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), // not UTF-8
    ];
    for (const body of bad) {
      const res = await receiver.handle(post(body));
      expect(res.status, String(body)).toBe(400);
      expect(await res.text()).not.toContain("yes");
    }
    expect(receiver.taskIds()).toEqual([]);
    const lacking = await receiver.handle(post('{"statusUpdate": {"contextId": "c-secret", "status": {}}}'));
    expect(await lacking.text()).toBe('not a StreamResponse: it lacks the REQUIRED field "statusUpdate.taskId"');
  });

  it("ignores unknown fields and enum values (a newer agent)", async () => {
    const receiver = createPushReceiver();
    const body = JSON.stringify({
      statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" }, future: 1 },
      also: true,
    });
    expect((await receiver.handle(post(body))).status).toBe(204);
    const state = JSON.stringify({ statusUpdate: { taskId: "u", contextId: "c", status: { state: "TASK_STATE_NEW_IN_2027" } } });
    expect((await receiver.handle(post(state))).status).toBe(204);
  });

  it("500 when onEvent throws, without its message", async () => {
    const receiver = createPushReceiver({
      onEvent: () => {
        throw new Error("secret detail");
      },
    });
    const res = await receiver.handle(post(valid));
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain("secret");
  });
});

describe("constantTimeEqual", () => {
  it("is string equality", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (a, b) => {
        expect(constantTimeEqual(a, b)).toBe(a === b);
        expect(constantTimeEqual(a, a)).toBe(true);
      }),
    );
  });

  it("tells apart prefixes, NUL padding and multi-byte characters", () => {
    expect(constantTimeEqual("", "")).toBe(true);
    expect(constantTimeEqual("abc", "abc\0")).toBe(false);
    expect(constantTimeEqual("abc", "ab")).toBe(false);
    expect(constantTimeEqual("", "\0")).toBe(false);
    expect(constantTimeEqual("é", "e\u0301")).toBe(false);
    expect(constantTimeEqual("中𝄞", "中𝄞")).toBe(true);
    expect(constantTimeEqual("中𝄞", "中𝄟")).toBe(false);
  });
});

describe("the task view", () => {
  async function deliver(receiver: ReturnType<typeof createPushReceiver>, ...events: StreamResponse[]): Promise<void> {
    for (const e of events) expect((await receiver.handle(post(json(e)))).status).toBe(204);
  }

  it("folds a task's events and passes each new one to onEvent with the view", async () => {
    const calls: [string | undefined, TaskState | undefined][] = [];
    const receiver = createPushReceiver({ onEvent: (e, t) => void calls.push([e.payload.case, t?.status?.state]) });
    await deliver(
      receiver,
      snapshot("t1", TaskState.SUBMITTED, 1000),
      status("t1", TaskState.WORKING, 1001),
      chunk("t1", "a", false),
      chunk("t1", "b", true),
      status("t1", TaskState.COMPLETED, 1002),
    );
    const task = receiver.task("t1")!;
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(textOf(task, ",")).toBe("a,b");
    expect(calls).toEqual([
      ["task", TaskState.SUBMITTED],
      ["statusUpdate", TaskState.WORKING],
      ["artifactUpdate", TaskState.WORKING],
      ["artifactUpdate", TaskState.WORKING],
      ["statusUpdate", TaskState.COMPLETED],
    ]);
  });

  it("applies a redelivered event once and does not report it again", async () => {
    let events = 0;
    const receiver = createPushReceiver({ onEvent: () => void events++ });
    await deliver(
      receiver,
      snapshot("t1", TaskState.WORKING, 1000),
      chunk("t1", "a", false),
      chunk("t1", "b", true),
      chunk("t1", "b", true),
      chunk("t1", "a", false),
      chunk("t1", "b", true),
      status("t1", TaskState.COMPLETED, 2000),
      status("t1", TaskState.COMPLETED, 2000),
    );
    // A late copy of the replacing first chunk must not drop the appended one.
    expect(textOf(receiver.task("t1")!, ",")).toBe("a,b");
    expect(receiver.task("t1")!.status?.state).toBe(TaskState.COMPLETED);
    expect(events).toBe(4);
  });

  it("keeps every chunk of a task delivered twice over in full", async () => {
    const receiver = createPushReceiver();
    const seq = [
      snapshot("t1", TaskState.WORKING, 1000),
      chunk("t1", "a", false),
      chunk("t1", "b", true),
      chunk("t1", "c", true),
      status("t1", TaskState.COMPLETED, 2000),
    ];
    for (const e of seq) await deliver(receiver, e, e);
    expect(textOf(receiver.task("t1")!, ",")).toBe("a,b,c");
  });

  it("a final state stays final: a late WORKING status or snapshot does not undo COMPLETED", async () => {
    const receiver = createPushReceiver();
    await deliver(
      receiver,
      snapshot("t1", TaskState.SUBMITTED, 1000),
      chunk("t1", "a", false),
      status("t1", TaskState.COMPLETED, 3000),
      status("t1", TaskState.WORKING, 2000),
      status("t1", TaskState.WORKING), // no timestamp at all
      snapshot("t1", TaskState.WORKING, 2500),
    );
    const task = receiver.task("t1")!;
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(textOf(task)).toBe("a");
  });

  it("a stale snapshot or status does not roll the view back", async () => {
    const receiver = createPushReceiver();
    await deliver(
      receiver,
      status("t1", TaskState.WORKING, 2000),
      chunk("t1", "a", false),
      chunk("t1", "b", true),
      status("t1", TaskState.INPUT_REQUIRED, 3000),
      snapshot("t1", TaskState.SUBMITTED, 1000), // the first event, arriving last
      status("t1", TaskState.WORKING, 2000), // redelivered late
    );
    const task = receiver.task("t1")!;
    expect(task.status?.state).toBe(TaskState.INPUT_REQUIRED);
    expect(textOf(task, ",")).toBe("a,b");
  });

  it("keeps tasks apart, and a message without a task reaches onEvent with no view", async () => {
    const seen: (Task | undefined)[] = [];
    const receiver = createPushReceiver({ onEvent: (_e, t) => void seen.push(t) });
    await deliver(receiver, chunk("t1", "one", false), chunk("t2", "two", false));
    await deliver(receiver, create(StreamResponseSchema, { payload: { case: "message", value: { messageId: "m", parts: [text("hi")] } } }));
    expect(textOf(receiver.task("t1")!)).toBe("one");
    expect(textOf(receiver.task("t2")!)).toBe("two");
    expect(seen.at(-1)).toBeUndefined();
    expect(receiver.taskIds()).toEqual(["t1", "t2"]);
  });

  it("returns copies: changing one does not change the view", async () => {
    const receiver = createPushReceiver();
    await deliver(receiver, chunk("t1", "a", false));
    receiver.task("t1")!.artifacts.length = 0;
    expect(textOf(receiver.task("t1")!)).toBe("a");
  });

  it("keeps at most maxTasks views, dropping the least recently updated", async () => {
    const receiver = createPushReceiver({ maxTasks: 3 });
    for (const id of ["a", "b", "c"]) await deliver(receiver, status(id, TaskState.WORKING, 1000));
    await deliver(receiver, status("a", TaskState.WORKING, 1001)); // "a" is now the most recent
    await deliver(receiver, status("d", TaskState.WORKING, 1000));
    expect(receiver.taskIds()).toEqual(["c", "a", "d"]);
    expect(receiver.task("b")).toBeUndefined();
    expect(receiver.task("a")?.status?.state).toBe(TaskState.WORKING);
    receiver.forget("c");
    expect(receiver.taskIds()).toEqual(["a", "d"]);
    for (let i = 0; i < 50; i++) await deliver(receiver, status(`x${i}`, TaskState.WORKING, 1000));
    expect(receiver.taskIds()).toHaveLength(3);
  });

  it("accepts the ProtoJSON the official SDK sends (enum names, camelCase, RFC 3339 times)", async () => {
    const receiver = createPushReceiver();
    const body: JsonValue = {
      statusUpdate: {
        taskId: "t9",
        contextId: "c9",
        status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-01-01T00:00:00.000Z" },
        metadata: {},
      },
    };
    expect((await receiver.handle(post(JSON.stringify(body)))).status).toBe(204);
    expect(receiver.task("t9")?.status?.state).toBe(TaskState.COMPLETED);
  });
});

describe("the task view is bounded", () => {
  const send = (receiver: ReturnType<typeof createPushReceiver>, e: StreamResponse) => receiver.handle(post(json(e)));
  const viewBytes = (t: Task | undefined) => (t === undefined ? 0 : toBinary(TaskSchema, t).length);

  it("200 appended chunks of 60 KB: refused with 413 past maxTaskBytes (default 2 MiB), the view stays within it", async () => {
    const events: string[] = [];
    const receiver = createPushReceiver({ onEvent: (e) => void events.push(e.payload.case ?? "") });
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) statuses.push((await send(receiver, chunk("t", `${i}:${"x".repeat(60_000)}`, i > 0))).status);
    const accepted = statuses.filter((s) => s === 204).length;
    expect(accepted).toBeGreaterThan(20);
    expect(accepted).toBeLessThan(40);
    expect(statuses.slice(accepted).every((s) => s === 413)).toBe(true);
    expect(events).toHaveLength(accepted);
    expect(viewBytes(receiver.task("t"))).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(receiver.task("t")!.artifacts[0]!.parts).toHaveLength(accepted);
    const refused = await send(receiver, chunk("t", "x".repeat(60_000), true));
    expect(refused.status).toBe(413);
    expect(await refused.text()).toMatch(/maxTaskBytes/);
  });

  it("a snapshot within the limit starts the view afresh; replacing chunks do not count twice", async () => {
    const receiver = createPushReceiver({ maxTaskBytes: 100_000 });
    for (let i = 0; i < 30; i++) expect((await send(receiver, chunk("t", `${i}${"r".repeat(20_000)}`, false))).status).toBe(204);
    expect(viewBytes(receiver.task("t"))).toBeLessThan(25_000);
    for (let i = 0; i < 4; i++) await send(receiver, chunk("t", `${i}${"a".repeat(20_000)}`, true));
    expect((await send(receiver, chunk("t", "a".repeat(20_000), true))).status).toBe(413);
    expect((await send(receiver, snapshot("t", TaskState.WORKING, 5000))).status).toBe(204);
    expect(receiver.task("t")!.artifacts).toHaveLength(0);
    expect((await send(receiver, chunk("t", "a".repeat(20_000), true))).status).toBe(204);
  });

  it("many tiny parts are bounded by maxTaskItems", async () => {
    const receiver = createPushReceiver({ maxTaskItems: 100 });
    const statuses: number[] = [];
    for (let i = 0; i < 150; i++) statuses.push((await send(receiver, chunk("t", `${i}`, true))).status);
    expect(statuses.filter((s) => s === 204).length).toBeGreaterThan(40);
    expect(statuses.at(-1)).toBe(413);
    const t = receiver.task("t")!;
    expect(t.artifacts.length + t.artifacts.reduce((n, a) => n + a.parts.length, 0) + t.history.length).toBeLessThanOrEqual(100);
  });

  it("all views together stay within maxTotalBytes: the least recently updated go first", async () => {
    const receiver = createPushReceiver({ maxTotalBytes: 250_000 });
    for (const id of ["a", "b", "c", "d", "e"]) expect((await send(receiver, chunk(id, "z".repeat(60_000), false))).status).toBe(204);
    expect(receiver.taskIds()).toEqual(["b", "c", "d", "e"]);
    const total = receiver.taskIds().reduce((n, id) => n + viewBytes(receiver.task(id)), 0);
    expect(total).toBeLessThanOrEqual(250_000);
    receiver.forget("b");
    await send(receiver, chunk("f", "z".repeat(60_000), false));
    expect(receiver.taskIds()).toEqual(["c", "d", "e", "f"]);
  });

  it("concurrent deliveries whose views are dropped while in flight leave the whole budget to the views kept", async () => {
    const receiver = createPushReceiver({ maxTasks: 2, maxTotalBytes: 250_000 });
    // Twenty at once: maxTasks drops views whose own delivery is still under way.
    const first = await Promise.all(Array.from({ length: 20 }, (_, i) => send(receiver, chunk(`x${i}`, "z".repeat(30_000), false))));
    expect(first.map((r) => r.status)).toEqual(Array(20).fill(204));
    expect(receiver.taskIds()).toHaveLength(2);
    for (const id of receiver.taskIds()) expect(textOf(receiver.task(id)!)).toHaveLength(30_000);
    for (const id of receiver.taskIds()) receiver.forget(id);
    // Two views of 1 KB fit in 250 KB: neither may be dropped for bytes no view holds.
    for (const id of ["a", "b"]) expect((await send(receiver, chunk(id, "z".repeat(1000), false))).status).toBe(204);
    expect(receiver.taskIds()).toEqual(["a", "b"]);
  });
});

describe("options", () => {
  it("a limit that is not a positive number, or an empty token, is an InvalidParamsError naming the option", () => {
    for (const option of ["maxBytes", "maxTasks", "maxTaskBytes", "maxTaskItems", "maxTotalBytes"]) {
      // NaN is what Number(process.env.UNSET) gives: it used to lift the limit altogether.
      for (const bad of [Number.NaN, 0, -1, Number.POSITIVE_INFINITY, "1024"]) {
        expect(() => createPushReceiver({ [option]: bad })).toThrow(InvalidParamsError);
        expect(() => createPushReceiver({ [option]: bad })).toThrow(new RegExp(`createPushReceiver: ${option} must be`));
      }
      expect(() => createPushReceiver({ [option]: 10 })).not.toThrow();
    }
    // bodyTimeoutMs: 0 is documented as no limit; what is not a duration is refused.
    for (const bad of [Number.NaN, -1, "1024"]) {
      expect(() => createPushReceiver({ bodyTimeoutMs: bad as number })).toThrow(/createPushReceiver: bodyTimeoutMs must be/);
    }
    for (const good of [0, 10, Number.POSITIVE_INFINITY]) expect(() => createPushReceiver({ bodyTimeoutMs: good })).not.toThrow();
    expect(() => createPushReceiver({ token: "" })).toThrow(/createPushReceiver: token must be a non-empty string/);
    expect(() => createPushReceiver({ token: 1234 as unknown as string })).toThrow(InvalidParamsError);
    expect(() => createPushReceiver({ authenticate: "Bearer x" as never })).toThrow(/createPushReceiver: authenticate must be a function/);
  });

  it("many tiny distinct events on many tasks: their digests count against maxTotalBytes, not only the views", async () => {
    const receiver = createPushReceiver({ maxTotalBytes: 64 * 1024 });
    const send = (r: ReturnType<typeof createPushReceiver>, e: StreamResponse) => r.handle(post(json(e)));
    for (let t = 0; t < 100; t++) {
      for (let i = 0; i < 10; i++) expect((await send(receiver, status(`t${t}`, TaskState.WORKING, 1000 + i))).status).toBe(204);
    }
    // A view of ten statuses is a few hundred bytes; its ten digests are about 1.3 KB more: some 40 tasks fit, not 100.
    const ids = receiver.taskIds();
    expect(ids.length).toBeLessThan(60);
    expect(ids.at(-1)).toBe("t99");
    expect(receiver.task("t99")?.status?.state).toBe(TaskState.WORKING);
  });
});

describe("the task view bound cannot be reset by a snapshot the view passes over", () => {
  it("after a final state, stale snapshots do not reset the count: appended chunks are still refused", async () => {
    const receiver = createPushReceiver({ maxTaskBytes: 100_000 });
    const send = (e: StreamResponse) => receiver.handle(post(json(e)));
    // Final by a status update: chunks delivered after it may be late but new, and are applied
    // (after a final snapshot they are already in it, and are not).
    expect((await send(snapshot("t", TaskState.WORKING, 500))).status).toBe(204);
    expect((await send(status("t", TaskState.COMPLETED, 1000))).status).toBe(204);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      statuses.push((await send(snapshot("t", TaskState.WORKING, 2000 + i))).status);
      statuses.push((await send(chunk("t", `${i}${"a".repeat(20_000)}`, true))).status);
    }
    expect(statuses).toContain(413);
    expect(toBinary(TaskSchema, receiver.task("t")!).length).toBeLessThanOrEqual(100_000);
    expect(receiver.task("t")!.status?.state).toBe(TaskState.COMPLETED);
  });
});

describe("views by sender: the identity authenticate returns", () => {
  const SENDERS: Record<string, string | boolean> = { "Bearer a": "alice", "Bearer b": "bob", "Bearer s": true, "Bearer e": "" };
  const from = (authorization: string, e: StreamResponse) => post(json(e), { Authorization: authorization });
  function receiverOf(events: Array<[string | undefined, string | undefined]> = []) {
    return createPushReceiver({
      authenticate: (authorization) => SENDERS[authorization ?? ""] ?? false,
      onEvent: (_e, task, sender) => void events.push([sender, task ? textOf(task) : undefined]),
    });
  }

  it("two senders, one task id, different content: each reads its own view, also of the same event delivered by both", async () => {
    const events: Array<[string | undefined, string | undefined]> = [];
    const receiver = receiverOf(events);
    expect((await receiver.handle(from("Bearer a", status("t1", TaskState.WORKING, 1000)))).status).toBe(204);
    expect((await receiver.handle(from("Bearer a", chunk("t1", "alice's", false)))).status).toBe(204);
    expect((await receiver.handle(from("Bearer b", chunk("t1", "bob's", false)))).status).toBe(204);
    expect((await receiver.handle(from("Bearer b", status("t1", TaskState.COMPLETED, 2000)))).status).toBe(204);
    // The same bytes from the other sender are not a redelivery: each view takes them.
    expect((await receiver.handle(from("Bearer a", chunk("t1", " and more", true)))).status).toBe(204);
    expect((await receiver.handle(from("Bearer b", chunk("t1", " and more", true)))).status).toBe(204);

    expect(receiver.task("t1", "alice")?.status?.state).toBe(TaskState.WORKING);
    expect(textOf(receiver.task("t1", "alice")!)).toBe("alice's and more");
    expect(receiver.task("t1", "bob")?.status?.state).toBe(TaskState.COMPLETED);
    expect(textOf(receiver.task("t1", "bob")!)).toBe("bob's and more");
    expect(receiver.task("t1")).toBeUndefined();
    expect(receiver.taskIds("alice")).toEqual(["t1"]);
    expect(receiver.taskIds("bob")).toEqual(["t1"]);
    expect(receiver.taskIds()).toEqual([]);
    expect(events.map(([sender]) => sender)).toEqual(["alice", "alice", "bob", "bob", "alice", "bob"]);
    expect(events.at(-2)).toEqual(["alice", "alice's and more"]);

    receiver.forget("t1", "bob");
    expect(receiver.task("t1", "bob")).toBeUndefined();
    expect(textOf(receiver.task("t1", "alice")!)).toBe("alice's and more");
  });

  it("true is the shared identity, read without one as before, apart from a named sender's", async () => {
    const events: Array<[string | undefined, string | undefined]> = [];
    const receiver = receiverOf(events);
    expect((await receiver.handle(from("Bearer s", chunk("t1", "shared", false)))).status).toBe(204);
    expect((await receiver.handle(from("Bearer a", chunk("t1", "alice's", false)))).status).toBe(204);
    expect(textOf(receiver.task("t1")!)).toBe("shared");
    expect(textOf(receiver.task("t1", "alice")!)).toBe("alice's");
    expect(receiver.taskIds()).toEqual(["t1"]);
    expect(events).toEqual([
      [undefined, "shared"],
      ["alice", "alice's"],
    ]);
  });

  it("a refused sender (false, or an empty identity) is answered 401 and changes nothing", async () => {
    const events: Array<[string | undefined, string | undefined]> = [];
    const receiver = receiverOf(events);
    expect((await receiver.handle(from("Bearer a", chunk("t1", "alice's", false)))).status).toBe(204);
    for (const authorization of ["Bearer e", "Bearer nobody"]) {
      expect((await receiver.handle(from(authorization, chunk("t1", "intruder's", false)))).status).toBe(401);
      expect((await receiver.handle(from(authorization, snapshot("t1", TaskState.FAILED, 5000)))).status).toBe(401);
    }
    expect(textOf(receiver.task("t1", "alice")!)).toBe("alice's");
    expect(receiver.task("t1", "alice")?.status?.state).not.toBe(TaskState.FAILED);
    expect(receiver.task("t1")).toBeUndefined();
    expect(receiver.taskIds()).toEqual([]);
    expect(events).toEqual([["alice", "alice's"]]);
  });
});
