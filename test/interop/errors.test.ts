/**
 * The error table, per binding, against each real peer: each failure
 * arrives as its own A2AError subclass with the binding's facts attached.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CURRENT_SDK, startLocalAgent, type LocalAgent } from "../../demo/agent.js";
import {
  A2AClient,
  type A2AError,
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  InternalError,
  InvalidParamsError,
  MethodNotFoundError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
  text,
  userMessage,
  type Binding,
} from "../../src/index.js";
import { createGrpcTransportV03, createJsonRpcTransport, createJsonRpcTransportV03, createRestTransport } from "../../src/node.js";
import { BINDINGS, clientFor, collect } from "../support/bindings.js";
import { agentsOfPeers, peerCases } from "../support/peers.js";
import { failure } from "../support/failure.js";

const agentOf = agentsOfPeers();
let agent: LocalAgent;
// The installed release, for the table below, and the same server with a
// card that offers no push notifications.
const current = () => agentOf(CURRENT_SDK);
let noPush: LocalAgent;
// One that requires an extension, checks media types and has no extended card configured.
const EXT = "https://extensions.example/required/v1";
let strict: LocalAgent;
beforeAll(async () => {
  noPush = await startLocalAgent({ pushNotifications: false });
  strict = await startLocalAgent({ requiredExtensions: [EXT], validateInputModes: true, extendedCard: false });
});
afterAll(() => Promise.all([noPush.close(), strict.close()]));

// What each binding reports for an unknown task, per spec section 5.4.
const NOT_FOUND: Record<Binding, { httpStatus?: number; grpcCode?: number; jsonRpcCode?: number }> = {
  JSONRPC: { jsonRpcCode: -32001 },
  "HTTP+JSON": { httpStatus: 404 },
  GRPC: { grpcCode: 5 },
};

describe.each(peerCases(BINDINGS))("$label", ({ sdk, binding }) => {
  beforeAll(() => {
    agent = agentOf(sdk);
  });

  it("unknown task -> TaskNotFoundError", async () => {
    const e = await failure(clientFor(binding, agent).getTask({ id: "no-such-task" }));
    expect(e).toBeInstanceOf(TaskNotFoundError);
    expect(e.name).toBe("TaskNotFoundError");
    expect(e.reason).toBe("TASK_NOT_FOUND");
    expect(e.binding).toBe(binding);
    expect(e).toMatchObject(NOT_FOUND[binding]);
  });

  it("cancel of a finished task -> TaskNotCancelableError", async () => {
    const client = clientFor(binding, agent);
    const res = await client.sendMessage({ message: userMessage("count 1") });
    const id = res.payload.case === "task" ? res.payload.value.id : "";
    const e = await failure(client.cancelTask({ id }));
    expect(e).toBeInstanceOf(TaskNotCancelableError);
    expect(e.reason).toBe("TASK_NOT_CANCELABLE");
  });

  it("subscribe to a finished task -> UnsupportedOperationError", async () => {
    const client = clientFor(binding, agent);
    const res = await client.sendMessage({ message: userMessage("count 1") });
    const id = res.payload.case === "task" ? res.payload.value.id : "";
    const e = await failure(collect(client.subscribeToTask({ id })));
    expect(e).toBeInstanceOf(UnsupportedOperationError);
    expect(e.binding).toBe(binding);
  });

  it("an unsupported protocol version -> VersionNotSupportedError", async () => {
    const client = clientFor(binding, agent, { protocolVersion: "9.9" });
    const e = await failure(client.sendMessage({ message: userMessage("count 1") }));
    expect(e).toBeInstanceOf(VersionNotSupportedError);
    expect(e.message).not.toBe("");
  });

  it("streams report errors the same way as unary calls", async () => {
    const client = clientFor(binding, agent);
    const e = await failure(collect(client.subscribeToTask({ id: "no-such-task" })));
    expect(e).toBeInstanceOf(TaskNotFoundError);
  });
});

/**
 * A client for `binding` whose calls reach no method of the A2A 1.0 service:
 * JSON-RPC's and gRPC's 0.3 method names (`tasks/get`,
 * `a2a.v1.A2AService/GetTask`), sent as 1.0 so that the server does not
 * refuse the version first; on HTTP+JSON, where a method is a route, a
 * route the server does not have (one segment would read as a tenant).
 */
function unknownMethodClient(binding: Binding): A2AClient {
  switch (binding) {
    case "JSONRPC":
      return new A2AClient(createJsonRpcTransportV03({ baseUrl: current().jsonRpcUrl, protocolVersion: "1.0" }));
    case "HTTP+JSON":
      return new A2AClient(createRestTransport({ baseUrl: `${current().restUrl}/no/such-route` }));
    case "GRPC":
      return new A2AClient(createGrpcTransportV03({ baseUrl: current().grpcAddress, protocolVersion: "1.0" }));
  }
}

/** A client of `binding` pointed at a URL where no A2A interface is (gRPC: the unknown service). */
function wrongUrlClient(binding: Binding): A2AClient {
  switch (binding) {
    case "JSONRPC":
      return new A2AClient(createJsonRpcTransport({ baseUrl: `${current().origin}/no/such/interface` }));
    case "HTTP+JSON":
      return new A2AClient(createRestTransport({ baseUrl: `${current().origin}/no/such/interface` }));
    case "GRPC":
      return unknownMethodClient(binding);
  }
}

