/**
 * The loopback port shared by HTTP/1.1 and HTTP/2: the first bytes of a
 * connection choose its server however they are split, and a connection
 * reset before it says anything is let go without an error nobody hears.
 */
import { connect as h2connect } from "node:http2";
import { createConnection, createServer, type AddressInfo, type Socket } from "node:net";
import { afterEach, expect, it } from "vitest";
import { createTestAgent, steps, type TestAgent } from "../../../src/testing.js";

let agent: TestAgent;
afterEach(() => agent?.close());

const portOf = (url: string) => Number(new URL(url).port);

function opened(port: number): Promise<Socket> {
  return new Promise((resolve) => {
    const socket: Socket = createConnection(port, "127.0.0.1", () => resolve(socket));
  });
}

/** Writes `bytes` a byte per write, each sent before the next. */
async function byteByByte(socket: Socket, bytes: Uint8Array): Promise<void> {
  socket.setNoDelay(true);
  for (const b of bytes) await new Promise<void>((resolve) => socket.write(new Uint8Array([b]), () => resolve()));
}

it("an HTTP/1.1 request sent a byte at a time goes to the HTTP/1.1 server", async () => {
  agent = createTestAgent({ bindings: ["GRPC", "JSONRPC"] });
  const server = await agent.listen();
  const socket = await opened(portOf(server.url));
  const answer = new Promise<string>((resolve) => {
    let text = "";
    socket.on("data", (c: Buffer) => (text += c.toString()));
    socket.on("end", () => resolve(text));
  });
  await byteByByte(socket, new TextEncoder().encode("GET /.well-known/agent-card.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  expect(await answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*"protocolBinding":"GRPC"/);
});

it("an HTTP/2 connection whose preface comes a byte at a time goes to the HTTP/2 server", async () => {
  agent = createTestAgent({ bindings: ["GRPC"], script: [steps.reply("x")] });
  const server = await agent.listen();
  // A relay that passes the client's first bytes on one at a time, then the rest as they come.
  const relay = createServer((client) => {
    void (async () => {
      const upstream = await opened(portOf(server.url));
      upstream.pipe(client);
      let first = true;
      for await (const chunk of client as AsyncIterable<Buffer>) {
        if (first) await byteByByte(upstream, chunk);
        else upstream.write(chunk);
        first = false;
      }
    })();
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  const session = h2connect(`http://127.0.0.1:${(relay.address() as AddressInfo).port}`);
  try {
    const status = await new Promise<string | undefined>((resolve, reject) => {
      const stream = session.request({ ":method": "POST", ":path": "/lf.a2a.v1.A2AService/Nothing", "content-type": "application/grpc" });
      stream.on("response", (h) => resolve(h["grpc-status"] as string | undefined));
      stream.on("error", reject);
      stream.end();
    });
    expect(status).toBe("12");
  } finally {
    session.destroy();
    relay.close();
  }
});

it("a connection reset before it says anything is let go, and the server serves on", async () => {
  agent = createTestAgent({ bindings: ["GRPC"] });
  const server = await agent.listen();
  const socket = await opened(portOf(server.url));
  const gone = new Promise((resolve) => socket.once("close", resolve));
  socket.resetAndDestroy();
  await gone;
  expect((await fetch(`${server.url}/.well-known/agent-card.json`)).status).toBe(200);
});
