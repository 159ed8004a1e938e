/**
 * Errors name where the call went: a connection that failed (refused, TLS,
 * a name that does not resolve) names the host and port, a timeout the URL
 * and the duration, on every binding, both HTTP clients, gRPC and card
 * discovery; and none of them carries a credential the call sent (query,
 * user info, header) on any surface. Servers on 127.0.0.1 only; timeouts
 * are short deadlines against a server that never answers, not sleeps.
 */
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  A2AClient,
  type A2AError,
  CallTimeoutError,
  ConnectionError,
  MemoryCardStore,
  resolveAgentCard,
  type A2ATransport,
} from "../../../src/index.js";
import {
  createGrpcTransport,
  createGrpcTransportV03,
  createNodeHttpClient,
  createJsonRpcTransport,
  createJsonRpcTransportV03,
  createRestTransport,
  createRestTransportV03,
} from "../../../src/node.js";
import { toA2AError } from "../../../src/errors/classify.js";
import { failure } from "../../support/failure.js";
import { errorSurfaces } from "../../support/surfaces.js";

const SECRET = "where-SECRET-42";
const headers = { Authorization: `Bearer ${SECRET}`, "X-Api-Key": SECRET };

function expectNoSecret(e: unknown): void {
  for (const s of errorSurfaces(e)) expect(s).not.toContain(SECRET);
}

let closedPort: number;
let silent: Server;
let silentPort: number;
let plainPort: number;
let plain: Server;
const sockets = new Set<Socket>();

