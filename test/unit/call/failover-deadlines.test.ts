/**
 * Failover (call/failover.ts) cannot stretch a call: the call's one
 * deadline bounds every interface tried, not each one.
 */
import { describe, expect, it } from "vitest";
import { CallTimeoutError, connect, type ConnectTarget } from "../../../src/node.js";
import { createTestAgent, steps } from "../../../src/testing.js";
import { cardJson } from "../../support/cards.js";
import { settle, drain } from "../../support/deadline-server.js";

describe("failover: the call's deadline bounds every interface tried, not each one", () => {
  /** The call's timeout; each gateway answers 502 (no A2A error: the agent behind it is away) after half of it. */
  const T = 1000;
  const lateGateway = async () => {
    const late = [steps.wait(T / 2), steps.httpStatus(502)];
    const agent = createTestAgent({ faults: { GetTask: late, SubscribeToTask: late } });
    const server = await agent.listen();
    return { url: server.url, requests: agent.requests, close: () => agent.close() };
  };

  it.each(["unary", "stream"] as const)(
    "%s: CallTimeoutError by timeoutMs; the next interface gets what is left, and none is tried after it",
    async (kind) => {
      const gateways = await Promise.all([lateGateway(), lateGateway(), lateGateway()]);
      try {
        const interfaces = gateways.map((g) => ({ url: `${g.url}/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }));
        // A card given as its JSON, read as a fetched one is.
        const { client } = await connect(cardJson({ supportedInterfaces: interfaces }) as ConnectTarget);
        const call =
          kind === "unary"
            ? client.getTask({ id: "t1" }, { timeoutMs: T })
            : drain(client.subscribeToTask({ id: "t1" }, { timeoutMs: T, resume: false }));
        const { error, ms } = await settle(call);
        expect(error).toBeInstanceOf(CallTimeoutError);
        expect((error as CallTimeoutError).kind).toBe("deadline");
        // Each interface with the whole timeout would take 1.5 T (three 502s).
        expect(ms).toBeLessThan(T * 1.4);
        expect(gateways.map((g) => g.requests.length)).toEqual([1, 1, 0]);
      } finally {
        await Promise.all(gateways.map((g) => g.close()));
      }
    },
  );
});
