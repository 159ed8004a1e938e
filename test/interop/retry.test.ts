/**
 * Retries against the real peers (the official @a2a-js/sdk server, current
 * and 1.0.0-beta.0), on every binding: a TCP relay on 127.0.0.1 cuts the
 * first connection, as a restarting proxy would, and passes the rest to
 * the agent. A retried GetTask gets the task; without a policy the cut is
 * the caller's error; a SendMessage cut that way is not sent again.
 */
import { createServer, connect as tcpConnect, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { LocalAgent } from "../../demo/agent.js";
import { A2AClient, ConnectionError, userMessage, type Binding, type RetryPolicy, type Task } from "../../src/index.js";
import { transportFor } from "../support/bindings.js";
import { BINDINGS } from "../support/bindings.js";
import { agentsOfPeers, peerCases } from "../support/peers.js";

const agentOf = agentsOfPeers();

/** A relay to `port` that cuts the first `cut` connections as soon as they open. */
async function relay(port: number, cut: number): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    if (++connections <= cut) return socket.destroy();
    const upstream = tcpConnect(port, "127.0.0.1");
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    socket.pipe(upstream).pipe(socket);
    socket.on("error", () => upstream.destroy());
    upstream.on("error", () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The agent's port for `binding`, and a client of that binding through a relay on another port. */
function viaRelay(binding: Binding, agent: LocalAgent, relayPort: number, retry: RetryPolicy | undefined): A2AClient {
  const through = (url: string) => url.replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${relayPort}`);
  const relayed: LocalAgent = {
    ...agent,
    jsonRpcUrl: through(agent.jsonRpcUrl),
    restUrl: through(agent.restUrl),
    grpcAddress: through(agent.grpcAddress),
  };
  return new A2AClient(transportFor(binding, relayed, { timeoutMs: 10_000 }), { retry });
}

function portOf(binding: Binding, agent: LocalAgent): number {
  const where = binding === "JSONRPC" ? agent.jsonRpcUrl : binding === "HTTP+JSON" ? agent.restUrl : agent.grpcAddress;
  return Number(/127\.0\.0\.1:(\d+)/.exec(where)![1]);
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

describe.each(peerCases(BINDINGS))("$label", ({ sdk, binding }) => {
  async function setUp(cut: number, retry: RetryPolicy | undefined) {
    const agent = agentOf(sdk);
    // A task to read, made directly.
    const direct = new A2AClient(transportFor(binding, agent));
    const sent = await direct.sendMessage({ message: userMessage("count 1") });
    const task = sent.payload.value as Task;
    const r = await relay(portOf(binding, agent), cut);
    closers.push(r.close);
    return { task, relay: r, client: viaRelay(binding, agent, r.port, retry) };
  }

  it("a GetTask whose first connection is cut is retried and returns the task", async () => {
    const { task, relay: r, client } = await setUp(1, { attempts: 3, initialDelayMs: 1 });
    const got = await client.getTask({ id: task.id });
    expect(got.id).toBe(task.id);
    expect(r.connections()).toBeGreaterThanOrEqual(2);
  });

  it("without a policy the cut is the caller's error", async () => {
    const { task, client } = await setUp(1, undefined);
    await expect(client.getTask({ id: task.id })).rejects.toBeInstanceOf(ConnectionError);
  });

  it("a SendMessage whose connection is cut is not sent again (the agent may have it)", async () => {
    const { relay: r, client } = await setUp(1, { attempts: 3, initialDelayMs: 1 });
    await expect(client.sendMessage({ message: userMessage("count 1") })).rejects.toBeInstanceOf(ConnectionError);
    expect(r.connections()).toBe(1);
  });
});
