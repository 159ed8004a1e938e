/**
 * The test agent's signed card, verified by our client's discovery: on
 * loopback and in memory, with the key set the signature's `jku` names
 * (served by the agent) and with the public key pinned; a tampered card,
 * and one checked against another agent's key, fail with
 * AgentCardVerificationError.
 */
import { afterEach, describe, expect, it } from "vitest";
import { AgentCardVerificationError, connect, type ConnectOptions } from "../../../src/index.js";
import { verifyAgentCard } from "../../../src/trust.js";
import { createTestAgent, type TestAgent } from "../../../src/testing.js";
import type { Way } from "./ways.js";

const agents: TestAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

function made(options: Parameters<typeof createTestAgent>[0]): TestAgent {
  const agent = createTestAgent(options);
  agents.push(agent);
  return agent;
}

/** `connect()` to the agent the `way` given, with the test's options. */
async function connectTo(agent: TestAgent, way: Way, options: ConnectOptions) {
  if (way === "loopback") return connect((await agent.listen()).url, options);
  return connect(agent.url, { ...agent.connectOptions(), ...options });
}

describe.each(["loopback", "memory"] as const)("%s", (way) => {
  it("serves a card whose signature verifies with the key set its jku names, which the agent serves", async () => {
    const agent = made({ signCard: true });
    const session = await connectTo(agent, way, { verify: "required" });
    expect(session.verification).toMatchObject({ verified: true, kid: "test-agent-key", alg: "ES256", keySource: "jku" });
    expect(session.verification?.jku).toMatch(/\/\.well-known\/jwks\.json$/);
    expect(agent.requests.map((r) => r.method).slice(0, 2)).toEqual(["AgentCard", "KeySet"]);
  });

  it("serves a card that verifies with its public key pinned, no key set fetched", async () => {
    const agent = made({ signCard: { kid: "pinned-key" } });
    const session = await connectTo(agent, way, { verify: "required", verification: { keys: await agent.cardKeys() } });
    expect(session.verification).toMatchObject({ verified: true, kid: "pinned-key", keySource: "store" });
    expect(agent.requests.map((r) => r.method)).not.toContain("KeySet");
  });

  it("signs its extended card too, which a session whose public card verified requires", async () => {
    const agent = made({ signCard: true, extendedCard: { description: "for callers we know" } });
    const session = await connectTo(agent, way, { verify: "required" });
    expect((await session.extendedCard()).description).toBe("for callers we know");
    expect(session.extendedCardVerification).toMatchObject({ verified: true, kid: "test-agent-key", keySource: "jku" });
  });

  it("a card changed after signing fails with AgentCardVerificationError", async () => {
    const agent = made({ signCard: { tampered: true } });
    const failure = await connectTo(agent, way, { verify: "required" }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AgentCardVerificationError);
    expect((failure as AgentCardVerificationError).result.failures.map((f) => f.code)).toEqual(["signature_invalid"]);
  });

  it("a card checked against another agent's key fails with AgentCardVerificationError", async () => {
    const agent = made({ signCard: true });
    const other = made({ signCard: true });
    const failure = await connectTo(agent, way, { verify: "required", verification: { keys: await other.cardKeys() } }).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(AgentCardVerificationError);
    expect((failure as AgentCardVerificationError).result.failures.map((f) => f.code)).toEqual(["signature_invalid"]);
  });
});

describe("signed cards", () => {
  it("carry one ES256 signature per origin, over the card as served there, with a key made per agent", async () => {
    const agent = made({ signCard: true });
    const server = await agent.listen();
    const read = async (url: string, f: typeof fetch) =>
      (await f(`${url}/.well-known/agent-card.json`)).json() as Promise<Record<string, unknown>>;
    const onLoopback = await read(server.url, fetch);
    const inMemory = await read(agent.url, agent.fetch);
    const header = (card: Record<string, unknown>) =>
      JSON.parse(Buffer.from((card.signatures as { protected: string }[])[0]!.protected, "base64url").toString()) as Record<
        string,
        unknown
      >;
    expect(header(onLoopback)).toEqual({ alg: "ES256", typ: "JOSE", kid: "test-agent-key", jku: `${server.url}/.well-known/jwks.json` });
    expect(header(inMemory).jku).toBe("http://localhost/.well-known/jwks.json");
    const keys = await agent.cardKeys();
    expect(keys.keys).toEqual([expect.objectContaining({ kty: "EC", crv: "P-256", kid: "test-agent-key", alg: "ES256" })]);
    expect(keys.keys[0]).not.toHaveProperty("d");
    for (const card of [onLoopback, inMemory]) expect((await verifyAgentCard(card, { keys, jku: false })).verified).toBe(true);
    // Another agent's key does not verify this one's card.
    const other = made({ signCard: true });
    expect((await verifyAgentCard(onLoopback, { keys: await other.cardKeys(), jku: false })).verified).toBe(false);
  });

  it("without jku, name no key set: the client needs the key pinned", async () => {
    const agent = made({ signCard: { jku: false } });
    await expect(connectTo(agent, "memory", { verify: "required" })).rejects.toBeInstanceOf(AgentCardVerificationError);
    const session = await connectTo(agent, "memory", { verify: "required", verification: { keys: await agent.cardKeys() } });
    expect(session.verification?.verified).toBe(true);
  });

  it("are not served by an agent made without signCard, whose cardKeys() rejects", async () => {
    const agent = made({});
    const card = (await (await agent.fetch(`${agent.url}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    expect(card.signatures).toBeUndefined();
    expect((await agent.fetch(`${agent.url}/.well-known/jwks.json`)).status).toBe(404);
    await expect(agent.cardKeys()).rejects.toBeInstanceOf(TypeError);
  });
});
