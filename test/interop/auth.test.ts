/**
 * `connect(..., { auth })` against the official server, whose extended card
 * is only for callers with `Authorization: Bearer <token>`: a card declaring
 * a bearer scheme, and the credential for it, get the extended card on every
 * binding.
 */
import { clone, fromJson } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalAgent, type LocalAgent } from "../../demo/agent.js";
import {
  AgentCardSchema,
  AuthenticationError,
  MemoryCardStore,
  SecurityRequirementSchema,
  SecuritySchemeSchema,
  resolveAgentCard,
  type AgentCard,
  type ResolvedAgentCard,
} from "../../src/index.js";
import { connect } from "../../src/node.js";
import { BINDINGS } from "../support/bindings.js";

const TOKEN = "interop-extended-token";
let agent: LocalAgent;
let resolved: ResolvedAgentCard;
beforeAll(async () => {
  agent = await startLocalAgent({ extendedCardToken: TOKEN });
  resolved = await resolveAgentCard(agent.origin, { cache: new MemoryCardStore(), verification: { keys: agent.jwks } });
});
afterAll(() => agent.close());

/** The agent's card declaring (and requiring) a bearer scheme, as if the agent published it. */
function withBearerScheme(): ResolvedAgentCard {
  const card = clone(AgentCardSchema, resolved.card);
  card.securitySchemes = { agentToken: fromJson(SecuritySchemeSchema, { httpAuthSecurityScheme: { scheme: "bearer" } }) };
  card.securityRequirements = [fromJson(SecurityRequirementSchema, { schemes: { agentToken: {} } })];
  card.signatures = [];
  return { ...resolved, card };
}

const skills = (card: AgentCard) => card.skills.map((s) => s.id);

describe.each(BINDINGS)("%s", (binding) => {
  it("the credential for the card's bearer scheme gets the extended card", async () => {
    const session = await connect(withBearerScheme(), {
      preferredBindings: [binding],
      verification: { keys: agent.jwks },
      auth: { agentToken: { token: async () => TOKEN } },
    });
    expect(session.client.binding).toBe(binding);
    expect(skills(session.card)).not.toContain("secret-skill");
    expect(skills(await session.extendedCard())).toContain("secret-skill");
  });

  it("a wrong token gets the public card only", async () => {
    const session = await connect(withBearerScheme(), {
      preferredBindings: [binding],
      verification: { keys: agent.jwks },
      auth: { agentToken: { token: "not-the-token" } },
    });
    expect(skills(await session.extendedCard())).not.toContain("secret-skill");
  });
});

it("without a credential for the required scheme, connect fails before any call", async () => {
  await expect(connect(withBearerScheme(), { auth: { other: { token: TOKEN } } })).rejects.toBeInstanceOf(AuthenticationError);
});
