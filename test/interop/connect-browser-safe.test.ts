/**
 * `connect` in a process that never imports `a2a-connect/node`, as in a
 * browser: the bindings of the browser-safe entry only. (This file imports
 * nothing that imports the Node entry; every test file has its own modules.)
 */
import { clone } from "@bufbuild/protobuf";
import { beforeAll, describe, expect, it } from "vitest";
import type { LocalAgent, ServerSdk } from "../../demo/agent.js";
import {
  AgentCardSchema,
  MemoryCardStore,
  NoCompatibleInterfaceError,
  type A2AError,
  connect as connectHttpOnly,
  resolveAgentCard,
  type AgentInterface,
  type Binding,
  type ConnectOptions,
  type ResolvedAgentCard,
} from "../../src/index.js";
import { registeredTransports } from "../../src/toolkit.js";
import { PEERS, agentsOfPeers } from "../support/peers.js";

const agentOf = agentsOfPeers();
let agent: LocalAgent;
let resolved: ResolvedAgentCard;
function usePeer(sdk: ServerSdk): void {
  beforeAll(async () => {
    agent = agentOf(sdk);
    resolved = await resolveAgentCard(agent.origin, { cache: new MemoryCardStore(), verification: { keys: agent.jwks } });
  });
}

const trusting = (extra: ConnectOptions = {}): ConnectOptions => ({
  cache: new MemoryCardStore(),
  verification: { keys: agent.jwks },
  ...extra,
});

function withInterfaces(interfaces: AgentInterface[]): ResolvedAgentCard {
  const card = clone(AgentCardSchema, resolved.card);
  card.supportedInterfaces = interfaces;
  card.signatures = [];
  return { ...resolved, card };
}

const real = (binding: Binding) => resolved.card.supportedInterfaces.find((i) => i.protocolBinding === binding)!;

it("without the Node entry, the registry has the HTTP bindings only", () => {
  expect(Object.keys(registeredTransports()).sort()).toEqual(["HTTP+JSON@0.3", "HTTP+JSON@1.0", "JSONRPC@0.3", "JSONRPC@1.0"]);
});

describe.each(PEERS)("selection ($label)", (sdk) => {
  usePeer(sdk);

  it("the browser-safe entry passes gRPC over and says why", async () => {
    const session = await connectHttpOnly(agent.origin, trusting({ preferredBindings: ["GRPC"] }));
    expect(session.client.binding).toBe("JSONRPC");
    expect(session.passedOver).toEqual([expect.objectContaining({ binding: "GRPC", reason: expect.stringMatching(/a2a-connect\/node/) })]);
  });

  it("fails clearly when no interface is usable", async () => {
    const e = await connectHttpOnly(withInterfaces([real("GRPC")]), trusting()).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(NoCompatibleInterfaceError);
    expect((e as NoCompatibleInterfaceError).passedOver).toHaveLength(1);
  });

  // From grpc-web.test.ts, whose file also imports the Node entry.
  it("without it, the browser-safe entry passes GRPC interfaces over and says how to use them", async () => {
    const card = withInterfaces([real("GRPC")]).card;
    const e = await connectHttpOnly(card).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(NoCompatibleInterfaceError);
    expect((e as A2AError).message).toMatch(/grpcWeb: createGrpcWebTransport/);
  });
});
