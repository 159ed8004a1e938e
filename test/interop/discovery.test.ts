/**
 * Agent Card discovery against the official server's card endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalAgent, type LocalAgent } from "../../demo/agent.js";
import {
  AgentCardVerificationError,
  MemoryCardStore,
  resolveAgentCard,
  type ResolveOptions,
  type StoredCard,
} from "../../src/index.js";

/** The agent signs its cards with a key published as a JWKS; trust that key. */
const trusting = (extra: ResolveOptions = {}): ResolveOptions => ({ cache: new MemoryCardStore(), verification: { keys: agent.jwks }, ...extra });

let agent: LocalAgent;
beforeAll(async () => {
  agent = await startLocalAgent();
});
afterAll(() => agent.close());

describe("resolveAgentCard against the official server", () => {
  it("finds the 1.0 card from the agent's origin", async () => {
    const r = await resolveAgentCard(agent.origin, trusting());
    expect(r.url).toBe(agent.cardUrl);
    expect(r.shape).toBe("1.0");
    expect(r.card.supportedInterfaces.map((i) => [i.protocolBinding, i.url])).toEqual([
      ["JSONRPC", agent.jsonRpcUrl],
      ["HTTP+JSON", agent.restUrl],
      ["GRPC", agent.grpcAddress],
    ]);
    expect(r.card.capabilities?.streaming).toBe(true);
  });

  it("caches the card for its max-age and revalidates it with its ETag", async () => {
    const store = new MemoryCardStore();
    const first = await resolveAgentCard(agent.origin, trusting({ cache: store }));
    const second = await resolveAgentCard(agent.origin, trusting({ cache: store }));
    expect([first.cache, second.cache]).toEqual(["miss", "hit"]);

    // Age the stored entry past its max-age (3600 s) by moving its response
    // time back: the next resolve must revalidate, and the server says 304.
    const key = [...(store as unknown as { entries: Map<string, StoredCard> }).entries.keys()][0]!;
    const entry = store.get(key)!;
    store.set(key, { ...entry, receivedAt: entry.receivedAt - 7_200_000 });
    const third = await resolveAgentCard(agent.origin, trusting({ cache: store }));
    expect(third.cache).toBe("revalidated");
    expect(third.card).toEqual(first.card);
  });
});

describe("signed cards served by the official server", () => {
  it("verify with the agent's key from a trusted key store", async () => {
    const r = await resolveAgentCard(agent.origin, trusting({ verify: "required" }));
    expect(r.verification).toMatchObject({ verified: true, kid: agent.signingKid, alg: "ES256", keySource: "store" });
  });

  it("verify with the key set the signature's jku names, on the card's own origin", async () => {
    // Loopback serves http; a real agent's jku must be https unless allowed.
    const r = await resolveAgentCard(agent.origin, {
      cache: new MemoryCardStore(),
      verify: "required",
      verification: { jku: { allowHttp: true } },
    });
    expect(r.verification).toMatchObject({ verified: true, kid: agent.signingKid, keySource: "jku", jku: agent.jwksUrl });
  });

  it("are refused by default when no trusted key can be found", async () => {
    const e = await resolveAgentCard(agent.origin, { cache: new MemoryCardStore() }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(AgentCardVerificationError);
    expect((e as AgentCardVerificationError).result.failures.map((f) => f.code)).toEqual(["jku_insecure"]);
  });
});
