/**
 * Auth: credentials per security scheme on JSON-RPC and HTTP+JSON, token
 * providers (client credentials, OpenID Connect discovery) with caching,
 * early refresh and shared requests, the refresh-and-retry on 401, choosing
 * a requirement from the card, credentials whose key names no scheme of the
 * card (or of a card that declares none), and secrets kept out of errors.
 */
import { create, fromJson, type JsonValue } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor, type StreamRequest, type StreamResponse, type UnaryRequest } from "@connectrpc/connect";
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  A2AService,
  AgentCardSchema,
  AuthenticationError,
  InvalidParamsError,
  StreamResponseSchema,
  TaskSchema,
  TaskState,
  apiKeyAuth,
  authRequired,
  basicAuth,
  bearerAuth,
  A2AClient,
  NoCompatibleInterfaceError,
  authInterceptors,
  clientCredentialsProvider,
  createFetchHttpClient,
  discoveredTokenProvider,
  userMessage,
  type AgentCard,
  type AuthCredentials,
  type ConnectOptions,
} from "../../../src/index.js";
import { planAuth } from "../../../src/auth/plan.js";
import { connect as connectNode, connect, createJsonRpcTransport, createRestTransport } from "../../../src/node.js";
import { cardJson } from "../../support/cards.js";
import { sendJson, sseFrame, startFakeServer, startSse, type FakeServer } from "../../support/fake-server.js";

// --- The fake authorization server -------------------------------------------

const CLIENT_ID = "client-7";
const CLIENT_SECRET = "s3cret-client-Ω";

let idp: FakeServer;
let issued = 0;
let expiresIn: number | undefined = 3600;
/** Delay before answering a token request, to let callers pile up. */
let tokenDelayMs = 0;
let refuseClient = false;
const tokenRequests = () => idp.requests.filter((r) => r.url === "/token");

function basicOf(req: IncomingMessage): [string, string] | undefined {
  const m = /^Basic (.+)$/.exec(req.headers.authorization ?? "");
  if (!m) return undefined;
  const [id, secret] = Buffer.from(m[1]!, "base64").toString("utf8").split(":");
  return [decodeURIComponent(id!.replace(/\+/g, " ")), decodeURIComponent(secret!.replace(/\+/g, " "))];
}

async function idpHandler(req: IncomingMessage, res: ServerResponse, body: string) {
  if (req.url === "/.well-known/openid-configuration") {
    return sendJson(res, 200, { issuer: idp.url, token_endpoint: `${idp.url}/token`, grant_types_supported: ["client_credentials"] });
  }
  if (req.url === "/token" && req.method === "POST") {
    if (tokenDelayMs) await new Promise((r) => setTimeout(r, tokenDelayMs));
    const form = new URLSearchParams(body);
    const [id, secret] = basicOf(req) ?? [];
    if (refuseClient || id !== CLIENT_ID || secret !== CLIENT_SECRET || form.get("grant_type") !== "client_credentials") {
      // A careless server that echoes what it got.
      return sendJson(res, 401, { error: "invalid_client", error_description: `bad client ${req.headers.authorization} ${secret}` });
    }
    issued++;
    return sendJson(res, 200, {
      access_token: `tok-${issued}`,
      token_type: "Bearer",
      ...(expiresIn ? { expires_in: expiresIn } : {}),
      scope: form.get("scope") ?? "",
    });
  }
  res.statusCode = 404;
  res.end();
}

// --- The fake agent: JSON-RPC at /rpc, HTTP+JSON under /rest -----------------------

let agent: FakeServer;
/** Whether a request carries acceptable credentials. */
let accept: (req: IncomingMessage) => boolean = () => true;
/** Answer rejected requests with this challenge (undefined: none). */
let challenge: string | undefined = 'Bearer error="invalid_token"';
/** Put the request's headers and URL into error messages, as a careless server might. */
let echo = false;

const TASK = { id: "task-1", contextId: "ctx-1", status: { state: "TASK_STATE_COMPLETED" } };

function agentHandler(req: IncomingMessage, res: ServerResponse, body: string) {
  const rpc = req.url!.startsWith("/rpc");
  const id = rpc && body ? (JSON.parse(body) as { id: number }).id : undefined;
  if (!accept(req)) {
    if (echo) {
      const message = `rejected ${JSON.stringify(req.headers)} at ${req.url}`;
      return rpc
        ? sendJson(res, 200, { jsonrpc: "2.0", id, error: { code: -32603, message } })
        : sendJson(res, 500, { error: { code: 13, status: "INTERNAL", message } });
    }
    res.writeHead(401, { "Content-Type": "text/plain", ...(challenge ? { "WWW-Authenticate": challenge } : {}) });
    return res.end("unauthorized");
  }
  // A server that takes SubscribeToTask as GET only (the client tries POST first).
  if (req.url!.includes(":subscribe") && req.method === "POST") {
    res.writeHead(405, { Allow: "GET" });
    return res.end();
  }
  const stream = req.url!.includes("stream") || req.url!.includes(":subscribe") || (rpc && body.includes("SendStreamingMessage"));
  if (stream) {
    startSse(res);
    const event = { statusUpdate: { taskId: "task-1", contextId: "ctx-1", status: { state: "TASK_STATE_COMPLETED" } } };
    res.end(sseFrame(rpc ? { jsonrpc: "2.0", id, result: event } : event));
    return;
  }
  // SendMessage answers with a SendMessageResponse, GetTask with the Task itself.
  const result = (rpc ? body.includes('"SendMessage"') : req.url!.includes("message:send")) ? { task: TASK } : TASK;
  return rpc ? sendJson(res, 200, { jsonrpc: "2.0", id, result }) : sendJson(res, 200, result);
}

const agentRequests = () => agent.requests.filter((r) => r.url.startsWith("/rpc") || r.url.startsWith("/rest"));

beforeAll(async () => {
  idp = await startFakeServer(idpHandler);
  agent = await startFakeServer(agentHandler);
});
afterAll(async () => {
  await idp.close();
  await agent.close();
});
afterEach(() => {
  idp.requests.length = 0;
  agent.requests.length = 0;
  issued = 0;
  expiresIn = 3600;
  tokenDelayMs = 0;
  refuseClient = false;
  accept = () => true;
  challenge = 'Bearer error="invalid_token"';
  echo = false;
});

// --- Cards ----------------------------------------------------------------------------

const SCHEMES = () => ({
  bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } },
  basic: { httpAuthSecurityScheme: { scheme: "basic" } },
  headerKey: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } },
  queryKey: { apiKeySecurityScheme: { location: "query", name: "api_key" } },
  cookieKey: { apiKeySecurityScheme: { location: "cookie", name: "session" } },
  oauth: {
    oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: `${idp.url}/token`, scopes: { read: "Read", write: "Write" } } } },
  },
  oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: `${idp.url}/.well-known/openid-configuration` } },
  mtls: { mtlsSecurityScheme: {} },
});

type Binding = "JSONRPC" | "HTTP+JSON";
const BINDINGS: readonly Binding[] = ["JSONRPC", "HTTP+JSON"];

