/**
 * HTTP+JSON over A2A 0.3 against a fake server: the routes, verbs, query
 * parameters and bodies every 1.0 call becomes, and how 0.3 error bodies
 * and streams are read.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  A2AClient,
  type A2AError,
  ContentTypeNotSupportedError,
  createRestTransport,
  ExtendedAgentCardNotConfiguredError,
  InternalError,
  InvalidAgentResponseError,
  InvalidParamsError,
  InvalidRequestError,
  JsonRpcParseError,
  MethodNotFoundError,
  ProtocolError,
  PushNotificationNotSupportedError,
  ServerError,
  TaskNotCancelableError,
  TaskNotFoundError,
  TaskState,
  UnsupportedOperationError,
  userMessage,
} from "../../../src/index.js";
import { createRestTransportV03 } from "../../../src/bindings/http-json/v0_3.js";
import { V03_KIT } from "../../../src/bindings/v0_3-kit.js";
import { GENERATED_JSON, onNodeHttp } from "../../../src/node-runtime.js";
import { collect } from "../../support/bindings.js";
import { failure } from "../../support/failure.js";
import { sendJson, sseFrame, startFakeServer, startSse, type FakeServer } from "../../support/fake-server.js";

let srv: FakeServer;
let client: A2AClient;
beforeEach(async () => {
  srv = await startFakeServer();
  client = new A2AClient(createRestTransportV03(V03_KIT, onNodeHttp({ baseUrl: `${srv.url}/a2a/` }), GENERATED_JSON));
});
afterEach(() => srv.close());

const TASK = { id: "t 1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } };
const CONFIG = { name: "tasks/t 1/pushNotificationConfigs/p1", pushNotificationConfig: { id: "p1", url: "https://h.example" } };

/** Answers every request with one JSON document. */
function answer(status: number, json: unknown): void {
  srv.handle((_req, res) => sendJson(res, status, json));
}

function last() {
  const r = srv.requests.at(-1)!;
  return {
    method: r.method,
    url: r.url,
    body: r.body === "" ? undefined : (JSON.parse(r.body) as unknown),
    version: r.headers["a2a-version"],
  };
}

