/**
 * The loopback server: the card names its interfaces on the server's own
 * origin, and closing the agent ends a call that waits on it and the
 * server's connections (HTTP/1.1 and HTTP/2), leaving nothing to hold the process.
 */
import { afterEach, expect, it } from "vitest";
import { A2AError, connect, userMessage } from "../../../src/index.js";
import { connect as connectNode } from "../../../src/node.js";
import { createTestAgent, steps, type TestAgent } from "../../../src/testing.js";

let agent: TestAgent;
afterEach(() => agent?.close());

it("serves the card with its JSON-RPC and HTTP+JSON interfaces on its own origin, in the order asked", async () => {
  agent = createTestAgent({ bindings: ["HTTP+JSON", "JSONRPC"] });
  const server = await agent.listen();
  expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  const session = await connect(server.url);
  expect(session.publicCard.supportedInterfaces.map((i) => [i.protocolBinding, i.url])).toEqual([
    ["HTTP+JSON", `${server.url}/rest`],
    ["JSONRPC", `${server.url}/jsonrpc`],
  ]);
});

it.each(["JSONRPC", "GRPC"] as const)("close() ends a %s stream that waits on the agent and the server's connections", async (binding) => {
  agent = createTestAgent({ bindings: [binding], script: [steps.working(), steps.untilCancelled()] });
  const server = await agent.listen();
  // gRPC over HTTP/2 is the Node entry's.
  const { client } = await (binding === "GRPC" ? connectNode : connect)(server.url, { bindings: [binding] });
  const events: string[] = [];
  const reading = (async () => {
    for await (const e of client.sendStreamingMessage({ message: userMessage("forever") }, { resume: false })) {
      events.push(e.payload.case ?? "");
      if (events.length === 2) void agent.close();
    }
  })().catch((e: unknown) => e);
  const ended = await reading;
  expect(events.slice(0, 2)).toEqual(["task", "statusUpdate"]);
  // The task's run was ended with the agent: its stream ends, cut or closed, but ends.
  if (ended !== undefined) expect(ended).toBeInstanceOf(A2AError);
  await server.close();
  await expect(connect(server.url, { timeoutMs: 2_000 })).rejects.toBeInstanceOf(A2AError);
});

/** What a bare socket sees of the answer to one JSON-RPC SendStreamingMessage: the bytes before the end, and how it ended. */
async function rawExchange(url: string): Promise<{ bytes: string; end: string }> {
  const { connect: dial } = await import("node:net");
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "SendStreamingMessage",
    params: { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "go" }] } },
  });
  return new Promise((resolve) => {
    let bytes = "";
    const socket = dial(Number(new URL(url).port), "127.0.0.1", () => {
      socket.write(
        `POST /jsonrpc HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      );
    });
    socket.on("data", (chunk: Buffer) => (bytes += chunk.toString("latin1")));
    socket.on("end", () => resolve({ bytes, end: "closed" }));
    socket.on("error", (e: NodeJS.ErrnoException) => resolve({ bytes, end: e.code ?? e.message }));
  });
}

// Before the answer, so that nothing is left unread when the connection ends: Linux reports a
// reset that arrives while bytes wait unread as the end of the stream (a client mid-stream may
// see either), but one on an idle connection as ECONNRESET.
it.each([
  ["drop()", steps.drop(), "closed"],
  ['drop("close")', steps.drop("close"), "closed"],
  ['drop("reset")', steps.drop("reset"), "ECONNRESET"],
])("%s ends the connection on the wire as it says: closed (FIN) or reset (RST)", async (_, drop, end) => {
  agent = createTestAgent({ script: [drop, steps.complete()] });
  const server = await agent.listen();
  expect(await rawExchange(server.url)).toEqual({ bytes: "", end });
});