function card(requirements: Array<Record<string, string[]>>, binding: Binding = "JSONRPC", extra: Record<string, unknown> = {}): AgentCard {
  const schemes = SCHEMES() as Record<string, unknown>;
  const url = binding === "JSONRPC" ? `${agent.url}/rpc` : `${agent.url}/rest`;
  return fromJson(
    AgentCardSchema,
    cardJson({
      supportedInterfaces: [{ url, protocolBinding: binding, protocolVersion: "1.0" }],
      securitySchemes: schemes,
      securityRequirements: requirements.map((r) => ({ schemes: Object.fromEntries(Object.entries(r).map(([k, v]) => [k, { list: v }])) })),
      ...extra,
    }) as JsonValue,
  );
}

const session = (
  requirements: Array<Record<string, string[]>>,
  auth: AuthCredentials,
  binding: Binding = "JSONRPC",
  extra: ConnectOptions = {},
) => connect(card(requirements, binding), { auth, ...extra });

async function sendBoth(s: Awaited<ReturnType<typeof connect>>) {
  const res = await s.client.sendMessage({ message: userMessage("hi") });
  expect(res.payload.case).toBe("task");
  const events = [];
  for await (const e of s.client.sendStreamingMessage({ message: userMessage("hi") }, { resume: false })) events.push(e);
  expect(events.at(-1)?.payload.case).toBe("statusUpdate");
}

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`, "utf8").toString("base64")}`;

// --- Each scheme on each binding ---------------------------------------------------------

describe.each(BINDINGS)("schemes over %s", (binding) => {
  it("bearer: a fixed token", async () => {
    accept = (r) => r.headers.authorization === "Bearer t0k";
    await sendBoth(await session([{ bearer: [] }], { bearer: { token: "t0k" } }, binding));
    expect(agentRequests()).toHaveLength(2);
  });

  it("bearer: a token from an async function, asked per call", async () => {
    let n = 0;
    accept = (r) => /^Bearer fn-\d$/.test(r.headers.authorization ?? "");
    await sendBoth(await session([{ bearer: [] }], { bearer: { token: async () => `fn-${++n}` } }, binding));
    expect(agentRequests().map((r) => r.headers.authorization)).toEqual(["Bearer fn-1", "Bearer fn-2"]);
  });

  it("API key in a header", async () => {
    accept = (r) => r.headers["x-api-key"] === "k-1";
    await sendBoth(await session([{ headerKey: [] }], { headerKey: { value: "k-1" } }, binding));
  });

  it("API key in the query, kept with the binding's own path and query", async () => {
    accept = (r) => new URL(r.url!, agent.url).searchParams.get("api_key") === "k 2&x";
    await sendBoth(await session([{ queryKey: [] }], { queryKey: { value: "k 2&x" } }, binding));
    const paths = agentRequests().map((r) => new URL(r.url, agent.url).pathname);
    expect(paths).toEqual(binding === "JSONRPC" ? ["/rpc", "/rpc"] : ["/rest/message:send", "/rest/message:stream"]);
  });

  // Only HTTP+JSON has a verb to change.
  if (binding === "HTTP+JSON")
    it("API key in the query, also when a 405 moves SubscribeToTask from POST to GET", async () => {
      accept = (r) => new URL(r.url!, agent.url).searchParams.get("api_key") === "k-405";
      const s = await session([{ queryKey: [] }], { queryKey: { value: "k-405" } }, binding);
      const events = [];
      for await (const e of s.client.subscribeToTask({ id: "task-1" }, { resume: false })) events.push(e);
      expect(events).toHaveLength(1);
      expect(agentRequests().map((r) => `${r.method} ${r.url}`)).toEqual([
        "POST /rest/tasks/task-1:subscribe?api_key=k-405",
        "GET /rest/tasks/task-1:subscribe?api_key=k-405",
      ]);
    });

  it("API key in a cookie (Node sends the Cookie header)", async () => {
    accept = (r) => r.headers.cookie === "session=c%3B3";
    await sendBoth(await session([{ cookieKey: [] }], { cookieKey: { value: "c;3" } }, binding));
  });

  it("API key in a cookie from a function: renewed after a rejection, other cookies kept", async () => {
    let n = 0;
    accept = (r) => r.headers.cookie === "theme=dark; session=c-2";
    const s = await session([{ cookieKey: [] }], { cookieKey: { value: () => `c-${++n}` } }, binding, {
      transport: { headers: { Cookie: "theme=dark" } },
    });
    await s.client.getTask({ id: "task-1" });
    expect(agentRequests().map((r) => r.headers.cookie)).toEqual(["theme=dark; session=c-1", "theme=dark; session=c-2"]);
  });

  it("HTTP basic, UTF-8", async () => {
    accept = (r) => r.headers.authorization === basic("zoë", "pässwörd:1");
    await sendBoth(await session([{ basic: [] }], { basic: { username: "zoë", password: "pässwörd:1" } }, binding));
  });

  it("OAuth 2.0 client credentials: a token from the card's tokenUrl, with the requirement's scopes", async () => {
    accept = (r) => r.headers.authorization === "Bearer tok-1";
    await sendBoth(
      await session([{ oauth: ["read"] }], { oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, scopes: ["extra"] } }, binding),
    );
    expect(tokenRequests()).toHaveLength(1);
    const form = new URLSearchParams(tokenRequests()[0]!.body);
    expect(Object.fromEntries(form)).toEqual({ grant_type: "client_credentials", scope: "read extra" });
    expect(tokenRequests()[0]!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
  });

  it("OpenID Connect: the token endpoint from the discovery document", async () => {
    accept = (r) => r.headers.authorization === "Bearer tok-1";
    await sendBoth(await session([{ oidc: [] }], { oidc: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } }, binding));
    expect(idp.requests.map((r) => r.url)).toEqual(["/.well-known/openid-configuration", "/token"]);
  });

  it("a 401 with a challenge: the token is renewed once and the call made again (unary and stream)", async () => {
    const s = await session([{ oauth: [] }], { oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } }, binding);
    // The agent now accepts only tokens issued from here on: tok-1 goes stale.
    await s.client.sendMessage({ message: userMessage("warm up") });
    accept = (r) => r.headers.authorization === "Bearer tok-2";
    agent.requests.length = 0;
    await sendBoth(s);
    expect(agentRequests().map((r) => r.headers.authorization)).toEqual(["Bearer tok-1", "Bearer tok-2", "Bearer tok-2"]);
    expect(tokenRequests()).toHaveLength(2);
    accept = (r) => r.headers.authorization === "Bearer tok-3";
    agent.requests.length = 0;
    const events = [];
    for await (const e of s.client.sendStreamingMessage({ message: userMessage("again") }, { resume: false })) events.push(e);
    expect(events).toHaveLength(1);
    expect(agentRequests().map((r) => r.headers.authorization)).toEqual(["Bearer tok-2", "Bearer tok-3"]);
  });
});

describe("an API key in a cookie where the runtime drops the Cookie header (a browser)", () => {
  // What a browser's fetch does with a Cookie header (a forbidden request header): drops it without a word.
  class BrowserRequest extends Request {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(input, init);
      this.headers.delete("Cookie");
    }
  }
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("is refused with AuthenticationError saying what to do, at connect and at the first call; nothing is sent", async () => {
    vi.stubGlobal("Request", BrowserRequest);
    const e = await session([{ cookieKey: [] }], { cookieKey: { value: "c-1" } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as Error).message).toMatch(/does not let a page set the Cookie header.*\{ external: true \}/);

    const client = new A2AClient(
      createJsonRpcTransport({
        baseUrl: `${agent.url}/rpc`,
        interceptors: [apiKeyAuth({ location: "cookie", name: "session", value: "c-2" })],
      }),
    );
    await expect(client.getTask({ id: "task-1" })).rejects.toBeInstanceOf(AuthenticationError);
    expect(agentRequests()).toEqual([]);

    // Marked as the browser's own, the scheme is satisfied and the call goes.
    await (await session([{ cookieKey: [] }], { cookieKey: { external: true } })).client.getTask({ id: "task-1" });
    expect(agentRequests()).toHaveLength(1);
  });
});