describe("HTTP+JSON over 0.3: requests", () => {
  it("SendMessage posts the 0.3 message to /v1/message:send", async () => {
    answer(201, { task: TASK });
    const message = userMessage("hi", { contextId: "c1" });
    const res = await client.sendMessage({ message, configuration: { acceptedOutputModes: ["text/plain"] } });
    expect(res.payload.case).toBe("task");
    expect(last()).toEqual({
      method: "POST",
      url: "/a2a/v1/message:send",
      version: "0.3",
      body: {
        message: { messageId: message.messageId, contextId: "c1", role: "ROLE_USER", content: [{ text: "hi" }] },
        configuration: { acceptedOutputModes: ["text/plain"], historyLength: 2147483647, blocking: true },
      },
    });
    expect(srv.requests.at(-1)!.headers["content-type"]).toBe("application/json");
  });

  it("GetTask is a GET of /v1/tasks/{id} with historyLength as a query parameter", async () => {
    answer(200, TASK);
    const task = await client.getTask({ id: "t 1", historyLength: 2 });
    expect(task.status?.state).toBe(TaskState.WORKING);
    expect(last()).toEqual({ method: "GET", url: "/a2a/v1/tasks/t%201?historyLength=2", version: "0.3", body: undefined });
  });

  it("CancelTask posts to /v1/tasks/{id}:cancel", async () => {
    answer(200, { ...TASK, status: { state: "TASK_STATE_CANCELLED" } });
    const task = await client.cancelTask({ id: "t 1" });
    expect(task.status?.state).toBe(TaskState.CANCELED);
    expect(last()).toMatchObject({ method: "POST", url: "/a2a/v1/tasks/t%201:cancel", body: {} });
  });

  it("push configs: create posts to /v1/tasks/{id}/pushNotificationConfigs the config, and the request around it (parent, config)", async () => {
    answer(201, CONFIG);
    const created = await client.createTaskPushNotificationConfig({ taskId: "t 1", id: "p1", url: "https://h.example", token: "tok" });
    expect([created.taskId, created.id, created.url]).toEqual(["t 1", "p1", "https://h.example"]);
    const config = {
      name: "tasks/t 1/pushNotificationConfigs/p1",
      pushNotificationConfig: { id: "p1", url: "https://h.example", token: "tok" },
    };
    expect(last()).toEqual({
      method: "POST",
      url: "/a2a/v1/tasks/t%201/pushNotificationConfigs",
      version: "0.3",
      // The proto's body (the config), and what the 0.3 text and the Python SDK read (parent, config).
      body: { ...config, parent: "tasks/t 1", configId: "p1", config },
    });
  });

  it("push configs: a create without an id names the task's collection of configs, tasks/{id}/pushNotificationConfigs", async () => {
    answer(201, CONFIG);
    await client.createTaskPushNotificationConfig({ taskId: "t 1", url: "https://h.example" });
    const config = { name: "tasks/t 1/pushNotificationConfigs", pushNotificationConfig: { url: "https://h.example" } };
    expect(last().body).toEqual({ ...config, parent: "tasks/t 1", config });
  });

  // The Java SDK's 0.3 servers (0.3.3.Final) read the whole request and refuse any other field.
  const JAVA_REFUSAL = {
    error: "io.a2a.spec.InvalidParamsError",
    message: "Failed to parse request body: Cannot find field: name in message a2a.v1.CreateTaskPushNotificationConfigRequest",
  };

  it("push configs: where the server refuses the config's fields beside the request, the request alone is sent once more, and from then on", async () => {
    srv.handle((_req, res, text) => {
      const body = JSON.parse(text) as Record<string, unknown>;
      if ("name" in body) sendJson(res, 422, JAVA_REFUSAL);
      else sendJson(res, 201, CONFIG);
    });
    const created = await client.createTaskPushNotificationConfig({ taskId: "t 1", id: "p1", url: "https://h.example" });
    expect(created.id).toBe("p1");
    const config = { name: "tasks/t 1/pushNotificationConfigs/p1", pushNotificationConfig: { id: "p1", url: "https://h.example" } };
    expect(srv.requests.map((r) => [r.method, r.url, JSON.parse(r.body)])).toEqual([
      ["POST", "/a2a/v1/tasks/t%201/pushNotificationConfigs", { ...config, parent: "tasks/t 1", configId: "p1", config }],
      ["POST", "/a2a/v1/tasks/t%201/pushNotificationConfigs", { parent: "tasks/t 1", configId: "p1", config }],
    ]);
    // Learned: the next create goes as the request alone, in one request.
    await client.createTaskPushNotificationConfig({ taskId: "t 1", url: "https://h.example" });
    expect(srv.requests).toHaveLength(3);
    expect(last().body).toEqual({
      parent: "tasks/t 1",
      config: { name: "tasks/t 1/pushNotificationConfigs", pushNotificationConfig: { url: "https://h.example" } },
    });
    // Another transport has learned nothing: it sends both, then the request alone.
    const other = new A2AClient(createRestTransportV03(V03_KIT, onNodeHttp({ baseUrl: `${srv.url}/a2a/` }), GENERATED_JSON));
    await other.createTaskPushNotificationConfig({ taskId: "t 1", url: "https://h.example" });
    expect(srv.requests).toHaveLength(5);
  });

  it("push configs: the caller's interceptors see the create once, and the second request goes where they sent the first", async () => {
    srv.handle((_req, res, text) => {
      if ("name" in (JSON.parse(text) as Record<string, unknown>)) sendJson(res, 422, JAVA_REFUSAL);
      else sendJson(res, 201, CONFIG);
    });
    let seen = 0;
    const keyed = new A2AClient(
      createRestTransportV03(
        V03_KIT,
        onNodeHttp({
          baseUrl: `${srv.url}/a2a/`,
          interceptors: [
            (next) => (req) => {
              seen++;
              return next({ ...req, url: `${req.url}?key=k` });
            },
          ],
        }),
        GENERATED_JSON,
      ),
    );
    await keyed.createTaskPushNotificationConfig({ taskId: "t 1", id: "p1", url: "https://h.example" });
    expect(seen).toBe(1);
    expect(srv.requests.map((r) => r.url)).toEqual([
      "/a2a/v1/tasks/t%201/pushNotificationConfigs?key=k",
      "/a2a/v1/tasks/t%201/pushNotificationConfigs?key=k",
    ]);
  });

  it("push configs: a refusal refused again, or another 422, is the call's error, with no more requests", async () => {
    answer(422, JAVA_REFUSAL);
    const e = await failure(client.createTaskPushNotificationConfig({ taskId: "t 1", url: "https://h.example" }));
    expect(e).toBeInstanceOf(InvalidParamsError);
    expect(e).toMatchObject({ httpStatus: 422 });
    expect(srv.requests).toHaveLength(2);

    const fresh = () => new A2AClient(createRestTransportV03(V03_KIT, onNodeHttp({ baseUrl: `${srv.url}/a2a/` }), GENERATED_JSON));
    for (const [status, body] of [
      [422, { error: "io.a2a.spec.InvalidParamsError", message: "url is required" }],
      [400, JAVA_REFUSAL],
    ] as const) {
      answer(status, body);
      const before = srv.requests.length;
      await failure(fresh().createTaskPushNotificationConfig({ taskId: "t 1", url: "https://h.example" }));
      expect(srv.requests).toHaveLength(before + 1);
    }
  });

  it("push configs: get, list and delete address them by name", async () => {
    answer(200, CONFIG);
    await client.getTaskPushNotificationConfig({ taskId: "t 1", id: "p1" });
    expect(last()).toMatchObject({ method: "GET", url: "/a2a/v1/tasks/t%201/pushNotificationConfigs/p1" });

    answer(200, { configs: [CONFIG] });
    const listed = await client.listTaskPushNotificationConfigs({ taskId: "t 1", pageSize: 10 });
    expect(listed.configs.map((c) => c.id)).toEqual(["p1"]);
    expect(last()).toMatchObject({ method: "GET", url: "/a2a/v1/tasks/t%201/pushNotificationConfigs?pageSize=10" });

    srv.handle((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    await client.deleteTaskPushNotificationConfig({ taskId: "t 1", id: "p1" });
    expect(last()).toMatchObject({ method: "DELETE", url: "/a2a/v1/tasks/t%201/pushNotificationConfigs/p1", body: undefined });
  });

  it("GetExtendedAgentCard reads /v1/card", async () => {
    answer(200, {
      name: "agent",
      description: "d",
      version: "1",
      url: "https://a.example",
      protocolVersion: "0.3.0",
      supportsAuthenticatedExtendedCard: true,
    });
    const card = await client.getExtendedAgentCard();
    expect(card.capabilities?.extendedAgentCard).toBe(true);
    expect(card.supportedInterfaces.map((i) => [i.url, i.protocolBinding, i.protocolVersion])).toEqual([
      ["https://a.example", "JSONRPC", "0.3.0"],
    ]);
    expect(last()).toMatchObject({ method: "GET", url: "/a2a/v1/card" });
  });

  it("activated extensions go as A2A-Extensions and as 0.3's X-A2A-Extensions, unary and stream", async () => {
    const withExtensions = new A2AClient(
      createRestTransportV03(V03_KIT, onNodeHttp({ baseUrl: `${srv.url}/a2a/`, extensions: ["urn:ext:a"] }), GENERATED_JSON),
    );
    answer(200, TASK);
    await withExtensions.getTask({ id: "t 1" }, { extensions: ["urn:ext:b"] });
    srv.handle((_req, res) => {
      startSse(res);
      res.end(sseFrame({ task: TASK }));
    });
    for await (const _ of withExtensions.subscribeToTask({ id: "t 1" })) break;
    for (const r of srv.requests) {
      expect(r.headers["a2a-extensions"]).toMatch(/^urn:ext:a/);
      expect(r.headers["x-a2a-extensions"]).toBe(r.headers["a2a-extensions"]);
    }
    expect(srv.requests).toHaveLength(2);
  });

  it("ListTasks fails without a request", async () => {
    await expect(client.listTasks()).rejects.toThrow(UnsupportedOperationError);
    expect(srv.requests).toHaveLength(0);
  });
});

describe("HTTP+JSON over 0.3: streams", () => {
  it("SubscribeToTask is a GET of /v1/tasks/{id}:subscribe; events are converted one by one", async () => {
    srv.handle((_req, res) => {
      startSse(res);
      res.write(sseFrame({ task: TASK }));
      res.write(
        sseFrame({
          artifactUpdate: {
            taskId: "t 1",
            contextId: "c1",
            artifact: { artifactId: "a", parts: [{ text: "x" }] },
            append: true,
            lastChunk: true,
          },
        }),
      );
      res.end(sseFrame({ statusUpdate: { taskId: "t 1", contextId: "c1", status: { state: "TASK_STATE_CANCELLED" }, final: true } }));
    });
    const events = [];
    for await (const e of client.subscribeToTask({ id: "t 1" })) events.push(e);
    expect(last()).toMatchObject({ method: "GET", url: "/a2a/v1/tasks/t%201:subscribe" });
    expect(events.map((e) => e.payload.case)).toEqual(["task", "artifactUpdate", "statusUpdate"]);
    const update = events[1]!.payload.value as { append: boolean; lastChunk: boolean };
    expect([update.append, update.lastChunk]).toEqual([true, true]);
    expect(events[2]!.payload.case === "statusUpdate" && events[2]!.payload.value.status?.state).toBe(TaskState.CANCELED);
  });

  it("SubscribeToTask on a 0.3 server that routes only POST: GET once, then POST from then on", async () => {
    srv.handle((req, res) => {
      // `GET /v1/tasks/{id}` takes the whole "<id>:subscribe" as the task id.
      if (req.method === "GET")
        return sendJson(res, 404, { code: -32001, message: `Task not found: ${decodeURIComponent(req.url!.split("/").at(-1)!)}` });
      // The events of the task subscribed to.
      const taskId = decodeURIComponent(/\/tasks\/([^/:]+):subscribe/.exec(req.url!)![1]!);
      startSse(res);
      res.write(sseFrame({ task: { ...TASK, id: taskId } }));
      res.end(sseFrame({ statusUpdate: { taskId, contextId: "c1", status: { state: "TASK_STATE_COMPLETED" }, final: true } }));
    });
    for (const id of ["t 1", "t 2"]) {
      const events = [];
      for await (const e of client.subscribeToTask({ id }, { resume: false })) events.push(e);
      expect(events.map((e) => e.payload.case)).toEqual(["task", "statusUpdate"]);
    }
    expect(srv.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "GET /a2a/v1/tasks/t%201:subscribe",
      "POST /a2a/v1/tasks/t%201:subscribe",
      "POST /a2a/v1/tasks/t%202:subscribe",
    ]);
  });

  it("SubscribeToTask of a task a 0.3 server does not have: TaskNotFoundError, without a loop", async () => {
    srv.handle((_req, res) => sendJson(res, 404, { code: -32001, message: "Task not found" }));
    for (let i = 0; i < 2; i++) {
      const first = client.subscribeToTask({ id: "t 1" }, { resume: false })[Symbol.asyncIterator]().next();
      await expect(first).rejects.toBeInstanceOf(TaskNotFoundError);
    }
    // A GET's task-not-found may be GetTask's lookup of "<id>:subscribe"; a
    // POST's can only be the subscribe route's, so POST is kept.
    const subscribes = srv.requests.filter((r) => r.url.endsWith(":subscribe"));
    expect(subscribes.map((r) => r.method)).toEqual(["GET", "POST", "POST"]);
    // After each, GetTask: whether the task ended (which some agents answer as not found).
    expect(srv.requests.filter((r) => !r.url.includes(":subscribe")).map((r) => r.method)).toEqual(["GET", "GET"]);
  });

  it("an `event: error` frame with a 0.3 error body ends the stream with its error", async () => {
    srv.handle((_req, res) => {
      startSse(res);
      res.write(sseFrame({ task: TASK }));
      res.end(sseFrame({ code: -32001, message: "gone" }, "error"));
    });
    const seen: string[] = [];
    const run = async () => {
      for await (const e of client.sendStreamingMessage({ message: userMessage("x") })) seen.push(e.payload.case ?? "");
    };
    await expect(run()).rejects.toThrow(TaskNotFoundError);
    expect(seen).toEqual(["task"]);
    expect(last()).toMatchObject({ method: "POST", url: "/a2a/v1/message:stream" });
  });
});

describe("HTTP+JSON over 0.3: errors", () => {
  it("reads a bare {code, message, data} body by its JSON-RPC code", async () => {
    answer(404, { code: -32001, message: "Task not found: t 1" });
    const e = await client.getTask({ id: "t 1" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TaskNotFoundError);
    expect(e).toMatchObject({ message: "Task not found: t 1", jsonRpcCode: -32001, httpStatus: 404, binding: "HTTP+JSON" });

    answer(400, { code: -32002, message: "cannot", data: { state: "completed" } });
    const c = await client.cancelTask({ id: "t 1" }).catch((x: unknown) => x);
    expect(c).toBeInstanceOf(TaskNotCancelableError);
    expect((c as TaskNotCancelableError).details).toEqual([{ state: "completed" }]);

    answer(400, { code: -32602, message: "bad" });
    await expect(client.getTask({ id: "t 1" })).rejects.toThrow(InvalidParamsError);
  });

  it("leaves non-negative codes to the HTTP status", async () => {
    answer(500, { code: 13, message: "internal" });
    const e = await client.getTask({ id: "t 1" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServerError);
    expect((e as ServerError).jsonRpcCode).toBeUndefined();
  });
});

describe("HTTP+JSON over 0.3: errors named by their Java class (the Java SDK 0.3.3's servers)", () => {
  /** The body its REST handler writes: the error's class name and its message, no A2A code. */
  const javaError = (name: string, message: string) => ({ error: `io.a2a.spec.${name}`, message });
  const classes: [string, number, new (...args: never[]) => A2AError][] = [
    ["TaskNotFoundError", 404, TaskNotFoundError],
    ["TaskNotCancelableError", 409, TaskNotCancelableError],
    ["PushNotificationNotSupportedError", 501, PushNotificationNotSupportedError],
    ["UnsupportedOperationError", 501, UnsupportedOperationError],
    ["ContentTypeNotSupportedError", 415, ContentTypeNotSupportedError],
    ["InvalidAgentResponseError", 502, InvalidAgentResponseError],
    ["AuthenticatedExtendedCardNotConfiguredError", 404, ExtendedAgentCardNotConfiguredError],
    ["JSONParseError", 400, JsonRpcParseError],
    ["InvalidRequestError", 400, InvalidRequestError],
    ["MethodNotFoundError", 404, MethodNotFoundError],
    ["InvalidParamsError", 422, InvalidParamsError],
    ["InternalError", 500, InternalError],
  ];

  it.each(classes)("%s with HTTP %i is that error, with the server's message and status", async (name, status, cls) => {
    answer(status, javaError(name, "said by the agent"));
    const e = await failure(client.getTask({ id: "t 1" }));
    expect(e).toBeInstanceOf(cls);
    expect(e.constructor).toBe(cls);
    expect(e).toMatchObject({ message: "said by the agent", httpStatus: status, binding: "HTTP+JSON" });
    expect(e).toMatchObject({ jsonRpcCode: undefined, reason: undefined, details: [] });
  });

  it("a class name without its package is read the same", async () => {
    answer(409, { error: "TaskNotCancelableError", message: "Task cannot be canceled" });
    expect(await failure(client.cancelTask({ id: "t 1" }))).toBeInstanceOf(TaskNotCancelableError);
  });

  it("an unknown class (its JSONRPCError, a member of every object) or a message that is no string: by the HTTP status, as before", async () => {
    answer(404, javaError("JSONRPCError", "Task not found"));
    const e = await failure(client.getTask({ id: "t 1" }));
    expect(e).toBeInstanceOf(MethodNotFoundError);
    expect(e.message).toContain(`${srv.url}/a2a/v1/tasks/t%201`);
    answer(409, javaError("SomethingElseError", "no"));
    expect(await failure(client.cancelTask({ id: "t 1" }))).toBeInstanceOf(ServerError);
    answer(409, { error: "io.a2a.spec.TaskNotCancelableError", message: null });
    expect(await failure(client.cancelTask({ id: "t 1" }))).toBeInstanceOf(ServerError);
    answer(409, { error: "io.a2a.spec.constructor", message: "no" });
    expect(await failure(client.cancelTask({ id: "t 1" }))).toBeInstanceOf(ServerError);
  });

  it("a subscribe answered with TaskNotFoundError as a 200 stream's only event: GetTask, and a finished task is UnsupportedOperationError", async () => {
    let state = "TASK_STATE_COMPLETED";
    srv.handle((req, res) => {
      if (req.url?.endsWith(":subscribe")) {
        startSse(res);
        res.end(sseFrame(javaError("TaskNotFoundError", "Task not found")));
      } else sendJson(res, 200, { ...TASK, status: { state } });
    });
    const e = await failure(collect(client.subscribeToTask({ id: "t 1" }, { resume: false })));
    expect(e).toBeInstanceOf(UnsupportedOperationError);
    expect(e.cause).toBeInstanceOf(TaskNotFoundError);
    expect(e.cause).toMatchObject({ message: "Task not found", httpStatus: 200, binding: "HTTP+JSON" });
    expect(srv.requests.map((r) => `${r.method} ${r.url.replace(/\?.*/, "")}`)).toEqual([
      "GET /a2a/v1/tasks/t%201:subscribe",
      "GET /a2a/v1/tasks/t%201",
    ]);
    // A task that has not ended: the agent's TaskNotFoundError, as it came.
    state = "TASK_STATE_WORKING";
    const working = await failure(collect(client.subscribeToTask({ id: "t 1" }, { resume: false })));
    expect(working).toBeInstanceOf(TaskNotFoundError);
  });

  it("in a stream after its first event, the error it names ends the stream; an unknown class is a malformed event, as before", async () => {
    let named = "TaskNotFoundError";
    srv.handle((_req, res) => {
      startSse(res);
      res.write(sseFrame({ task: TASK }));
      res.end(sseFrame(javaError(named, "gone")));
    });
    const seen: string[] = [];
    const run = async () => {
      for await (const e of client.sendStreamingMessage({ message: userMessage("x") })) seen.push(e.payload.case ?? "");
    };
    await expect(run()).rejects.toThrow(TaskNotFoundError);
    expect(seen).toEqual(["task"]);
    named = "JSONRPCError";
    const e = await failure(run());
    expect(e).toBeInstanceOf(ProtocolError);
    expect(e.message).toContain("a2a.v1.StreamResponse");
  });

  it("on a 1.0 HTTP+JSON interface the same bodies are read by the HTTP status, as before", async () => {
    const v1 = new A2AClient(createRestTransport(onNodeHttp({ baseUrl: `${srv.url}/a2a/` })));
    answer(404, javaError("TaskNotFoundError", "Task not found"));
    expect(await failure(v1.getTask({ id: "t 1" }))).toBeInstanceOf(MethodNotFoundError);
    answer(409, javaError("TaskNotCancelableError", "Task cannot be canceled"));
    expect(await failure(v1.cancelTask({ id: "t 1" }))).toBeInstanceOf(ServerError);
  });
});

describe("HTTP+JSON over 0.3: answers of the wrong shape and bare 404s", () => {
  it("a task without its id, or a send reply without payload, is a ProtocolError", async () => {
    answer(200, { contextId: "c1", status: { state: "TASK_STATE_WORKING" } });
    await expect(client.getTask({ id: "t 1" })).rejects.toThrow(ProtocolError);
    answer(200, {});
    const e = await client.sendMessage({ message: userMessage("hi") }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as Error).message).toMatch(/SendMessage.*payload/);
  });

  const message03 = (content: unknown) => ({ messageId: "m1", role: "ROLE_AGENT", content });
  it.each([
    [
      "a status message whose parts hold null",
      { status: { state: "TASK_STATE_WORKING", message: message03([null]) } },
      "status.message.content[0]",
    ],
    ["an artifact whose parts is a string", { artifacts: [{ artifactId: "a1", parts: "hello" }] }, "artifacts[0].parts"],
    ["a history message that is a string", { history: ["hi"] }, "history[0]"],
  ])("%s is a ProtocolError naming the field path", async (_what, fields, path) => {
    answer(200, { ...TASK, ...fields });
    const e = await client.getTask({ id: "t 1" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as Error).message).toContain(`a2a.v1.Task at ${path}:`);
  });

  it("a status message with parts (0.3's proto: content) null has no parts, as ProtoJSON reads null, on 1.0 too", async () => {
    answer(200, { ...TASK, status: { state: "TASK_STATE_WORKING", message: message03(null) } });
    expect((await client.getTask({ id: "t 1" })).status?.message?.parts).toEqual([]);
  });

  it("the path in a stream's event", async () => {
    srv.handle((_req, res) => {
      startSse(res);
      res.write(sseFrame({ task: TASK }));
      res.end(sseFrame({ artifactUpdate: { taskId: "t 1", contextId: "c1", artifact: { artifactId: "a1", parts: [null] } } }));
    });
    const e = await collect(client.subscribeToTask({ id: "t 1" }, { resume: false })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as Error).message).toContain("a2a.v1.StreamResponse at artifactUpdate.artifact.parts[0]:");
  });

  it("a framework's 404 page is MethodNotFoundError naming the URL; a 0.3 error body still says TASK_NOT_FOUND", async () => {
    srv.handle((_req, res) => {
      res.writeHead(404, { "Content-Type": "text/html" });
      res.end("<pre>Cannot GET</pre>");
    });
    const e = await client.getTask({ id: "t 1" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MethodNotFoundError);
    expect((e as Error).message).toContain(`${srv.url}/a2a/v1/tasks/t%201`);
    answer(404, { code: -32001, message: "Task not found: t 1" });
    await expect(client.getTask({ id: "t 1" })).rejects.toThrow(TaskNotFoundError);
  });
});
