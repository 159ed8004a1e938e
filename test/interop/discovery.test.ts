/**
 * Agent Card discovery against each real peer's card endpoint (the official
 * @a2a-js/sdk server, current and 1.0.0-beta.0). What callers share in
 * process is our own logic: checked against the installed release only.
 */
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { CURRENT_SDK, type LocalAgent } from "../../demo/agent.js";
import { AgentCardVerificationError, MemoryCardStore, resolveAgentCard, type ResolveOptions, type StoredCard } from "../../src/index.js";
import { PEERS, agentsOfPeers } from "../support/peers.js";

/** The agent signs its cards with a key published as a JWKS; trust that key. */
const trusting = (extra: ResolveOptions = {}): ResolveOptions => ({
  cache: new MemoryCardStore(),
  verification: { keys: agent.jwks },
  ...extra,
});

const agentOf = agentsOfPeers();
let agent: LocalAgent;
/** Another key under the agent's kid: a caller that trusts only it must not see the agent's card verified. */
let impostorKeys: { keys: JWK[] };
beforeAll(async () => {
  const { publicKey } = await generateKeyPair("ES256", { extractable: true });
  impostorKeys = { keys: [{ ...(await exportJWK(publicKey)), kid: agentOf(CURRENT_SDK).signingKid }] };
});

describe.each(PEERS)("resolveAgentCard against $label", (sdk) => {
  beforeAll(() => {
    agent = agentOf(sdk);
  });

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

describe.each(PEERS)("signed cards served by $label", (sdk) => {
  beforeAll(() => {
    agent = agentOf(sdk);
  });

  it("verify with the agent's key from a trusted key store", async () => {
    const r = await resolveAgentCard(agent.origin, trusting({ verify: "required" }));
    expect(r.verification).toMatchObject({ verified: true, kid: agent.signingKid, alg: "ES256", keySource: "store" });
  });

  it("verify by default with the key set the signature's jku names, over http since card and keys are on loopback", async () => {
    const r = await resolveAgentCard(agent.origin, { cache: new MemoryCardStore(), verify: "required" });
    expect(r.verification).toMatchObject({ verified: true, kid: agent.signingKid, keySource: "jku", jku: agent.jwksUrl });
  });

  it("are refused with jku.allowHttp: false, by a message that names the option", async () => {
    const e = await resolveAgentCard(agent.origin, { cache: new MemoryCardStore(), verification: { jku: { allowHttp: false } } }).catch(
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(AgentCardVerificationError);
    expect((e as AgentCardVerificationError).result.failures.map((f) => f.code)).toEqual(["jku_insecure"]);
    expect((e as Error).message).toContain("jku.allowHttp is false");
  });
});

describe("callers with different trust share nothing that decides it", () => {
  beforeAll(() => {
    agent = agentOf(CURRENT_SDK);
  });

  it("concurrent resolves with different trusted keys each get their own verdict", async () => {
    const store = new MemoryCardStore();
    const [trusted, impostor] = await Promise.allSettled([
      resolveAgentCard(agent.origin, trusting({ cache: store, verify: "required" })),
      resolveAgentCard(agent.origin, { cache: store, verify: "required", verification: { keys: impostorKeys } }),
    ]);
    expect(trusted.status === "fulfilled" && trusted.value.verification?.verified).toBe(true);
    expect(impostor.status).toBe("rejected");
    const e = (impostor as PromiseRejectedResult).reason as AgentCardVerificationError;
    expect(e).toBeInstanceOf(AgentCardVerificationError);
    expect(e.result.failures.map((f) => f.code)).toEqual(["signature_invalid"]);
  });

  it("a verification kept with a cached card follows the content of the options, not the object", async () => {
    const store = new MemoryCardStore();
    const verification: { keys: { keys: JWK[] } } = { keys: agent.jwks };
    const first = await resolveAgentCard(agent.origin, { cache: store, verify: "required", verification });
    expect(first.verification?.verified).toBe(true);
    verification.keys = impostorKeys;
    const e = await resolveAgentCard(agent.origin, { cache: store, verify: "required", verification }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(AgentCardVerificationError);
  });

  it("trusted keys pin: the card's jku is not fetched unless asked for", async () => {
    const seen: string[] = [];
    const counting: typeof fetch = (input, init) => {
      seen.push(String(input));
      return fetch(input, init);
    };
    const otherKid = { keys: [{ ...impostorKeys.keys[0]!, kid: "another-kid" }] };
    const e = await resolveAgentCard(agent.origin, {
      cache: new MemoryCardStore(),
      fetch: counting,
      verify: "required",
      verification: { keys: otherKid },
    }).catch((err: unknown) => err);
    expect((e as AgentCardVerificationError).result.failures.map((f) => f.code)).toEqual(["jku_not_allowed"]);
    expect(seen).toEqual([agent.cardUrl]);
    const asked = await resolveAgentCard(agent.origin, {
      cache: new MemoryCardStore(),
      fetch: counting,
      verify: "required",
      verification: { keys: otherKid, jku: { allowHttp: true } },
    });
    expect(asked.verification).toMatchObject({ verified: true, keySource: "jku", jku: agent.jwksUrl });
    expect(seen).toEqual([agent.cardUrl, agent.cardUrl, agent.jwksUrl]);
  });
});