async function finishedTask(client: A2AClient): Promise<string> {
  const res = await client.sendMessage({ message: userMessage("count 1") });
  return res.payload.case === "task" ? res.payload.value.id : "";
}

type Provoke = (binding: Binding) => Promise<unknown>;

// Every error the official server can be made to produce, and the class it
// must arrive as on every binding (spec 5.4; ErrorInfo reason first, then
// the stated status, then the HTTP status).
const TABLE: ReadonlyArray<[string, new (...a: never[]) => A2AError, Provoke]> = [
  ["unknown task", TaskNotFoundError, (b) => clientFor(b, current()).getTask({ id: "no-such-task" })],
  [
    "unknown task on a stream",
    TaskNotFoundError,
    (b) => collect(clientFor(b, current()).subscribeToTask({ id: "no-such-task" }, { resume: false })),
  ],
  ["pageSize out of range", InvalidParamsError, (b) => clientFor(b, current()).listTasks({ pageSize: 1000 })],
  // HTTP+JSON refuses it itself: `GET /tasks/` is the ListTasks route.
  ["an empty task id", InvalidParamsError, (b) => clientFor(b, current()).getTask({ id: "" })],
  [
    "cancel of a finished task",
    TaskNotCancelableError,
    async (b) => {
      const c = clientFor(b, current());
      return c.cancelTask({ id: await finishedTask(c) });
    },
  ],
  [
    "subscribe to a finished task",
    UnsupportedOperationError,
    async (b) => {
      const c = clientFor(b, current());
      return collect(c.subscribeToTask({ id: await finishedTask(c) }, { resume: false }));
    },
  ],
  [
    "push config where the card offers no push",
    PushNotificationNotSupportedError,
    async (b) => {
      const c = clientFor(b, noPush);
      return c.createTaskPushNotificationConfig({ taskId: await finishedTask(c), url: "https://hooks.example.com/x" });
    },
  ],
  [
    "a required extension not activated",
    ExtensionSupportRequiredError,
    (b) => clientFor(b, strict).sendMessage({ message: userMessage("count 1") }),
  ],
  [
    "a part of a media type the agent does not take",
    ContentTypeNotSupportedError,
    (b) => clientFor(b, strict, { extensions: [EXT] }).sendMessage({ message: userMessage([text("count 1", { mediaType: "image/png" })]) }),
  ],
  ["an extended card offered but not configured", ExtendedAgentCardNotConfiguredError, (b) => clientFor(b, strict).getExtendedAgentCard()],
  ["an unsupported A2A-Version", VersionNotSupportedError, (b) => clientFor(b, current(), { protocolVersion: "9.9" }).getTask({ id: "x" })],
  ["a method the server does not have", MethodNotFoundError, (b) => unknownMethodClient(b).getTask({ id: "x" })],
  ["an interface URL where no A2A endpoint is", MethodNotFoundError, (b) => wrongUrlClient(b).getTask({ id: "x" })],
];

describe.each(TABLE)("the same class on every binding: %s", (_what, cls, provoke) => {
  it.each(BINDINGS)("%s", async (binding) => {
    const e = await failure(provoke(binding));
    expect(e, `${binding}: ${e.name}: ${e.message}`).toBeInstanceOf(cls);
    expect(e.binding).toBe(binding);
    if (cls === MethodNotFoundError) expect(e).not.toBeInstanceOf(TaskNotFoundError);
  });
});

it("HTTP+JSON: the official server's 400 INVALID_ARGUMENT / INVALID_PARAMS is InvalidParamsError with its facts", async () => {
  const e = await failure(clientFor("HTTP+JSON", current()).listTasks({ pageSize: 1000 }));
  expect(e).toBeInstanceOf(InvalidParamsError);
  expect(e).toMatchObject({ httpStatus: 400, reason: "INVALID_PARAMS" });
  expect(e.message).toMatch(/pageSize/);
});

it("a framework 404 names the URL it came from", async () => {
  const e = await failure(wrongUrlClient("HTTP+JSON").getTask({ id: "x" }));
  expect(e.message).toContain(`${current().origin}/no/such/interface/tasks/x`);
  expect(e.httpStatus).toBe(404);
});

// An agent whose user lookup throws for credentials it does not know: a
// failure inside the server, which each binding of each peer reports its own
// way (JSON-RPC -32603, a 500 google.rpc.Status, gRPC UNKNOWN).
const failingOf = agentsOfPeers({ extendedCardToken: "the-token", echoRejectedCredentials: true });

describe.each(peerCases(BINDINGS))("a failure inside the server, $label", ({ sdk, binding }) => {
  it("is InternalError, unary and stream", async () => {
    const client = clientFor(binding, failingOf(sdk), { headers: { authorization: "Bearer unknown" } });
    for (const e of [
      await failure(client.getTask({ id: "x" })),
      await failure(collect(client.subscribeToTask({ id: "x" }, { resume: false }))),
    ]) {
      expect(e, `${e.name}: ${e.message}`).toBeInstanceOf(InternalError);
      expect({ code: e.code, transient: e.transient, binding: e.binding }).toEqual({ code: "INTERNAL_ERROR", transient: false, binding });
    }
  });
});
