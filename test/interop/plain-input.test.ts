/**
 * Requests written in the spec's JSON shape, as plain JavaScript sends
 * them, against each real peer on every binding, 1.0 and 0.3: a message
 * of `{ text }` parts with `role: "ROLE_USER"` arrives with its text and
 * its role, and a request of neither shape fails before any request.
 */
import { describe, expect, it } from "vitest";
import {
  A2AClient,
  InvalidAgentCardError,
  InvalidParamsError,
  Role,
  textOf,
  type A2ATransport,
  type Binding,
  type SendMessageResponse,
} from "../../src/index.js";
import { createGrpcTransportV03, createRestTransportV03, connect, createJsonRpcTransportV03 } from "../../src/node.js";
import type { LocalAgent } from "../../demo/agent.js";
import { BINDINGS, collect, transportFor } from "../support/bindings.js";
import { PEERS, agentsOfPeers, peerCases } from "../support/peers.js";

const plain = (r: unknown) => r as any;
const SECRET = "plain-input-SECRET";

function v03Transport(binding: Binding, a: LocalAgent): A2ATransport {
  switch (binding) {
    case "JSONRPC":
      return createJsonRpcTransportV03({ baseUrl: a.jsonRpcUrl });
    case "HTTP+JSON":
      return createRestTransportV03({ baseUrl: a.restUrl });
    case "GRPC":
      return createGrpcTransportV03({ baseUrl: a.grpcAddress });
  }
}

const agentOf = agentsOfPeers();
const v03AgentOf = agentsOfPeers({ versions: ["0.3"] });

const VERSIONS = [
  { version: "1.0", client: (binding: Binding, sdk: Parameters<typeof agentOf>[0]) => new A2AClient(transportFor(binding, agentOf(sdk))) },
  {
    version: "0.3",
    client: (binding: Binding, sdk: Parameters<typeof agentOf>[0]) => new A2AClient(v03Transport(binding, v03AgentOf(sdk))),
  },
];

describe.each(VERSIONS)("A2A $version", ({ client: clientOf }) => {
  describe.each(peerCases(BINDINGS))("$label", ({ sdk, binding }) => {
    it('{ text: "..." } parts with role "ROLE_USER" arrive with their text and role', async () => {
      const client = clientOf(binding, sdk);
      const echoed = await client.sendMessage(
        plain({ message: { role: "ROLE_USER", messageId: crypto.randomUUID(), parts: [{ text: "echo hi there" }] } }),
      );
      expect(echoed.payload.case).toBe("message");
      expect(textOf(echoed)).toBe("hi there");

      const res: SendMessageResponse = await client.sendMessage(plain({ message: { role: "ROLE_USER", parts: [{ text: "count 1" }] } }));
      expect(res.payload.case).toBe("task");
      const id = res.payload.case === "task" ? res.payload.value.id : "";
      const task = await client.getTask(plain({ id, historyLength: "10" }));
      const mine = task.history.find((m) => m.role === Role.USER);
      expect(mine?.parts[0]?.content).toEqual({ case: "text", value: "count 1" });
    });

    it("a streaming send of the same shape streams its task", async () => {
      const client = clientOf(binding, sdk);
      const events = await collect(client.sendStreamingMessage(plain({ message: { role: "ROLE_USER", parts: [{ text: "count 2" }] } })));
      expect(events.map((e) => textOf(e)).join(" ")).toContain("chunk-2");
    });

    it("a request of neither shape fails before any request, naming the field and not its value", async () => {
      const client = clientOf(binding, sdk);
      const e = await client.sendMessage(plain({ message: { role: "ROLE_USER", parts: [{ txt: SECRET }] } })).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(InvalidParamsError);
      expect((e as Error).message).toContain("message.parts[0].txt");
      expect(`${(e as Error).message}${(e as Error).stack}${JSON.stringify(e)}`).not.toContain(SECRET);
    });
  });
});

describe.each(PEERS.map((sdk) => ({ sdk, label: sdk.label })))("a card given as its JSON ($label)", ({ sdk }) => {
  // The 0.3 agent signs its 1.0 card, which it serves for A2A-Version 1.0; its 0.3 document is not what was signed.
  it.each([
    ["1.0", agentOf, { "A2A-Version": "1.0" }, {}],
    ["0.3", v03AgentOf, {}, { verify: "off" }],
  ] as const)("connect(JSON.parse(cardText)) of a %s card connects and sends", async (version, of, headers, verify) => {
    const agent = of(sdk);
    const text = await (await fetch(agent.cardUrl, { headers })).text();
    const session = await connect(JSON.parse(text), { verification: { keys: agent.jwks }, ...verify });
    expect(session.card.supportedInterfaces.every((i) => i.protocolVersion.startsWith(version))).toBe(true);
    expect(session.card.name).toBe(JSON.parse(text).name);
    const res = await session.client.sendMessage(plain({ message: { role: "ROLE_USER", parts: [{ text: "echo from a card file" }] } }));
    expect(textOf(res)).toBe("from a card file");
  });

  it("what is not a card fails with a typed error before any request", async () => {
    await expect(connect(plain(42))).rejects.toBeInstanceOf(InvalidParamsError);
    await expect(connect(plain(null))).rejects.toBeInstanceOf(InvalidParamsError);
    const e = await connect(plain({ name: "no interfaces" })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidAgentCardError);
    expect((e as InvalidAgentCardError).problem).toBe("missing-fields");
    expect((e as Error).message).toMatch(/^the Agent Card given lacks required fields/);
  });
});