// --- Token providers ------------------------------------------------------------------

describe("client credentials provider", () => {
  const provider = (extra: Partial<Parameters<typeof clientCredentialsProvider>[0]> = {}) =>
    clientCredentialsProvider({ tokenUrl: `${idp.url}/token`, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, ...extra });

  it("caches the token until shortly before it expires (10% of its lifetime, at most 30 s)", async () => {
    let now = 1_000_000;
    expiresIn = 100;
    const p = provider({ now: () => now });
    expect(await p.token()).toBe("tok-1");
    now += 89_000;
    expect(await p.token()).toBe("tok-1");
    now += 2_000; // 91 s: within the last 10 s
    expect(await p.token()).toBe("tok-2");
    expect(tokenRequests()).toHaveLength(2);

    expiresIn = 3600;
    now += 3_600_000;
    expect(await p.token()).toBe("tok-3");
    now += 3_600_000 - 31_000;
    expect(await p.token()).toBe("tok-3");
    now += 2_000; // within the last 30 s
    expect(await p.token()).toBe("tok-4");
  });

  it("a refreshEarlyMs longer than the token lives: the token is kept half its life, not replaced on every call", async () => {
    let now = 0;
    expiresIn = 60;
    const p = provider({ now: () => now, refreshEarlyMs: 120_000 });
    for (const t of [0, 10_000, 29_000]) {
      now = t;
      expect(await p.token()).toBe("tok-1");
    }
    now = 30_000;
    expect(await p.token()).toBe("tok-2");
    expect(tokenRequests()).toHaveLength(2);
  });

  it("an early refresh that fails keeps using the token in hand until it expires", async () => {
    let now = 0;
    expiresIn = 100;
    const p = provider({ now: () => now });
    expect(await p.token()).toBe("tok-1");
    refuseClient = true;
    now = 95_000;
    expect(await p.token()).toBe("tok-1");
    now = 100_000;
    await expect(p.token()).rejects.toBeInstanceOf(AuthenticationError);
    refuseClient = false;
    expect(await p.token()).toBe("tok-2");
  });

  it("concurrent callers share one token request", async () => {
    tokenDelayMs = 50;
    const p = provider();
    const tokens = await Promise.all(Array.from({ length: 8 }, () => p.token()));
    expect(new Set(tokens)).toEqual(new Set(["tok-1"]));
    expect(tokenRequests()).toHaveLength(1);
  });

  it("concurrent calls of a session share one token request, and a stale token one renewal", async () => {
    tokenDelayMs = 30;
    const s = await session([{ oauth: [] }], { oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } });
    await Promise.all(Array.from({ length: 6 }, () => s.client.getTask({ id: "task-1" })));
    expect(tokenRequests()).toHaveLength(1);
    accept = (r) => r.headers.authorization === "Bearer tok-2";
    await Promise.all(Array.from({ length: 6 }, () => s.client.getTask({ id: "task-1" })));
    expect(tokenRequests()).toHaveLength(2);
  });

  it("without expires_in, keeps the token until the agent rejects it", async () => {
    expiresIn = undefined;
    const p = provider();
    expect(await p.token()).toBe("tok-1");
    expect(await p.token()).toBe("tok-1");
    p.invalidate("tok-0"); // not the current one: ignored
    expect(await p.token()).toBe("tok-1");
    p.invalidate("tok-1");
    expect(await p.token()).toBe("tok-2");
  });

  it("a refused client is an AuthenticationError naming the endpoint and the OAuth error, and is tried again next time", async () => {
    refuseClient = true;
    const p = provider();
    const e = await p.token().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as Error).message).toContain(`${idp.url}/token`);
    expect((e as Error).message).toContain("invalid_client");
    refuseClient = false;
    expect(await p.token()).toBe("tok-1");
  });

  it("sends the id and secret as form fields with clientAuth: body", async () => {
    const requests: string[] = [];
    const p = provider({
      clientAuth: "body",
      fetch: async (_url, init) => {
        requests.push(String(init?.body));
        return new Response(JSON.stringify({ access_token: "b", token_type: "bearer" }), {
          headers: { "Content-Type": "application/json" },
        });
      },
    });
    expect(await p.token()).toBe("b");
    expect(Object.fromEntries(new URLSearchParams(requests[0]!))).toEqual({
      grant_type: "client_credentials",
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
  });

  it("a timeoutMs or refreshEarlyMs that is not a number is InvalidParamsError naming it, before any token request", () => {
    for (const [name, value] of [
      ["timeoutMs", Number.NaN],
      ["timeoutMs", 0],
      ["refreshEarlyMs", Number.NaN],
      ["refreshEarlyMs", "30000"],
    ] as const) {
      expect(() => provider({ [name]: value }), `${name}: ${String(value)}`).toThrow(InvalidParamsError);
      expect(() => provider({ [name]: value })).toThrow(new RegExp(`^${name} must be a number above 0`));
    }
    expect(() => provider({ refreshEarlyMs: 0 })).not.toThrow();
    expect(tokenRequests()).toHaveLength(0);
  });

  it("refuses an http token URL off loopback, and tokens that are not Bearer", async () => {
    await expect(
      clientCredentialsProvider({ tokenUrl: "http://auth.example.com/token", clientId: "a", clientSecret: "b" }).token(),
    ).rejects.toThrow(/must be https/);
    const p = provider({
      fetch: async () =>
        new Response(JSON.stringify({ access_token: "x", token_type: "DPoP" }), { headers: { "Content-Type": "application/json" } }),
    });
    await expect(p.token()).rejects.toThrow(/only Bearer tokens/);
  });

  it("OIDC discovery is fetched once", async () => {
    const p = discoveredTokenProvider({
      discoveryUrl: `${idp.url}/.well-known/openid-configuration`,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
    });
    expect(await p.token()).toBe("tok-1");
    p.invalidate("tok-1");
    expect(await p.token()).toBe("tok-2");
    expect(idp.requests.map((r) => r.url)).toEqual(["/.well-known/openid-configuration", "/token", "/token"]);
  });
});

// --- Retry rules ------------------------------------------------------------------------

