/**
 * The call's one deadline and signal (call/deadline.ts), as every step
 * reads them: a signal already aborted when the call starts stops it before
 * a token is asked for or a byte is sent, on every binding; a timeout
 * longer than a timer can hold is no limit, at any step; and an abort
 * reaches the caller as AbortedError with its reason as cause, whichever
 * step it lands in.
 */
import * as net from "node:net";
import type { AddressInfo } from "node:net";
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  A2AClient,
  AbortedError,
  createGrpcTransport,
  createGrpcTransportV03,
  createGrpcWebTransport,
  createJsonRpcTransport,
  createNodeHttpClient,
  createRestTransport,
  bearerAuth,
  clientCredentialsProvider,
  resolveAgentCard,
  waitForTask,
} from "../../../src/node.js";
import { cardJson, keyPair, signJson } from "../../support/cards.js";
import { sendJson, sseFrame, startFakeServer, startSse } from "../../support/fake-server.js";
import { BOUND_MS, raw, useRawServer, type Wire, transportOf, clientOf, settle, drain, single } from "../../support/deadline-server.js";

useRawServer();

describe("a signal already aborted when the call starts", () => {
  /** How many connections a peer that never answers was opened to. */
  let connections = 0;
  let peer: net.Server;
  let peerUrl: string;
  beforeAll(async () => {
    peer = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => peer.listen(0, "127.0.0.1", resolve));
    peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
    // Loads the token code (on demand), so that a token request a call would start is made within a turn of the event loop.
    const tokenFetch = (async () => Response.json({ access_token: "t", token_type: "Bearer" })) as typeof fetch;
    await clientCredentialsProvider({ tokenUrl: `${peerUrl}/token`, clientId: "id", clientSecret: "secret", fetch: tokenFetch }).token();
  });
  afterAll(() => new Promise<void>((resolve) => peer.close(() => resolve())));

  type Kind = Wire | "GRPC" | "GRPC 0.3" | "gRPC-web";
  const KINDS: readonly Kind[] = ["JSONRPC", "HTTP+JSON", "JSONRPC 0.3", "HTTP+JSON 0.3", "GRPC", "GRPC 0.3", "gRPC-web"];

  it.each(KINDS)("%s: AbortedError at once; no token is asked for and nothing is sent, unary or stream", async (kind) => {
    let tokens = 0;
    const provider = clientCredentialsProvider({
      tokenUrl: `${peerUrl}/token`,
      clientId: "id",
      clientSecret: "secret",
      fetch: (async () => {
        tokens++;
        return Response.json({ access_token: "t", token_type: "Bearer" });
      }) as typeof fetch,
    });
    const interceptors = [bearerAuth(provider)];
    const common = { baseUrl: peerUrl, interceptors, pingIntervalMs: Infinity };
    const transport =
      kind === "GRPC"
        ? createGrpcTransport(common)
        : kind === "GRPC 0.3"
          ? createGrpcTransportV03(common)
          : kind === "gRPC-web"
            ? createGrpcWebTransport(common)
            : transportOf(kind, { ...common, httpClient: createNodeHttpClient() });
    const client = new A2AClient(transport);
    const unary = await settle(client.getTask({ id: "t1" }, { signal: AbortSignal.abort() }));
    const stream = await settle(drain(client.subscribeToTask({ id: "t1" }, { signal: AbortSignal.abort(), resume: false })));
    for (const { error, ms } of [unary, stream]) {
      expect(error).toBeInstanceOf(AbortedError);
      expect(ms).toBeLessThan(BOUND_MS);
    }
    // What the calls would have started runs within a turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    expect({ tokens, connections }).toEqual({ tokens: 0, connections: 0 });
  });
});

