/**
 * The A2A 0.3 JSON-RPC transport against a fake server: the 0.3 requests
 * that 1.0 calls become, and the 1.0 messages that 0.3 results become.
 */
import { toJson } from "@bufbuild/protobuf";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  A2AClient,
  type A2AError,
  AgentCardSchema,
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  InvalidAgentResponseError,
  InvalidParamsError,
  MessageSchema,
  ProtocolError,
  PushNotificationNotSupportedError,
  Role,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskNotCancelableError,
  TaskNotFoundError,
  TaskPushNotificationConfigSchema,
  TaskSchema,
  TaskState,
  UnsupportedOperationError,
  data,
  fileBytes,
  fileUrl,
  text,
  userMessage,
  type HttpTransportOptions,
  type Task,
} from "../../../src/index.js";
import { createJsonRpcTransportV03 } from "../../../src/bindings/jsonrpc/v0_3.js";
import { V03_KIT } from "../../../src/bindings/v0_3-kit.js";
import { GENERATED_JSON, onNodeHttp } from "../../../src/node-runtime.js";
import { timestampV1 } from "../../../src/bindings/jsonrpc/v0_3-shapes.js";
import { collect } from "../../support/bindings.js";
import { sendJson, sseFrame, startFakeServer, startSse, type FakeHandler, type FakeServer } from "../../support/fake-server.js";
import { failure } from "../../support/failure.js";

let srv: FakeServer;
beforeEach(async () => {
  srv = await startFakeServer();
});
afterEach(() => srv.close());

function client(options: Partial<HttpTransportOptions> = {}): A2AClient {
  return new A2AClient(createJsonRpcTransportV03(V03_KIT, onNodeHttp({ baseUrl: srv.url, ...options }), GENERATED_JSON));
}

interface RpcRequest {
  jsonrpc: string;
  id: number;
  method: string;
  params?: unknown;
}

function rpc(body: string): RpcRequest {
  return JSON.parse(body) as RpcRequest;
}

/** The JSON-RPC request the client sent (the only one, unless `i` says otherwise). */
function sent(i = 0): RpcRequest {
  expect(srv.requests.length).toBeGreaterThan(i);
  return rpc(srv.requests[i]!.body);
}

/** Answers every request with `result` in a 0.3 JSON-RPC response. */
function answer(result: unknown): FakeHandler {
  return (_req, res, body) => sendJson(res, 200, { jsonrpc: "2.0", id: rpc(body).id, result });
}

/** Answers with an SSE stream of 0.3 responses, one per result. */
function stream(results: unknown[]): FakeHandler {
  return (_req, res, body) => {
    startSse(res);
    for (const result of results) res.write(sseFrame({ jsonrpc: "2.0", id: rpc(body).id, result }));
    res.end();
  };
}

function failWith(code: number, message = "nope"): FakeHandler {
  return (_req, res, body) => sendJson(res, 200, { jsonrpc: "2.0", id: rpc(body).id, error: { code, message } });
}

const TASK_03 = { kind: "task", id: "t1", contextId: "c1", status: { state: "working" } };
/** Streams here end at a final state, so that a stream is complete as far as any client is concerned. */
const DONE_03 = { ...TASK_03, status: { state: "completed" } };

// ---------------------------------------------------------------------------

