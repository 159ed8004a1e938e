/**
 * createFetchHttpClient on its own, over a recording fetch: what reaches
 * fetch, and what the response carries for connect.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2AClient, bearerAuth, ConnectionError, createGrpcWebTransport, resolveAgentCard } from "../../../src/index.js";
import { cardJson } from "../../support/cards.js";
import { createFetchHttpClient } from "../../../src/http/fetch-client.js";
import { createNodeHttpClient, createJsonRpcTransport, createRestTransport } from "../../../src/node.js";
import { deadPort } from "../../support/ports.js";
import { failure } from "../../support/failure.js";
import { single } from "../../../src/base/iterables.js";
import { sendJson, startFakeServer, type FakeServer } from "../../support/fake-server.js";

const encoder = new TextEncoder();

/** A fetch that records each call's body and answers 200 with a small JSON body. */
function recordingFetch() {
  const bodies: unknown[] = [];
  const fetchFn = (async (_input: RequestInfo | URL, init?: RequestInit) => {
    bodies.push(init?.body);
    return new Response('{"ok":true}', { status: 200, headers: { "content-type": "application/json" } });
  }) as typeof fetch;
  return { bodies, fetchFn };
}

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield encoder.encode(p);
}

const request = (body: AsyncIterable<Uint8Array> | undefined) => ({
  url: "http://127.0.0.1:9/rpc",
  method: "POST",
  header: new Headers({ "content-type": "application/json" }),
  body,
  signal: new AbortController().signal,
});

describe("createFetchHttpClient", () => {
  it("sends a one-chunk body as it is, without reading it first; a body of several chunks is joined", async () => {
    const { bodies, fetchFn } = recordingFetch();
    const client = createFetchHttpClient(fetchFn);
    const bytes = encoder.encode('{"jsonrpc":"2.0"}');
    const pending = client(request(single(bytes)));
    // fetch was called in the same turn: no await on the body came first.
    expect(bodies).toEqual([bytes]);
    expect(bodies[0]).toBe(bytes);
    await pending;
    await client(request(chunks('{"a":', "1}")));
    expect(new TextDecoder().decode(bodies[1] as Uint8Array)).toBe('{"a":1}');
    await client(request(undefined));
    expect(bodies[2]).toBeUndefined();
  });

  it("every response's trailer is empty and cannot be changed, so no response can change another's", async () => {
    const { fetchFn } = recordingFetch();
    const client = createFetchHttpClient(fetchFn);
    const a = await client(request(undefined));
    const b = await client(request(undefined));
    for (const res of [a, b]) {
      expect([...res.trailer]).toEqual([]);
      expect(res.trailer.get("grpc-status")).toBeNull();
    }
    expect(() => a.trailer.set("x-leak", "1")).toThrow(TypeError);
    expect(() => a.trailer.append("x-leak", "1")).toThrow(TypeError);
    expect(b.trailer.has("x-leak")).toBe(false);
  });
});