beforeAll(async () => {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((r) => probe.close(r));
  // Accepts connections and reads, never answers.
  silent = createServer((s) => {
    sockets.add(s);
    s.on("data", () => {});
  });
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  silentPort = (silent.address() as AddressInfo).port;
  // Answers anything, TLS handshakes included, with plain HTTP.
  plain = createServer((s) => {
    sockets.add(s);
    s.once("data", () => s.end("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"));
  });
  await new Promise<void>((r) => plain.listen(0, "127.0.0.1", r));
  plainPort = (plain.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all([silent, plain].map((s) => new Promise((r) => s.close(r))));
});

type Make = (origin: string, options: { timeoutMs?: number; headers?: HeadersInit }) => A2ATransport;
const withQuery = (origin: string, path: string) => `${origin}${path}?key=${SECRET}`;
const TRANSPORTS: Array<[string, Make]> = [
  ["JSONRPC (fetch)", (o, opts) => createJsonRpcTransport({ baseUrl: withQuery(o, "/a2a"), ...opts })],
  [
    "JSONRPC (node:http)",
    (o, opts) => createJsonRpcTransport({ baseUrl: withQuery(o, "/a2a"), httpClient: createNodeHttpClient(), ...opts }),
  ],
  ["HTTP+JSON (fetch)", (o, opts) => createRestTransport({ baseUrl: withQuery(o, "/rest"), ...opts })],
  [
    "HTTP+JSON (node:http)",
    (o, opts) => createRestTransport({ baseUrl: withQuery(o, "/rest"), httpClient: createNodeHttpClient(), ...opts }),
  ],
  ["JSONRPC 0.3", (o, opts) => createJsonRpcTransportV03({ baseUrl: withQuery(o, "/a2a"), ...opts })],
  ["HTTP+JSON 0.3", (o, opts) => createRestTransportV03({ baseUrl: withQuery(o, "/rest"), ...opts })],
  ["GRPC", (o, opts) => createGrpcTransport({ baseUrl: o, ...opts })],
  ["GRPC 0.3", (o, opts) => createGrpcTransportV03({ baseUrl: o, ...opts })],
];

async function streamFailure(s: AsyncIterable<unknown>): Promise<A2AError> {
  return failure(
    (async () => {
      for await (const _ of s);
    })(),
  );
}

describe.each(TRANSPORTS)("%s", (_name, make) => {
  it("a refused connection names 127.0.0.1 and the port, unary and stream, with no credential", async () => {
    const client = new A2AClient(make(`http://127.0.0.1:${closedPort}`, { headers }));
    for (const e of [
      await failure(client.getTask({ id: "t" }, { headers })),
      await streamFailure(client.subscribeToTask({ id: "t" }, { resume: false, headers })),
    ]) {
      expect(e).toBeInstanceOf(ConnectionError);
      expect((e as ConnectionError).kind).toBe("refused");
      expect(e.message).toContain(`127.0.0.1:${closedPort}`);
      expectNoSecret(e);
    }
  });

  it("a timeout names the URL (without its query) and the duration in ms, with no credential", async () => {
    const client = new A2AClient(make(`http://127.0.0.1:${silentPort}`, { headers, timeoutMs: 50 }));
    for (const e of [
      await failure(client.getTask({ id: "t" }, { headers })),
      await streamFailure(client.subscribeToTask({ id: "t" }, { resume: false, headers, timeoutMs: 50 })),
    ]) {
      expect(e).toBeInstanceOf(CallTimeoutError);
      // The method's URL: the HTTP path, or gRPC's /<service>/<method>.
      expect(e.message).toMatch(
        new RegExp(`http://127\\.0\\.0\\.1:${silentPort}/(a2a|rest/(v1/)?tasks/t(:subscribe)?|[\\w.]+A2AService/\\w+) `),
      );
      expect(e.message).toContain("50 ms");
      expectNoSecret(e);
    }
  });

  it("a TLS failure (https to a plain server) names the host and port", async () => {
    const e = await failure(new A2AClient(make(`https://127.0.0.1:${plainPort}`, { headers })).getTask({ id: "t" }));
    expect(e).toBeInstanceOf(ConnectionError);
    expect(e.message).toContain(`127.0.0.1:${plainPort}`);
    expectNoSecret(e);
  });
});

describe("card discovery", () => {
  it("a refused connection names the host, port and URL tried, with no credential from the query", async () => {
    const e = await failure(
      resolveAgentCard(`http://127.0.0.1:${closedPort}/agent?key=${SECRET}`, { cache: new MemoryCardStore(), headers }),
    );
    expect(e).toBeInstanceOf(ConnectionError);
    expect(e.message).toContain(`127.0.0.1:${closedPort}`);
    expect(e.message).toContain(`http://127.0.0.1:${closedPort}/`);
    expectNoSecret(e);
  });

  it("a timeout names the URL and the duration", async () => {
    const e = await failure(
      resolveAgentCard(`http://127.0.0.1:${silentPort}/agent?key=${SECRET}`, { cache: new MemoryCardStore(), headers, timeoutMs: 50 }),
    );
    expect(e).toBeInstanceOf(CallTimeoutError);
    expect(e.message).toContain(`http://127.0.0.1:${silentPort}/agent`);
    expect(e.message).toContain("50 ms");
    expectNoSecret(e);
  });
});

describe("the classification names host and port for every socket failure", () => {
  it.each([
    ["ENOTFOUND", "dns", "host not found"],
    ["EAI_AGAIN", "dns", "host not found"],
    ["ECONNRESET", "reset", "connection reset"],
    ["EHOSTUNREACH", "network", "connection failed"],
    ["CERT_HAS_EXPIRED", "network", "TLS failed"],
    ["ERR_SSL_WRONG_VERSION_NUMBER", "network", "TLS failed"],
  ])("%s -> kind %s", (code, kind, text) => {
    const cause = Object.assign(new Error(`socket ${code}`), { code });
    const e = toA2AError(new TypeError("fetch failed", { cause }), "JSONRPC", `https://u:${SECRET}@agent.example/a2a?key=${SECRET}`);
    expect(e).toBeInstanceOf(ConnectionError);
    expect((e as ConnectionError).kind).toBe(kind);
    expect(e.message).toContain(text);
    expect(e.message).toContain("agent.example:443 (https://agent.example/a2a)");
    expect(e.message).not.toContain(SECRET);
  });
});
