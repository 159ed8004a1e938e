/**
 * `connect(..., { auth })` against each real peer (the official @a2a-js/sdk
 * server, current and 1.0.0-beta.0), whose extended card
 * is only for callers with `Authorization: Bearer <token>`: a card declaring
 * a bearer scheme, and the credential for it, get the extended card on every
 * binding. A token under another key, for that card or for the agent's
 * own card (which declares no scheme), gets it too.
 */
import { clone, fromJson } from "@bufbuild/protobuf";
import { beforeAll, describe, expect, it } from "vitest";
import { CURRENT_SDK, type LocalAgent, type ServerSdk } from "../../demo/agent.js";
import {
  A2AError,
  AgentCardSchema,
  AuthenticationError,
  bearerAuth,
  MemoryCardStore,
  SecurityRequirementSchema,
  SecuritySchemeSchema,
  resolveAgentCard,
  type AgentCard,
  type ResolvedAgentCard,
} from "../../src/index.js";
import { connect } from "../../src/node.js";
import { BINDINGS, clientFor, type TransportOverrides } from "../support/bindings.js";
import { PEERS, agentsOfPeers, peerCases } from "../support/peers.js";

const TOKEN = "interop-extended-token";
const agentOf = agentsOfPeers({ extendedCardToken: TOKEN });
const carelessOf = agentsOfPeers({ extendedCardToken: TOKEN, echoRejectedCredentials: true });
let agent: LocalAgent;
let resolved: ResolvedAgentCard;
/** Points the tests of the enclosing describe at the peer's agent and its card. */
function usePeer(sdk: ServerSdk): void {
  beforeAll(async () => {
    agent = agentOf(sdk);
    resolved = await resolveAgentCard(agent.origin, { cache: new MemoryCardStore(), verification: { keys: agent.jwks } });
  });
}

/** The agent's card declaring (and requiring) a bearer scheme, as if the agent published it. */
function withBearerScheme(): ResolvedAgentCard {
  const card = clone(AgentCardSchema, resolved.card);
  card.securitySchemes = { agentToken: fromJson(SecuritySchemeSchema, { httpAuthSecurityScheme: { scheme: "bearer" } }) };
  card.securityRequirements = [fromJson(SecurityRequirementSchema, { schemes: { agentToken: {} } })];
  card.signatures = [];
  return { ...resolved, card };
}

const skills = (card: AgentCard) => card.skills.map((s) => s.id);

describe.each(peerCases(BINDINGS))("$label", ({ sdk, binding }) => {
  usePeer(sdk);

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

describe("our own checks", () => {
  usePeer(CURRENT_SDK);

  it("without a credential for the required scheme, connect fails before any call", async () => {
    await expect(connect(withBearerScheme(), { auth: { other: { value: TOKEN } } })).rejects.toBeInstanceOf(AuthenticationError);
  });

  it("a token under a key that names no scheme goes to the card's one bearer scheme", async () => {
    const session = await connect(withBearerScheme(), { verification: { keys: agent.jwks }, auth: { bearer: { token: TOKEN } } });
    expect(skills(await session.extendedCard())).toContain("secret-skill");
  });

  it("a token for an agent whose card declares no scheme goes as Authorization: Bearer", async () => {
    expect(resolved.card.securitySchemes).toEqual({});
    const session = await connect(resolved, { verification: { keys: agent.jwks }, auth: { bearer: { token: TOKEN } } });
    expect(skills(await session.extendedCard())).toContain("secret-skill");
  });
});

describe.each(PEERS)("$label quoting the credentials it rejects", (sdk) => {
  const SECRET = 'tok "with" spaces & = + / \\ specials';
  let careless: LocalAgent;
  beforeAll(() => {
    careless = carelessOf(sdk);
  });

  /** The server did quote the token: its message is there, with no form of the token on any surface. */
  async function expectQuotedAndMasked(e: unknown): Promise<void> {
    const { inspect } = await import("node:util");
    expect(e).toBeInstanceOf(A2AError);
    expect((e as Error).message).toContain("no user for the credentials");
    expect((e as Error).message).toContain("***");
    const err = e as A2AError;
    const shown = [err.message, String(err), err.stack ?? "", JSON.stringify(err), inspect(err, { depth: Infinity, showHidden: true })];
    const forms = [
      SECRET,
      encodeURI(SECRET),
      encodeURIComponent(SECRET),
      JSON.stringify(SECRET).slice(1, -1),
      Buffer.from(SECRET).toString("base64").slice(0, -2),
    ];
    for (const text of shown) for (const f of forms) expect(text).not.toContain(f);
  }

  it.each(BINDINGS)("%s: the error shows no form of the bearer token on any surface", async (binding) => {
    const client = clientFor(binding, careless, { interceptors: [bearerAuth(SECRET)] });
    await expectQuotedAndMasked(await client.getTask({ id: "no-such-task" }).catch((x: unknown) => x));
  });

  const APP_SET: ReadonlyArray<[string, TransportOverrides, { headers?: HeadersInit }]> = [
    ["transport headers", { headers: { Authorization: `Bearer ${SECRET}` } }, {}],
    ["call headers", {}, { headers: { Authorization: `Bearer ${SECRET}` } }],
    [
      "the app's own interceptor",
      { interceptors: [(next) => (req) => (req.header.set("Authorization", `Bearer ${SECRET}`), next(req))] },
      {},
    ],
  ];
  describe.each(APP_SET)("a bearer token the application sets itself, through %s", (_how, overrides, call) => {
    it.each(BINDINGS)("%s: the error shows no form of it on any surface", async (binding) => {
      const client = clientFor(binding, careless, overrides);
      await expectQuotedAndMasked(await client.getTask({ id: "no-such-task" }, call).catch((x: unknown) => x));
    });
  });
});