describe("requests: 1.0 calls as 0.3 JSON-RPC", () => {
  it("SendMessage becomes message/send with 0.3 parts, configuration and metadata", async () => {
    srv.handle(answer(TASK_03));
    const message = userMessage(
      [
        text("hello", { mediaType: "text/markdown", filename: "note.md" }),
        fileBytes(new Uint8Array([0, 1, 2, 250, 255]), { mediaType: "application/octet-stream", filename: "blob.bin" }),
        fileUrl("https://files.example.com/report.pdf", { mediaType: "application/pdf", filename: "report.pdf" }),
        fileUrl("https://files.example.com/bare"),
        data({ answer: 42, nested: { ok: true } }, { mediaType: "application/json" }),
      ],
      {
        messageId: "m1",
        contextId: "c1",
        taskId: "t0",
        extensions: ["urn:ext:a"],
        referenceTaskIds: ["t-old"],
      },
    );
    message.metadata = { trace: "abc" };
    message.parts[0]!.metadata = { lang: "en" };

    await client().sendMessage({
      tenant: "acme",
      message,
      configuration: {
        acceptedOutputModes: ["text/plain", "application/json"],
        historyLength: 5,
        returnImmediately: true,
        taskPushNotificationConfig: {
          tenant: "acme",
          taskId: "ignored",
          id: "cfg-1",
          url: "https://hooks.example.com/a2a",
          token: "tok",
          authentication: { scheme: "Bearer", credentials: "secret" },
        },
      },
      metadata: { requestTag: "x" },
    });

    const req = sent();
    expect(srv.requests[0]!.method).toBe("POST");
    expect(srv.requests[0]!.headers["a2a-version"]).toBe("0.3");
    expect(srv.requests[0]!.headers["content-type"]).toBe("application/json");
    expect(req.jsonrpc).toBe("2.0");
    expect(Number.isInteger(req.id)).toBe(true);
    expect(req.method).toBe("message/send");
    expect(req.params).toEqual({
      message: {
        kind: "message",
        messageId: "m1",
        contextId: "c1",
        taskId: "t0",
        role: "user",
        parts: [
          { kind: "text", text: "hello", metadata: { lang: "en" } },
          { kind: "file", file: { bytes: "AAEC+v8=", mimeType: "application/octet-stream", name: "blob.bin" } },
          { kind: "file", file: { uri: "https://files.example.com/report.pdf", mimeType: "application/pdf", name: "report.pdf" } },
          { kind: "file", file: { uri: "https://files.example.com/bare" } },
          { kind: "data", data: { answer: 42, nested: { ok: true } } },
        ],
        metadata: { trace: "abc" },
        extensions: ["urn:ext:a"],
        referenceTaskIds: ["t-old"],
      },
      configuration: {
        acceptedOutputModes: ["text/plain", "application/json"],
        blocking: false,
        historyLength: 5,
        pushNotificationConfig: {
          id: "cfg-1",
          url: "https://hooks.example.com/a2a",
          token: "tok",
          authentication: { schemes: ["Bearer"], credentials: "secret" },
        },
      },
      metadata: { requestTag: "x" },
    });
  });

  it("non-object data values go out wrapped in { value } with the compat flag", async () => {
    srv.handle(answer(TASK_03));
    const message = userMessage([data([1, "two"]), data("plain"), data(7), data(false), data(null)], { messageId: "m1" });
    message.parts[0]!.metadata = { keep: 1 };
    await client().sendMessage({ message });
    const params = sent().params as { message: { parts: unknown[] } };
    expect(params.message.parts).toEqual([
      { kind: "data", data: { value: [1, "two"] }, metadata: { keep: 1, data_part_compat: true } },
      { kind: "data", data: { value: "plain" }, metadata: { data_part_compat: true } },
      { kind: "data", data: { value: 7 }, metadata: { data_part_compat: true } },
      { kind: "data", data: { value: false }, metadata: { data_part_compat: true } },
      { kind: "data", data: { value: null }, metadata: { data_part_compat: true } },
    ]);
  });

  it("blocking is always sent, as the opposite of returnImmediately", async () => {
    srv.handle(answer(TASK_03));
    const c = client();
    await c.sendMessage({ message: userMessage("a") });
    await c.sendMessage({ message: userMessage("b"), configuration: { returnImmediately: false } });
    await c.sendMessage({ message: userMessage("c"), configuration: { returnImmediately: true, historyLength: 0 } });
    const configs = srv.requests.map((r) => (rpc(r.body).params as { configuration: unknown }).configuration);
    expect(configs).toEqual([{ blocking: true }, { blocking: true }, { blocking: false, historyLength: 0 }]);
  });

  it("roles: ROLE_USER is user, ROLE_AGENT is agent, ROLE_UNSPECIFIED is left out", async () => {
    srv.handle(answer(TASK_03));
    const c = client();
    for (const role of [Role.USER, Role.AGENT, Role.UNSPECIFIED]) {
      await c.sendMessage({ message: { ...userMessage("x"), role } });
    }
    const roles = srv.requests.map((r) => (rpc(r.body).params as { message: { role?: string } }).message.role);
    expect(roles).toEqual(["user", "agent", undefined]);
  });

  it("a part without content is refused before any request", async () => {
    const message = userMessage("x");
    message.parts.push({ ...message.parts[0]!, content: { case: undefined } });
    const err = await failure(client().sendMessage({ message }));
    expect(err).toBeInstanceOf(InvalidParamsError);
    expect(srv.requests).toHaveLength(0);
  });

  it("SendStreamingMessage becomes message/stream with the same params", async () => {
    srv.handle(stream([DONE_03]));
    await collect(client().sendStreamingMessage({ message: userMessage("go", { messageId: "m1" }) }));
    expect(sent().method).toBe("message/stream");
    expect(srv.requests[0]!.headers.accept).toBe("text/event-stream");
    expect(sent().params).toEqual({
      message: { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: "go" }] },
      configuration: { blocking: true },
    });
  });

  it("GetTask, CancelTask and SubscribeToTask become tasks/get, tasks/cancel and tasks/resubscribe", async () => {
    srv.handle(answer(TASK_03));
    const c = client();
    await c.getTask({ tenant: "acme", id: "t1", historyLength: 3 });
    await c.getTask({ id: "t1" });
    await c.getTask({ id: "t1", historyLength: 0 });
    await c.getTask({ id: "t1", historyLength: -1 });
    await c.cancelTask({ tenant: "acme", id: "t1", metadata: { why: "test" } });
    srv.handle(stream([DONE_03]));
    await collect(c.subscribeToTask({ tenant: "acme", id: "t1" }));
    expect(srv.requests.map((r) => rpc(r.body)).map(({ method, params }) => ({ method, params }))).toEqual([
      { method: "tasks/get", params: { id: "t1", historyLength: 3 } },
      // No cap (absent, or negative) is the largest int32, as gRPC and HTTP+JSON 0.3 send it.
      { method: "tasks/get", params: { id: "t1", historyLength: 2 ** 31 - 1 } },
      { method: "tasks/get", params: { id: "t1", historyLength: 0 } },
      { method: "tasks/get", params: { id: "t1", historyLength: 2 ** 31 - 1 } },
      { method: "tasks/cancel", params: { id: "t1", metadata: { why: "test" } } },
      { method: "tasks/resubscribe", params: { id: "t1" } },
    ]);
  });

  it("push notification config calls become tasks/pushNotificationConfig/*", async () => {
    const c = client();
    const config03 = { taskId: "t1", pushNotificationConfig: { id: "cfg-1", url: "https://hooks.example.com/a2a" } };
    srv.handle(answer(config03));
    await c.createTaskPushNotificationConfig({
      tenant: "acme",
      taskId: "t1",
      id: "cfg-1",
      url: "https://hooks.example.com/a2a",
      token: "tok",
      authentication: { scheme: "Basic", credentials: "dXNlcjpwdw==" },
    });
    await c.createTaskPushNotificationConfig({ taskId: "t1", url: "https://hooks.example.com/a2a" });
    await c.getTaskPushNotificationConfig({ tenant: "acme", taskId: "t1", id: "cfg-1" });
    srv.handle(answer([config03]));
    await c.listTaskPushNotificationConfigs({ tenant: "acme", taskId: "t1", pageSize: 10, pageToken: "p2" });
    srv.handle(answer(null));
    await c.deleteTaskPushNotificationConfig({ tenant: "acme", taskId: "t1", id: "cfg-1" });

    expect(srv.requests.map((r) => rpc(r.body)).map(({ method, params }) => ({ method, params }))).toEqual([
      {
        method: "tasks/pushNotificationConfig/set",
        params: {
          taskId: "t1",
          pushNotificationConfig: {
            id: "cfg-1",
            url: "https://hooks.example.com/a2a",
            token: "tok",
            authentication: { schemes: ["Basic"], credentials: "dXNlcjpwdw==" },
          },
        },
      },
      {
        method: "tasks/pushNotificationConfig/set",
        params: { taskId: "t1", pushNotificationConfig: { url: "https://hooks.example.com/a2a" } },
      },
      { method: "tasks/pushNotificationConfig/get", params: { id: "t1", pushNotificationConfigId: "cfg-1" } },
      { method: "tasks/pushNotificationConfig/list", params: { id: "t1" } },
      { method: "tasks/pushNotificationConfig/delete", params: { id: "t1", pushNotificationConfigId: "cfg-1" } },
    ]);
  });

  it("a push config list answered null is empty (a2a-go 2.3.1); anything else that is not a list is refused", async () => {
    srv.handle(answer(null));
    expect((await client().listTaskPushNotificationConfigs({ taskId: "t1" })).configs).toEqual([]);
    srv.handle(answer({ configs: [] }));
    expect(await failure(client().listTaskPushNotificationConfigs({ taskId: "t1" }))).toBeInstanceOf(ProtocolError);
  });

  it("GetExtendedAgentCard becomes agent/getAuthenticatedExtendedCard without params", async () => {
    srv.handle(answer({ name: "n", description: "d", version: "1", url: "https://a.example.com/rpc", skills: [] }));
    await client().getExtendedAgentCard({ tenant: "acme" });
    const req = sent();
    expect(req.method).toBe("agent/getAuthenticatedExtendedCard");
    expect("params" in req).toBe(false);
  });

  it("ListTasks fails with UnsupportedOperationError before any request", async () => {
    const err = await failure(client().listTasks({ contextId: "c1" }));
    expect(err).toBeInstanceOf(UnsupportedOperationError);
    expect(err.message).toBe("the agent speaks A2A 0.3, which has no ListTasks operation");
    expect(err.binding).toBe("JSONRPC");
    expect(srv.requests).toHaveLength(0);
  });

  it("A2A-Version defaults to 0.3 and can be overridden; extensions also go as X-A2A-Extensions", async () => {
    srv.handle(answer(TASK_03));
    await client({ extensions: ["urn:ext:a"] }).getTask({ id: "t1" }, { extensions: ["urn:ext:b"] });
    await client({ protocolVersion: "1.0" }).getTask({ id: "t1" });
    const [a, b] = srv.requests;
    expect(a!.headers["a2a-version"]).toBe("0.3");
    expect(a!.headers["a2a-extensions"]).toBe("urn:ext:a,urn:ext:b");
    expect(a!.headers["x-a2a-extensions"]).toBe("urn:ext:a,urn:ext:b");
    expect(b!.headers["a2a-version"]).toBe("1.0");
    expect(b!.headers["x-a2a-extensions"]).toBeUndefined();
  });

  it("request ids increase per transport", async () => {
    srv.handle(answer(TASK_03));
    const c = client();
    await c.getTask({ id: "t1" });
    await c.getTask({ id: "t1" });
    expect(sent(1).id).toBe(sent(0).id + 1);
  });
});

