/**
 * The JSON-RPC and HTTP+JSON bindings against fake servers: what goes on the
 * wire, and what the client makes of responses no well-behaved peer sends.
 */
import type { ServerResponse } from "node:http";
import * as v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { create } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  A2AClient,
  A2AError,
  AbortedError,
  AuthenticationError,
  AuthorizationError,
  CallTimeoutError,
  ConnectionError,
  ContentTypeNotSupportedError,
  InternalError,
  InvalidParamsError,
  MethodNotFoundError,
  ProtocolError,
  ServerError,
  TaskNotFoundError,
  TaskState,
  VersionNotSupportedError,
  createJsonRpcTransport,
  createJsonRpcTransportV03,
  createRestTransport,
  userMessage,
  type Binding,
  type ClientOptions,
  type HttpTransportOptions,
} from "../../../src/index.js";
import {
  closed,
  sendJson,
  sseFrame,
  startFakeServer,
  startSse,
  within,
  type FakeHandler,
  type FakeServer,
} from "../../support/fake-server.js";
import { trackTimers } from "../../support/timers.js";
import { exitCodeOf } from "../../../src/cli/classify.js";
import { EXIT } from "../../../src/cli/exit-codes.js";
import { failure } from "../../support/failure.js";

/** These tests are about one stream on the wire: no resumption after a drop. */
const RAW = { resume: false } as const;

type HttpBinding = Extract<Binding, "JSONRPC" | "HTTP+JSON">;
const HTTP_BINDINGS: readonly HttpBinding[] = ["JSONRPC", "HTTP+JSON"];

const TASK = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } };
const STATUS_UPDATE = { statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } } };
const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
/** Stack frames of the package's own code. */
const SRC = /[/\\]src[/\\]/;

function timeoutHandles(): number {
  return process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
}
let timeoutsAtStart = 0;
beforeAll(() => {
  timeoutsAtStart = timeoutHandles();
});

let srv: FakeServer;
beforeEach(async () => {
  srv = await startFakeServer();
});
afterEach(() => srv.close());

function clientOf(binding: HttpBinding, options: Partial<HttpTransportOptions> = {}, clientOptions?: ClientOptions): A2AClient {
  const transport =
    binding === "JSONRPC"
      ? createJsonRpcTransport({ baseUrl: srv.url, ...options })
      : createRestTransport({ baseUrl: srv.url, ...options });
  return new A2AClient(transport, clientOptions);
}

/** The request id of a JSON-RPC request body. */
function rpcId(body: string): number {
  return (JSON.parse(body) as { id: number }).id;
}

/** A successful response carrying `result` as the binding lays it out. */
function ok(binding: HttpBinding, body: string, result: unknown): unknown {
  return binding === "JSONRPC" ? { jsonrpc: "2.0", id: rpcId(body), result } : result;
}

function answer(binding: HttpBinding, result: unknown): FakeHandler {
  return (_req, res, body) => sendJson(res, 200, ok(binding, body, result));
}

/** An event stream of `results`, after which the server ends the response, or (with `hold`) goes silent. */
function stream(binding: HttpBinding, results: unknown[], hold = false): FakeHandler {
  return (_req, res, body) => {
    startSse(res);
    for (const r of results) res.write(sseFrame(ok(binding, body, r)));
    if (!hold) res.end();
  };
}

async function drain<T>(source: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
  const items: T[] = [];
  try {
    for await (const x of source) items.push(x);
  } catch (error) {
    return { items, error };
  }
  return { items, error: undefined };
}

/** Set by a fake server's handler: `closed()` resolves when that response's connection closes. */
function closeWatch(): { seen: (res: ServerResponse) => void; closed: () => Promise<void> } {
  let seen!: (res: ServerResponse) => void;
  const whenClosed = new Promise<void>((resolve) => (seen = (res) => resolve(closed(res))));
  return { seen, closed: () => whenClosed };
}

describe("JSON-RPC request shape", () => {
  it("GetTask is a POST of a JSON-RPC request with the A2A headers", async () => {
    srv.handle(answer("JSONRPC", TASK));
    const task = await clientOf("JSONRPC").getTask({ id: "t1", historyLength: 2 });
    expect(task.id).toBe("t1");
    expect(task.status?.state).toBe(TaskState.WORKING);

    const [req] = srv.requests;
    expect(req!.method).toBe("POST");
    expect(req!.url).toBe("/");
    expect(req!.headers["a2a-version"]).toBe("1.0");
    expect(req!.headers["content-type"]).toBe("application/json");
    const id = rpcId(req!.body);
    expect(Number.isInteger(id)).toBe(true);
    expect(req!.body).toBe(`{"jsonrpc":"2.0","id":${id},"method":"GetTask","params":{"id":"t1","historyLength":2}}`);
  });

  it("each request gets its own id", async () => {
    srv.handle(answer("JSONRPC", TASK));
    const client = clientOf("JSONRPC");
    await client.getTask({ id: "t1" });
    await client.getTask({ id: "t1" });
    const [a, b] = srv.requests.map((r) => rpcId(r.body));
    expect(a).not.toBe(b);
  });

  it("a client tenant goes into the params", async () => {
    srv.handle(answer("JSONRPC", TASK));
    await clientOf("JSONRPC", {}, { tenant: "acme" }).getTask({ id: "t1" });
    expect(JSON.parse(srv.requests[0]!.body)).toMatchObject({ method: "GetTask", params: { id: "t1", tenant: "acme" } });
  });
});

describe.each(HTTP_BINDINGS)("headers (%s)", (binding) => {
  it("transport and per-call extensions merge into one A2A-Extensions; per-call headers arrive", async () => {
    srv.handle(answer(binding, TASK));
    const client = clientOf(binding, { extensions: ["urn:a", "urn:b"], headers: { "X-Default": "d" } });
    await client.getTask({ id: "t1" }, { extensions: ["urn:b", "urn:c"], headers: { "X-Trace": "abc" } });
    const h = srv.requests[0]!.headers;
    expect(
      String(h["a2a-extensions"])
        .split(",")
        .map((s) => s.trim()),
    ).toEqual(["urn:a", "urn:b", "urn:c"]);
    expect(h["x-trace"]).toBe("abc");
    expect(h["x-default"]).toBe("d");
    expect(h["a2a-version"]).toBe("1.0");
  });

  it("per-call headers override the transport's", async () => {
    srv.handle(answer(binding, TASK));
    await clientOf(binding, { headers: { "X-Which": "transport" } }).getTask({ id: "t1" }, { headers: { "X-Which": "call" } });
    expect(srv.requests[0]!.headers["x-which"]).toBe("call");
  });
});

