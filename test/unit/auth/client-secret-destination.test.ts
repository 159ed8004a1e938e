/**
 * Where `connect({ auth })` sends an OAuth client secret: to a token URL the
 * application pinned (`tokenUrl`), one on the origin the card came from, or
 * one named by a card whose signature verified. Any other token URL a card
 * names fails before any request, naming the option to set.
 */
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AgentCardSchema, AuthenticationError, connect, type AgentCard } from "../../../src/index.js";
import { planAuth } from "../../../src/auth/plan.js";
import { cardJson, keyPair, signJson, type TestKeyPair } from "../../support/cards.js";
import { sendJson, startFakeServer, type FakeServer } from "../../support/fake-server.js";

const CLIENT_ID = "client-9";
const CLIENT_SECRET = "destination-secret-Ω";
const QUERY_SECRET = "query-secret-77";

let idp: FakeServer;
let home: FakeServer;
let key: TestKeyPair;
/** The card the agent serves at its well-known URL. */
let served: Record<string, unknown> = {};
let issued = 0;

function tokenOrDiscovery(req: IncomingMessage, res: ServerResponse, self: () => FakeServer): boolean {
  const path = req.url!.split("?")[0];
  if (path === "/token" && req.method === "POST") {
    sendJson(res, 200, { access_token: `tok-${++issued}`, token_type: "Bearer", expires_in: 3600 });
    return true;
  }
  if (path === "/.well-known/openid-configuration") {
    sendJson(res, 200, { issuer: self().url, token_endpoint: `${self().url}/token` });
    return true;
  }
  return false;
}

const TASK = { id: "task-1", contextId: "ctx-1", status: { state: "TASK_STATE_COMPLETED" } };

beforeAll(async () => {
  key = await keyPair("ES256", "agent-key");
  idp = await startFakeServer((req, res) => {
    if (!tokenOrDiscovery(req, res, () => idp)) res.writeHead(404).end();
  });
  home = await startFakeServer((req, res, body) => {
    if (tokenOrDiscovery(req, res, () => home)) return;
    if (req.url === "/.well-known/agent-card.json") return sendJson(res, 200, served);
    const id = (JSON.parse(body) as { id: number }).id;
    return sendJson(res, 200, { jsonrpc: "2.0", id, result: TASK });
  });
});
afterAll(async () => {
  await idp.close();
  await home.close();
});
afterEach(() => {
  idp.requests.length = 0;
  home.requests.length = 0;
  issued = 0;
});

const oauth = (tokenUrl: string) => ({ oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl, scopes: {} } } } });
const oidc = (discoveryUrl: string) => ({ openIdConnectSecurityScheme: { openIdConnectUrl: discoveryUrl } });