// ---------------------------------------------------------------------------

describe("results: 0.3 JSON as 1.0 messages", () => {
  it("every 0.3 task state maps to its 1.0 state; unknown ones read as UNSPECIFIED", async () => {
    const states: [string, TaskState][] = [
      ["submitted", TaskState.SUBMITTED],
      ["working", TaskState.WORKING],
      ["input-required", TaskState.INPUT_REQUIRED],
      ["completed", TaskState.COMPLETED],
      ["canceled", TaskState.CANCELED],
      ["failed", TaskState.FAILED],
      ["rejected", TaskState.REJECTED],
      ["auth-required", TaskState.AUTH_REQUIRED],
      ["unknown", TaskState.UNSPECIFIED],
      ["paused-by-operator", TaskState.UNSPECIFIED],
      ["TASK_STATE_COMPLETED", TaskState.COMPLETED],
    ];
    const c = client();
    for (const [state03, state] of states) {
      srv.handle(answer({ ...TASK_03, status: { state: state03 } }));
      expect((await c.getTask({ id: "t1" })).status?.state, state03).toBe(state);
    }
  });

  it("a task state named like an object member (toString, __proto__, constructor) reads as UNSPECIFIED", async () => {
    const c = client();
    for (const state03 of ["toString", "__proto__", "constructor", "hasOwnProperty"]) {
      srv.handle(answer({ ...TASK_03, status: { state: state03 } }));
      expect((await c.getTask({ id: "t1" })).status?.state, state03).toBe(TaskState.UNSPECIFIED);
    }
  });

  it("a full task: parts of every kind, roles, artifacts, metadata; kind and unknown fields dropped", async () => {
    srv.handle(
      answer({
        kind: "task",
        id: "t1",
        contextId: "c1",
        futureField: { anything: true },
        status: {
          state: "input-required",
          timestamp: "2025-06-01T12:00:00.123Z",
          message: { kind: "message", messageId: "s1", role: "agent", parts: [{ kind: "text", text: "need more" }] },
        },
        history: [
          {
            kind: "message",
            messageId: "m1",
            role: "user",
            contextId: "c1",
            taskId: "t1",
            parts: [
              { kind: "text", text: "hi", metadata: { lang: "en" } },
              { kind: "file", file: { bytes: "AAEC+v8=", mimeType: "application/octet-stream", name: "blob.bin" } },
              { kind: "file", file: { uri: "https://files.example.com/r.pdf", mimeType: "application/pdf", name: "r.pdf" } },
              { kind: "data", data: { answer: 42 }, metadata: { schema: "s" } },
            ],
            metadata: { trace: "abc" },
            extensions: ["urn:ext:a"],
            referenceTaskIds: ["t0"],
          },
          { kind: "message", messageId: "m2", role: "agent", parts: [{ kind: "text", text: "ok" }], unknownMember: 1 },
          { kind: "message", messageId: "m3", role: "robot", parts: [] },
        ],
        artifacts: [
          {
            artifactId: "a1",
            name: "Result",
            description: "the result",
            parts: [{ kind: "text", text: "done" }],
            metadata: { size: 4 },
            extensions: ["urn:ext:b"],
          },
        ],
        metadata: { owner: "me" },
      }),
    );
    const task = await client().getTask({ id: "t1" });
    expect(task.history.map((m) => m.role)).toEqual([Role.USER, Role.AGENT, Role.UNSPECIFIED]);
    expect(task.history[0]!.parts[1]!.content).toEqual({ case: "raw", value: new Uint8Array([0, 1, 2, 250, 255]) });
    expect(toJson(TaskSchema, task)).toEqual({
      id: "t1",
      contextId: "c1",
      status: {
        state: "TASK_STATE_INPUT_REQUIRED",
        timestamp: "2025-06-01T12:00:00.123Z",
        message: { messageId: "s1", role: "ROLE_AGENT", parts: [{ text: "need more" }] },
      },
      history: [
        {
          messageId: "m1",
          role: "ROLE_USER",
          contextId: "c1",
          taskId: "t1",
          parts: [
            { text: "hi", metadata: { lang: "en" } },
            { raw: "AAEC+v8=", mediaType: "application/octet-stream", filename: "blob.bin" },
            { url: "https://files.example.com/r.pdf", mediaType: "application/pdf", filename: "r.pdf" },
            { data: { answer: 42 }, metadata: { schema: "s" } },
          ],
          metadata: { trace: "abc" },
          extensions: ["urn:ext:a"],
          referenceTaskIds: ["t0"],
        },
        { messageId: "m2", role: "ROLE_AGENT", parts: [{ text: "ok" }] },
        { messageId: "m3" },
      ],
      artifacts: [
        {
          artifactId: "a1",
          name: "Result",
          description: "the result",
          parts: [{ text: "done" }],
          metadata: { size: 4 },
          extensions: ["urn:ext:b"],
        },
      ],
      metadata: { owner: "me" },
    });
  });

  it("wrapped data parts are unwrapped; unknown part kinds stay as parts without content", async () => {
    srv.handle(
      answer({
        ...TASK_03,
        history: [
          {
            kind: "message",
            messageId: "m1",
            role: "agent",
            parts: [
              { kind: "data", data: { value: [1, 2] }, metadata: { data_part_compat: true } },
              { kind: "data", data: { value: null }, metadata: { data_part_compat: true, keep: "me" } },
              { kind: "data", data: { value: "s", other: 1 } },
              { kind: "hologram", hologram: {}, metadata: { from: "future" } },
              { text: "no kind" },
            ],
          },
        ],
      }),
    );
    const task = await client().getTask({ id: "t1" });
    expect(toJson(MessageSchema, task.history[0]!)).toEqual({
      messageId: "m1",
      role: "ROLE_AGENT",
      parts: [
        { data: [1, 2] },
        { data: null, metadata: { keep: "me" } },
        { data: { value: "s", other: 1 } },
        { metadata: { from: "future" } },
        { text: "no kind" },
      ],
    });
  });

  it("message/send: a task result is the task payload, a message result the message payload", async () => {
    const c = client();
    srv.handle(answer(TASK_03));
    expect(toJson(SendMessageResponseSchema, await c.sendMessage({ message: userMessage("x") }))).toEqual({
      task: { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } },
    });
    srv.handle(answer({ kind: "message", messageId: "r1", role: "agent", parts: [{ kind: "text", text: "hello" }] }));
    expect(toJson(SendMessageResponseSchema, await c.sendMessage({ message: userMessage("x") }))).toEqual({
      message: { messageId: "r1", role: "ROLE_AGENT", parts: [{ text: "hello" }] },
    });
    // Without `kind`, the members decide.
    srv.handle(answer({ messageId: "r2", role: "agent", parts: [] }));
    expect((await c.sendMessage({ message: userMessage("x") })).payload.case).toBe("message");
  });

  it("message/send with a result that is neither task nor message is a ProtocolError", async () => {
    srv.handle(answer({ kind: "status-update", taskId: "t1", contextId: "c1", status: { state: "working" }, final: false }));
    const err = await failure(client().sendMessage({ message: userMessage("x") }));
    expect(err).toBeInstanceOf(ProtocolError);
    expect(err.message).toMatch(/SendMessageResponse.*task or a message/);
  });

  it("stream events: task, status-update (final dropped), artifact-update with append/lastChunk, message", async () => {
    srv.handle(
      stream([
        { ...TASK_03, status: { state: "submitted" } },
        { kind: "status-update", taskId: "t1", contextId: "c1", status: { state: "working" }, final: false, metadata: { step: 1 } },
        {
          kind: "artifact-update",
          taskId: "t1",
          contextId: "c1",
          artifact: { artifactId: "a1", parts: [{ kind: "text", text: "chunk-1" }] },
          append: false,
          lastChunk: false,
        },
        {
          kind: "artifact-update",
          taskId: "t1",
          contextId: "c1",
          artifact: { artifactId: "a1", parts: [{ kind: "text", text: "chunk-2" }] },
          append: true,
          lastChunk: true,
          metadata: { n: 2 },
        },
        { kind: "message", messageId: "r1", role: "agent", taskId: "t1", parts: [{ kind: "text", text: "note" }] },
        { kind: "status-update", taskId: "t1", contextId: "c1", status: { state: "completed" }, final: true },
      ]),
    );
    const events = await collect(client().sendStreamingMessage({ message: userMessage("x") }));
    expect(events.map((e) => toJson(StreamResponseSchema, e))).toEqual([
      { task: { id: "t1", contextId: "c1", status: { state: "TASK_STATE_SUBMITTED" } } },
      { statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" }, metadata: { step: 1 } } },
      { artifactUpdate: { taskId: "t1", contextId: "c1", artifact: { artifactId: "a1", parts: [{ text: "chunk-1" }] } } },
      {
        artifactUpdate: {
          taskId: "t1",
          contextId: "c1",
          artifact: { artifactId: "a1", parts: [{ text: "chunk-2" }] },
          append: true,
          lastChunk: true,
          metadata: { n: 2 },
        },
      },
      { message: { messageId: "r1", role: "ROLE_AGENT", taskId: "t1", parts: [{ text: "note" }] } },
      { statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } } },
    ]);
  });

  it("stream events without kind are told apart by their members", async () => {
    srv.handle(
      stream([
        { id: "t1", contextId: "c1", status: { state: "working" } },
        { taskId: "t1", contextId: "c1", artifact: { artifactId: "a1", parts: [] } },
        { taskId: "t1", contextId: "c1", status: { state: "completed" } },
      ]),
    );
    const events = await collect(client().subscribeToTask({ id: "t1" }));
    expect(events.map((e) => e.payload.case)).toEqual(["task", "artifactUpdate", "statusUpdate"]);
  });

  it("a stream event of an unknown kind is a ProtocolError", async () => {
    srv.handle(stream([TASK_03, { kind: "heartbeat" }]));
    const seen: unknown[] = [];
    const err = await failure(
      (async () => {
        for await (const e of client().subscribeToTask({ id: "t1" })) seen.push(e);
      })(),
    );
    expect(seen).toHaveLength(1);
    expect(err).toBeInstanceOf(ProtocolError);
  });

  it("a history cap holds whatever the agent does with it (0 means none in 1.0, no cap to some 0.3 agents): GetTask, send and stream", async () => {
    const history = ["m1", "m2", "m3"].map((messageId) => ({
      kind: "message",
      role: "user",
      messageId,
      parts: [{ kind: "text", text: "x" }],
    }));
    // An agent that ignores the cap it is sent.
    const task = { kind: "task", id: "t1", contextId: "c1", status: { state: "completed" }, history };
    srv.handle(answer(task));
    const ids = (t: Task) => t.history.map((m) => m.messageId);
    const c = client();
    for (const [cap, kept] of [
      [0, []],
      [2, ["m2", "m3"]],
      [3, ["m1", "m2", "m3"]],
      [5, ["m1", "m2", "m3"]],
    ] as const) {
      expect(ids(await c.getTask({ id: "t1", historyLength: cap })), `cap ${cap}`).toEqual(kept);
    }
    expect(ids(await c.getTask({ id: "t1" }))).toEqual(["m1", "m2", "m3"]);
    expect((sent(0).params as { historyLength: number }).historyLength).toBe(0);
    const res = await c.sendMessage({ message: userMessage("hi"), configuration: { historyLength: 1 } });
    expect(res.payload.case === "task" && ids(res.payload.value)).toEqual(["m3"]);
    srv.handle(stream([task]));
    const events = await collect(c.sendStreamingMessage({ message: userMessage("hi"), configuration: { historyLength: 0 } }));
    expect(events[0]!.payload.case === "task" && ids(events[0]!.payload.value)).toEqual([]);
  });

  it("GetTask without historyLength gets the whole history from a 0.3 agent that reads an absent cap as none (@a2a-js/sdk 0.3.x)", async () => {
    const history = ["m1", "m2"].map((messageId) => ({ kind: "message", role: "user", messageId, parts: [{ kind: "text", text: "x" }] }));
    // As @a2a-js/sdk 0.3.x's tasks/get: no historyLength, no history; otherwise the last historyLength messages.
    srv.handle((_req, res, body) => {
      const cap = (rpc(body).params as { historyLength?: number }).historyLength;
      const kept = cap === undefined ? [] : history.slice(-cap);
      sendJson(res, 200, { jsonrpc: "2.0", id: rpc(body).id, result: { ...DONE_03, history: kept } });
    });
    const task = await client().getTask({ id: "t1" });
    expect(task.history.map((m) => m.messageId)).toEqual(["m1", "m2"]);
  });

  it("push configs: the nested 0.3 config becomes the flat 1.0 one; the first of several schemes is kept", async () => {
    const c = client();
    srv.handle(
      answer({
        taskId: "t1",
        pushNotificationConfig: {
          id: "cfg-1",
          url: "https://hooks.example.com/a2a",
          token: "tok",
          authentication: { schemes: ["Bearer", "Basic"], credentials: "secret" },
        },
      }),
    );
    const got = await c.getTaskPushNotificationConfig({ taskId: "t1", id: "cfg-1" });
    expect(toJson(TaskPushNotificationConfigSchema, got)).toEqual({
      taskId: "t1",
      id: "cfg-1",
      url: "https://hooks.example.com/a2a",
      token: "tok",
      authentication: { scheme: "Bearer", credentials: "secret" },
    });

    srv.handle(
      answer([
        { taskId: "t1", pushNotificationConfig: { id: "a", url: "https://a.example.com" } },
        { taskId: "t1", pushNotificationConfig: { id: "b", url: "https://b.example.com", authentication: { schemes: [] } } },
      ]),
    );
    const list = await c.listTaskPushNotificationConfigs({ taskId: "t1" });
    expect(list.nextPageToken).toBe("");
    expect(list.configs.map((x) => toJson(TaskPushNotificationConfigSchema, x))).toEqual([
      { taskId: "t1", id: "a", url: "https://a.example.com" },
      { taskId: "t1", id: "b", url: "https://b.example.com", authentication: {} },
    ]);
  });

  it("tasks/pushNotificationConfig/delete answers null", async () => {
    srv.handle(answer(null));
    await expect(client().deleteTaskPushNotificationConfig({ taskId: "t1", id: "cfg-1" })).resolves.toBeUndefined();
  });

  it("the 0.3 extended card comes back in the 1.0 shape", async () => {
    srv.handle(
      answer({
        name: "Agent",
        description: "d",
        version: "2.0.0",
        protocolVersion: "0.3.0",
        url: "https://agent.example.com/rpc",
        preferredTransport: "JSONRPC",
        additionalInterfaces: [{ url: "https://agent.example.com/rest", transport: "HTTP+JSON" }],
        supportsAuthenticatedExtendedCard: true,
        capabilities: { streaming: true, stateTransitionHistory: true },
        securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
        security: [{ bearer: ["read"] }],
        defaultInputModes: ["text/plain"],
        defaultOutputModes: ["text/plain"],
        skills: [{ id: "s", name: "S", description: "skill", tags: ["t"] }],
      }),
    );
    const card = await client().getExtendedAgentCard();
    expect(toJson(AgentCardSchema, card)).toEqual({
      name: "Agent",
      description: "d",
      version: "2.0.0",
      supportedInterfaces: [
        { url: "https://agent.example.com/rpc", protocolBinding: "JSONRPC", protocolVersion: "0.3.0" },
        { url: "https://agent.example.com/rest", protocolBinding: "HTTP+JSON", protocolVersion: "0.3.0" },
      ],
      capabilities: { streaming: true, extendedAgentCard: true },
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "bearer" } } },
      securityRequirements: [{ schemes: { bearer: { list: ["read"] } } }],
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "s", name: "S", description: "skill", tags: ["t"] }],
    });
  });

  it("timestamps: RFC 3339 kept, a zone-less time read as UTC, an unreadable one dropped", async () => {
    expect(timestampV1("2025-06-01T12:00:00Z")).toBe("2025-06-01T12:00:00Z");
    expect(timestampV1("2025-06-01T12:00:00.123456+02:00")).toBe("2025-06-01T12:00:00.123456+02:00");
    expect(timestampV1("2025-06-01T12:00:00")).toBe("2025-06-01T12:00:00.000Z");
    expect(timestampV1("yesterday")).toBeUndefined();
    srv.handle(answer({ ...TASK_03, status: { state: "working", timestamp: "not a time" } }));
    const task: Task = await client().getTask({ id: "t1" });
    expect(task.status?.state).toBe(TaskState.WORKING);
    expect(task.status?.timestamp).toBeUndefined();
  });

  it("a response id other than the request's is a ProtocolError", async () => {
    srv.handle((_req, res, body) => sendJson(res, 200, { jsonrpc: "2.0", id: rpc(body).id + 100, result: TASK_03 }));
    expect(await failure(client().getTask({ id: "t1" }))).toBeInstanceOf(ProtocolError);
  });

  it('tasks/pushNotificationConfig/set answered with our id as a string (2 as "2", the Java SDK 0.3.3) is its answer; "02" is not', async () => {
    const c = client();
    const config03 = { taskId: "t1", pushNotificationConfig: { id: "cfg-1", url: "https://hooks.example.com/a2a" } };
    srv.handle((_req, res, body) => sendJson(res, 200, { jsonrpc: "2.0", id: String(rpc(body).id), result: config03 }));
    await c.getTask({ id: "t1" }).catch(() => undefined);
    const created = await c.createTaskPushNotificationConfig({ taskId: "t1", url: "https://hooks.example.com/a2a" });
    expect(sent(1).id).toBe(2);
    expect(created).toMatchObject({ taskId: "t1", id: "cfg-1", url: "https://hooks.example.com/a2a" });
    srv.handle((_req, res, body) => sendJson(res, 200, { jsonrpc: "2.0", id: `0${rpc(body).id}`, result: config03 }));
    const e = await failure(c.createTaskPushNotificationConfig({ taskId: "t1", url: "https://hooks.example.com/a2a" }));
    expect(e).toBeInstanceOf(ProtocolError);
    expect(e.message).toContain('the JSON-RPC response id "03" does not match the request id 3');
  });
});

