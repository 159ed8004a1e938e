/**
 * connect() against each real peer (the official @a2a-js/sdk server,
 * current and 1.0.0-beta.0): selection, failover, tenant routing and
 * extensions.
 */
import { clone, create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  AgentInterfaceSchema,
  ExtensionSupportRequiredError,
  ServerError,
  TaskNotFoundError,
  TaskState,
  userMessage,
} from "../../src/index.js";
import { connect } from "../../src/node.js";
import { BINDINGS, clientFor, collect } from "../support/bindings.js";
import { sendJson, startFakeServer } from "../support/fake-server.js";
import { PEERS, peerCases } from "../support/peers.js";
import { agent, real, trusting, usePeer, withInterfaces } from "../support/connect-fixture.js";
import { deadPort } from "../support/ports.js";

describe.each(PEERS)("selection ($label)", (sdk) => {
  usePeer(sdk);

  it("connects to the card's first interface and works", async () => {
    const session = await connect(agent.origin, trusting());
    expect(session.interface?.binding).toBe("JSONRPC");
    expect(session.interface?.interface.url).toBe(agent.jsonRpcUrl);
    expect(session.candidates.map((c) => c.binding)).toEqual(["JSONRPC", "HTTP+JSON", "GRPC"]);
    expect(session.passedOver).toEqual([]);
    expect(session.verification?.kid).toBe(agent.signingKid);
    const res = await session.client.sendMessage({ message: userMessage("count 1") });
    expect(res.payload.case === "task" && res.payload.value.status?.state).toBe(TaskState.COMPLETED);
  });

  it.each(BINDINGS)("honours preferredBindings: %s", async (binding) => {
    const session = await connect(agent.origin, trusting({ preferredBindings: [binding] }));
    expect(session.client.binding).toBe(binding);
    const events = await collect(session.client.sendStreamingMessage({ message: userMessage("count 2") }));
    expect(events.at(-1)?.payload.case).toBe("statusUpdate");
  });
  // The browser-safe entry without the Node entry: connect-browser-safe.test.ts.
});

describe.each(PEERS)("failover ($label)", (sdk) => {
  usePeer(sdk);

  it("moves to the next interface when the first refuses connections, keeps the message id, and stays there", async () => {
    const dead = create(AgentInterfaceSchema, {
      url: `http://127.0.0.1:${await deadPort()}/rpc`,
      protocolBinding: "JSONRPC",
      protocolVersion: "1.0",
    });
    const session = await connect(withInterfaces([dead, real("HTTP+JSON"), real("GRPC")]), trusting());
    expect(session.interface?.interface.url).toBe(dead.url);
    const message = userMessage("count 1");
    const res = await session.client.sendMessage({ message });
    expect(session.interface?.binding).toBe("HTTP+JSON");
    const task = res.payload.case === "task" ? res.payload.value : undefined;
    expect(task?.history.map((m) => m.messageId)).toContain(message.messageId);
    // Later calls go straight to the interface that worked.
    expect((await session.client.getTask({ id: task!.id })).id).toBe(task!.id);
    expect(session.interface?.binding).toBe("HTTP+JSON");
  });

  it("fails over in card order: after a dead JSONRPC entry comes the next entry, not the next JSONRPC one", async () => {
    const dead = create(AgentInterfaceSchema, {
      url: `http://127.0.0.1:${await deadPort()}/rpc`,
      protocolBinding: "JSONRPC",
      protocolVersion: "1.0",
    });
    const session = await connect(withInterfaces([dead, real("HTTP+JSON"), real("JSONRPC")]), trusting());
    expect(session.candidates.map((c) => c.interface.url)).toEqual([dead.url, agent.restUrl, agent.jsonRpcUrl]);
    const res = await session.client.sendMessage({ message: userMessage("count 1") });
    expect(res.payload.case).toBe("task");
    expect(session.interface?.interface.url).toBe(agent.restUrl);
  });

  it("fails over a read on 502/503/504 without an A2A error, but never resends a message after a 502 (the agent may have acted)", async () => {
    const gateway = await startFakeServer((_req, res) => sendJson(res, 502, { message: "bad gateway" }));
    try {
      const proxied = create(AgentInterfaceSchema, { url: `${gateway.url}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" });
      const sending = await connect(withInterfaces([proxied, real("GRPC")]), trusting());
      const e = await sending.client.sendMessage({ message: userMessage("count 1") }).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(ServerError);
      expect((e as ServerError).httpStatus).toBe(502);
      expect(gateway.requests).toHaveLength(1);

      const reading = await connect(withInterfaces([proxied, real("GRPC")]), trusting());
      await expect(reading.client.getTask({ id: "no-such-task" })).rejects.toBeInstanceOf(TaskNotFoundError);
      expect(reading.interface?.binding).toBe("GRPC");
    } finally {
      await gateway.close();
    }
  });

  it("stops after maxAttempts", async () => {
    const port = await deadPort();
    const dead = (n: number) =>
      create(AgentInterfaceSchema, { url: `http://127.0.0.1:${port}/${n}`, protocolBinding: "JSONRPC", protocolVersion: "1.0" });
    const session = await connect(withInterfaces([dead(1), dead(2), real("JSONRPC")]), trusting({ maxAttempts: 2 }));
    await expect(session.client.getTask({ id: "x" })).rejects.toMatchObject({ name: "ConnectionError", kind: "refused" });
  });
});

describe.each(peerCases(BINDINGS))("tenant on $label", ({ sdk, binding }) => {
  usePeer(sdk);

  it("every request carries exactly the interface's tenant", async () => {
    const tenanted = clone(AgentInterfaceSchema, real(binding));
    tenanted.tenant = `acme-${binding === "HTTP+JSON" ? "rest" : binding.toLowerCase()}`;
    const session = await connect(withInterfaces([tenanted]), trusting());
    // A request that names another tenant is overridden.
    const res = await session.client.sendMessage({ tenant: "someone-else", message: userMessage("count 1") });
    const id = res.payload.case === "task" ? res.payload.value.id : "";
    expect((await session.client.getTask({ id })).id).toBe(id);
    // The server keeps tenants apart: without the tenant, the task is not there.
    await expect(clientFor(binding, agent).getTask({ id })).rejects.toBeInstanceOf(TaskNotFoundError);
  });
});

describe.each(PEERS)("extensions ($label)", (sdk) => {
  usePeer(sdk);

  const EXT = "https://extensions.example/geo/v1";
  const requiring = () => {
    const r = withInterfaces([real("JSONRPC")]);
    r.card.capabilities!.extensions = [{ $typeName: "lf.a2a.v1.AgentExtension", uri: EXT, description: "", required: true }];
    return r;
  };

  it("a required extension that is not activated fails before any request", async () => {
    const e = await connect(requiring(), trusting()).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ExtensionSupportRequiredError);
    expect((e as Error).message).toContain(EXT);
  });

  it("activated extensions travel in A2A-Extensions and Message.extensions", async () => {
    const seen: string[] = [];
    const session = await connect(
      requiring(),
      trusting({
        extensions: [EXT],
        transport: { interceptors: [(next) => (req) => (seen.push(req.header.get("A2A-Extensions") ?? ""), next(req))] },
      }),
    );
    const res = await session.client.sendMessage({ message: userMessage("count 1") });
    expect(seen).toEqual([EXT]);
    const task = res.payload.case === "task" ? res.payload.value : undefined;
    expect(task?.history[0]?.extensions).toEqual([EXT]);
  });
});
