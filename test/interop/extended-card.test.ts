/**
 * The extended card through a session, against each real peer (the official
 * @a2a-js/sdk server, current and 1.0.0-beta.0): fetched
 * with the session's credentials, verified before it replaces the public
 * card, and not fetched again on every call.
 */
import { create, equals } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { beforeAll, describe, expect, it } from "vitest";
import { CURRENT_SDK, type LocalAgent } from "../../demo/agent.js";
import {
  A2AClient,
  AgentCardSchema,
  AgentCardVerificationError,
  AgentSession,
  MemoryCardStore,
  UnsupportedOperationError,
  resolveAgentCard,
  type AgentCard,
  type Binding,
  type SessionOptions,
} from "../../src/index.js";
import { BINDINGS, transportFor, type TransportOverrides } from "../support/bindings.js";
import { agentsOfPeers, peerCases } from "../support/peers.js";

const TOKEN = "extended-card-token";
const agentOf = agentsOfPeers({ extendedCardToken: TOKEN });
let agent: LocalAgent;

async function session(binding: Binding, overrides: TransportOverrides = {}, options: SessionOptions = {}) {
  const calls: string[] = [];
  const count: Interceptor = (next) => (req) => {
    calls.push(req.method.name);
    return next(req);
  };
  const resolved = await resolveAgentCard(agent.origin, { cache: new MemoryCardStore(), verification: { keys: agent.jwks } });
  const client = new A2AClient(transportFor(binding, agent, { ...overrides, interceptors: [count, ...(overrides.interceptors ?? [])] }));
  return { s: new AgentSession(client, resolved, { verification: { keys: agent.jwks }, ...options }), calls };
}

const skills = (card: AgentCard) => card.skills.map((s) => s.id);

describe.each(peerCases(BINDINGS))("$label", ({ sdk, binding }) => {
  beforeAll(() => {
    agent = agentOf(sdk);
  });

  it("loads the extended card with the session's credentials, verifies it, and keeps it", async () => {
    const { s, calls } = await session(binding, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(skills(s.card)).not.toContain("secret-skill");
    const extended = await s.extendedCard();
    expect(skills(extended)).toContain("secret-skill");
    expect(s.card).toBe(extended);
    expect(s.publicCard.skills).toHaveLength(extended.skills.length - 1);
    expect(s.extendedCardVerification).toMatchObject({ verified: true, kid: agent.signingKid });
    await s.extendedCard();
    expect(calls).toEqual(["GetExtendedAgentCard"]);
    await s.extendedCard({ refresh: true });
    expect(calls).toEqual(["GetExtendedAgentCard", "GetExtendedAgentCard"]);
  });

  it("the card adopted is read from the JSON that verified; over gRPC, where there is none, it is the message", async () => {
    let handed: AgentCard | undefined;
    const record: Interceptor = (next) => async (req) => {
      const res = await next(req);
      if (req.method.name === "GetExtendedAgentCard") handed = res.message as AgentCard;
      return res;
    };
    const { s } = await session(binding, { headers: { Authorization: `Bearer ${TOKEN}` }, interceptors: [record] });
    const card = await s.extendedCard();
    expect(s.extendedCardVerification?.verified).toBe(true);
    expect(equals(AgentCardSchema, card, handed!)).toBe(true);
    if (binding === "GRPC") expect(card).toBe(handed);
    else expect(card).not.toBe(handed);
  });

  it("without credentials the agent answers with its public card", async () => {
    const { s } = await session(binding);
    expect(skills(await s.extendedCard())).not.toContain("secret-skill");
  });

  it("a card loaded with one call's credentials is not what a call without them gets, in flight or kept", async () => {
    // The session itself carries no credentials: each call brings its own, or none.
    const { s, calls } = await session(binding);
    const withToken = { headers: { Authorization: `Bearer ${TOKEN}` } };
    const granted = await s.extendedCard(withToken);
    expect(skills(granted)).toContain("secret-skill");
    // What one call's credentials loaded is that call's: the card in force, which every caller reads, stays the public one.
    expect(s.card).toBe(s.publicCard);
    const [again, joined] = await Promise.all([s.extendedCard(withToken), s.extendedCard()]);
    expect(skills(again)).toContain("secret-skill");
    expect(skills(joined)).not.toContain("secret-skill");
    expect(skills(await s.extendedCard())).not.toContain("secret-skill");
    expect(s.card).not.toBe(s.publicCard);
    expect(skills(s.card)).not.toContain("secret-skill");
    expect(skills(await s.extendedCard({ headers: { Authorization: "Bearer another-token" } }))).not.toContain("secret-skill");
    expect(skills(s.card)).not.toContain("secret-skill");
    // Each set of credentials loads once, and what it loaded is kept for it.
    expect(skills(await s.extendedCard(withToken))).toContain("secret-skill");
    expect(calls).toEqual(["GetExtendedAgentCard", "GetExtendedAgentCard", "GetExtendedAgentCard"]);
  });

  it("a card that fails verification never replaces the one in force", async () => {
    // Alter the card on its way in, as a man in the middle would.
    const tamper: Interceptor = (next) => async (req) => {
      const res = await next(req);
      if (req.method.name === "GetExtendedAgentCard") (res.message as AgentCard).description = "all your base";
      return res;
    };
    const { s } = await session(binding, { headers: { Authorization: `Bearer ${TOKEN}` }, interceptors: [tamper] });
    const e = await s.extendedCard().catch((err: unknown) => err);
    expect(e).toBeInstanceOf(AgentCardVerificationError);
    expect((e as AgentCardVerificationError).result.failures.map((f) => f.code)).toEqual(["signature_invalid"]);
    expect(s.card).toBe(s.publicCard);
  });

  it.each(["if-present", "off"] as const)(
    "an unsigned extended card never replaces a verified public card (verify: %s)",
    async (verify) => {
      // Strip the signatures on the way in: without them the card would pass "if-present" unchecked.
      const strip: Interceptor = (next) => async (req) => {
        const res = await next(req);
        if (req.method.name === "GetExtendedAgentCard") (res.message as AgentCard).signatures = [];
        return res;
      };
      const { s } = await session(binding, { headers: { Authorization: `Bearer ${TOKEN}` }, interceptors: [strip] }, { verify });
      expect(s.verification?.verified).toBe(true);
      const e = await s.extendedCard().catch((err: unknown) => err);
      expect(e).toBeInstanceOf(AgentCardVerificationError);
      expect((e as AgentCardVerificationError).result.failures.map((f) => f.code)).toEqual(["no_signatures"]);
      expect(s.card).toBe(s.publicCard);
    },
  );
});

it("an agent without an extended card is not asked for one", async () => {
  agent = agentOf(CURRENT_SDK);
  const calls: string[] = [];
  const client = new A2AClient(
    transportFor("JSONRPC", agent, {
      interceptors: [(next) => (req) => (calls.push(req.method.name), next(req))],
    }),
  );
  const card = create(AgentCardSchema, { name: "plain", capabilities: { extendedAgentCard: false } });
  await expect(new AgentSession(client, { card }).extendedCard()).rejects.toBeInstanceOf(UnsupportedOperationError);
  expect(calls).toEqual([]);
});