// ---------------------------------------------------------------------------

describe("0.3 error codes", () => {
  const codes: [number, new (...args: never[]) => A2AError][] = [
    [-32001, TaskNotFoundError],
    [-32002, TaskNotCancelableError],
    [-32003, PushNotificationNotSupportedError],
    [-32004, UnsupportedOperationError],
    [-32005, ContentTypeNotSupportedError],
    [-32006, InvalidAgentResponseError],
    [-32007, ExtendedAgentCardNotConfiguredError],
  ];

  it.each(codes)("%i in a response", async (code, cls) => {
    srv.handle(failWith(code, "from the agent"));
    const err = await failure(client().getTask({ id: "t1" }));
    expect(err).toBeInstanceOf(cls);
    expect(err).toMatchObject({ jsonRpcCode: code, message: "from the agent", binding: "JSONRPC" });
  });

  it.each(codes)("%i in an SSE error frame", async (code, cls) => {
    srv.handle((_req, res, body) => {
      startSse(res);
      res.write(sseFrame({ jsonrpc: "2.0", id: rpc(body).id, error: { code, message: "mid-stream" } }, "error"));
      res.end();
    });
    const err = await failure(collect(client().subscribeToTask({ id: "t1" })));
    expect(err).toBeInstanceOf(cls);
  });
});

