/**
 * The error table, per binding, against each real peer: each failure
 * arrives as its own A2AError subclass with the binding's facts attached.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { LocalAgent } from "../../demo/agent.js";
import {
  A2AError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
  userMessage,
  type Binding,
} from "../../src/index.js";
import { BINDINGS, clientFor, collect } from "../support/bindings.js";
import { agentsOfPeers, peerCases } from "../support/peers.js";

const agentOf = agentsOfPeers();
let agent: LocalAgent;

async function failure(p: Promise<unknown>): Promise<A2AError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(A2AError);
  return e as A2AError;
}

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