describe("401 handling", () => {
  it("retries only once: a token that is rejected again fails with AuthenticationError and the challenge", async () => {
    accept = () => false;
    const s = await session([{ oauth: [] }], { oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } });
    const e = await s.client.sendMessage({ message: userMessage("x") }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as AuthenticationError).challenge).toBe('Bearer error="invalid_token"');
    expect(agentRequests()).toHaveLength(2);
    expect(tokenRequests()).toHaveLength(2);
  });

  it("a call with two renewable credentials is made again once, not once per credential", async () => {
    accept = () => false;
    let n = 0;
    const s = await session([{ oauth: [], headerKey: [] }], {
      oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
      headerKey: { value: () => `key-${++n}` },
    });
    await expect(s.client.getTask({ id: "task-1" })).rejects.toBeInstanceOf(AuthenticationError);
    expect(agentRequests()).toHaveLength(2);
  });

  it("the building blocks on a transport of one's own: bearerAuth(clientCredentialsProvider(...))", async () => {
    const provider = clientCredentialsProvider({
      tokenUrl: `${idp.url}/token`,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      scopes: ["a"],
    });
    const client = new A2AClient(createRestTransport({ baseUrl: `${agent.url}/rest`, interceptors: [bearerAuth(provider)] }));
    await client.getTask({ id: "task-1" });
    accept = (r) => r.headers.authorization === "Bearer tok-2";
    await client.getTask({ id: "task-1" });
    expect(agentRequests().map((r) => r.headers.authorization)).toEqual(["Bearer tok-1", "Bearer tok-1", "Bearer tok-2"]);
    expect(tokenRequests()).toHaveLength(2);
  });

  it("a 401 without a challenge is not retried", async () => {
    accept = () => false;
    challenge = undefined;
    const s = await session([{ oauth: [] }], { oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } });
    await expect(s.client.sendMessage({ message: userMessage("x") })).rejects.toBeInstanceOf(AuthenticationError);
    expect(agentRequests()).toHaveLength(1);
  });

  it("a fixed token is not retried; a function that gives the same token again is not either", async () => {
    accept = () => false;
    const fixed = await session([{ bearer: [] }], { bearer: { token: "fixed" } });
    await expect(fixed.client.sendMessage({ message: userMessage("x") })).rejects.toMatchObject({
      challenge: 'Bearer error="invalid_token"',
    });
    expect(agentRequests()).toHaveLength(1);
    agent.requests.length = 0;
    const same = await session([{ bearer: [] }], { bearer: { token: () => "same" } });
    await expect(same.client.sendMessage({ message: userMessage("x") })).rejects.toBeInstanceOf(AuthenticationError);
    expect(agentRequests()).toHaveLength(1);
  });
});

describe("gRPC shapes of a rejection (UNAUTHENTICATED, at the call or in the stream)", () => {
  function grpcReq(stream: boolean): UnaryRequest | StreamRequest {
    const base = {
      url: "http://127.0.0.1:1/lf.a2a.v1.A2AService/X",
      header: new Headers({ "content-type": "application/grpc+proto" }),
      signal: new AbortController().signal,
      contextValues: undefined,
    };
    return (stream
      ? {
          ...base,
          stream: true,
          method: A2AService.method.sendStreamingMessage,
          message: (async function* () {
            yield { n: 1 };
          })(),
        }
      : { ...base, stream: false, method: A2AService.method.getTask, message: {} }) as unknown as UnaryRequest | StreamRequest;
  }
  const unauthenticated = () => new ConnectError("token expired", Code.Unauthenticated);
  function rotating() {
    let n = 0;
    const stale: string[] = [];
    return {
      provider: {
        token: async () => `g-${n + 1}`,
        invalidate: (t: string) => {
          stale.push(t);
          n++;
        },
      },
      stale,
    };
  }

  it("unary: UNAUTHENTICATED renews the token and calls again", async () => {
    const { provider, stale } = rotating();
    const seen: string[] = [];
    const next = async (req: UnaryRequest | StreamRequest) => {
      seen.push(req.header.get("authorization")!);
      if (seen.length === 1) throw unauthenticated();
      return { stream: false, message: "ok" } as never;
    };
    expect(await bearerAuth(provider)(next)(grpcReq(false))).toMatchObject({ message: "ok" });
    expect(seen).toEqual(["Bearer g-1", "Bearer g-2"]);
    expect(stale).toEqual(["g-1"]);
  });

  it("stream: a rejection before the first message calls again with the same request message; after it, it does not", async () => {
    const { provider } = rotating();
    const sent: unknown[][] = [];
    let failAfter = 0;
    const next = async (req: UnaryRequest | StreamRequest) => {
      const messages: unknown[] = [];
      for await (const m of (req as StreamRequest).message) messages.push(m);
      sent.push([req.header.get("authorization"), ...messages]);
      const attempt = sent.length;
      return {
        stream: true,
        message: (async function* () {
          if (attempt === 1 && failAfter === 0) throw unauthenticated();
          yield "e1";
          if (failAfter > 0) throw unauthenticated();
          yield "e2";
        })(),
      } as unknown as StreamResponse;
    };
    const run = async () => {
      const out: unknown[] = [];
      const res = (await bearerAuth(provider)(next)(grpcReq(true))) as StreamResponse;
      try {
        for await (const m of res.message) out.push(m);
      } catch (e) {
        out.push(e);
      }
      return out;
    };
    expect(await run()).toEqual(["e1", "e2"]);
    expect(sent).toEqual([
      ["Bearer g-1", { n: 1 }],
      ["Bearer g-2", { n: 1 }],
    ]);
    sent.length = 0;
    failAfter = 1;
    const out = await run();
    expect(out[0]).toBe("e1");
    expect(out[1]).toBeInstanceOf(ConnectError);
    expect(sent).toHaveLength(1);
  });
});

// --- Choosing a requirement ------------------------------------------------------------

