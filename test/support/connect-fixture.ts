/**
 * The fixture of the connect() suites: a real peer's agent and its resolved
 * card, and cards with other interfaces made from it. It imports only the
 * browser-safe entry, so a suite that must never load the Node entry can use
 * it too. `agent` and `resolved` are live bindings, set by `usePeer`.
 */
import { clone } from "@bufbuild/protobuf";
import { beforeAll } from "vitest";
import type { LocalAgent, ServerSdk } from "../../demo/agent.js";
import {
  AgentCardSchema,
  MemoryCardStore,
  resolveAgentCard,
  type AgentInterface,
  type Binding,
  type ConnectOptions,
  type ResolvedAgentCard,
} from "../../src/index.js";
import { agentsOfPeers } from "./peers.js";

const agentOf = agentsOfPeers();
export let agent: LocalAgent;
export let resolved: ResolvedAgentCard;

/** Points the tests of the enclosing describe at the peer's agent and its card. */
export function usePeer(sdk: ServerSdk): void {
  beforeAll(async () => {
    agent = agentOf(sdk);
    resolved = await resolveAgentCard(agent.origin, { cache: new MemoryCardStore(), verification: { keys: agent.jwks } });
  });
}

/** connect() options that trust the agent's keys, with a cache of the call's own. */
export const trusting = (extra: ConnectOptions = {}): ConnectOptions => ({
  cache: new MemoryCardStore(),
  verification: { keys: agent.jwks },
  ...extra,
});

/** The agent's card with other interfaces, as if the agent had published it (signatures are not checked here). */
export function withInterfaces(interfaces: AgentInterface[]): ResolvedAgentCard {
  const card = clone(AgentCardSchema, resolved.card);
  card.supportedInterfaces = interfaces;
  card.signatures = [];
  return { ...resolved, card };
}

/** The agent's own interface of `binding`. */
export const real = (binding: Binding) => resolved.card.supportedInterfaces.find((i) => i.protocolBinding === binding)!;
