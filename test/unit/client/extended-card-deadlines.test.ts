/**
 * The extended card (client/extended-card.ts): its timeoutMs and signal
 * bound its verification too, and a call that joins another's load keeps
 * its own deadline and is not answered by the other's abort or timeout.
 */
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { A2AClient, AbortedError, CallTimeoutError, createJsonRpcTransport, AgentCardSchema, AgentSession } from "../../../src/node.js";
import { JwksCache } from "../../../src/trust.js";
import { cardJson, keyPair, signJson } from "../../support/cards.js";
import { sendJson, startFakeServer, within } from "../../support/fake-server.js";
import { BOUND_MS, settle, withoutTimersLeft } from "../../support/deadline-server.js";

describe("the extended card", () => {
  /**
   * A session whose agent answers GetExtendedAgentCard with a signed card
   * whose key set, on the agent's own origin, never answers; `asked`
   * settles when the key set is requested.
   */
  async function withSilentKeySet(body: (session: AgentSession, asked: Promise<void>) => Promise<void>): Promise<void> {
    const key = await keyPair("ES256", "k1");
    let extended = "";
    let keySetAsked!: () => void;
    const asked = new Promise<void>((resolve) => (keySetAsked = resolve));
    const agent = await startFakeServer((req, res, body) => {
      if (req.url !== "/a2a") return keySetAsked();
      const { id } = JSON.parse(body) as { id: number };
      res.writeHead(200, { "Content-Type": "application/json" }).end(`{"jsonrpc":"2.0","id":${id},"result":${extended}}`);
    });
    try {
      extended = JSON.stringify(await signJson(cardJson(), key, "ES256", { jku: `${agent.url}/keys.json` }));
      const publicCard = fromJson(AgentCardSchema, cardJson({ capabilities: { extendedAgentCard: true } }) as JsonValue);
      const session = new AgentSession(
        new A2AClient(createJsonRpcTransport({ baseUrl: `${agent.url}/a2a` })),
        { card: publicCard, url: `${agent.url}/.well-known/agent-card.json` },
        { verify: "required", verification: { jku: { allowHttp: true, cache: new JwksCache() } } },
      );
      await withoutTimersLeft(() => body(session, asked));
    } finally {
      await agent.close();
    }
  }

  it("extendedCard's timeoutMs bounds the verification too: key sets that never answer cannot hold it", async () => {
    await withSilentKeySet(async (session) => {
      const { error, ms } = await settle(session.extendedCard({ timeoutMs: 200 }));
      expect(error).toBeInstanceOf(CallTimeoutError);
      expect((error as Error).message).toContain("200 ms");
      expect(ms).toBeLessThan(BOUND_MS);
    });
  });

  it("a call that joins another's load of the extended card keeps its own deadline, and another's abort is not its answer", async () => {
    let requests = 0;
    // The first GetExtendedAgentCard is never answered; later ones are.
    const agent = await startFakeServer((_req, res, body) => {
      if (requests++ === 0) return;
      const { id } = JSON.parse(body) as { id: number };
      sendJson(res, 200, { jsonrpc: "2.0", id, result: cardJson({ description: "extended" }) });
    });
    try {
      const publicCard = fromJson(AgentCardSchema, cardJson({ capabilities: { extendedAgentCard: true } }) as JsonValue);
      const session = new AgentSession(new A2AClient(createJsonRpcTransport({ baseUrl: `${agent.url}/a2a` })), { card: publicCard });
      const first = new AbortController();
      const firstLoad = settle(session.extendedCard({ signal: first.signal, timeoutMs: 0 }));
      await expect.poll(() => requests, { timeout: 1000, interval: 5 }).toBe(1);

      const timed = await settle(session.extendedCard({ timeoutMs: 100 }));
      expect(timed.error).toBeInstanceOf(CallTimeoutError);
      expect(timed.ms).toBeLessThan(BOUND_MS);

      const joined = session.extendedCard();
      first.abort();
      expect((await firstLoad).error).toBeInstanceOf(AbortedError);
      await expect(within(joined, BOUND_MS, "the joined load")).resolves.toMatchObject({ description: "extended" });
    } finally {
      await agent.close();
    }
  });

  it("a call that joins another's load of the extended card is not failed by the other's shorter timeoutMs", async () => {
    let requests = 0;
    let firstAsked!: () => void;
    const asked = new Promise<void>((resolve) => (firstAsked = resolve));
    // The first GetExtendedAgentCard is never answered; later ones are.
    const agent = await startFakeServer((_req, res, body) => {
      if (requests++ === 0) return firstAsked();
      const { id } = JSON.parse(body) as { id: number };
      sendJson(res, 200, { jsonrpc: "2.0", id, result: cardJson({ description: "extended" }) });
    });
    try {
      const publicCard = fromJson(AgentCardSchema, cardJson({ capabilities: { extendedAgentCard: true } }) as JsonValue);
      const session = new AgentSession(new A2AClient(createJsonRpcTransport({ baseUrl: `${agent.url}/a2a` })), { card: publicCard });
      const hasty = settle(session.extendedCard({ timeoutMs: 100 }));
      await within(asked, BOUND_MS, "the first request");
      const patient = session.extendedCard({ timeoutMs: 5_000 });
      expect((await hasty).error).toBeInstanceOf(CallTimeoutError);
      await expect(within(patient, BOUND_MS, "the joined load")).resolves.toMatchObject({ description: "extended" });
    } finally {
      await agent.close();
    }
  });

  it("extendedCard's signal ends the verification at once with AbortedError", async () => {
    await withSilentKeySet(async (session, asked) => {
      const controller = new AbortController();
      const pending = settle(session.extendedCard({ signal: controller.signal }));
      await within(asked, BOUND_MS, "the key set request");
      const abortedAt = performance.now();
      controller.abort();
      const { error } = await pending;
      expect(error).toBeInstanceOf(AbortedError);
      expect(performance.now() - abortedAt).toBeLessThan(500);
    });
  });
});
