/**
 * The error table over A2A 0.3, against the official server's 0.3
 * compatibility layer: each error the server can be made to produce is the
 * same class, code and `transient` on JSON-RPC, HTTP+JSON and gRPC 0.3, and
 * the same as over 1.0 (test/interop/errors.test.ts), with the status each
 * binding carried it with.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalAgent, type LocalAgent } from "../../demo/agent.js";
import {
  A2AClient,
  type A2AError,
  type A2ATransport,
  type Binding,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
  userMessage,
} from "../../src/index.js";
import { createGrpcTransportV03, createJsonRpcTransportV03, createRestTransportV03 } from "../../src/node.js";
import { collect } from "../support/bindings.js";
import { failure } from "../support/failure.js";

let agent: LocalAgent;
let noPush: LocalAgent;
const EXT = "https://extensions.example/required/v1";
let strict: LocalAgent;
beforeAll(async () => {
  [agent, noPush, strict] = await Promise.all([
    startLocalAgent({ versions: ["0.3"] }),
    startLocalAgent({ versions: ["0.3"], pushNotifications: false }),
    startLocalAgent({ versions: ["0.3"], requiredExtensions: [EXT], extendedCard: false }),
  ]);
});
afterAll(() => Promise.all([agent?.close(), noPush?.close(), strict?.close()]));

const BINDINGS: readonly Binding[] = ["JSONRPC", "HTTP+JSON", "GRPC"];

function clientOf(binding: Binding, a: LocalAgent, protocolVersion?: string): A2AClient {
  const transport: A2ATransport =
    binding === "JSONRPC"
      ? createJsonRpcTransportV03({ baseUrl: a.jsonRpcUrl, protocolVersion })
      : binding === "HTTP+JSON"
        ? createRestTransportV03({ baseUrl: a.restUrl, protocolVersion })
        : createGrpcTransportV03({ baseUrl: a.grpcAddress, protocolVersion });
  return new A2AClient(transport);
}

async function finishedTask(client: A2AClient): Promise<string> {
  const res = await client.sendMessage({ message: userMessage("count 1") });
  return res.payload.case === "task" ? res.payload.value.id : "";
}

type Provoke = (binding: Binding) => Promise<unknown>;
const TABLE: ReadonlyArray<[string, new (...a: never[]) => A2AError, Provoke]> = [
  ["GetTask of an unknown task", TaskNotFoundError, (b) => clientOf(b, agent).getTask({ id: "no-such-task" })],
  [
    "SubscribeToTask of an unknown task",
    TaskNotFoundError,
    (b) => collect(clientOf(b, agent).subscribeToTask({ id: "no-such-task" }, { resume: false })),
  ],
  ["CancelTask of an unknown task", TaskNotFoundError, (b) => clientOf(b, agent).cancelTask({ id: "no-such-task" })],
  [
    "a push config of an unknown task",
    TaskNotFoundError,
    (b) => clientOf(b, agent).getTaskPushNotificationConfig({ taskId: "no-such-task", id: "p1" }),
  ],
  [
    "the push configs of an unknown task",
    TaskNotFoundError,
    (b) => clientOf(b, agent).listTaskPushNotificationConfigs({ taskId: "no-such-task" }),
  ],
  [
    "CancelTask of a finished task",
    TaskNotCancelableError,
    async (b) => {
      const c = clientOf(b, agent);
      return c.cancelTask({ id: await finishedTask(c) });
    },
  ],
  [
    "SubscribeToTask of a finished task",
    UnsupportedOperationError,
    async (b) => {
      const c = clientOf(b, agent);
      return collect(c.subscribeToTask({ id: await finishedTask(c) }, { resume: false }));
    },
  ],
  [
    "a push config where the card offers no push",
    PushNotificationNotSupportedError,
    async (b) => {
      const c = clientOf(b, noPush);
      return c.createTaskPushNotificationConfig({ taskId: await finishedTask(c), url: "https://hooks.example.com/x" });
    },
  ],
  [
    "a required extension not activated",
    ExtensionSupportRequiredError,
    (b) => clientOf(b, strict).sendMessage({ message: userMessage("count 1") }),
  ],
  ["an extended card offered but not configured", ExtendedAgentCardNotConfiguredError, (b) => clientOf(b, strict).getExtendedAgentCard()],
  ["an unsupported A2A-Version", VersionNotSupportedError, (b) => clientOf(b, agent, "9.9").getTask({ id: "x" })],
];

describe.each(TABLE)("over A2A 0.3, the same error on every binding: %s", (_what, cls, provoke) => {
  it.each(BINDINGS)("%s", async (binding) => {
    const e = await failure(provoke(binding));
    expect(e, `${binding}: ${e.name}: ${e.message}`).toBeInstanceOf(cls);
    expect({ code: e.code, transient: e.transient, binding: e.binding }).toEqual({
      code: (cls as unknown as typeof TaskNotFoundError).code,
      transient: false,
      binding,
    });
    // The status it came with, as each binding carries it.
    if (binding === "GRPC") expect(e.grpcCode).toBeGreaterThan(0);
    else if (binding === "HTTP+JSON") expect(e.httpStatus).toBeGreaterThanOrEqual(400);
    else expect(e.jsonRpcCode).toBeLessThan(-32000);
    expect(e.message).not.toBe("");
  });
});
