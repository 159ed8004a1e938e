/**
 * In a page, a call to another origin that the agent's CORS rules refuse
 * fails as fetch's bare TypeError, the same as a network failure: the error
 * says that it may be CORS, naming the page's origin, on every path that
 * fetches (the HTTP bindings, gRPC-web, card discovery). In Chromium:
 * test/browser/browser.test.ts. Without a page (Node), or to the page's own
 * origin, nothing is added.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  A2AClient,
  ConnectionError,
  createFetchHttpClient,
  createGrpcWebTransport,
  createJsonRpcTransport,
  createRestTransport,
  resolveAgentCard,
} from "../../src/index.js";
import { failure } from "../support/failure.js";

const PAGE = "https://app.example";
const AGENT = "https://agent.example";
/** What Chromium's fetch rejects with for a network failure and a CORS refusal alike. */
const refused: typeof fetch = () => Promise.reject(new TypeError("Failed to fetch"));
const CORS = /from a page on https:\/\/app\.example, this is also how a browser reports a call the agent's CORS rules refuse/;

afterEach(() => vi.unstubAllGlobals());

const calls: [string, (base: string) => Promise<unknown>][] = [
  [
    "JSON-RPC",
    (base) =>
      new A2AClient(createJsonRpcTransport({ baseUrl: `${base}/a2a`, httpClient: createFetchHttpClient(refused) })).getTask({ id: "t1" }),
  ],
  [
    "HTTP+JSON",
    (base) =>
      new A2AClient(createRestTransport({ baseUrl: `${base}/a2a`, httpClient: createFetchHttpClient(refused) })).getTask({ id: "t1" }),
  ],
  ["gRPC-web", (base) => new A2AClient(createGrpcWebTransport({ baseUrl: `${base}/grpc`, fetch: refused })).getTask({ id: "t1" })],
  ["card discovery", (base) => resolveAgentCard(base, { fetch: refused, cache: false })],
];

describe.each(calls)("%s", (_name, call) => {
  it("in a page, a call to another origin that fetch cannot make says a CORS refusal fails the same way", async () => {
    vi.stubGlobal("location", { origin: PAGE });
    const e = await failure(call(AGENT));
    expect(e).toBeInstanceOf(ConnectionError);
    expect((e as ConnectionError).kind).toBe("network");
    expect((e as Error).message).toMatch(CORS);
  });

  it("to the page's own origin, or with no page (Node), the error says nothing of CORS", async () => {
    vi.stubGlobal("location", { origin: AGENT });
    expect(((await failure(call(AGENT))) as Error).message).not.toMatch(/CORS/);
    vi.unstubAllGlobals();
    expect(((await failure(call(AGENT))) as Error).message).not.toMatch(/CORS/);
  });
});
