/**
 * connect()'s signal and timeoutMs (client/connect.ts): they bound the
 * verification of a card in hand, discovery, and every call of the
 * session, the CLI's --timeout included.
 */
import { describe, expect, it } from "vitest";
import { AbortedError, CallTimeoutError, connect, userMessage, type ConnectTarget } from "../../../src/node.js";
import { JwksCache } from "../../../src/trust.js";
import { cardJson, keyPair, signJson } from "../../support/cards.js";
import { sendJson, sseFrame, startFakeServer, startSse, within } from "../../support/fake-server.js";
import { BOUND_MS, settle, withoutTimersLeft } from "../../support/deadline-server.js";
import { runCli } from "../../support/run-cli.js";
import { EXIT } from "../../../src/cli/exit-codes.js";

describe("connect() with a card in hand whose key set never answers", () => {
  /** A signed card whose `jku`, on a server of its own, is asked for and never answered; `asked` settles when it is. */
  async function withSilentKeySet(
    body: (card: unknown, jku: { allowHttp: true; allowedOrigins: string[] }, asked: Promise<void>) => Promise<void>,
  ) {
    const key = await keyPair("ES256", "k1");
    let keySetAsked!: () => void;
    const asked = new Promise<void>((resolve) => (keySetAsked = resolve));
    const keys = await startFakeServer(() => keySetAsked());
    try {
      const card = await signJson(cardJson(), key, "ES256", { jku: `${keys.url}/keys.json` });
      await withoutTimersLeft(() => body(card, { allowHttp: true, allowedOrigins: [keys.url] }, asked));
    } finally {
      await keys.close();
    }
  }

  it("its signal ends the verification at once with AbortedError, the reason as cause", async () => {
    await withSilentKeySet(async (card, jku, asked) => {
      const controller = new AbortController();
      const reason = new Error("the user left");
      const pending = settle(
        connect(card as ConnectTarget, {
          signal: controller.signal,
          verify: "required",
          verification: { jku: { ...jku, cache: new JwksCache() } },
        }),
      );
      await within(asked, BOUND_MS, "the key set request");
      controller.abort(reason);
      const { error } = await pending;
      expect(error).toBeInstanceOf(AbortedError);
      expect((error as Error).cause).toBe(reason);
    });
  });

  it("its timeoutMs bounds the verification: CallTimeoutError, not the key set's own longer timeout", async () => {
    await withSilentKeySet(async (card, jku) => {
      const { error, ms } = await settle(
        connect(card as ConnectTarget, { timeoutMs: 200, verify: "required", verification: { jku: { ...jku, cache: new JwksCache() } } }),
      );
      expect(error).toBeInstanceOf(CallTimeoutError);
      expect((error as Error).message).toContain("200 ms");
      expect(ms).toBeLessThan(BOUND_MS);
    });
  });
});

describe("connect()'s timeoutMs: the deadline of discovery and of every call of the session", () => {
  /**
   * An agent whose card names its own JSON-RPC interface, which takes
   * requests and answers none; a stream is answered, after `streamAfterMs`,
   * with one final event.
   */
  async function withHangingAgent(body: (url: string) => Promise<void>, streamAfterMs = 0) {
    const agent = await startFakeServer((req, res, text) => {
      if (req.url === "/.well-known/agent-card.json") {
        const rpc = { url: `${agent.url}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" };
        return sendJson(res, 200, cardJson({ supportedInterfaces: [rpc] }));
      }
      if (!text.includes("SendStreamingMessage")) return; // never answered
      startSse(res);
      const { id } = JSON.parse(text) as { id: number };
      const event = { statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } } };
      const timer = setTimeout(() => res.end(sseFrame({ jsonrpc: "2.0", id, result: event })), streamAfterMs);
      res.once("close", () => clearTimeout(timer));
    });
    try {
      await withoutTimersLeft(() => body(agent.url));
    } finally {
      await agent.close();
    }
  }

  it("a SendMessage that is never answered fails with CallTimeoutError by connect()'s timeoutMs, not the transport's minute", async () => {
    await withHangingAgent(async (url) => {
      const { client } = await connect(url, { timeoutMs: 200, cache: false });
      const { error, ms } = await settle(() => client.sendMessage({ message: userMessage("hi") }));
      expect(error).toBeInstanceOf(CallTimeoutError);
      expect((error as CallTimeoutError).kind).toBe("deadline");
      expect((error as Error).message).toContain("200 ms");
      expect(ms).toBeGreaterThanOrEqual(190);
      expect(ms).toBeLessThan(BOUND_MS);
    });
  }, 4000);

  it("transport.timeoutMs is the more specific for calls, and a call's own timeoutMs wins over both", async () => {
    await withHangingAgent(async (url) => {
      const session = await connect(url, { timeoutMs: 30_000, transport: { timeoutMs: 150 }, cache: false });
      const byTransport = await settle(session.client.getTask({ id: "t1" }));
      expect((byTransport.error as Error).message).toContain("150 ms");
      const byCall = await settle(session.client.getTask({ id: "t1" }, { timeoutMs: 100 }));
      expect((byCall.error as Error).message).toContain("100 ms");
      const { client } = await connect(url, { timeoutMs: 30_000, cache: false });
      const own = await settle(client.getTask({ id: "t1" }, { timeoutMs: 120 }));
      expect(own.error).toBeInstanceOf(CallTimeoutError);
      expect((own.error as Error).message).toContain("120 ms");
    });
  }, 4000);

  it("a stream keeps its meaning: no deadline unless its call sets one (it is bounded by its idle timeout)", async () => {
    await withHangingAgent(async (url) => {
      const { client } = await connect(url, { timeoutMs: 100, cache: false });
      const events = [];
      for await (const e of client.sendStreamingMessage({ message: userMessage("hi") }, { resume: false })) events.push(e);
      expect(events.map((e) => e.payload.case)).toEqual(["statusUpdate"]);
    }, 400);
  }, 4000);

  it("the CLI's --timeout is connect()'s: a GetTask never answered ends by it, exit 5", async () => {
    await withHangingAgent(async (url) => {
      const { code, stderr } = await within(runCli(["task", "get", url, "t1", "--timeout", "200"]), BOUND_MS, "the CLI");
      expect(code).toBe(EXIT.connection);
      expect(stderr).toMatch(/CallTimeoutError.*200 ms/);
    });
  }, 4000);

  it("0 is no limit for the calls and leaves discovery its default: connect() succeeds and a stream is served", async () => {
    await withHangingAgent(async (url) => {
      const { client } = await connect(url, { timeoutMs: 0, cache: false });
      const events = [];
      for await (const e of client.sendStreamingMessage({ message: userMessage("hi") }, { resume: false })) events.push(e);
      expect(events.map((e) => e.payload.case)).toEqual(["statusUpdate"]);
    });
  }, 4000);

  it("a card that is never served fails discovery by it", async () => {
    const silent = await startFakeServer(() => {});
    try {
      const { error, ms } = await settle(connect(silent.url, { timeoutMs: 200, cache: false }));
      expect(error).toBeInstanceOf(CallTimeoutError);
      expect(ms).toBeLessThan(BOUND_MS);
    } finally {
      await silent.close();
    }
  });
});
