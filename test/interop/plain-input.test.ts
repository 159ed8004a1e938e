/**
 * Requests written in the spec's JSON shape, as plain JavaScript sends
 * them, against each real peer on every binding, 1.0 and 0.3: a message
 * of `{ text }` parts with `role: "ROLE_USER"` arrives with its text and
 * its role, and a request of neither shape fails before any request.
 */
import { describe, expect, it } from "vitest";
import {
  A2AClient,
  InvalidParamsError,
  Role,
  createJsonRpcTransportV03,
  textOf,
  type A2ATransport,
  type Binding,
  type SendMessageResponse,
} from "../../src/index.js";
import { createGrpcTransportV03, createRestTransportV03 } from "../../src/node.js";
import type { LocalAgent } from "../../demo/agent.js";
import { BINDINGS, collect, transportFor } from "../support/bindings.js";
import { agentsOfPeers, peerCases } from "../support/peers.js";

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