function agentCard(scheme: Record<string, unknown>): Record<string, unknown> {
  return cardJson({
    supportedInterfaces: [{ url: `${home.url}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    securitySchemes: { oauth: scheme },
    securityRequirements: [{ schemes: { oauth: { list: [] } } }],
  });
}

const clientCredentials = { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET };
const rpcCalls = () => home.requests.filter((r) => r.url === "/rpc");
const tokenCalls = (server: FakeServer) => server.requests.filter((r) => r.url.startsWith("/token"));

/** Every text an error shows: message, String, JSON, and each cause's, all the way down. */
function shown(e: unknown): string {
  const texts: string[] = [];
  for (let c: unknown = e, depth = 0; c !== undefined && depth < 10; c = (c as { cause?: unknown }).cause, depth++) {
    texts.push(c instanceof Error ? `${c.message} ${c.stack ?? ""}` : String(c), JSON.stringify(c) ?? "");
  }
  return texts.join("\n");
}

describe("a token URL named by a card that is neither on the card's origin nor verified", () => {
  it("fails connect() with AuthenticationError naming auth.<key>.tokenUrl and the URL (masked); no token or A2A request", async () => {
    served = agentCard(oauth(`${idp.url}/token?key=${QUERY_SECRET}`));
    const e = await connect(home.url, { cache: false, auth: { oauth: clientCredentials } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    const message = (e as Error).message;
    expect(message).toContain("auth.oauth.tokenUrl");
    expect(message).toContain(`${idp.url}/token`);
    expect(message).toContain(`(${home.url})`);
    expect(message).toContain("the card is not signed");
    for (const secret of [CLIENT_SECRET, QUERY_SECRET]) expect(shown(e)).not.toContain(secret);
    expect(idp.requests).toEqual([]);
    expect(rpcCalls()).toEqual([]);
    expect(tokenCalls(home)).toEqual([]);
  });

  it("a discovery document on another origin is not fetched either", async () => {
    served = agentCard(oidc(`${idp.url}/.well-known/openid-configuration`));
    const e = await connect(home.url, { cache: false, auth: { oauth: clientCredentials } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as Error).message).toContain(`${idp.url}/.well-known/openid-configuration`);
    expect((e as Error).message).toContain("auth.oauth.tokenUrl");
    expect(idp.requests).toEqual([]);
    expect(rpcCalls()).toEqual([]);
  });

  it("a card in hand with its cardUrl is judged as fetched from there", async () => {
    const card = agentCard(oauth(`${idp.url}/token`));
    const e = await connect(card, { cardUrl: `${home.url}/.well-known/agent-card.json`, auth: { oauth: clientCredentials } }).catch(
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as Error).message).toContain("auth.oauth.tokenUrl");
    expect(idp.requests).toEqual([]);
  });

  it("a signed card whose signature was not checked (verify: off) counts as not verified", async () => {
    served = await signJson(agentCard(oauth(`${idp.url}/token`)), key);
    const e = await connect(home.url, { cache: false, verify: "off", auth: { oauth: clientCredentials } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as Error).message).toContain("its signature was not verified");
    expect(idp.requests).toEqual([]);
  });
});

describe("a token URL the client secret may go to", () => {
  async function callsWith(options: Parameters<typeof connect>[1]) {
    const session = await connect(home.url, { cache: false, ...options });
    await session.client.getTask({ id: "task-1" });
    expect(rpcCalls().map((r) => r.headers.authorization)).toEqual(["Bearer tok-1"]);
  }

  it("pinned by the application (auth.<key>.tokenUrl), wherever the card points", async () => {
    served = agentCard(oauth("https://elsewhere.example/token"));
    await callsWith({ auth: { oauth: { ...clientCredentials, tokenUrl: `${idp.url}/token` } } });
    expect(tokenCalls(idp)).toHaveLength(1);
  });

  it("on the card's own origin, as a token URL or a discovery document", async () => {
    served = agentCard(oauth(`${home.url}/token`));
    await callsWith({ auth: { oauth: clientCredentials } });
    expect(tokenCalls(home)).toHaveLength(1);

    home.requests.length = 0;
    issued = 0;
    served = agentCard(oidc(`${home.url}/.well-known/openid-configuration`));
    await callsWith({ auth: { oauth: clientCredentials } });
    expect(tokenCalls(home)).toHaveLength(1);
    expect(idp.requests).toEqual([]);
  });

  it("named by a card whose signature verified", async () => {
    served = await signJson(agentCard(oauth(`${idp.url}/token`)), key);
    await callsWith({ verify: "required", verification: { keys: { keys: [key.jwk] } }, auth: { oauth: clientCredentials } });
    expect(tokenCalls(idp)).toHaveLength(1);
  });

  it("planAuth: this machine is one origin under its names; a card in hand without cardUrl is the application's own", () => {
    const card = (tokenUrl: string): AgentCard => fromJson(AgentCardSchema, agentCard(oauth(tokenUrl)) as JsonValue);
    const plan = (c: AgentCard, options: Parameters<typeof planAuth>[2]) => () => planAuth(c, { oauth: clientCredentials }, options);
    expect(plan(card("http://127.0.0.1:41241/token"), { cardUrl: "http://localhost:41241/card.json" })).not.toThrow();
    expect(plan(card("http://127.0.0.1:41242/token"), { cardUrl: "http://localhost:41241/card.json" })).toThrow(AuthenticationError);
    expect(plan(card("https://idp.example/token"), { cardUrl: "https://agent.example/card.json", cardVerified: true })).not.toThrow();
    expect(plan(card("https://idp.example/token"), { cardUrl: "https://agent.example/card.json" })).toThrow(/auth\.oauth\.tokenUrl/);
    expect(plan(card("https://idp.example/token"), {})).not.toThrow();
  });
});
