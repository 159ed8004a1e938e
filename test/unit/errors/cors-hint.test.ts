/**
 * In a page, a request to another origin that its CORS rules refuse fails
 * as fetch's bare TypeError, the same as a network failure: the error says
 * that it may be CORS, naming the page's origin and the origin whose rules
 * refused, on every path that fetches (the HTTP bindings, gRPC-web, card
 * discovery, key sets, OAuth token and discovery requests). In Chromium:
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
  clientCredentialsProvider,
  discoverTokenEndpoint,
  resolveAgentCard,
} from "../../../src/index.js";
import { applyVerifyPolicy, JwksCache } from "../../../src/trust.js";
import { cardJson, keyPair, signJson } from "../../support/cards.js";
import { failure } from "../../support/failure.js";

const PAGE = "https://app.example";
const AGENT = "https://agent.example";
/** What Chromium's fetch rejects with for a network failure and a CORS refusal alike. */
const refused: typeof fetch = () => Promise.reject(new TypeError("Failed to fetch"));
const hint = (origin: string) =>
  `from a page on ${PAGE}, this is also how a browser reports a request that the CORS rules of ${origin} refuse`;
const CORS = hint(AGENT);

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
    expect((e as Error).message).toContain(CORS);
  });

  it("to the page's own origin, or with no page (Node), the error says nothing of CORS", async () => {
    vi.stubGlobal("location", { origin: AGENT });
    expect(((await failure(call(AGENT))) as Error).message).not.toMatch(/CORS/);
    vi.unstubAllGlobals();
    expect(((await failure(call(AGENT))) as Error).message).not.toMatch(/CORS/);
  });
});

/** The requests that are not A2A calls go to servers other than the agent: the hint names the one whose rules refused. */
const requests: [string, string, (base: string) => Promise<unknown>][] = [
  [
    "an OAuth token request",
    "https://auth.example",
    () => clientCredentialsProvider({ tokenUrl: "https://auth.example/token", clientId: "c", clientSecret: "s", fetch: refused }).token(),
  ],
  [
    "an OAuth discovery document",
    "https://auth.example",
    () => discoverTokenEndpoint("https://auth.example/.well-known/openid-configuration", { fetch: refused }),
  ],
  [
    "a card's key set (jku)",
    "https://keys.example",
    async () => {
      const key = await keyPair("ES256", "k1");
      const card = await signJson(cardJson(), key, "ES256", { jku: "https://keys.example/jwks.json" });
      return applyVerifyPolicy(card, "required", {
        fetch: refused,
        jku: { allowedOrigins: ["https://keys.example"], cache: new JwksCache() },
      });
    },
  ],
];

describe.each(requests)("%s", (_name, origin, request) => {
  it("in a page, a request fetch cannot make says a CORS refusal fails the same way, naming the origin whose rules to check", async () => {
    vi.stubGlobal("location", { origin: PAGE });
    const e = await failure(request(AGENT));
    expect(e.message).toContain(hint(origin));
    expect(e.message).toContain(`${origin}/`);
  });

  it("with no page (Node), the error says nothing of CORS", async () => {
    expect((await failure(request(AGENT))).message).not.toMatch(/CORS/);
  });
});