describe("0.3 JSON-RPC: answers of the wrong shape", () => {
  it("message/send answered with an empty result, a task without id, or another jsonrpc version", async () => {
    srv.handle(answer({}));
    await expect(client().sendMessage({ message: userMessage("hi") })).rejects.toThrow(ProtocolError);
    srv.handle(answer({ kind: "task", contextId: "c", status: { state: "working" } }));
    const e = await client()
      .getTask({ id: "t1" })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as Error).message).toMatch(/GetTask.*"id"/);
    srv.handle((_req, res, body) =>
      sendJson(res, 200, {
        jsonrpc: "1.0",
        id: rpc(body).id,
        result: { kind: "task", id: "t1", contextId: "c", status: { state: "working" } },
      }),
    );
    await expect(client().getTask({ id: "t1" })).rejects.toThrow(ProtocolError);
  });

  const message03 = (parts: unknown) => ({ kind: "message", messageId: "m1", role: "agent", parts });
  it.each([
    ["a status message with parts: null", { status: { state: "working", message: message03(null) } }, "status.message.parts is null"],
    ["a message whose parts hold null", { status: { state: "working", message: message03([null]) } }, "status.message.parts[0] is null"],
    ["an artifact whose parts is a string", { artifacts: [{ artifactId: "a1", parts: "hello" }] }, "artifacts[0].parts is a string"],
    ["a history message that is a string", { history: ["hi"] }, "history[0] is a string"],
  ])("%s is a ProtocolError naming the field path", async (_what, fields, said) => {
    srv.handle(answer({ ...DONE_03, ...fields }));
    const e = await failure(client().getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(ProtocolError);
    expect(e.message).toContain(said);
  });

  it("the same in a send's message, a stream's status update and artifact update", async () => {
    srv.handle(answer(message03(null)));
    expect((await failure(client().sendMessage({ message: userMessage("hi") }))).message).toContain("parts is null");
    const update = {
      kind: "status-update",
      taskId: "t1",
      contextId: "c1",
      status: { state: "working", message: message03([7]) },
      final: false,
    };
    const artifact = { kind: "artifact-update", taskId: "t1", contextId: "c1", artifact: { artifactId: "a1", parts: {} } };
    for (const [event, said] of [
      [update, "status.message.parts[0] is a number"],
      [artifact, "artifact.parts is an object"],
    ] as const) {
      srv.handle(stream([TASK_03, event]));
      const e = await failure(collect(client().sendStreamingMessage({ message: userMessage("hi") }, { resume: false })));
      expect(e).toBeInstanceOf(ProtocolError);
      expect(e.message).toContain(said);
    }
  });

  it("absent parts, and null history and artifacts, still read as empty", async () => {
    srv.handle(
      answer({
        ...DONE_03,
        history: null,
        artifacts: null,
        status: { state: "completed", message: { kind: "message", messageId: "m1", role: "agent" } },
      }),
    );
    const task = await client().getTask({ id: "t1" });
    expect([task.history, task.artifacts, task.status?.message?.parts]).toEqual([[], [], []]);
  });
});