describe("HTTP+JSON request shape", () => {
  it("GetTask is GET /tasks/{id} with historyLength in the query", async () => {
    srv.handle(answer("HTTP+JSON", TASK));
    const task = await clientOf("HTTP+JSON").getTask({ id: "t1", historyLength: 2 });
    expect(task.id).toBe("t1");
    const [req] = srv.requests;
    expect(req!.method).toBe("GET");
    expect(req!.url).toBe("/tasks/t1?historyLength=2");
    expect(req!.body).toBe("");
    expect(req!.headers["a2a-version"]).toBe("1.0");
  });

  it("a base URL with a query: routes go under its path, its query before the route's own", async () => {
    srv.handle(answer("HTTP+JSON", TASK));
    await clientOf("HTTP+JSON", { baseUrl: `${srv.url}/a2a/?key=k%201#frag` }).getTask({ id: "t1", historyLength: 2 });
    await clientOf("HTTP+JSON", { baseUrl: `${srv.url}/a2a?key=k` }).cancelTask({ id: "t1" });
    expect(srv.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "GET /a2a/tasks/t1?key=k%201&historyLength=2",
      "POST /a2a/tasks/t1:cancel?key=k",
    ]);
  });

  it("ListTasks puts its filters in the query", async () => {
    srv.handle(answer("HTTP+JSON", { tasks: [TASK], nextPageToken: "", pageSize: 10, totalSize: 1 }));
    const res = await clientOf("HTTP+JSON").listTasks({ contextId: "c1", status: TaskState.WORKING, pageSize: 10 });
    expect(res.tasks.map((t) => t.id)).toEqual(["t1"]);
    const url = new URL(srv.requests[0]!.url, srv.url);
    expect(srv.requests[0]!.method).toBe("GET");
    expect(url.pathname).toBe("/tasks");
    expect(Object.fromEntries(url.searchParams)).toEqual({ contextId: "c1", status: "TASK_STATE_WORKING", pageSize: "10" });
  });

  it("CancelTask is POST /tasks/{id}:cancel", async () => {
    srv.handle(answer("HTTP+JSON", { ...TASK, status: { state: "TASK_STATE_CANCELED" } }));
    const task = await clientOf("HTTP+JSON").cancelTask({ id: "t1" });
    expect(task.status?.state).toBe(TaskState.CANCELED);
    expect(srv.requests[0]).toMatchObject({ method: "POST", url: "/tasks/t1:cancel" });
  });

  it("DeleteTaskPushNotificationConfig is DELETE /tasks/{taskId}/pushNotificationConfigs/{id}", async () => {
    srv.handle((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    await clientOf("HTTP+JSON").deleteTaskPushNotificationConfig({ taskId: "t1", id: "c1" });
    expect(srv.requests[0]).toMatchObject({ method: "DELETE", url: "/tasks/t1/pushNotificationConfigs/c1" });
  });

  it("CreateTaskPushNotificationConfig: the task id in the path and, as official clients send it, in the body; the tenant in the path only", async () => {
    const config = { taskId: "t1", id: "c1", url: "https://hooks.example.com/x" };
    srv.handle(answer("HTTP+JSON", config));
    await clientOf("HTTP+JSON", {}, { tenant: "acme" }).createTaskPushNotificationConfig(config);
    expect(srv.requests[0]).toMatchObject({ method: "POST", url: "/acme/tasks/t1/pushNotificationConfigs" });
    expect(JSON.parse(srv.requests[0]!.body)).toEqual(config);
  });

  it("a client tenant becomes the first path segment", async () => {
    srv.handle(answer("HTTP+JSON", TASK));
    await clientOf("HTTP+JSON", {}, { tenant: "acme" }).getTask({ id: "t1" });
    expect(srv.requests[0]).toMatchObject({ method: "GET", url: "/acme/tasks/t1" });
  });

  it("SendMessage posts the SendMessageRequest JSON; a tenant in the path is not repeated in the body", async () => {
    srv.handle(answer("HTTP+JSON", { task: TASK }));
    const message = userMessage("hi", { messageId: "m1" });

    const plain = await clientOf("HTTP+JSON").sendMessage({ message });
    expect(plain.payload.case).toBe("task");
    await clientOf("HTTP+JSON", {}, { tenant: "acme" }).sendMessage({ message });

    const [a, b] = srv.requests;
    expect(a).toMatchObject({ method: "POST", url: "/message:send" });
    expect(b).toMatchObject({ method: "POST", url: "/acme/message:send" });
    for (const r of [a!, b!]) {
      expect(r.headers["content-type"]).toBe("application/json");
      const body = JSON.parse(r.body) as Record<string, unknown>;
      expect(body).not.toHaveProperty("tenant");
      expect(body.message).toMatchObject({ messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] });
    }
  });
});