describe("a whole response body over fetch", () => {
  it("fails iff it has more bytes than the limit, however its chunks split it (property)", async () => {
    const { default: fc } = await import("fast-check");
    const { concatBytes } = await import("../../../src/base/bytes.js");
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 400 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        async (size, max, offsets) => {
          const bytes = encoder.encode("é".repeat(size));
          const points = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
          const stream = new ReadableStream<Uint8Array>({
            start(controller) {
              let at = 0;
              for (const p of [...points, bytes.length]) {
                controller.enqueue(bytes.slice(at, p));
                at = p;
              }
              controller.close();
            },
          });
          const client = createFetchHttpClient((async () => new Response(stream)) as typeof fetch);
          const res = await client(request(undefined));
          const got = await concatBytes(res.body, max, () => new RangeError("too large")).then(
            (b) => b,
            (e: unknown) => e,
          );
          expect(got).toEqual(bytes.length > max ? new RangeError("too large") : bytes);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("a base URL with user info", () => {
  // The global fetch, as in a browser: it refuses a URL that carries credentials.
  let agent: FakeServer;
  const task = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } };
  beforeAll(async () => {
    agent = await startFakeServer((req, res, body) => {
      if (req.url === "/card.json") return sendJson(res, 200, cardJson());
      sendJson(res, 200, req.url?.startsWith("/rpc") ? { jsonrpc: "2.0", id: JSON.parse(body).id, result: task } : task);
    });
  });
  afterAll(() => agent.close());

  it.each([
    ["JSON-RPC", createJsonRpcTransport, "/rpc"],
    ["HTTP+JSON", createRestTransport, "/rest"],
  ] as const)("%s: sent as Basic credentials, as node:http sends them, to the URL without it", async (_name, transport, path) => {
    const baseUrl = `${agent.url.replace("://", "://ann:p%40ss@")}${path}`;
    const client = new A2AClient(transport({ baseUrl, httpClient: createFetchHttpClient() }));
    expect((await client.getTask({ id: "t1" })).id).toBe("t1");
    const sent = agent.requests.at(-1)!;
    expect(sent.headers.authorization).toBe(`Basic ${btoa("ann:p@ss")}`);
    expect(sent.url.startsWith(path)).toBe(true);
    // An Authorization the application sets is the one sent, as with node:http.
    const bearer = new A2AClient(transport({ baseUrl, httpClient: createFetchHttpClient(), interceptors: [bearerAuth("t0k")] }));
    await bearer.getTask({ id: "t1" });
    expect(agent.requests.at(-1)!.headers.authorization).toBe("Bearer t0k");
  });

  it("gRPC-web: the same, over its fetch", async () => {
    const sent: Request[] = [];
    // As fetch does: a Request is made first, which refuses a URL with credentials.
    const fetchFn = (async (input: RequestInfo | URL, init?: RequestInit) => {
      sent.push(new Request(input, init));
      return new Response(null, { headers: { "grpc-status": "5", "grpc-message": "no such task" } });
    }) as typeof fetch;
    const client = new A2AClient(createGrpcWebTransport({ baseUrl: "https://ann:p%40ss@agent.example/grpc", fetch: fetchFn }));
    const e = await client.getTask({ id: "t1" }).catch((x: unknown) => x);
    expect(e).not.toBeInstanceOf(ConnectionError);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe("https://agent.example/grpc/lf.a2a.v1.A2AService/GetTask");
    expect(sent[0]!.headers.get("Authorization")).toBe(`Basic ${btoa("ann:p@ss")}`);
  });

  it("a card URL: the same, to the card's origin only", async () => {
    const resolved = await resolveAgentCard(`${agent.url.replace("://", "://ann:p%40ss@")}/card.json`, { cache: false });
    expect(resolved.card.name).toBe("Test Agent");
    const sent = agent.requests.at(-1)!;
    expect(sent.url).toBe("/card.json");
    expect(sent.headers.authorization).toBe(`Basic ${btoa("ann:p@ss")}`);
  });
});

describe("a connection nobody answers, on both HTTP clients", () => {
  it("is refused, saying why: nothing listens (both), or a port fetch blocks (bad port)", async () => {
    const port = await deadPort();
    const call = (httpClient: ReturnType<typeof createFetchHttpClient>, url: string) =>
      failure(new A2AClient(createJsonRpcTransport({ baseUrl: url, httpClient })).getTask({ id: "t" }, { retry: false }));
    for (const httpClient of [createFetchHttpClient(), createNodeHttpClient()]) {
      const e = await call(httpClient, `http://127.0.0.1:${port}/rpc`);
      expect(e).toBeInstanceOf(ConnectionError);
      expect([(e as ConnectionError).kind, e.message]).toEqual([
        "refused",
        `connection refused (ECONNREFUSED) to 127.0.0.1:${port} (http://127.0.0.1:${port}/rpc)`,
      ]);
    }
    // Port 9 is one the Fetch standard blocks: fetch sends nothing, and says so.
    const blocked = await call(createFetchHttpClient(), "http://127.0.0.1:9/rpc");
    expect([(blocked as ConnectionError).kind, blocked.message]).toEqual([
      "refused",
      'connection refused by fetch: a port the Fetch standard blocks ("bad port") to 127.0.0.1:9 (http://127.0.0.1:9/rpc)',
    ]);
  });
});
