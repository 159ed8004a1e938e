/**
 * The gRPC binding's HTTP/2 connection against the official @a2a-js/sdk
 * server (@grpc/grpc-js): TLS to a loopback server whose certificate a
 * private CA issued (the URL's scheme and the caller's TLS options
 * honoured, never a quiet fall back to plaintext), mutual TLS, and a
 * server that limits the concurrent streams of a connection.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalAgent, type LocalAgent } from "../../demo/agent.js";
import {
  A2AClient,
  ConnectionError,
  MemoryCardStore,
  TaskState,
  connect,
  createGrpcTransport,
  userMessage,
  type GrpcTransportOptions,
  type Task,
} from "../../src/node.js";
import { collect } from "../support/bindings.js";
import { failure } from "../support/failure.js";
import { CLIENT_CERT, CLIENT_KEY, SERVER_CERT, SERVER_KEY, TEST_CA } from "../support/tls.js";

function taskOf(res: { payload: { case: string | undefined; value?: unknown } }): Task {
  if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
  return res.payload.value as Task;
}

const clientOf = (options: GrpcTransportOptions) => new A2AClient(createGrpcTransport({ timeoutMs: 10_000, ...options }));

/** What reaches the agent: a task it completed. */
async function works(client: A2AClient): Promise<void> {
  expect(taskOf(await client.sendMessage({ message: userMessage("count 1") })).status?.state).toBe(TaskState.COMPLETED);
}

describe("gRPC over TLS, the server's certificate issued by a private CA", () => {
  let secure: LocalAgent;
  let plain: LocalAgent;
  /** host:port of the TLS server. */
  let authority: string;
  beforeAll(async () => {
    secure = await startLocalAgent({ grpcTls: { cert: SERVER_CERT, key: SERVER_KEY } });
    plain = await startLocalAgent();
    authority = secure.grpcAddress.replace("grpcs://", "");
  });
  afterAll(() => Promise.all([secure?.close(), plain?.close()]));

  it("a grpcs:// URL on loopback is TLS: the caller's CA is honoured, unary and stream", async () => {
    expect(secure.grpcAddress).toMatch(/^grpcs:\/\/127\.0\.0\.1:\d+$/);
    const client = clientOf({ baseUrl: secure.grpcAddress, tls: { ca: TEST_CA } });
    await works(client);
    const events = await collect(client.sendStreamingMessage({ message: userMessage("count 2") }));
    expect(events.at(-1)?.payload.case).toBe("statusUpdate");
  });

  it("https://, and a bare host:port with TLS options, are TLS too; the CA may be given as bytes", async () => {
    await works(clientOf({ baseUrl: `https://${authority}`, tls: { ca: TEST_CA } }));
    await works(clientOf({ baseUrl: authority, tls: { ca: [new TextEncoder().encode(TEST_CA)] } }));
  });

  it("servername checks the certificate against another name than the URL's host", async () => {
    await works(clientOf({ baseUrl: secure.grpcAddress, tls: { ca: TEST_CA, servername: "agent.test" } }));
    const e = await failure(clientOf({ baseUrl: secure.grpcAddress, tls: { ca: TEST_CA, servername: "other.test" } }).getTask({ id: "t" }));
    expect(e).toBeInstanceOf(ConnectionError);
    expect(e.message).toMatch(/TLS|certificate|altnames/i);
  });

  it("without the CA the certificate is refused: a ConnectionError naming TLS and the host, nothing sent in plaintext", async () => {
    for (const baseUrl of [secure.grpcAddress, `https://${authority}`]) {
      const e = await failure(clientOf({ baseUrl }).getTask({ id: "t" }));
      expect(e).toBeInstanceOf(ConnectionError);
      expect(e.message).toContain(authority);
      expect(e.message).toMatch(/TLS|certificate/i);
    }
  });

  it("a URL that names TLS keeps it: grpcs:// to a plaintext loopback server fails, even with tls: false", async () => {
    const target = `grpcs://${plain.grpcAddress}`;
    for (const tls of [undefined, false]) {
      const e = await failure(clientOf({ baseUrl: target, tls }).getTask({ id: "t" }));
      expect(e).toBeInstanceOf(ConnectionError);
    }
    // The same server over plaintext answers, so it was TLS that failed.
    await works(clientOf({ baseUrl: plain.grpcAddress }));
  });

  it("connect(): a card's grpcs:// interface is reached over TLS with transport.tls", async () => {
    const card = await (await fetch(secure.cardUrl)).json();
    const session = await connect(card, {
      bindings: ["GRPC"],
      cache: new MemoryCardStore(),
      verification: { keys: secure.jwks },
      transport: { tls: { ca: TEST_CA } },
    });
    expect(session.interface?.interface.url).toBe(secure.grpcAddress);
    await works(session.client);
  });
});

describe("gRPC over mutual TLS", () => {
  let mutual: LocalAgent;
  beforeAll(async () => {
    mutual = await startLocalAgent({ grpcTls: { cert: SERVER_CERT, key: SERVER_KEY, clientCa: TEST_CA } });
  });
  afterAll(() => mutual?.close());

  it("the client's certificate and key are presented; without them the agent refuses the connection", async () => {
    await works(clientOf({ baseUrl: mutual.grpcAddress, tls: { ca: TEST_CA, cert: CLIENT_CERT, key: CLIENT_KEY } }));
    const e = await failure(clientOf({ baseUrl: mutual.grpcAddress, tls: { ca: TEST_CA } }).getTask({ id: "t" }));
    expect(e).toBeInstanceOf(ConnectionError);
  });
});

describe("a server that allows one concurrent stream per connection", () => {
  let narrow: LocalAgent;
  beforeAll(async () => {
    narrow = await startLocalAgent({ grpcServerOptions: { "grpc.max_concurrent_streams": 1 } });
  });
  afterAll(() => narrow?.close());

  it("a burst of calls on a new connection all succeed: none is refused for exceeding the limit", async () => {
    const client = clientOf({ baseUrl: narrow.grpcAddress });
    const sends = Array.from({ length: 8 }, (_, i) => client.sendMessage({ message: userMessage(`echo ${i}`) }));
    const streams = Array.from({ length: 4 }, () => collect(client.sendStreamingMessage({ message: userMessage("count 2") })));
    const replies = await Promise.all(sends);
    expect(replies.map((r) => r.payload.case)).toEqual(Array(8).fill("message"));
    for (const events of await Promise.all(streams)) expect(events.at(-1)?.payload.case).toBe("statusUpdate");
  });
});