describe("HTTP+JSON SubscribeToTask", () => {
  /** How a server answers a subscribe verb it does not route. */
  type Refusal = "405" | "bare 404" | "404 naming <id>:subscribe";
  function refuse(kind: Refusal, res: ServerResponse, url: string): void {
    if (kind === "405") {
      res.writeHead(405, { Allow: "GET, POST", "Content-Type": "text/plain" });
      res.end("method not allowed");
    } else if (kind === "bare 404") {
      res.writeHead(404, { "Content-Type": "text/html" });
      res.end("<!DOCTYPE html><pre>Cannot handle this</pre>");
    } else {
      // What a server whose `GET /tasks/:id` swallows the path answers:
      // @a2a-js/sdk 1.0.0-beta.0 says exactly this.
      const id = decodeURIComponent(url.split("/").at(-1)!.split("?")[0]!);
      sendJson(res, 404, {
        error: {
          code: 404,
          status: "NOT_FOUND",
          message: `Task not found: ${id}`,
          details: [{ "@type": ERROR_INFO, reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" }],
        },
      });
    }
  }
  /** A server that routes `accepts` verbs of subscribe, and refuses the other as `refusal` says. */
  function subscribeServer(accepts: readonly string[], refusal: Refusal): FakeHandler {
    return (req, res, body) => {
      if (!accepts.includes(req.method!)) return refuse(refusal, res, req.url!);
      // The events of the task subscribed to.
      const taskId = decodeURIComponent(/\/tasks\/([^/:]+):subscribe/.exec(req.url!)![1]!);
      const events = [{ task: { ...TASK, id: taskId } }, { statusUpdate: { ...STATUS_UPDATE.statusUpdate, taskId } }];
      stream("HTTP+JSON", events)(req, res, body);
    };
  }
  const TASK_NOT_FOUND_BODY = {
    error: {
      code: 404,
      status: "NOT_FOUND",
      message: "Task not found: t1",
      details: [{ "@type": ERROR_INFO, reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" }],
    },
  };
  const seen = () => srv.requests.map((r) => `${r.method} ${r.url}`);

  const SERVERS: ReadonlyArray<{ name: string; accepts: string[]; refusal: Refusal; first: string[] }> = [
    { name: "GET only, POST answered 405", accepts: ["GET"], refusal: "405", first: ["POST", "GET"] },
    { name: "GET only, POST answered with a bare 404", accepts: ["GET"], refusal: "bare 404", first: ["POST", "GET"] },
    { name: "POST only, GET answered 405", accepts: ["POST"], refusal: "405", first: ["POST"] },
    {
      name: "POST only, GET answered 404 TASK_NOT_FOUND for <id>:subscribe",
      accepts: ["POST"],
      refusal: "404 naming <id>:subscribe",
      first: ["POST"],
    },
    { name: "GET and POST", accepts: ["GET", "POST"], refusal: "405", first: ["POST"] },
  ];

  it.each(SERVERS)("works against a server taking $name: at most one extra request, once", async ({ accepts, refusal, first }) => {
    srv.handle(subscribeServer(accepts, refusal));
    const client = clientOf("HTTP+JSON");
    for (const id of ["t1", "t2", "t3"]) {
      const { items, error } = await drain(client.subscribeToTask({ id }, RAW));
      expect(error).toBeUndefined();
      expect(items.map((e) => e.payload.case)).toEqual(["task", "statusUpdate"]);
    }
    const learned = first.at(-1)!;
    expect(seen()).toEqual([
      ...first.map((verb) => `${verb} /tasks/t1:subscribe`),
      `${learned} /tasks/t2:subscribe`,
      `${learned} /tasks/t3:subscribe`,
    ]);
    for (const r of srv.requests) expect(r.headers.accept).toBe("text/event-stream");
  });

  it("POST-first is the order: POST, then GET when POST is not routed (a server routing only GET as the proto says)", async () => {
    srv.handle(subscribeServer(["GET"], "405"));
    await drain(clientOf("HTTP+JSON").subscribeToTask({ id: "t1" }, RAW));
    expect(srv.requests[0]).toMatchObject({ method: "POST", body: "{}" });
    expect(srv.requests[0]!.headers["content-type"]).toBe("application/json");
    // The GET carries neither a body nor its content type.
    expect(srv.requests[1]).toMatchObject({ method: "GET", body: "" });
    expect(srv.requests[1]!.headers["content-type"]).toBeUndefined();
  });

  it("a learned verb that stops working (the agent was replaced) is corrected with one extra request, once", async () => {
    srv.handle(subscribeServer(["GET"], "405"));
    const client = clientOf("HTTP+JSON");
    expect((await drain(client.subscribeToTask({ id: "t0" }, RAW))).error).toBeUndefined();
    // The new server answers GET as a lookup of task "<id>:subscribe".
    srv.handle(subscribeServer(["POST"], "404 naming <id>:subscribe"));
    for (const id of ["t1", "t2"]) expect((await drain(client.subscribeToTask({ id }, RAW))).error).toBeUndefined();
    expect(seen()).toEqual([
      "POST /tasks/t0:subscribe",
      "GET /tasks/t0:subscribe",
      "GET /tasks/t1:subscribe",
      "POST /tasks/t1:subscribe",
      "POST /tasks/t2:subscribe",
    ]);
  });

  it("a task that does not exist is TaskNotFoundError after one request when POST is routed, and POST is kept", async () => {
    srv.handle((req, res, body) => {
      if (req.url!.includes("missing")) return sendJson(res, 404, TASK_NOT_FOUND_BODY);
      return subscribeServer(["POST"], "404 naming <id>:subscribe")(req, res, body);
    });
    const client = clientOf("HTTP+JSON");
    const { error } = await drain(client.subscribeToTask({ id: "missing" }, RAW));
    expect(error).toBeInstanceOf(TaskNotFoundError);
    expect(error).toMatchObject({ httpStatus: 404, reason: "TASK_NOT_FOUND" });
    expect((await drain(client.subscribeToTask({ id: "t2" }, RAW))).error).toBeUndefined();
    // After the subscribe's TaskNotFound, GetTask: whether the task ended (which some agents answer as not found).
    expect(seen()).toEqual(["POST /tasks/missing:subscribe", "GET /tasks/missing", "POST /tasks/t2:subscribe"]);
  });

  it("on a GET-only server a task that does not exist is TaskNotFoundError after the GET, which is kept", async () => {
    srv.handle((req, res, body) => {
      if (req.method === "GET" && req.url!.includes("missing")) return sendJson(res, 404, TASK_NOT_FOUND_BODY);
      return subscribeServer(["GET"], "405")(req, res, body);
    });
    const client = clientOf("HTTP+JSON");
    const { error } = await drain(client.subscribeToTask({ id: "missing" }, RAW));
    expect(error).toBeInstanceOf(TaskNotFoundError);
    expect((await drain(client.subscribeToTask({ id: "t2" }, RAW))).error).toBeUndefined();
    expect(seen()).toEqual([
      "POST /tasks/missing:subscribe",
      "GET /tasks/missing:subscribe",
      "GET /tasks/missing",
      "GET /tasks/t2:subscribe",
    ]);
  });

  it("a GET-only server that drops the id from its 404: TaskNotFoundError after POST 405 and the GET, GET kept", async () => {
    srv.handle((req, res, body) => {
      if (req.method === "GET" && req.url!.includes("missing")) {
        return sendJson(res, 404, { error: { ...TASK_NOT_FOUND_BODY.error, message: "Task not found" } });
      }
      return subscribeServer(["GET"], "405")(req, res, body);
    });
    const client = clientOf("HTTP+JSON");
    expect((await drain(client.subscribeToTask({ id: "missing" }, RAW))).error).toBeInstanceOf(TaskNotFoundError);
    expect((await drain(client.subscribeToTask({ id: "t2" }, RAW))).error).toBeUndefined();
    expect(seen()).toEqual([
      "POST /tasks/missing:subscribe",
      "GET /tasks/missing:subscribe",
      "GET /tasks/missing",
      "GET /tasks/t2:subscribe",
    ]);
  });

  it("a server that refuses both verbs: two requests per call, never more, and the second refusal is reported", async () => {
    srv.handle((req, res) => refuse(req.method === "POST" ? "405" : "bare 404", res, req.url!));
    const client = clientOf("HTTP+JSON");
    for (const id of ["t1", "t2"]) {
      const { items, error } = await drain(client.subscribeToTask({ id }, RAW));
      expect(items).toEqual([]);
      expect(error).toBeInstanceOf(A2AError);
      expect(error).toMatchObject({ binding: "HTTP+JSON", httpStatus: 404 });
    }
    expect(seen()).toEqual(["POST /tasks/t1:subscribe", "GET /tasks/t1:subscribe", "POST /tasks/t2:subscribe", "GET /tasks/t2:subscribe"]);
  });

  it("an answer that says nothing about routes (401, 500) ends the call without a retry", async () => {
    srv.handle((_req, res) => {
      res.writeHead(401, { "WWW-Authenticate": 'Bearer realm="a2a"', "Content-Type": "text/plain" });
      res.end("no");
    });
    const { error } = await drain(clientOf("HTTP+JSON").subscribeToTask({ id: "t1" }, RAW));
    expect(error).toBeInstanceOf(AuthenticationError);
    srv.handle((_req, res) => sendJson(res, 500, { error: { code: 500, status: "INTERNAL", message: "boom" } }));
    expect((await drain(clientOf("HTTP+JSON").subscribeToTask({ id: "t1" }, RAW))).error).toBeInstanceOf(InternalError);
    expect(seen()).toEqual(["POST /tasks/t1:subscribe", "POST /tasks/t1:subscribe"]);
  });

  it("each tenant learns its own verb, behind one transport", async () => {
    // A gateway that sends tenant "a" to a GET-only server and "b" to a POST-only one.
    srv.handle((req, res, body) => subscribeServer(req.url!.startsWith("/a/") ? ["GET"] : ["POST"], "405")(req, res, body));
    const transport = createRestTransport({ baseUrl: srv.url });
    const a = new A2AClient(transport, { tenant: "a" });
    const b = new A2AClient(transport, { tenant: "b" });
    for (const id of ["t1", "t2"]) {
      expect((await drain(a.subscribeToTask({ id }, RAW))).error).toBeUndefined();
      expect((await drain(b.subscribeToTask({ id }, RAW))).error).toBeUndefined();
    }
    expect(seen()).toEqual([
      "POST /a/tasks/t1:subscribe",
      "GET /a/tasks/t1:subscribe",
      "POST /b/tasks/t1:subscribe",
      "GET /a/tasks/t2:subscribe",
      "POST /b/tasks/t2:subscribe",
    ]);
    // The tenant is in the path, not repeated in the POST body.
    expect(JSON.parse(srv.requests[2]!.body)).not.toHaveProperty("tenant");
  });

  it("a refusal whose body never ends: the call ends when the stream's idle timeout says, with no second request", async () => {
    srv.handle((_req, res) => {
      res.writeHead(404, { "Content-Type": "application/json" });
      res.write('{"error": {"message": "Task not');
    });
    const { error } = await drain(clientOf("HTTP+JSON", { idleTimeoutMs: 150 }).subscribeToTask({ id: "t1" }, RAW));
    expect(error).toBeInstanceOf(CallTimeoutError);
    expect(seen()).toEqual(["POST /tasks/t1:subscribe"]);
  });

  it("what is learned is bounded: 64 tenants per transport, the oldest forgotten first", async () => {
    srv.handle(subscribeServer(["GET"], "405"));
    const transport = createRestTransport({ baseUrl: srv.url });
    const subscribe = async (tenant: string) =>
      expect((await drain(new A2AClient(transport, { tenant }).subscribeToTask({ id: "t1" }, RAW))).error).toBeUndefined();
    for (let i = 0; i <= 64; i++) await subscribe(`t${i}`);
    expect(srv.requests).toHaveLength(130);
    await subscribe("t64");
    expect(srv.requests).toHaveLength(131);
    // t0 was the oldest of 65: it tries POST first again.
    await subscribe("t0");
    expect(seen().slice(131)).toEqual(["POST /t0/tasks/t1:subscribe", "GET /t0/tasks/t1:subscribe"]);
  });

  it("a query parameter an interceptor added goes along on the retry", async () => {
    srv.handle(subscribeServer(["GET"], "405"));
    const client = clientOf("HTTP+JSON", {
      interceptors: [
        (next) => (req) => {
          const url = new URL(req.url);
          url.searchParams.set("key", "k1");
          return next({ ...req, url: url.href });
        },
      ],
    });
    expect((await drain(client.subscribeToTask({ id: "t1" }, RAW))).error).toBeUndefined();
    expect(seen()).toEqual(["POST /tasks/t1:subscribe?key=k1", "GET /tasks/t1:subscribe?key=k1"]);
  });

  it("a 405 on a unary call is an error, not a retry", async () => {
    srv.handle((_req, res) => {
      res.writeHead(405, { Allow: "POST" });
      res.end();
    });
    const e = await failure(clientOf("HTTP+JSON").getTask({ id: "t1" }));
    expect(e).toMatchObject({ binding: "HTTP+JSON", httpStatus: 405 });
    expect(srv.requests).toHaveLength(1);
  });
});

describe.each(HTTP_BINDINGS)("malformed responses (%s)", (binding) => {
  async function protocolError(p: Promise<unknown>): Promise<ProtocolError> {
    const e = await failure(p);
    expect(e).toBeInstanceOf(ProtocolError);
    expect(e.binding).toBe(binding);
    return e as ProtocolError;
  }

  it("invalid JSON with 200", async () => {
    srv.handle((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end('{"id": "t1", ');
    });
    const e = await protocolError(clientOf(binding).getTask({ id: "t1" }));
    expect(e.httpStatus).toBe(200);
    expect(e.message).toMatch(
      /^the response body from http:\/\/127\.0\.0\.1:\d+\/\S* is not valid JSON: it ends at position 13 before the JSON does$/,
    );
  });

  it("an HTML page with 200", async () => {
    srv.handle((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      res.end("<!doctype html><title>Welcome</title>");
    });
    await protocolError(clientOf(binding).getTask({ id: "t1" }));
  });

  it("a result of the wrong shape", async () => {
    srv.handle(answer(binding, { id: "t1", status: "not-an-object" }));
    await protocolError(clientOf(binding).getTask({ id: "t1" }));
  });

  it("an agent whose card claims 1.0 but answers in 0.3's shapes: ProtocolError saying so, not a task with its state and roles lost", async () => {
    const task03 = {
      kind: "task",
      id: "t1",
      contextId: "c1",
      status: { state: "completed" },
      history: [{ kind: "message", role: "user", messageId: "m1", parts: [{ kind: "text", text: "hi" }] }],
    };
    srv.handle(answer(binding, task03));
    const client = clientOf(binding);
    for (const call of [
      client.getTask({ id: "t1" }),
      client.cancelTask({ id: "t1" }),
      client.sendMessage({ message: userMessage("hi") }),
    ]) {
      const e = await protocolError(call);
      expect(e.message).toMatch(/in A2A 0\.3's shape \(kind "task"\), not 1\.0's/);
    }
    srv.handle(stream(binding, [{ kind: "status-update", taskId: "t1", contextId: "c1", status: { state: "working" }, final: false }]));
    const { items, error } = await drain(clientOf(binding).subscribeToTask({ id: "t1" }, RAW));
    expect(items).toEqual([]);
    expect((await protocolError(Promise.reject(error))).message).toMatch(/SubscribeToTask in A2A 0\.3's shape \(kind "status-update"\)/);
  });

  it("a body larger than maxResponseBytes", async () => {
    srv.handle(answer(binding, { ...TASK, metadata: { padding: "x".repeat(10_000) } }));
    await protocolError(clientOf(binding, { maxResponseBytes: 1000 }).getTask({ id: "t1" }));
  });

  it("a body larger than maxResponseBytes, and a stream event larger than maxEventBytes: ProtocolError naming the limit and where", async () => {
    srv.handle(answer(binding, { ...TASK, metadata: { padding: "x".repeat(10_000) } }));
    const unary = await protocolError(clientOf(binding, { maxResponseBytes: 1000 }).getTask({ id: "t1" }));
    expect(unary.message).toMatch(/^response body from http:\/\/127\.0\.0\.1:\d+\/\S* larger than 1000 bytes/);
    srv.handle((_req, res, body) => {
      startSse(res);
      res.write(sseFrame(ok(binding, body, { task: TASK })));
      res.end(sseFrame(ok(binding, body, { task: { ...TASK, metadata: { padding: "x".repeat(10_000) } } })));
    });
    const { items, error } = await drain(clientOf(binding, { maxEventBytes: 1000 }).subscribeToTask({ id: "t1" }, RAW));
    // The event before the oversized one is delivered first.
    expect(items).toHaveLength(1);
    const e = await protocolError(Promise.reject(error));
    expect(e.message).toMatch(/^stream event or line from http:\/\/127\.0\.0\.1:\d+\/\S* larger than 1000 characters \(maxEventBytes\)$/);
  });

  it("a stream answered with a content type that is neither SSE nor JSON, or with none: ProtocolError naming the URL and what came", async () => {
    for (const type of ["text/plain", "text/plain; charset=utf-8", undefined]) {
      srv.handle((_req, res) => {
        res.writeHead(200, type === undefined ? {} : { "Content-Type": type });
        // Records as an event stream has them: still not one.
        res.end("data: {}\n\n");
      });
      const { items, error } = await drain(clientOf(binding).subscribeToTask({ id: "t1" }, RAW));
      expect(items).toEqual([]);
      const e = await protocolError(Promise.reject(error));
      const got = type === undefined ? "no content type" : `content type "${type}"`;
      expect(e.message).toMatch(
        new RegExp(
          `^expected an event stream \\(text/event-stream\\) from http://127\\.0\\.0\\.1:\\d+/\\S*, got ${got.replace(/[.;()]/g, "\\$&")}$`,
        ),
      );
    }
  });

  it("an event stream's media type is read in any case, as media types are", async () => {
    srv.handle((_req, res, body) => {
      res.writeHead(200, { "Content-Type": "Text/Event-Stream; Charset=UTF-8" });
      res.end(sseFrame(ok(binding, body, { task: { ...TASK, status: { state: "TASK_STATE_COMPLETED" } } })));
    });
    const { items, error } = await drain(clientOf(binding).subscribeToTask({ id: "t1" }, RAW));
    expect(error).toBeUndefined();
    expect(items).toHaveLength(1);
  });

  it("a stream event that is not JSON: ProtocolError naming the URL and the first character that could not be read", async () => {
    const cases: Array<[string, string]> = [
      ["{not json", `cannot read "n" at position 1`],
      ["<html>", `cannot read "<" at position 0`],
      ["\ufeff{}", "cannot read U+FEFF at position 0"],
      ["\u001e\u001e{}", "cannot read U+001E at position 0"],
      ['{"a": [1, 2,]}', `cannot read "]" at position 12`],
      ['{"a": "x\ty"}', "cannot read U+0009 at position 8"],
      ['{"a": "\\q"}', `cannot read "q" at position 8`],
      ['{"a": "\\u00G0"}', `cannot read "G" at position 11`],
      ['{"a": 1} {}', `cannot read "{" at position 9`],
      ['{"a": tru}', `cannot read "}" at position 9`],
      ['{"a": [1, {"b": 2}', "it ends at position 18 before the JSON does"],
    ];
    for (const [data, fault] of cases) {
      srv.handle((_req, res) => {
        startSse(res);
        res.end(`data: ${data}\n\n`);
      });
      const { error } = await drain(clientOf(binding).subscribeToTask({ id: "t1" }, RAW));
      const e = await protocolError(Promise.reject(error));
      expect(e.message).toMatch(/^a stream event from http:\/\/127\.0\.0\.1:\d+\/\S* is not valid JSON: /);
      expect(e.message.slice(e.message.indexOf("JSON: ") + 6)).toBe(fault);
    }
  });

  it("a bad event among good ones on an open stream: the good ones, then ProtocolError, and the connection is closed", async () => {
    const gone = closeWatch();
    srv.handle((_req, res, body) => {
      gone.seen(res);
      startSse(res);
      // One write, so that the good event and the bad one arrive together; the response stays open.
      res.write(sseFrame(ok(binding, body, { task: TASK })) + "data: {not json\n\n");
    });
    const { items, error } = await drain(clientOf(binding).subscribeToTask({ id: "t1" }, RAW));
    expect(items).toHaveLength(1);
    await protocolError(Promise.reject(error));
    await within(gone.closed(), 2000, "server-side close after the bad event");
  });
});

describe("malformed JSON-RPC envelopes", () => {
  it("a response with another id", async () => {
    srv.handle((_req, res, body) => sendJson(res, 200, { jsonrpc: "2.0", id: rpcId(body) + 1000, result: TASK }));
    const e = await failure(clientOf("JSONRPC").getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(ProtocolError);
    expect(e.binding).toBe("JSONRPC");
  });

  it("a response with neither result nor error", async () => {
    srv.handle((_req, res, body) => sendJson(res, 200, { jsonrpc: "2.0", id: rpcId(body) }));
    const e = await failure(clientOf("JSONRPC").getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(ProtocolError);
    expect(e.binding).toBe("JSONRPC");
  });

  it("a delete answered with neither result nor error succeeds: its result is empty anyway (a2a-go 2.3.1)", async () => {
    srv.handle((_req, res, body) => sendJson(res, 200, { jsonrpc: "2.0", id: rpcId(body) }));
    await expect(clientOf("JSONRPC").deleteTaskPushNotificationConfig({ taskId: "t1", id: "c1" })).resolves.toBeUndefined();
    const v03 = new A2AClient(createJsonRpcTransportV03({ baseUrl: srv.url }));
    await expect(v03.deleteTaskPushNotificationConfig({ taskId: "t1", id: "c1" })).resolves.toBeUndefined();
  });

  it("an error answered as text/plain is read as the error it is (a2a-go 2.3.1's 0.3 surface); a result so labelled is refused", async () => {
    const plain = (res: ServerResponse, json: unknown) => {
      res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" });
      res.end(JSON.stringify(json));
    };
    srv.handle((_req, res, body) => plain(res, { jsonrpc: "2.0", id: rpcId(body), error: { code: -32001, message: "task not found" } }));
    expect(await failure(clientOf("JSONRPC").getTask({ id: "t1" }))).toBeInstanceOf(TaskNotFoundError);
    const v03 = new A2AClient(createJsonRpcTransportV03({ baseUrl: srv.url }));
    expect(await failure(v03.getTask({ id: "t1" }))).toBeInstanceOf(TaskNotFoundError);
    // Still checked against the request's id.
    srv.handle((_req, res, body) =>
      plain(res, { jsonrpc: "2.0", id: rpcId(body) + 1, error: { code: -32001, message: "task not found" } }),
    );
    expect(await failure(clientOf("JSONRPC").getTask({ id: "t1" }))).toBeInstanceOf(ProtocolError);
    srv.handle((_req, res, body) => plain(res, { jsonrpc: "2.0", id: rpcId(body), result: TASK }));
    const e = await failure(clientOf("JSONRPC").getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(ProtocolError);
    expect(e.message).toMatch(/got content type "text\/plain; charset=utf-8"/);
  });

  it("a response that is not an object", async () => {
    srv.handle((_req, res) => sendJson(res, 200, [1, 2, 3]));
    const e = await failure(clientOf("JSONRPC").getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(ProtocolError);
  });
});

describe.each(HTTP_BINDINGS)("answers of the wrong shape (%s)", (binding) => {
  async function protocolError(p: Promise<unknown>, ...names: RegExp[]): Promise<ProtocolError> {
    const e = await failure(p);
    expect(e).toBeInstanceOf(ProtocolError);
    expect(e.binding).toBe(binding);
    for (const n of names) expect(e.message).toMatch(n);
    return e as ProtocolError;
  }
  const send = () => clientOf(binding).sendMessage({ message: userMessage("hi") });

  it("SendMessage answered with an empty object: no payload", async () => {
    srv.handle(answer(binding, {}));
    await protocolError(send(), /SendMessage/, /one of task, message/, /payload/);
  });

  it("SendMessage answered with 204 No Content", async () => {
    srv.handle((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    await protocolError(send(), binding === "JSONRPC" ? /not a JSON-RPC 2\.0 response/ : /one of task, message/);
  });

  it("SendMessage answered with a 200 application/problem+json document", async () => {
    srv.handle((_req, res) =>
      sendJson(res, 200, { type: "about:blank", title: "Oops", status: 500 }, { "Content-Type": "application/problem+json" }),
    );
    const e = await protocolError(send(), /problem/);
    expect(e.httpStatus).toBe(200);
  });

  it("GetTask answered with {}: a Task without its REQUIRED id", async () => {
    srv.handle(answer(binding, {}));
    await protocolError(clientOf(binding).getTask({ id: "t1" }), /GetTask/, /REQUIRED field "id"/);
  });

  it("GetTask answered with a Task with an empty id, or without status", async () => {
    srv.handle(answer(binding, { ...TASK, id: "" }));
    await protocolError(clientOf(binding).getTask({ id: "t1" }), /"id"/);
    srv.handle(answer(binding, { id: "t1" }));
    await protocolError(clientOf(binding).getTask({ id: "t1" }), /"status"/);
  });

  it("a SendMessage reply whose task lacks its id names the path", async () => {
    srv.handle(answer(binding, { task: { ...TASK, id: undefined } }));
    await protocolError(send(), /"task\.id"/);
  });

  it("every operation's answer is checked: ListTasks, push configs, the extended card", async () => {
    srv.handle(answer(binding, { tasks: [TASK, { contextId: "c1", status: TASK.status }], nextPageToken: "" }));
    await protocolError(clientOf(binding).listTasks({}), /"tasks\[1\]\.id"/);
    srv.handle(answer(binding, { taskId: "t1", id: "p1" }));
    await protocolError(clientOf(binding).getTaskPushNotificationConfig({ taskId: "t1", id: "p1" }), /"url"/);
    srv.handle(answer(binding, { name: "agent" }));
    await protocolError(clientOf(binding).getExtendedAgentCard(), /GetExtendedAgentCard/, /"capabilities"/);
  });

  it("a list or message field of the wrong JSON type names its path: a null part, parts that are a string", async () => {
    const message = { messageId: "m1", role: "ROLE_AGENT", parts: [{ text: "a" }, null] };
    srv.handle(answer(binding, { ...TASK, status: { ...TASK.status, message } }));
    await protocolError(clientOf(binding).getTask({ id: "t1" }), /lf\.a2a\.v1\.Task at status\.message\.parts\[1\]:/);
    srv.handle(answer(binding, { task: { ...TASK, artifacts: [{ artifactId: "a1", parts: "hello" }] } }));
    await protocolError(send(), /at task\.artifacts\[0\]\.parts:/);
  });

  it("a last page's empty nextPageToken, a total of 0 and no tasks are legal", async () => {
    srv.handle(answer(binding, { tasks: [], nextPageToken: "", pageSize: 0, totalSize: 0 }));
    await expect(clientOf(binding).listTasks({})).resolves.toMatchObject({ tasks: [] });
  });

  it("a stream event of the wrong shape ends the stream after the good ones", async () => {
    srv.handle(stream(binding, [{ task: TASK }, {}, STATUS_UPDATE]));
    const { items, error } = await drain(clientOf(binding).subscribeToTask({ id: "t1" }, RAW));
    expect(items.map((i) => i.payload.case)).toEqual(["task"]);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toMatch(/SubscribeToTask.*payload/);
  });

  it("a status update without its REQUIRED contextId", async () => {
    srv.handle(stream(binding, [{ statusUpdate: { taskId: "t1", status: { state: "TASK_STATE_WORKING" } } }]));
    const { error } = await drain(clientOf(binding).subscribeToTask({ id: "t1" }, RAW));
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toMatch(/"statusUpdate\.contextId"/);
  });
});

describe("JSON-RPC envelopes must answer this request in JSON-RPC 2.0", () => {
  it("a result without an id", async () => {
    srv.handle((_req, res) => sendJson(res, 200, { jsonrpc: "2.0", result: TASK }));
    const e = await failure(clientOf("JSONRPC").getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(ProtocolError);
    expect(e.message).toMatch(/id absent/);
  });

  it("a result with a null id, or another string than the id's decimal", async () => {
    srv.handle((_req, res) => sendJson(res, 200, { jsonrpc: "2.0", id: null, result: TASK }));
    await expect(clientOf("JSONRPC").getTask({ id: "t1" })).rejects.toThrow(ProtocolError);
    // Only exactly String(id) is ours: not "01", " 1", "1.0", "2", nor [1].
    for (const other of [
      (n: number) => `0${n}`,
      (n: number) => ` ${n}`,
      (n: number) => `${n}.0`,
      (n: number) => `${n + 1}`,
      (n: number) => [n],
    ]) {
      srv.handle((_req, res, body) => sendJson(res, 200, { jsonrpc: "2.0", id: other(rpcId(body)), result: TASK }));
      const e = await failure(clientOf("JSONRPC").getTask({ id: "t1" }));
      expect(e).toBeInstanceOf(ProtocolError);
      expect(e.message).toMatch(/does not match the request id 1$/);
    }
  });

  it('the id as the decimal string of ours (2 as "2") answers this request: a result, an error, a stream\'s events', async () => {
    srv.handle((_req, res, body) => sendJson(res, 200, { jsonrpc: "2.0", id: String(rpcId(body)), result: TASK }));
    const client = clientOf("JSONRPC");
    await expect(client.getTask({ id: "t1" })).resolves.toMatchObject({ id: "t1" });
    // The next request's id is 2, answered as "2".
    await expect(client.getTask({ id: "t1" })).resolves.toMatchObject({ id: "t1" });
    srv.handle((_req, res, body) =>
      sendJson(res, 200, { jsonrpc: "2.0", id: String(rpcId(body)), error: { code: -32001, message: "gone" } }),
    );
    await expect(client.getTask({ id: "t1" })).rejects.toThrow(TaskNotFoundError);
    srv.handle((_req, res, body) => {
      startSse(res);
      res.write(sseFrame({ jsonrpc: "2.0", id: String(rpcId(body)), result: { task: TASK } }));
      res.end(sseFrame({ jsonrpc: "2.0", id: String(rpcId(body)), result: STATUS_UPDATE }));
    });
    const { items, error } = await drain(client.subscribeToTask({ id: "t1" }, RAW));
    expect(error).toBeUndefined();
    expect(items).toHaveLength(2);
  });

  it("another jsonrpc version, or none", async () => {
    for (const jsonrpc of ["1.0", undefined, 2]) {
      srv.handle((_req, res, body) => sendJson(res, 200, { jsonrpc, id: rpcId(body), result: TASK }));
      const e = await failure(clientOf("JSONRPC").getTask({ id: "t1" }));
      expect(e).toBeInstanceOf(ProtocolError);
      expect(e.message).toMatch(/JSON-RPC 2\.0/);
    }
  });

  it("an error with another id is not this request's error; one with a null id is", async () => {
    const error = { code: -32001, message: "gone" };
    srv.handle((_req, res, body) => sendJson(res, 200, { jsonrpc: "2.0", id: rpcId(body) + 1, error }));
    await expect(clientOf("JSONRPC").getTask({ id: "t1" })).rejects.toThrow(ProtocolError);
    srv.handle((_req, res) => sendJson(res, 200, { jsonrpc: "2.0", id: null, error }));
    await expect(clientOf("JSONRPC").getTask({ id: "t1" })).rejects.toThrow(TaskNotFoundError);
  });

  it("an error with another id or none stays a ProtocolError, with the server's error as its cause and the rule it breaks named", async () => {
    const error = { code: -32001, message: "gone" };
    for (const id of [(body: string): unknown => rpcId(body) + 1, () => undefined, () => "x"]) {
      srv.handle((_req, res, body) => sendJson(res, 200, { jsonrpc: "2.0", id: id(body), error }));
      const e = await failure(clientOf("JSONRPC").getTask({ id: "t1" }));
      expect(e).toBeInstanceOf(ProtocolError);
      expect(e.cause).toBeInstanceOf(TaskNotFoundError);
      expect(e.message).toMatch(
        /^the JSON-RPC response id \S+ does not match the request id 1; the server breaks JSON-RPC 2\.0 section 5, and its error \(TASK_NOT_FOUND\) is the cause$/,
      );
    }
    // On a stream too.
    srv.handle((_req, res, body) => {
      startSse(res);
      res.end(sseFrame({ jsonrpc: "2.0", id: rpcId(body) + 1, error }));
    });
    const { error: streamError } = await drain(clientOf("JSONRPC").subscribeToTask({ id: "t1" }, RAW));
    expect(streamError).toBeInstanceOf(ProtocolError);
    expect((streamError as ProtocolError).cause).toBeInstanceOf(TaskNotFoundError);
  });

  it("stream events carry the request's id too", async () => {
    srv.handle((_req, res, body) => {
      startSse(res);
      res.write(sseFrame({ jsonrpc: "2.0", id: rpcId(body), result: { task: TASK } }));
      res.end(sseFrame({ jsonrpc: "2.0", id: rpcId(body) + 1, result: STATUS_UPDATE }));
    });
    const { items, error } = await drain(clientOf("JSONRPC").subscribeToTask({ id: "t1" }, RAW));
    expect(items).toHaveLength(1);
    expect(error).toBeInstanceOf(ProtocolError);
  });
});

describe.each(HTTP_BINDINGS)("a 404 without an A2A error body (%s)", (binding) => {
  const pages: Array<[string, (res: ServerResponse) => void]> = [
    [
      "a framework's HTML page",
      (res) => {
        res.writeHead(404, { "Content-Type": "text/html; charset=utf-8" });
        res.end("<!DOCTYPE html><pre>Cannot POST /nope</pre>");
      },
    ],
    [
      "an empty body",
      (res) => {
        res.writeHead(404);
        res.end();
      },
    ],
    ["a JSON body that is no A2A error", (res) => sendJson(res, 404, { message: "Not Found", path: "/nope" })],
  ];
  it.each(pages)("%s -> MethodNotFoundError naming the URL, not TaskNotFoundError", async (_what, page) => {
    srv.handle((_req, res) => page(res));
    const client = clientOf(binding, {}, undefined);
    const e = await failure(client.getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(MethodNotFoundError);
    expect(e).not.toBeInstanceOf(TaskNotFoundError);
    expect(e.httpStatus).toBe(404);
    expect(e.message).toContain(new URL(srv.url).origin);
    expect(exitCodeOf(e)).not.toBe(EXIT.notFound);
    // Streams report it the same way.
    const { error } = await drain(client.subscribeToTask({ id: "t1" }, RAW));
    expect(error).toBeInstanceOf(MethodNotFoundError);
  });

  it("the URL in the message has no query (it may carry a key)", async () => {
    srv.handle((_req, res) => page404(res));
    const transport =
      binding === "JSONRPC"
        ? createJsonRpcTransport({ baseUrl: `${srv.url}/rpc?api_key=s3cr3t` })
        : createRestTransport({ baseUrl: `${srv.url}/rest?api_key=s3cr3t` });
    const e = await failure(new A2AClient(transport).getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(MethodNotFoundError);
    expect(e.message).not.toContain("s3cr3t");
  });
});

function page404(res: ServerResponse): void {
  res.writeHead(404, { "Content-Type": "text/plain" });
  res.end("Not Found");
}

describe("HTTP+JSON errors: reason, then the body's status, then the HTTP status", () => {
  const status = (code: number, name: string, details: unknown[] = []) => ({ error: { code, status: name, message: "m", details } });
  const info = (reason: string) => ({ "@type": ERROR_INFO, reason, domain: "a2a-protocol.org" });
  const cases: Array<[string, number, unknown, new (...a: never[]) => A2AError]> = [
    [
      "INVALID_ARGUMENT + INVALID_PARAMS (the official server's pageSize answer)",
      400,
      status(400, "INVALID_ARGUMENT", [info("INVALID_PARAMS")]),
      InvalidParamsError,
    ],
    ["INVALID_ARGUMENT without a reason", 400, status(400, "INVALID_ARGUMENT"), InvalidParamsError],
    ["a reason beats the status", 400, status(400, "INVALID_ARGUMENT", [info("CONTENT_TYPE_NOT_SUPPORTED")]), ContentTypeNotSupportedError],
    ["NOT_FOUND + TASK_NOT_FOUND", 404, status(404, "NOT_FOUND", [info("TASK_NOT_FOUND")]), TaskNotFoundError],
    ["a google.rpc.Status NOT_FOUND", 404, status(404, "NOT_FOUND"), TaskNotFoundError],
    ["UNIMPLEMENTED", 501, status(501, "UNIMPLEMENTED"), MethodNotFoundError],
    ["METHOD_NOT_FOUND reason", 404, status(404, "NOT_FOUND", [info("METHOD_NOT_FOUND")]), MethodNotFoundError],
    ["INTERNAL_ERROR reason", 500, status(500, "INTERNAL", [info("INTERNAL_ERROR")]), InternalError],
    ["INTERNAL or UNKNOWN without a reason: the server failed, as JSON-RPC's -32603 says", 500, status(500, "UNKNOWN"), InternalError],
    ["UNKNOWN on a gateway's 503 stays a ServerError", 503, status(503, "UNKNOWN"), ServerError],
    ["UNAUTHENTICATED on a 400", 400, status(400, "UNAUTHENTICATED"), AuthenticationError],
    [
      "TASK_NOT_FOUND reason on a 400 (a reason wins over the HTTP status)",
      400,
      status(400, "FAILED_PRECONDITION", [info("TASK_NOT_FOUND")]),
      TaskNotFoundError,
    ],
  ];
  it.each(cases)("%s", async (_what, code, body, cls) => {
    srv.handle((_req, res) => sendJson(res, code, body));
    const e = await failure(clientOf("HTTP+JSON").listTasks({ pageSize: 1000 }));
    expect(e).toBeInstanceOf(cls);
    expect(e.httpStatus).toBe(code);
  });
});

describe("JSON-RPC errors with a standard reason", () => {
  it("INVALID_PARAMS in data -> InvalidParamsError, whatever the code", async () => {
    const error = { code: -32000, message: "m", data: [{ "@type": ERROR_INFO, reason: "INVALID_PARAMS" }] };
    srv.handle((_req, res, body) => sendJson(res, 200, { jsonrpc: "2.0", id: rpcId(body), error }));
    await expect(clientOf("JSONRPC").listTasks({ pageSize: 1000 })).rejects.toThrow(InvalidParamsError);
  });

  it("a gateway's google.rpc.Status in front of a JSON-RPC endpoint is read as on HTTP+JSON, its code as an HTTP status", async () => {
    const status = { error: { code: 400, status: "INVALID_ARGUMENT", message: "bad", details: [] } };
    for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
      srv.handle((_req, res) => sendJson(res, 400, status));
      const e = await failure(clientOf(binding).getTask({ id: "t1" }));
      expect(e, binding).toBeInstanceOf(InvalidParamsError);
      expect(e, binding).toMatchObject({ httpStatus: 400, jsonRpcCode: undefined, message: "bad" });
    }
  });
});

describe("errors on streams", () => {
  it("JSON-RPC: a JSON error envelope instead of a stream -> TaskNotFoundError", async () => {
    srv.handle((_req, res, body) =>
      sendJson(res, 200, { jsonrpc: "2.0", id: rpcId(body), error: { code: -32001, message: "no such task" } }),
    );
    const { items, error } = await drain(clientOf("JSONRPC").subscribeToTask({ id: "t1" }, RAW));
    expect(items).toEqual([]);
    expect(error).toBeInstanceOf(TaskNotFoundError);
    expect(error).toMatchObject({ binding: "JSONRPC", jsonRpcCode: -32001, message: "no such task" });
  });

  it("JSON-RPC: an `event: error` frame ends the stream after the events before it", async () => {
    srv.handle((_req, res, body) => {
      startSse(res);
      res.write(sseFrame(ok("JSONRPC", body, { task: TASK })));
      // Still working: after a final state the stream would end there, before any error.
      res.write(
        sseFrame(ok("JSONRPC", body, { statusUpdate: { ...STATUS_UPDATE.statusUpdate, status: { state: "TASK_STATE_WORKING" } } })),
      );
      res.end(sseFrame({ code: -32001, message: "gone" }, "error"));
    });
    const { items, error } = await drain(clientOf("JSONRPC").subscribeToTask({ id: "t1" }, RAW));
    expect(items.map((e) => e.payload.case)).toEqual(["task", "statusUpdate"]);
    expect(error).toBeInstanceOf(TaskNotFoundError);
    expect(error).toMatchObject({ jsonRpcCode: -32001, message: "gone" });
  });

  it("JSON-RPC: an error envelope in a data frame -> the mapped error", async () => {
    srv.handle((_req, res, body) => {
      startSse(res);
      res.write(sseFrame(ok("JSONRPC", body, { task: TASK })));
      res.end(sseFrame({ jsonrpc: "2.0", id: rpcId(body), error: { code: -32001, message: "gone" } }));
    });
    const { items, error } = await drain(clientOf("JSONRPC").subscribeToTask({ id: "t1" }, RAW));
    expect(items).toHaveLength(1);
    expect(error).toBeInstanceOf(TaskNotFoundError);
  });

  it("HTTP+JSON: a google.rpc.Status frame -> TaskNotFoundError", async () => {
    srv.handle((_req, res) => {
      startSse(res);
      res.write(sseFrame({ task: TASK }));
      res.end(
        sseFrame({
          error: {
            code: 404,
            status: "NOT_FOUND",
            message: "x",
            details: [{ "@type": ERROR_INFO, reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" }],
          },
        }),
      );
    });
    const { items, error } = await drain(clientOf("HTTP+JSON").subscribeToTask({ id: "t1" }, RAW));
    expect(items).toHaveLength(1);
    expect(error).toBeInstanceOf(TaskNotFoundError);
    expect(error).toMatchObject({ binding: "HTTP+JSON", reason: "TASK_NOT_FOUND", message: "x" });
  });

  it("the ErrorInfo reason wins over a conflicting JSON-RPC code (unary and stream)", async () => {
    const rpcError = {
      code: -32006,
      message: "speak 1.0",
      data: [{ "@type": ERROR_INFO, reason: "VERSION_NOT_SUPPORTED", domain: "a2a-protocol.org" }],
    };
    srv.handle((_req, res, body) => {
      if (JSON.parse(body).method === "GetTask") {
        sendJson(res, 200, { jsonrpc: "2.0", id: rpcId(body), error: rpcError });
        return;
      }
      startSse(res);
      res.end(sseFrame({ jsonrpc: "2.0", id: rpcId(body), error: rpcError }));
    });
    const client = clientOf("JSONRPC");
    const unary = await failure(client.getTask({ id: "t1" }));
    expect(unary).toBeInstanceOf(VersionNotSupportedError);
    expect(unary).toMatchObject({ reason: "VERSION_NOT_SUPPORTED", jsonRpcCode: -32006 });
    const { error } = await drain(client.subscribeToTask({ id: "t1" }, RAW));
    expect(error).toBeInstanceOf(VersionNotSupportedError);
  });
});

describe.each(HTTP_BINDINGS)("HTTP status errors (%s)", (binding) => {
  it("401 with a challenge -> AuthenticationError carrying it", async () => {
    srv.handle((_req, res) => {
      res.writeHead(401, { "WWW-Authenticate": 'Bearer realm="a2a"' });
      res.end();
    });
    const e = await failure(clientOf(binding).getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as AuthenticationError).challenge).toBe('Bearer realm="a2a"');
    expect(e).toMatchObject({ binding, httpStatus: 401 });
  });

  it("403 -> AuthorizationError", async () => {
    srv.handle((_req, res) => {
      res.writeHead(403, { "Content-Type": "text/plain" });
      res.end("forbidden");
    });
    const e = await failure(clientOf(binding).getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(AuthorizationError);
    expect(e).toMatchObject({ binding, httpStatus: 403 });
  });

  it("503 with an HTML page -> ServerError with the status", async () => {
    srv.handle((_req, res) => {
      res.writeHead(503, { "Content-Type": "text/html" });
      res.end("<html><body><h1>503 Service Unavailable</h1></body></html>");
    });
    const e = await failure(clientOf(binding).getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(ServerError);
    expect(e).toMatchObject({ binding, httpStatus: 503 });
  });

  it("the same statuses on a stream", async () => {
    srv.handle((_req, res) => {
      res.writeHead(401, { "WWW-Authenticate": 'Bearer realm="a2a"' });
      res.end();
    });
    const { error } = await drain(clientOf(binding).subscribeToTask({ id: "t1" }, RAW));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).challenge).toBe('Bearer realm="a2a"');
  });
});

describe.each(HTTP_BINDINGS)("forward compatibility (%s)", (binding) => {
  const future = { ...TASK, futureField: 1, status: { state: "TASK_STATE_FROM_THE_FUTURE", alsoNew: { x: 1 } } };

  it("unknown fields and enum values in a response are tolerated", async () => {
    srv.handle(answer(binding, future));
    const task = await clientOf(binding).getTask({ id: "t1" });
    expect(task.id).toBe("t1");
    expect(task.status?.state).toBe(TaskState.UNSPECIFIED);
    expect(task.status?.state).toBe(0);
  });

  it("and in stream events", async () => {
    srv.handle(stream(binding, [{ task: future, futurePayload: {} }]));
    const { items, error } = await drain(clientOf(binding).subscribeToTask({ id: "t1" }, RAW));
    expect(error).toBeUndefined();
    expect(items).toHaveLength(1);
    expect(items[0]!.payload.case).toBe("task");
  });

  it("an event whose data starts with the JSON text sequence separator (U+001E, RFC 7464) is read without it", async () => {
    srv.handle((_req, res, body) => {
      startSse(res);
      res.write(`data: \u001e${JSON.stringify(ok(binding, body, { task: TASK }))}\n\n`);
      // Also on an error event, and with the separator after data: without a space.
      res.end(
        `event: error\ndata:\u001e${JSON.stringify(binding === "JSONRPC" ? { code: -32001, message: "gone" } : { error: { code: 404, status: "NOT_FOUND", message: "gone" } })}\n\n`,
      );
    });
    const { items, error } = await drain(clientOf(binding).subscribeToTask({ id: "t1" }, RAW));
    expect(items.map((e) => e.payload.case)).toEqual(["task"]);
    expect(error).toBeInstanceOf(TaskNotFoundError);
  });
});

describe.each(HTTP_BINDINGS)("timeouts and aborts (%s)", (binding) => {
  it("a unary call to a server that never answers -> CallTimeoutError (deadline), and the request is dropped", async () => {
    const gone = closeWatch();
    srv.handle((_req, res) => gone.seen(res));
    const timers = trackTimers(SRC);
    try {
      const e = await failure(clientOf(binding).getTask({ id: "t1" }, { timeoutMs: 100 }));
      expect(e).toBeInstanceOf(CallTimeoutError);
      expect((e as CallTimeoutError).kind).toBe("deadline");
      expect(e.binding).toBe(binding);
      await within(gone.closed(), 2000, "server-side close after the deadline");
      expect(await timers.live()).toEqual([]);
    } finally {
      timers.stop();
    }
  });

  it("the transport's timeoutMs applies when the call sets none", async () => {
    srv.handle(() => {});
    const e = await failure(clientOf(binding, { timeoutMs: 100 }).getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(CallTimeoutError);
    expect((e as CallTimeoutError).kind).toBe("deadline");
  });

  it("a stream that goes silent -> its events, then CallTimeoutError (idle)", async () => {
    srv.handle(stream(binding, [{ task: TASK }], true));
    const timers = trackTimers(SRC);
    try {
      const { items, error } = await drain(clientOf(binding, { idleTimeoutMs: 150 }).subscribeToTask({ id: "t1" }, RAW));
      expect(items).toHaveLength(1);
      expect(error).toBeInstanceOf(CallTimeoutError);
      expect(error).toMatchObject({ kind: "idle", binding });
      expect(await timers.live()).toEqual([]);
    } finally {
      timers.stop();
    }
  });

  it("an AbortSignal fired mid-stream -> AbortedError, and the server sees the connection close", async () => {
    const gone = closeWatch();
    srv.handle((req, res, body) => {
      gone.seen(res);
      stream(binding, [{ task: TASK }], true)(req, res, body);
    });
    const timers = trackTimers(SRC);
    try {
      const controller = new AbortController();
      const it = clientOf(binding)
        .subscribeToTask({ id: "t1" }, { ...RAW, signal: controller.signal })
        [Symbol.asyncIterator]();
      const first = await it.next();
      expect(first.done).toBe(false);
      controller.abort();
      const e = await failure(it.next());
      expect(e).toBeInstanceOf(AbortedError);
      await within(gone.closed(), 2000, "server-side close after the abort");
      expect(await timers.live()).toEqual([]);
    } finally {
      timers.stop();
    }
  });

  it("an already aborted signal -> AbortedError without a request", async () => {
    const controller = new AbortController();
    controller.abort();
    const e = await failure(clientOf(binding).getTask({ id: "t1" }, { signal: controller.signal }));
    expect(e).toBeInstanceOf(AbortedError);
    const { error } = await drain(clientOf(binding).subscribeToTask({ id: "t1" }, { ...RAW, signal: controller.signal }));
    expect(error).toBeInstanceOf(AbortedError);
    expect(srv.requests).toEqual([]);
  });

  /** Subscribes, takes one event, breaks; resolves when the server has seen the connection close. */
  async function breakAfterFirst(): Promise<void> {
    const gone = closeWatch();
    srv.handle((req, res, body) => {
      gone.seen(res);
      stream(binding, [{ task: TASK }, STATUS_UPDATE], true)(req, res, body);
    });
    let seen = 0;
    for await (const _ of clientOf(binding).subscribeToTask({ id: "t1" }, RAW)) {
      seen++;
      break;
    }
    expect(seen).toBe(1);
    await within(gone.closed(), 2000, "server-side close after break");
  }

  it("a consumer that breaks out of a stream releases the connection", async () => {
    await breakAfterFirst();
  });

  it("a consumer that breaks out of a stream leaves no timer armed", async () => {
    const timers = trackTimers(SRC);
    try {
      await breakAfterFirst();
      expect(await timers.live()).toEqual([]);
    } finally {
      timers.stop();
    }
  });
});

describe.each(HTTP_BINDINGS)("connection failures (%s)", (binding) => {
  it("a closed port -> ConnectionError (refused)", async () => {
    await srv.close();
    const e = await failure(clientOf(binding).getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(ConnectionError);
    expect((e as ConnectionError).kind).toBe("refused");
    expect(e.binding).toBe(binding);
    const { error } = await drain(clientOf(binding).subscribeToTask({ id: "t1" }, RAW));
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).kind).toBe("refused");
  });

  it("a connection reset before the response -> ConnectionError", async () => {
    srv.handle((req) => req.socket.destroy());
    const e = await failure(clientOf(binding).getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(ConnectionError);
    expect(e.binding).toBe(binding);
  });
});

describe.each(HTTP_BINDINGS)("credentials stay out of errors (%s)", (binding) => {
  const SECRET = "SECRET-123";
  const headers = { Authorization: `Bearer ${SECRET}` };

  /** Every own property, Errors in the cause chain included, as JSON; cycles cut. */
  function dump(e: unknown): string {
    const seen = new WeakSet<object>();
    return JSON.stringify(e, (_key, value: unknown) => {
      if (typeof value !== "object" || value === null) return typeof value === "bigint" ? String(value) : value;
      if (seen.has(value)) return "[cycle]";
      seen.add(value);
      if (value instanceof Headers) return Object.fromEntries(value);
      if (value instanceof Error) {
        return Object.fromEntries(Object.getOwnPropertyNames(value).map((k) => [k, (value as unknown as Record<string, unknown>)[k]]));
      }
      return value;
    });
  }

  function expectNoSecret(e: A2AError): void {
    expect(e.message).not.toContain(SECRET);
    expect(String(e)).not.toContain(SECRET);
    expect(e.stack ?? "").not.toContain(SECRET);
    const json = dump(e);
    expect(json).toContain(`"binding":"${binding}"`);
    expect(json).not.toContain(SECRET);
  }

  const cases: Array<[string, FakeHandler]> = [
    [
      "401",
      (_req, res) => {
        res.writeHead(401, { "WWW-Authenticate": 'Bearer realm="a2a", error="invalid_token"' });
        res.end();
      },
    ],
    [
      "500",
      (_req, res) => {
        res.writeHead(500, { "Content-Type": "text/plain" });
        res.end("internal error");
      },
    ],
    [
      "malformed",
      (_req, res: ServerResponse) => {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end("{oops");
      },
    ],
  ];

  it.each(cases)("%s", async (_name, handler) => {
    srv.handle(handler);
    expectNoSecret(await failure(clientOf(binding).getTask({ id: "t1" }, { headers })));
    const { error } = await drain(clientOf(binding).subscribeToTask({ id: "t1" }, { ...RAW, headers }));
    expect(error).toBeInstanceOf(A2AError);
    expectNoSecret(error as A2AError);
    expect(srv.requests[0]!.headers.authorization).toBe(`Bearer ${SECRET}`);
  });

  it("refused", async () => {
    await srv.close();
    expectNoSecret(await failure(clientOf(binding).getTask({ id: "t1" }, { headers })));
    expectNoSecret(await failure(clientOf(binding, { headers }).getTask({ id: "t1" })));
  });
});

describe("a request that cannot be written is the caller's InvalidParamsError, and nothing is sent", () => {
  it.each(HTTP_BINDINGS)("%s: a made timestamp past year 9999", async (binding) => {
    const after = create(TimestampSchema, { seconds: 10n ** 15n });
    const e = await clientOf(binding)
      .listTasks({ statusTimestampAfter: after })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidParamsError);
    // Named by the field, never by its value; whichever step refused it (the ProtoJSON writer, the binding's plan).
    expect((e as Error).message).toMatch(
      new RegExp(`^the request cannot be written as (${binding.replace("+", "\\+")}|ProtoJSON)\\b.*Timestamp`),
    );
    expect(srv.requests).toHaveLength(0);
  });

  it("HTTP+JSON: a task id holding a lone surrogate, which no URL path can carry, names the field", async () => {
    const e = await clientOf("HTTP+JSON")
      .getTask({ id: "t\ud800" })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidParamsError);
    expect((e as Error).message).toBe("the request's id is not well-formed Unicode (it holds a lone surrogate)");
    expect(srv.requests).toHaveLength(0);
  });
});

describe("resources", () => {
  it("no timers are left behind", async () => {
    await srv.close();
    expect(timeoutHandles()).toBeLessThanOrEqual(timeoutsAtStart);
  });
});

afterAll(() => srv.close());

describe.each(HTTP_BINDINGS)("maxResponseBytes does not depend on how the body is split (%s)", (binding) => {
  it("fails iff the body has more bytes than the limit, for any split (property)", async () => {
    const { default: fc } = await import("fast-check");
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 60, max: 400 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        async (pad, max, offsets) => {
          const client = (body: string): A2AClient => {
            const bytes = new TextEncoder().encode(body);
            const points = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
            const httpClient = async () => ({
              status: 200,
              header: new Headers({ "Content-Type": "application/json" }),
              trailer: new Headers(),
              body: (async function* () {
                let at = 0;
                for (const p of [...points, bytes.length]) {
                  yield bytes.subarray(at, p);
                  at = p;
                }
              })(),
            });
            const options = { baseUrl: "http://127.0.0.1:9/a2a", httpClient, maxResponseBytes: max };
            return new A2AClient(binding === "JSONRPC" ? createJsonRpcTransport(options) : createRestTransport(options));
          };
          const task = { ...TASK, metadata: { pad: "é".repeat(pad) } };
          const body = JSON.stringify(binding === "JSONRPC" ? { jsonrpc: "2.0", id: 1, result: task } : task);
          const size = new TextEncoder().encode(body).length;
          const got = await client(body)
            .getTask({ id: "t1" })
            .then(
              () => "ok",
              (e: unknown) => (e instanceof ProtocolError && /larger than/.test(e.message) ? "too large" : String(e)),
            );
          expect(got).toBe(size > max ? "too large" : "ok");
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("a unary body in one-byte chunks", () => {
  it("costs about its bytes while it is read, not an object per chunk", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const bytes = new TextEncoder().encode(JSON.stringify({ ...TASK, metadata: { pad: "x".repeat(400_000) } }));
    let held = 0;
    const httpClient = async () => ({
      status: 200,
      header: new Headers({ "Content-Type": "application/json" }),
      trailer: new Headers(),
      body: (async function* () {
        gc();
        const before = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
        for (let i = 0; i < bytes.length; i++) {
          if (i === bytes.length - 1) {
            gc();
            held = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - before;
          }
          // A fresh Buffer per byte, as an HTTP client gives a chunk per HTTP chunk.
          yield Buffer.of(bytes[i]!);
        }
      })(),
    });
    const task = await new A2AClient(createRestTransport({ baseUrl: "http://127.0.0.1:1", httpClient })).getTask({ id: "t1" });
    expect((task.metadata as { pad: string }).pad).toHaveLength(400_000);
    // Kept as a list of chunks, the 400,000 chunks held some 80 MB; the body is 0.4 MB.
    expect(held).toBeLessThan(8 * 1024 * 1024);
  });
});
