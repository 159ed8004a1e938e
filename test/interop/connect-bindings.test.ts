/**
 * connect({ bindings }) against each real peer: a caller that must use some
 * bindings gets only those, never a failover to another, and a clear error
 * when the card has none of them.
 */
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  AgentInterfaceSchema,
  ConnectionError,
  InvalidParamsError,
  NoCompatibleInterfaceError,
  TaskState,
  userMessage,
  type Binding,
} from "../../src/index.js";
import { connect } from "../../src/node.js";
import { BINDINGS, collect } from "../support/bindings.js";
import { startFakeServer } from "../support/fake-server.js";
import { PEERS } from "../support/peers.js";
import { agent, real, trusting, usePeer, withInterfaces } from "../support/connect-fixture.js";
import { deadPort } from "../support/ports.js";

describe.each(PEERS)("bindings: only these ($label)", (sdk) => {
  usePeer(sdk);

  it.each(BINDINGS)("bindings: [%s] uses that binding whatever the card's order, and works", async (binding) => {
    const session = await connect(agent.origin, trusting({ bindings: [binding] }));
    expect(session.interface?.binding).toBe(binding);
    expect(session.candidates.map((c) => c.binding)).toEqual([binding]);
    expect(session.passedOver.map((p) => p.reason)).toEqual(
      BINDINGS.filter((b) => b !== binding).map((b) => `binding ${b} is not among the bindings allowed (${binding})`),
    );
    const events = await collect(session.client.sendStreamingMessage({ message: userMessage("count 2") }));
    expect(events.at(-1)?.payload.case).toBe("statusUpdate");
    expect(session.client.binding).toBe(binding);
  });

  it("never fails over to another binding: a dead interface of the binding insisted on fails the call", async () => {
    const dead = create(AgentInterfaceSchema, {
      url: `http://127.0.0.1:${await deadPort()}/rpc`,
      protocolBinding: "JSONRPC",
      protocolVersion: "1.0",
    });
    const card = withInterfaces([dead, real("HTTP+JSON"), real("GRPC")]);
    const insisting = await connect(card, trusting({ bindings: ["JSONRPC"] }));
    await expect(insisting.client.getTask({ id: "t" })).rejects.toBeInstanceOf(ConnectionError);
    expect(insisting.interface?.binding).toBe("JSONRPC");
    // Without the option the same card fails over (the contrast that makes the test mean something).
    const free = await connect(card, trusting());
    const res = await free.client.sendMessage({ message: userMessage("count 1") });
    expect(res.payload.case === "task" && res.payload.value.status?.state).toBe(TaskState.COMPLETED);
    expect(free.interface?.binding).toBe("HTTP+JSON");
  });

  it("a card without the binding fails with NoCompatibleInterfaceError listing each interface and why", async () => {
    const card = withInterfaces([real("JSONRPC"), real("HTTP+JSON")]);
    const e = await connect(card, trusting({ bindings: ["GRPC"] })).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(NoCompatibleInterfaceError);
    expect((e as NoCompatibleInterfaceError).passedOver).toEqual([
      { url: agent.jsonRpcUrl, binding: "JSONRPC", version: "1.0", reason: "binding JSONRPC is not among the bindings allowed (GRPC)" },
      { url: agent.restUrl, binding: "HTTP+JSON", version: "1.0", reason: "binding HTTP+JSON is not among the bindings allowed (GRPC)" },
    ]);
    expect((e as Error).message).toContain(`JSONRPC 1.0 at ${agent.jsonRpcUrl}: binding JSONRPC is not among the bindings allowed (GRPC)`);
  });
});

describe("bindings is checked before any request", () => {
  it.each([
    [{ bindings: ["GRPC-WEB" as Binding] }, /^bindings: "GRPC-WEB" is not a binding/],
    [{ bindings: [] }, /^bindings must be a non-empty list/],
    [{ preferredBindings: ["rest" as Binding] }, /^preferredBindings: "rest" is not a binding/],
  ])("%o fails with InvalidParamsError naming the option", async (options, message) => {
    const server = await startFakeServer();
    try {
      const e = await connect(server.url, options).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(InvalidParamsError);
      expect((e as Error).message).toMatch(message);
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});
