/**
 * Discovery and the card (discovery/, trust/): a fetch that ignores its
 * signal holds no resolve, key set or OAuth discovery document past its
 * timeoutMs or its signal, and neither does a card store that never
 * answers.
 */
import { describe, expect, it } from "vitest";
import { AbortedError, CallTimeoutError, discoveredTokenProvider, resolveAgentCard, AuthenticationError } from "../../../src/node.js";
import { verifyAgentCard } from "../../../src/trust.js";
import { cardJson, keyPair, signJson } from "../../support/cards.js";
import { BOUND_MS, settle, withoutTimersLeft } from "../../support/deadline-server.js";

describe("discovery with a fetch that ignores its signal", () => {
  const fetchNever = (() => new Promise<Response>(() => {})) as typeof fetch;
  /** Headers at once, then a JSON body whose reads never settle. */
  const fetchHeadersOnly = (async () =>
    new Response(new ReadableStream({ pull: () => new Promise<void>(() => {}) }), {
      headers: { "Content-Type": "application/json" },
    })) as typeof fetch;

  it.each([
    ["never answers", fetchNever],
    ["sends headers and a body that never ends", fetchHeadersOnly],
  ] as const)("resolveAgentCard, a fetch that %s: CallTimeoutError by timeoutMs, AbortedError by the signal", async (_, fetchFn) => {
    await withoutTimersLeft(async () => {
      const timed = await settle(resolveAgentCard("http://127.0.0.1:9/c.json", { fetch: fetchFn, cache: false, timeoutMs: 60 }));
      expect(timed.error).toBeInstanceOf(CallTimeoutError);
      expect((timed.error as Error).message).toContain("http://127.0.0.1:9/c.json");
      expect(timed.ms).toBeLessThan(BOUND_MS);

      const controller = new AbortController();
      const stop = setTimeout(() => controller.abort(), 30);
      const aborted = await settle(
        resolveAgentCard("http://127.0.0.1:9/c.json", { fetch: fetchFn, cache: false, signal: controller.signal }),
      );
      clearTimeout(stop);
      expect(aborted.error).toBeInstanceOf(AbortedError);
      expect(aborted.ms).toBeLessThan(BOUND_MS);
    });
  });

  it("a token provider whose discovery document never comes fails by its timeoutMs, and so does the next token asked for", async () => {
    const provider = discoveredTokenProvider({
      discoveryUrl: "http://127.0.0.1:9/.well-known/openid-configuration",
      clientId: "id",
      clientSecret: "secret",
      timeoutMs: 40,
      fetch: fetchNever,
    });
    for (let i = 0; i < 2; i++) {
      const { error, ms } = await settle(provider.token());
      expect(error).toBeInstanceOf(AuthenticationError);
      expect((error as Error).message).toContain("within 40 ms");
      expect(ms).toBeLessThan(BOUND_MS);
    }
  });

  it("verifyAgentCard: a key set whose fetch never answers fails the signature by timeoutMs (jku_fetch_failed)", async () => {
    const key = await keyPair("ES256", "k1");
    const card = await signJson(cardJson(), key, "ES256", { jku: "https://keys.example/jwks.json" });
    const { error, ms } = await settle(
      verifyAgentCard(card, { cardUrl: "https://keys.example/c.json", fetch: fetchNever, timeoutMs: 40 }).then((r) => {
        throw Object.assign(new Error("verified"), { result: r });
      }),
    );
    expect((error as { result?: unknown }).result).toMatchObject({ verified: false, failures: [{ code: "jku_fetch_failed" }] });
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it("a card store that never answers holds no resolve past its timeoutMs", async () => {
    const stuck = { get: () => new Promise<undefined>(() => {}), set: () => {}, delete: () => {} };
    const { error, ms } = await settle(resolveAgentCard("http://127.0.0.1:9/c.json", { cache: stuck, timeoutMs: 60 }));
    expect(error).toBeInstanceOf(CallTimeoutError);
    expect(ms).toBeLessThan(BOUND_MS);
  });
});