describe("a timeout longer than a timer can hold (2^31 - 1 ms, about 24.8 days) is no limit, not a failure at once", () => {
  const completed = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } };
  /** An agent (JSON-RPC), its card and its token endpoint, each answering after a few milliseconds. */
  const slowAgent = () =>
    startFakeServer((req, res, body) => {
      const answer = () => {
        if (req.url === "/token") return sendJson(res, 200, { access_token: "t", token_type: "Bearer" });
        if (req.url === "/c.json") return sendJson(res, 200, signedCard);
        const { id } = JSON.parse(body) as { id: number };
        if (!/event-stream/.test(String(req.headers.accept))) return sendJson(res, 200, { jsonrpc: "2.0", id, result: completed });
        startSse(res);
        res.end(sseFrame({ jsonrpc: "2.0", id, result: { task: completed } }));
      };
      const timer = setTimeout(answer, 20);
      res.once("close", () => clearTimeout(timer));
    });

  let key: Awaited<ReturnType<typeof keyPair>>;
  let signedCard: Record<string, unknown>;
  beforeAll(async () => {
    key = await keyPair("ES256", "k1");
    signedCard = await signJson(cardJson(), key, "ES256");
  });

  it.each([Infinity, 2 ** 31, 3e9])("%s ms: calls, streams, retries, waits, token requests and resolves succeed", async (ms) => {
    const agent = await slowAgent();
    try {
      const provider = clientCredentialsProvider({ tokenUrl: `${agent.url}/token`, clientId: "id", clientSecret: "s", timeoutMs: ms });
      const client = new A2AClient(
        createJsonRpcTransport({ baseUrl: `${agent.url}/a2a`, timeoutMs: ms, idleTimeoutMs: ms, interceptors: [bearerAuth(provider)] }),
      );
      await expect(client.getTask({ id: "t1" })).resolves.toMatchObject({ id: "t1" });
      await expect(client.getTask({ id: "t1" }, { timeoutMs: ms, retry: { attempts: 2 } })).resolves.toMatchObject({ id: "t1" });
      await expect(drain(client.subscribeToTask({ id: "t1" }, { timeoutMs: ms }))).resolves.toBeUndefined();
      if (Number.isFinite(ms)) {
        await expect(waitForTask(client, "t1", { timeoutMs: ms, subscribe: false })).resolves.toMatchObject({ id: "t1" });
      }
      await expect(
        resolveAgentCard(`${agent.url}/c.json`, { cache: false, timeoutMs: ms, verification: { keys: { keys: [key.jwk] } } }),
      ).resolves.toMatchObject({ verification: { verified: true } });
    } finally {
      await agent.close();
    }
  });
});

describe("the caller's abort reason", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** An HTTP client that answers every request at once: with `status` and a JSON body, or with an event stream of `events`. */
  const answering =
    (status: number, body: unknown, stream = false): UniversalClientFn =>
    async () => ({
      status,
      header: new Headers({ "Content-Type": stream ? "text/event-stream" : "application/json" }),
      body: single(new TextEncoder().encode(stream ? sseFrame(body) : JSON.stringify(body))),
      trailer: new Headers(),
    });
  const working = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } };
  const over = (httpClient: UniversalClientFn) => new A2AClient(createRestTransport({ baseUrl: "http://127.0.0.1:9", httpClient }));

  /** Each step, started with `signal`; the abort lands in it (its waits are long, the agent answers at once). */
  const steps: Record<string, (signal: AbortSignal) => Promise<unknown>> = {
    "a call waiting for its answer (node:http)": (signal) => clientOf("JSONRPC", "node:http").getTask({ id: "t1" }, { signal }),
    "a call waiting for its answer (fetch)": (signal) => clientOf("HTTP+JSON", "fetch").getTask({ id: "t1" }, { signal }),
    "a resolve waiting for its card": (signal) => resolveAgentCard(`${raw.url}/c.json`, { cache: false, signal }),
    "a retry's wait": (signal) =>
      over(answering(503, {})).getTask({ id: "t1" }, { signal, retry: { attempts: 2, initialDelayMs: 10_000, maxDelayMs: 10_000 } }),
    "waitForTask between polls": (signal) => waitForTask(over(answering(200, working)), "t1", { signal, subscribe: false, pollMs: 10_000 }),
    "a resumption's backoff": (signal) =>
      drain(
        over(answering(200, { task: working }, true)).subscribeToTask(
          { id: "t1" },
          { signal, resume: { backoff: { initialMs: 10_000, maxMs: 10_000 } } },
        ),
      ),
  };

  it.each(Object.keys(steps))("%s: AbortedError, with the reason as its cause", async (step) => {
    raw.behaviour = "silent";
    // The longest backoff and retry waits the options allow.
    vi.spyOn(Math, "random").mockReturnValue(0.99);
    const reason = new Error("the user closed the page");
    const controller = new AbortController();
    const stop = setTimeout(() => controller.abort(reason), 30);
    const { error, ms } = await settle(steps[step]!(controller.signal));
    clearTimeout(stop);
    expect(error).toBeInstanceOf(AbortedError);
    expect((error as Error).cause).toBe(reason);
    expect(ms).toBeLessThan(BOUND_MS);
  });
});