describe("requirements from the card", () => {
  it("the first alternative whose schemes all have credentials", async () => {
    accept = (r) => r.headers.authorization === "Bearer b" && r.headers["x-api-key"] === undefined;
    const s = await session([{ oauth: ["read"], headerKey: [] }, { bearer: [] }], { bearer: { token: "b" }, headerKey: { value: "k" } });
    await s.client.getTask({ id: "task-1" });
    accept = (r) => r.headers.authorization === "Bearer tok-1" && r.headers["x-api-key"] === "k";
    const both = await session([{ oauth: ["read"], headerKey: [] }, { bearer: [] }], {
      bearer: { token: "b" },
      headerKey: { value: "k" },
      oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
    });
    await both.client.getTask({ id: "task-1" });
  });

  it("a skill that names no requirements of its own is under the card's: only the card's chosen scheme is sent", async () => {
    const c = card([{ bearer: [] }, { headerKey: [] }]);
    const skill = { securityRequirements: [] };
    const interceptors = await authInterceptors(
      c,
      { bearer: { token: "b" }, headerKey: { value: "k" } },
      { requirements: skill.securityRequirements },
    );
    const client = new A2AClient(createJsonRpcTransport({ baseUrl: `${agent.url}/rpc`, interceptors }));
    await client.getTask({ id: "task-1" });
    expect(agentRequests().map((r) => [r.headers.authorization, r.headers["x-api-key"]])).toEqual([["Bearer b", undefined]]);
  });

  it("planAuth names the schemes used; an empty alternative allows anonymous calls", () => {
    const c = card([{ bearer: [] }, { headerKey: [], basic: [] }]);
    expect(planAuth(c, { headerKey: { value: "k" }, basic: { username: "u", password: "p" } }).schemes).toEqual(["headerKey", "basic"]);
    const optional = card([{ bearer: [] }, {}]);
    expect(planAuth(optional, {}).schemes).toEqual([]);
    expect(planAuth(optional, { bearer: { token: "t" } }).schemes).toEqual(["bearer"]);
  });

  it("{ external: true } satisfies a scheme the app handles itself, adding nothing", async () => {
    const plan = planAuth(card([{ mtls: [] }]), { mtls: { external: true } });
    expect(plan).toMatchObject({ schemes: ["mtls"], interceptors: [] });
    expect(() => planAuth(card([{ mtls: [] }]), { mtls: { token: "t" } })).toThrow(/external: true/);
    expect(() => planAuth(card([{ mtls: [] }]), {})).toThrow(/mtls \(mutual TLS\)/);
  });

  it("a card without requirements: the credentials given for declared schemes are sent", async () => {
    accept = (r) => r.headers.authorization === "Bearer b" && r.headers["x-api-key"] === "k";
    const s = await session([], { bearer: { token: "b" }, headerKey: { value: "k" } });
    await s.client.getTask({ id: "task-1" });
  });

  it("missing credentials: AuthenticationError naming what the card asks for, before any call", async () => {
    const e = await session([{ oauth: ["read"] }, { bearer: [], headerKey: [] }], { bearer: { token: "b" } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    const message = (e as Error).message;
    expect(message).toContain("oauth (OAuth 2.0)");
    expect(message).toContain('bearer (HTTP Bearer) + headerKey (API key in header "X-API-Key")');
    expect(message).toContain("credentials were given for bearer");
    expect(message).not.toContain('b"');
    expect(agent.requests).toHaveLength(0);
    expect(idp.requests).toHaveLength(0);
  });

  it("a credential that does not fit its scheme is refused at connect", async () => {
    await expect(session([{ headerKey: [] }], { headerKey: { token: "t" } })).rejects.toThrow(
      /auth\.headerKey does not fit .*give \{ value \}/,
    );
    await expect(session([{ basic: [] }], { basic: { token: "t" } })).rejects.toThrow(/give \{ username, password \}/);
  });

  it("without auth, connect does not enforce the card's requirements (apps may authenticate their own way)", async () => {
    accept = (r) => r.headers.authorization === "Bearer own";
    const s = await connect(card([{ bearer: [] }]), { transport: { headers: { Authorization: "Bearer own" } } });
    await s.client.getTask({ id: "task-1" });
  });

  it("a key in the query passes gRPC interfaces over at connect, and the interceptor refuses gRPC calls", async () => {
    const c = card([{ queryKey: [] }], "JSONRPC", {
      supportedInterfaces: [
        { url: `127.0.0.1:${agent.port}`, protocolBinding: "GRPC", protocolVersion: "1.0" },
        { url: `${agent.url}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      ],
    });
    const s = await connectNode(c, { auth: { queryKey: { value: "k" } } });
    expect(s.interface?.binding).toBe("JSONRPC");
    expect(s.passedOver[0]?.reason).toMatch(/query, which gRPC does not have/);

    const interceptor = apiKeyAuth({ location: "query", name: "api_key", value: "k" });
    const req = {
      stream: false,
      url: "http://127.0.0.1:1/lf.a2a.v1.A2AService/GetTask",
      header: new Headers({ "content-type": "application/grpc+proto" }),
      signal: new AbortController().signal,
      method: A2AService.method.getTask,
    } as unknown as UnaryRequest;
    await expect(interceptor(async () => ({}) as never)(req)).rejects.toThrow(/gRPC does not have/);
  });
});

// --- Keys that name no scheme of the card -------------------------------------------------

describe("a credential whose key names no scheme of the card", () => {
  /** A card on the fake agent that declares `schemes` and requires the first alternative of `requirements`. */
  const declaring = (schemes: Record<string, unknown>, requirements: Array<Record<string, string[]>> = []) =>
    card(requirements, "JSONRPC", { securitySchemes: schemes });
  const jwtAndKey = () => ({
    jwt: { httpAuthSecurityScheme: { scheme: "Bearer" } },
    key: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } },
  });

  it("is applied to the one scheme its kind fits, on the wire", async () => {
    accept = (r) => r.headers.authorization === "Bearer t-1";
    const byToken = await connect(declaring(jwtAndKey(), [{ jwt: [] }]), { auth: { bearer: { token: "t-1" } } });
    await byToken.client.getTask({ id: "task-1" });
    expect(agentRequests().map((r) => [r.headers.authorization, r.headers["x-api-key"]])).toEqual([["Bearer t-1", undefined]]);

    agent.requests.length = 0;
    accept = (r) => r.headers["x-api-key"] === "k-1";
    const byValue = await connect(declaring(jwtAndKey(), [{ key: [] }]), { auth: { apiKey: { value: "k-1" } } });
    await byValue.client.getTask({ id: "task-1" });
    expect(agentRequests().map((r) => r.headers["x-api-key"])).toEqual(["k-1"]);

    agent.requests.length = 0;
    accept = (r) => r.headers.authorization === "Bearer tok-1";
    const oauthOnly = { oauth: SCHEMES().oauth, key: jwtAndKey().key };
    const byClient = await connect(declaring(oauthOnly, [{ oauth: ["read"] }]), {
      auth: { client: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } },
    });
    await byClient.client.getTask({ id: "task-1" });
    expect(agentRequests().map((r) => r.headers.authorization)).toEqual(["Bearer tok-1"]);
    expect(new URLSearchParams(tokenRequests()[0]!.body).get("scope")).toBe("read");
  });

  it("that fits no scheme: AuthenticationError naming the key and the card's schemes with their kinds, before any request", async () => {
    const schemes = {
      oauth: {
        oauth2SecurityScheme: {
          flows: { authorizationCode: { authorizationUrl: "https://a.example/auth", tokenUrl: "https://a.example/t" } },
        },
      },
      key: jwtAndKey().key,
    };
    const e = await connect(declaring(schemes, [{ key: [] }]), {
      auth: { key: { value: "k" }, login: { username: "me", password: "pw-secret" } },
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as Error).message).toBe(
      'auth.login matches no security scheme of the card (no scheme of the card takes { username, password }); the card declares: "oauth" (OAuth 2.0), "key" (API key in header "X-API-Key")',
    );
    expect(agent.requests).toEqual([]);
    expect(idp.requests).toEqual([]);
  });

  it("an empty token or API key fails connect() by its key, before any request, where every call failed after it", async () => {
    for (const [auth, message] of [
      [{ jwt: { token: "" } }, "auth.jwt.token is empty: give the token, or a function returning it"],
      [{ apiKey: { value: "" } }, "auth.apiKey.value is empty: give the API key, or a function returning it"],
    ] as const) {
      const e = await connect(declaring(jwtAndKey(), [{ jwt: [] }, { key: [] }]), { auth }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(AuthenticationError);
      expect((e as Error).message).toBe(message);
    }
    expect(agent.requests).toEqual([]);
    // A key left undefined is no credential, as before: skipped, not read.
    accept = (r) => r.headers.authorization === "Bearer t-1";
    const skipped = await connect(declaring(jwtAndKey(), [{ jwt: [] }]), {
      auth: { jwt: { token: "t-1" }, apiKey: undefined } as unknown as ConnectOptions["auth"], // as JavaScript may pass it
    });
    await skipped.client.getTask({ id: "task-1" });
    expect(agentRequests().map((r) => r.headers.authorization)).toEqual(["Bearer t-1"]);
  });

  it("that fits several schemes, or one given by its own name, is refused too, naming them", async () => {
    const e = await session([{ bearer: [] }], { bearer: { token: "b" }, mine: { token: "m" } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    const message = (e as Error).message;
    expect(message).toMatch(
      /^auth\.mine matches no security scheme of the card \(a \{ token \} fits "bearer", "oauth", "oidc": use one of these names as its key\)/,
    );
    expect(message).toContain(
      'the card declares: "bearer" (HTTP Bearer), "basic" (HTTP basic), "headerKey" (API key in header "X-API-Key")',
    );
    expect(message).not.toMatch(/"m"|\bm\b"/);

    const taken = await connect(declaring(jwtAndKey(), [{ jwt: [] }]), {
      auth: { jwt: { token: "a" }, bearer: { token: "b" } },
    }).catch((x: unknown) => x);
    expect(taken).toBeInstanceOf(AuthenticationError);
    expect((taken as Error).message).toMatch(
      /^auth\.bearer matches no security scheme of the card \(a \{ token \} fits "jwt", which auth\.jwt is for\)/,
    );

    const twice = await connect(declaring(jwtAndKey(), [{ jwt: [] }]), {
      auth: { a: { token: "a" }, b: { token: "b" } },
    }).catch((x: unknown) => x);
    expect((twice as Error).message).toMatch(
      /^auth\.a and auth\.b match no security scheme of the card \(each fits "jwt" alone: give one\)/,
    );

    const external = await connect(declaring({ tls: { mtlsSecurityScheme: {} } }, [{ tls: [] }]), {
      auth: { mtls: { external: true } },
    }).catch((x: unknown) => x);
    expect((external as Error).message).toMatch(
      /^auth\.mtls matches no security scheme of the card \(\{ external: true \} is given by the scheme's name\); the card declares: "tls" \(mutual TLS\)/,
    );
    expect(agent.requests).toEqual([]);
  });

  it("a skill's requirements (authInterceptors) go by the same rule", async () => {
    const c = declaring(jwtAndKey(), [{ jwt: [] }]);
    const interceptors = await authInterceptors(
      c,
      { apiKey: { value: "k-2" } },
      { requirements: card([{ key: [] }]).securityRequirements },
    );
    await new A2AClient(createJsonRpcTransport({ baseUrl: `${agent.url}/rpc`, interceptors })).getTask({ id: "task-1" });
    expect(agentRequests().map((r) => r.headers["x-api-key"])).toEqual(["k-2"]);
    await expect(authInterceptors(c, { basic: { username: "u", password: "p" } })).rejects.toThrow(
      /^auth\.basic matches no security scheme/,
    );
  });

  describe("of a card that declares no scheme at all", () => {
    const bare = () => card([], "JSONRPC", { securitySchemes: {} });

    it("a token goes as Authorization: Bearer, HTTP basic as Basic", async () => {
      accept = (r) => r.headers.authorization === "Bearer t-3";
      await sendBoth(await connect(bare(), { auth: { bearer: { token: "t-3" } } }));
      expect(agentRequests().map((r) => r.headers.authorization)).toEqual(["Bearer t-3", "Bearer t-3"]);
      accept = (r) => r.headers.authorization === basic("me", "pw");
      await (await connect(bare(), { auth: { login: { username: "me", password: "pw" } } })).client.getTask({ id: "task-1" });
    });

    it("an API key, client credentials without a tokenUrl, or two credentials cannot be placed: AuthenticationError, nothing sent", async () => {
      const refused = async (auth: AuthCredentials, pattern: RegExp) => {
        const e = await connect(bare(), { auth }).catch((x: unknown) => x);
        expect(e).toBeInstanceOf(AuthenticationError);
        expect((e as Error).message).toMatch(pattern);
      };
      await refused(
        { apiKey: { value: "k" } },
        /^auth\.apiKey cannot be sent: the card declares no security scheme, so nothing says where an API key goes \(header, query or cookie\) or under which name; put it in transport\.headers$/,
      );
      await refused(
        { oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } },
        /^auth\.oauth cannot be sent: .*no token endpoint.*tokenUrl/,
      );
      await refused(
        { a: { token: "a" }, b: { username: "u", password: "p" } },
        /^auth\.a and auth\.b cannot be sent together: .*one Authorization header/,
      );
      await refused({ a: { token: "a" }, b: { token: "b" }, c: { token: "c" } }, /^auth\.a, auth\.b and auth\.c cannot be sent together/);
      expect(agent.requests).toEqual([]);
      expect(idp.requests).toEqual([]);
    });

    it("client credentials with a tokenUrl of the app's own: the token goes as Bearer", async () => {
      accept = (r) => r.headers.authorization === "Bearer tok-1";
      const s = await connect(bare(), {
        auth: { oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, tokenUrl: `${idp.url}/token` } },
      });
      await s.client.getTask({ id: "task-1" });
      expect(tokenRequests()).toHaveLength(1);
    });

    it("a fetched card's credentials go to its own origin only: an interface elsewhere is passed over, saying why", async () => {
      const served = (interfaceUrl: string) =>
        cardJson({ supportedInterfaces: [{ url: interfaceUrl, protocolBinding: "JSONRPC", protocolVersion: "1.0" }] });
      let cardOf: () => unknown = () => ({});
      const home = await startFakeServer((req, res, body) =>
        req.url === "/.well-known/agent-card.json" ? sendJson(res, 200, cardOf()) : agentHandler(req, res, body),
      );
      try {
        cardOf = () => served(`${agent.url}/rpc`);
        const e = await connect(home.url, { cache: false, auth: { bearer: { token: "t-4" } } }).catch((x: unknown) => x);
        expect(e).toBeInstanceOf(NoCompatibleInterfaceError);
        expect((e as NoCompatibleInterfaceError).passedOver[0]!.reason).toBe(
          `the card declares no security scheme, and the credentials for bearer go only to the origin it came from (${home.url}); to send them to ${agent.url}, put them in transport.headers`,
        );
        expect(agent.requests).toEqual([]);

        cardOf = () => served(`${home.url}/rpc`);
        accept = (r) => r.headers.authorization === "Bearer t-4";
        const s = await connect(home.url, { cache: false, auth: { bearer: { token: "t-4" } } });
        await s.client.getTask({ id: "task-1" });
        expect(home.requests.filter((r) => r.url === "/rpc").map((r) => r.headers.authorization)).toEqual(["Bearer t-4"]);
      } finally {
        await home.close();
      }
    });

    it("planAuth: the card's origin, this machine under any of its names, and the plain http rule", () => {
      const plan = (cardUrl: string, authOverHttp?: boolean) => planAuth(bare(), { bearer: { token: "t" } }, { cardUrl, authOverHttp });
      const local = plan("http://localhost:41241/.well-known/agent-card.json");
      expect(local.refusedAt("http://127.0.0.1:41241/a2a")).toBeUndefined();
      expect(local.refusedAt("http://[::1]:41241/a2a")).toBeUndefined();
      expect(local.refusedAt("http://127.0.0.1:41242/a2a")).toMatch(/go only to the origin it came from \(http:\/\/localhost:41241\)/);
      // Another 127.x address may be another program's socket: the same names as the key origin rule (LOOPBACK_NAMES).
      expect(local.refusedAt("http://127.0.0.2:41241/a2a")).toMatch(/go only to the origin it came from/);
      const remote = plan("https://agent.example.com/.well-known/agent-card.json");
      expect(remote.refusedAt("https://agent.example.com/a2a")).toBeUndefined();
      expect(remote.refusedAt("https://api.example.com/a2a")).toMatch(/go only to the origin it came from/);
      expect(remote.refusedAt("http://agent.example.com/a2a")).toMatch(/plain http to a host other than this machine/);
      expect(plan("http://agent.example.com/card.json", true).refusedAt("http://agent.example.com/a2a")).toBeUndefined();
      // A card in hand came from no URL: the interfaces it names, as for a declared scheme.
      expect(planAuth(bare(), { bearer: { token: "t" } }).refusedAt("https://api.example.com/a2a")).toBeUndefined();
    });

    it("planAuth: an interface is judged by the URL its transport calls, a gRPC host:port by its host and tls", () => {
      const remote = planAuth(bare(), { bearer: { token: "t" } }, { cardUrl: "https://agent.example.com/.well-known/agent-card.json" });
      expect(remote.refusedAtInterface("JSONRPC", "https://agent.example.com/a2a", undefined)).toBeUndefined();
      expect(remote.refusedAtInterface("JSONRPC", "http://agent.example.com/a2a", true)).toMatch(
        /plain http to a host other than this machine/,
      );
      // host:port is https unless on this machine; tls: false makes it plain http, and grpcs:// names TLS.
      expect(remote.refusedAtInterface("GRPC", "agent.example.com", undefined)).toBeUndefined();
      expect(remote.refusedAtInterface("GRPC", "agent.example.com", false)).toMatch(/plain http to a host other than this machine/);
      expect(remote.refusedAtInterface("GRPC", "grpcs://agent.example.com", false)).toBeUndefined();
      expect(remote.refusedAtInterface("GRPC", "api.example.com:443", true)).toMatch(/go only to the origin it came from/);
      const local = planAuth(bare(), { bearer: { token: "t" } }, { cardUrl: "http://localhost:41241/.well-known/agent-card.json" });
      expect(local.refusedAtInterface("GRPC", "127.0.0.1:41241", undefined)).toBeUndefined();
    });
  });
});

// --- Credentials over plain http ----------------------------------------------------------

describe("credentials over plain http to another host", () => {
  interface Sent {
    url: string;
    authorization: string | null;
  }
  /**
   * A fetch that answers JSON-RPC calls without a network, so that interfaces
   * at hosts other than this machine can be named: what would have gone out is
   * recorded.
   */
  function offline(sent: Sent[]): typeof fetch {
    return (async (url: string | URL | Request, init?: RequestInit) => {
      sent.push({ url: String(url), authorization: new Headers(init?.headers).get("authorization") });
      const body = init?.body instanceof Uint8Array ? new TextDecoder().decode(init.body) : String(init?.body);
      return Response.json({ jsonrpc: "2.0", id: (JSON.parse(body) as { id: number }).id, result: TASK });
    }) as typeof fetch;
  }
  const at = (urls: string[], requirements: Array<Record<string, string[]>> = [{ bearer: [] }]) =>
    card(requirements, "JSONRPC", {
      supportedInterfaces: urls.map((url) => ({ url, protocolBinding: url.includes("/") ? "JSONRPC" : "GRPC", protocolVersion: "1.0" })),
    });
  const bearer = { bearer: { token: "over-http-token" } };

  it("an http interface elsewhere is passed over for the card's https one, unless authOverHttp: true", async () => {
    const sent: Sent[] = [];
    const both = at(["http://agent.example.com/rpc", "https://agent.example.com/rpc"]);
    const httpClient = createFetchHttpClient(offline(sent));
    const s = await connect(both, { auth: bearer, transport: { httpClient } });
    expect(s.passedOver).toHaveLength(1);
    expect(s.passedOver[0]!.reason).toMatch(/plain http to a host other than this machine.*bearer.*authOverHttp: true/);
    await s.client.getTask({ id: "task-1" });
    expect(sent).toEqual([{ url: "https://agent.example.com/rpc", authorization: "Bearer over-http-token" }]);

    sent.length = 0;
    const allowed = await connect(both, { auth: bearer, authOverHttp: true, transport: { httpClient } });
    await allowed.client.getTask({ id: "task-1" });
    expect(sent).toEqual([{ url: "http://agent.example.com/rpc", authorization: "Bearer over-http-token" }]);
  });

  it("a card with only http interfaces elsewhere: NoCompatibleInterfaceError saying why, before any request or token", async () => {
    const sent: Sent[] = [];
    const e = await connect(at(["http://agent.example.com/rpc", "http://10.0.0.7:8080/rpc"], [{ oauth: [] }]), {
      auth: { oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } },
      transport: { httpClient: createFetchHttpClient(offline(sent)) },
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NoCompatibleInterfaceError);
    expect((e as Error).message).toMatch(/http:\/\/10\.0\.0\.7:8080 is plain http to a host other than this machine/);
    expect(sent).toEqual([]);
    expect(idp.requests).toEqual([]);
  });

  it("gRPC without TLS to another host is passed over; with TLS (the default for host:port) it is used", async () => {
    const grpc = at(["agent.example.com:50051"]);
    await expect(connectNode(grpc, { auth: bearer, transport: { tls: false } })).rejects.toThrow(
      /http:\/\/agent\.example\.com:50051 is plain http/,
    );
    expect((await connectNode(grpc, { auth: bearer })).interface?.binding).toBe("GRPC");
  });

  it("a skill's interceptors on a transport of one's own at such a URL: AuthenticationError, nothing sent, no token asked for", async () => {
    const sent: Sent[] = [];
    const c = at(["https://agent.example.com/rpc"], [{ oauth: [] }]);
    const interceptors = await authInterceptors(c, { oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } });
    const client = new A2AClient(
      createJsonRpcTransport({ baseUrl: "http://agent.example.com/rpc", httpClient: createFetchHttpClient(offline(sent)), interceptors }),
    );
    const e = await client.getTask({ id: "task-1" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as Error).message).toMatch(/not made: http:\/\/agent\.example\.com is plain http/);
    expect(sent).toEqual([]);
    expect(idp.requests).toEqual([]);
  });
});

describe("bundling", () => {
  it("an app that connects without auth loads no auth code at start; with auth, it is loaded on demand", async () => {
    const { build } = await import("esbuild");
    const { join } = await import("node:path");
    const { repoRoot, staticInputs } = await import("../../../scripts/size.js");
    const result = await build({
      stdin: {
        contents: `import { connect } from "./src/index.ts"; export const run = (u) => connect(u);`,
        resolveDir: repoRoot,
        loader: "js",
      },
      absWorkingDir: repoRoot,
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "browser",
      write: false,
      outdir: join(repoRoot, "out-auth-check"),
      metafile: true,
      logLevel: "silent",
    });
    const meta = result.metafile;
    const [main] = Object.entries(meta.outputs).find(([, o]) => o.entryPoint === "<stdin>")!;
    const inputsAtStart = staticInputs(meta, [main]);
    expect(inputsAtStart.filter((i) => /src\/auth\/(plan|interceptors|oauth|redact)\.ts/.test(i))).toEqual([]);
    const all = Object.values(meta.outputs).flatMap((o) => Object.keys(o.inputs));
    expect(all).toContain("src/auth/plan.ts");
    expect(all).toContain("src/auth/oauth.ts");
  });
});

// --- Secrets -------------------------------------------------------------------------------

describe("secrets never appear in errors or in our objects", () => {
  async function assertClean(e: unknown, secrets: string[]) {
    expect(e).toBeInstanceOf(Error);
    const { inspect } = await import("node:util");
    const shown = [
      (e as Error).message,
      String(e),
      JSON.stringify(e),
      String((e as Error).cause ?? ""),
      (e as Error).stack ?? "",
      inspect(e, { depth: Infinity, showHidden: true }),
    ];
    for (const secret of secrets) for (const text of shown) expect(text).not.toContain(secret);
  }

  const cases: Array<[string, Array<Record<string, string[]>>, AuthCredentials, string[]]> = [
    ["bearer", [{ bearer: [] }], { bearer: { token: "bearer-secret-1" } }, ["bearer-secret-1"]],
    ["header key", [{ headerKey: [] }], { headerKey: { value: "header-key-secret" } }, ["header-key-secret"]],
    [
      "query key",
      [{ queryKey: [] }],
      { queryKey: { value: "query/key secret" } },
      ["query/key secret", "query%2Fkey+secret", "query%2Fkey%20secret"],
    ],
    ["cookie key", [{ cookieKey: [] }], { cookieKey: { value: "cookie-secret" } }, ["cookie-secret"]],
    [
      "basic",
      [{ basic: [] }],
      { basic: { username: "u", password: "basic-password" } },
      ["basic-password", Buffer.from("u:basic-password").toString("base64")],
    ],
    ["oauth", [{ oauth: [] }], { oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } }, [CLIENT_SECRET, "tok-1"]],
  ];

  it.each(BINDINGS.flatMap((b) => cases.map((c) => [b, ...c] as const)))(
    "%s, %s: an agent that echoes the request",
    async (binding, _name, reqs, auth, secrets) => {
      accept = () => false;
      echo = true;
      const s = await session(reqs, auth, binding);
      const e = await s.client.getTask({ id: "task-1" }).catch((x: unknown) => x);
      // The agent did echo them.
      expect(agentRequests().length).toBeGreaterThan(0);
      await assertClean(e, secrets);
    },
  );

  it.each([
    ["a token function", { bearer: { token: () => "line-one\nsecret-line-two" } }, "secret-line-two"],
    ["a token provider", { bearer: { token: { token: async () => "issued\r\nsecret-tail", invalidate() {} } } }, "secret-tail"],
    ["an API key function", { headerKey: { value: async () => "key\u0000secret-after-nul" } }, "secret-after-nul"],
    ["an API key beyond Latin-1", { headerKey: { value: "secret-key-\u2026" } }, "secret-key-"],
  ] as const)("%s giving a value no header can carry: AuthenticationError without it, nothing sent", async (_how, auth, secret) => {
    const s = await session([{ bearer: [] }, { headerKey: [] }], auth as AuthCredentials);
    const e = await s.client.getTask({ id: "task-1" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as Error).message).toMatch(/not a valid header value \(not shown\)/);
    await assertClean(e, [secret]);
    expect(agentRequests()).toEqual([]);
  });

  it("a scheme or credential the interceptors cannot take is AuthenticationError at connect, naming the scheme", async () => {
    const named = (name: string) =>
      card([{ k: [] }], "JSONRPC", { securitySchemes: { k: { apiKeySecurityScheme: { location: "header", name } } } });
    await expect(connect(named("X API Key"), { auth: { k: { value: "v" } } })).rejects.toThrow(
      new AuthenticationError('scheme "k" (API key in header "X API Key"): API key: "X API Key" is not a valid header name'),
    );
    await expect(connect(named(""), { auth: { k: { value: "v" } } })).rejects.toBeInstanceOf(AuthenticationError);
    const spaced = card([{ h: [] }], "JSONRPC", { securitySchemes: { h: { httpAuthSecurityScheme: { scheme: "Not A Token" } } } });
    await expect(connect(spaced, { auth: { h: { token: "t" } } })).rejects.toBeInstanceOf(AuthenticationError);
    await expect(session([{ basic: [] }], { basic: { username: "a:b", password: "p" } })).rejects.toThrow(
      /^scheme "basic" \(HTTP basic\): basic auth: a username cannot contain a colon$/,
    );
    await expect(session([{ oauth: [] }], { oauth: { clientId: "", clientSecret: "s" } })).rejects.toBeInstanceOf(AuthenticationError);
    expect(agent.requests).toEqual([]);
  });

  it("a token endpoint that refuses and echoes the credentials", async () => {
    refuseClient = true;
    const s = await session([{ oauth: [] }], { oauth: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET } });
    const e = await s.client.getTask({ id: "task-1" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    // The endpoint echoed the Authorization header: Basic base64(id:secret).
    const basicValue = Buffer.from(`${CLIENT_ID}:${encodeURIComponent(CLIENT_SECRET)}`).toString("base64");
    await assertClean(e, [CLIENT_SECRET, encodeURIComponent(CLIENT_SECRET), basicValue]);
    const viaProvider = await clientCredentialsProvider({ tokenUrl: `${idp.url}/token`, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET })
      .token()
      .catch((x: unknown) => x);
    await assertClean(viaProvider, [CLIENT_SECRET, basicValue]);
  });

  it("a token endpoint that cannot be reached", async () => {
    const dead = await startFakeServer();
    const url = `${dead.url}/token`;
    await dead.close();
    const e = await clientCredentialsProvider({ tokenUrl: url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET })
      .token()
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    await assertClean(e, [CLIENT_SECRET]);
  });

  it("interceptors and providers show no secret through toString, JSON or inspection", async () => {
    const { inspect } = await import("node:util");
    const things: unknown[] = [
      bearerAuth("bearer-secret-2"),
      basicAuth({ username: "u", password: "pw-secret" }),
      apiKeyAuth({ location: "header", name: "X", value: "key-secret" }),
      clientCredentialsProvider({ tokenUrl: `${idp.url}/token`, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }),
    ];
    const provider = things[3] as { token(): Promise<string> };
    const token = await provider.token();
    for (const t of things) {
      for (const text of [String(t), JSON.stringify(t) ?? "", inspect(t, { depth: 5, showHidden: true })]) {
        for (const secret of ["bearer-secret-2", "pw-secret", "key-secret", CLIENT_SECRET, token]) expect(text).not.toContain(secret);
      }
    }
  });
});

// --- AUTH_REQUIRED ------------------------------------------------------------------------

describe("authRequired", () => {
  const message = { messageId: "m1", role: "ROLE_AGENT", parts: [{ text: "sign in at https://idp.example.com/device" }] };

  it("surfaces the task's ids and the agent's status message", () => {
    const task = fromJson(TaskSchema, { id: "t1", contextId: "c1", status: { state: "TASK_STATE_AUTH_REQUIRED", message } });
    const r = authRequired(task);
    expect(r?.taskId).toBe("t1");
    expect(r?.contextId).toBe("c1");
    expect(r?.message?.parts[0]?.content.value).toContain("sign in");
  });

  it("reads stream events and send responses; other states give undefined", () => {
    const event = fromJson(StreamResponseSchema, {
      statusUpdate: { taskId: "t2", contextId: "c2", status: { state: "TASK_STATE_AUTH_REQUIRED", message } },
    });
    expect(authRequired(event)).toMatchObject({ taskId: "t2", contextId: "c2" });
    expect(
      authRequired(fromJson(StreamResponseSchema, { task: { id: "t3", contextId: "c3", status: { state: "TASK_STATE_AUTH_REQUIRED" } } })),
    ).toEqual({
      taskId: "t3",
      contextId: "c3",
      message: undefined,
    });
    expect(authRequired(create(TaskSchema, { id: "t", status: { state: TaskState.INPUT_REQUIRED } }))).toBeUndefined();
    expect(authRequired(fromJson(StreamResponseSchema, { message }))).toBeUndefined();
  });
});

// Types only: an Interceptor is what each factory returns, a stream request type is accepted.
const _typecheck: Interceptor[] = [bearerAuth("t")];
void _typecheck;
void (null as unknown as StreamRequest | null);
