/**
 * A card from another host may not send the client to this machine or its
 * link: interfaces, OAuth endpoints and redirects that lead to loopback,
 * `*.localhost` or link-local addresses (the cloud metadata service) are
 * refused before anything is sent there, unless `localUrls: "allow"`.
 *
 * A card fetched from 127.0.0.1 is a loopback card, which is trusted to
 * name loopback: the hostile cards here are served by a `fetch` of the
 * test's own for https://agent.example, which records every URL asked for,
 * while the addresses they name are real servers on 127.0.0.1 that count
 * what reaches them.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  A2AClient,
  AgentCardVerificationError,
  AgentSession,
  AuthenticationError,
  MemoryCardStore,
  RedirectRefusedError,
  connect,
  createJsonRpcTransport,
  discoveredTokenProvider,
  resolveAgentCard,
  type ConnectTarget,
  type ResolveOptions,
} from "../../../src/index.js";
import { isLocalUrl } from "../../../src/trust/loopback.js";
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { AgentCardSchema } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import type { LocalUrlPolicy } from "../../../src/index.js";
import { cardJson, cardJsonV03, keyPair, signJson } from "../../support/cards.js";
import { sendJson, startFakeServer, type FakeServer } from "../../support/fake-server.js";

const CARD_URL = "https://agent.example/.well-known/agent-card.json";
/** An agent on plain http, which may redirect to a plain http address (https may not). */
const HTTP_CARD_URL = "http://agent.example/.well-known/agent-card.json";

/** A fetch that serves `card` at CARD_URL (and `routes` elsewhere), recording every URL asked for. */
function remote(card: Record<string, unknown>, routes: Record<string, () => Response> = {}) {
  const asked: string[] = [];
  const fetch = (async (input: RequestInfo | URL) => {
    const url = String(input);
    asked.push(url);
    const route = routes[url];
    if (route) return route();
    if (url !== CARD_URL) return new Response(null, { status: 404 });
    return Response.json(card);
  }) as typeof globalThis.fetch;
  return { fetch, asked };
}

const fresh = (extra: ResolveOptions = {}): ResolveOptions => ({ cache: false, ...extra });
const jsonRpc = (url: string) => ({ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" });

let local: FakeServer;
beforeEach(async () => {
  local = await startFakeServer((_req, res) => sendJson(res, 200, { access_token: "t", token_type: "Bearer" }));
});
afterEach(() => local.close());

async function refusal(p: Promise<unknown>): Promise<AgentCardVerificationError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(AgentCardVerificationError);
  return e as AgentCardVerificationError;
}

describe("a card from another host that names this machine or its link", () => {
  it("connect(): its interface on 127.0.0.1 is refused with AgentCardVerificationError naming the field and the URL (no key); nothing reaches it", async () => {
    const agent = remote(cardJson({ supportedInterfaces: [jsonRpc(`${local.url}/a2a?key=s3cret`)] }));
    const e = await refusal(connect("https://agent.example", { fetch: agent.fetch, cache: false }));
    expect(e.message).toContain(`supportedInterfaces[0].url: ${local.url}/a2a is on this machine or its link`);
    expect(e.message).toContain(`localUrls: "allow"`);
    expect(e.message).not.toContain("s3cret");
    expect(e.result.failures.map((f) => f.code)).toEqual(["local_url"]);
    expect(agent.asked).toEqual([CARD_URL]);
    expect(local.requests).toEqual([]);
  });

  it.each([
    "http://127.0.0.1:8080/a2a",
    "http://127.9.8.7/a2a",
    "http://0x7f.1/a2a",
    "http://localhost:8080/a2a",
    "http://LOCALHOST./a2a",
    "http://admin.localhost/a2a",
    "http://0.0.0.0:8080/a2a",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::1]:8080/a2a",
    "http://[::]:8080/a2a",
    "http://[fe80::1]/a2a",
    "http://[::ffff:127.0.0.1]/a2a",
    "http://[::ffff:7f00:1]/a2a",
    "http://[::ffff:169.254.169.254]/a2a",
    "https://127.0.0.1:8443/a2a",
  ])("an interface at %s is refused, whichever its spelling", async (url) => {
    const agent = remote(cardJson({ supportedInterfaces: [jsonRpc("https://agent.example/a2a"), jsonRpc(url)] }));
    const e = await refusal(resolveAgentCard("https://agent.example", fresh({ fetch: agent.fetch })));
    expect(e.message).toContain("supportedInterfaces[1].url");
    expect(agent.asked).toEqual([CARD_URL]);
  });

  it.each(["127.0.0.1:50051", "grpc://localhost:50051", "grpcs://[::1]:50051"])(
    "a gRPC interface at %s (no http scheme) is refused too",
    async (url) => {
      const agent = remote(cardJson({ supportedInterfaces: [{ url, protocolBinding: "GRPC", protocolVersion: "1.0" }] }));
      const e = await refusal(resolveAgentCard("https://agent.example", fresh({ fetch: agent.fetch })));
      expect(e.message).toContain("supportedInterfaces[0].url");
    },
  );

  it("a 0.3 card's url is read as its interfaces are, and refused", async () => {
    const agent = remote(cardJsonV03({ url: "http://169.254.169.254/latest", additionalInterfaces: [] }));
    const e = await refusal(resolveAgentCard("https://agent.example", fresh({ fetch: agent.fetch })));
    expect(e.message).toContain("http://169.254.169.254/latest");
  });

  it.each([
    [
      "securitySchemes.oauth.oauth2SecurityScheme.flows.clientCredentials.tokenUrl",
      (u: string) => ({ oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: u, scopes: {} } } } }),
    ],
    [
      "securitySchemes.oauth.oauth2SecurityScheme.oauth2MetadataUrl",
      (u: string) => ({
        oauth2SecurityScheme: {
          oauth2MetadataUrl: u,
          flows: { authorizationCode: { authorizationUrl: "https://auth.example/a", tokenUrl: "https://auth.example/t", scopes: {} } },
        },
      }),
    ],
    [
      "securitySchemes.oauth.oauth2SecurityScheme.flows.authorizationCode.authorizationUrl",
      (u: string) => ({
        oauth2SecurityScheme: { flows: { authorizationCode: { authorizationUrl: u, tokenUrl: "https://auth.example/t", scopes: {} } } },
      }),
    ],
    [
      "securitySchemes.oauth.openIdConnectSecurityScheme.openIdConnectUrl",
      (u: string) => ({ openIdConnectSecurityScheme: { openIdConnectUrl: u } }),
    ],
  ])("%s on 127.0.0.1: connect({ auth }) fails before any token request; nothing reaches it", async (field, scheme) => {
    const agent = remote(
      cardJson({
        supportedInterfaces: [jsonRpc("https://agent.example/a2a")],
        securitySchemes: { oauth: scheme(`${local.url}/oauth`) },
        securityRequirements: [{ schemes: { oauth: { list: [] } } }],
      }),
    );
    const e = await refusal(
      connect("https://agent.example", { fetch: agent.fetch, cache: false, auth: { oauth: { clientId: "id", clientSecret: "cs" } } }),
    );
    expect(e.message).toContain(`${field}: ${local.url}/oauth is on this machine`);
    expect(agent.asked).toEqual([CARD_URL]);
    expect(local.requests).toEqual([]);
  });

  it("a signed card is refused before the key set it names is fetched", async () => {
    const key = await keyPair("ES256", "k1");
    const signed = await signJson(cardJson({ supportedInterfaces: [jsonRpc(`${local.url}/a2a`)] }), key, "ES256", {
      jku: "https://agent.example/jwks.json",
    });
    const agent = remote(signed, { "https://agent.example/jwks.json": () => Response.json({ keys: [key.jwk] }) });
    await refusal(resolveAgentCard("https://agent.example", fresh({ fetch: agent.fetch, verify: "required" })));
    expect(agent.asked).toEqual([CARD_URL]);
  });

  it("a URL on the card's own host is its own business; private networks and look-alike names are not this machine", async () => {
    const agent = remote(
      cardJson({
        supportedInterfaces: [
          jsonRpc("https://agent.example:8443/a2a"),
          jsonRpc("http://10.0.0.7/a2a"),
          jsonRpc("https://127.0.0.1.example.com/a2a"),
          jsonRpc("https://localhost.example.com/a2a"),
        ],
      }),
    );
    const r = await resolveAgentCard("https://agent.example", fresh({ fetch: agent.fetch }));
    expect(r.card.supportedInterfaces).toHaveLength(4);
  });

  it('localUrls: "allow" follows them: connect() uses the loopback interface', async () => {
    const agent = remote(cardJson({ supportedInterfaces: [jsonRpc(`${local.url}/a2a`)] }));
    const session = await connect("https://agent.example", { fetch: agent.fetch, cache: false, localUrls: "allow" });
    expect(session.interface?.interface.url).toBe(`${local.url}/a2a`);
  });

  it("a card cached for a caller that allowed it is refused to one that did not", async () => {
    const cache = new MemoryCardStore();
    const agent = remote(cardJson({ supportedInterfaces: [jsonRpc(`${local.url}/a2a`)] }));
    await resolveAgentCard("https://agent.example", { fetch: agent.fetch, cache, localUrls: "allow" });
    await refusal(resolveAgentCard("https://agent.example", { fetch: agent.fetch, cache }));
  });
});

describe("the extended card of an agent whose public card came from another host", () => {
  /** A session over an agent on 127.0.0.1 whose public card came from https://agent.example, and whose extended card names `tokenUrl`. */
  async function extendedNaming(tokenUrl: string, localUrls?: LocalUrlPolicy) {
    const extended = cardJson({
      description: "The extended card",
      securitySchemes: { oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl, scopes: {} } } } } },
    });
    const agent = await startFakeServer((_req, res, body) => {
      const { id } = JSON.parse(body) as { id: number };
      sendJson(res, 200, { jsonrpc: "2.0", id, result: extended });
    });
    const publicCard = fromJson(AgentCardSchema, cardJson({ capabilities: { extendedAgentCard: true } }) as JsonValue);
    const session = new AgentSession(
      new A2AClient(createJsonRpcTransport({ baseUrl: agent.url })),
      { card: publicCard, url: CARD_URL },
      { localUrls },
    );
    return { session, close: () => agent.close() };
  }

  it("naming a token URL on 127.0.0.1: AgentCardVerificationError, and the public card stays in force", async () => {
    const { session, close } = await extendedNaming(`${local.url}/token`);
    try {
      const e = await refusal(session.extendedCard());
      expect(e.message).toContain("securitySchemes.oauth.oauth2SecurityScheme.flows.clientCredentials.tokenUrl");
      expect(session.card).toBe(session.publicCard);
    } finally {
      await close();
    }
  });

  it('localUrls: "allow" adopts it', async () => {
    const { session, close } = await extendedNaming(`${local.url}/token`, "allow");
    try {
      expect((await session.extendedCard()).description).toBe("The extended card");
    } finally {
      await close();
    }
  });
});

describe("what the app vouched for keeps working", () => {
  it.each(["http://0.0.0.0:8080", "http://[::ffff:127.0.0.1]:8080", "http://169.254.10.20"])(
    "a card fetched from %s, an address on this machine or its link that the app gave, may name this machine",
    async (origin) => {
      const url = `${new URL(origin).origin}/.well-known/agent-card.json`;
      const card = cardJson({ supportedInterfaces: [jsonRpc("http://localhost:8080/a2a")] });
      const fetch = (async (input: RequestInfo | URL) =>
        String(input) === url ? Response.json(card) : new Response(null, { status: 404 })) as typeof globalThis.fetch;
      const r = await resolveAgentCard(origin, fresh({ fetch }));
      expect(r.card.supportedInterfaces[0]!.url).toBe("http://localhost:8080/a2a");
    },
  );

  it("a card fetched from this machine may name this machine", async () => {
    const cardServer = await startFakeServer((_req, res) =>
      sendJson(res, 200, cardJson({ supportedInterfaces: [jsonRpc(`${local.url}/a2a`)] })),
    );
    try {
      const session = await connect(cardServer.url, { cache: false });
      expect(session.interface?.interface.url).toBe(`${local.url}/a2a`);
    } finally {
      await cardServer.close();
    }
  });

  it("a card handed to connect() may name this machine", async () => {
    const session = await connect(cardJson({ supportedInterfaces: [jsonRpc(`${local.url}/a2a`)] }) as ConnectTarget);
    expect(session.interface?.interface.url).toBe(`${local.url}/a2a`);
  });

  it("a card handed to connect() with the cardUrl of another host is held to what a card fetched from there is", async () => {
    const card = cardJson({ supportedInterfaces: [jsonRpc(`${local.url}/a2a`)] }) as ConnectTarget;
    const e = await connect(card, { cardUrl: "https://agent.example/.well-known/agent-card.json" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AgentCardVerificationError);
    expect((e as AgentCardVerificationError).result.failures.map((f) => f.code)).toEqual(["local_url"]);
    const allowed = await connect(card, { cardUrl: "https://agent.example/.well-known/agent-card.json", localUrls: "allow" });
    expect(allowed.interface?.interface.url).toBe(`${local.url}/a2a`);
    const fromHere = await connect(card, { cardUrl: `${local.url}/.well-known/agent-card.json` });
    expect(fromHere.interface?.interface.url).toBe(`${local.url}/a2a`);
  });
});

describe("a redirect from another host to this machine or its link", () => {
  it.each([
    ["http://agent.example/.well-known/agent-card.json", "http://169.254.169.254/latest/meta-data/"],
    ["https://agent.example/.well-known/agent-card.json", "https://localhost:8443/card.json"],
    ["https://agent.example/.well-known/agent-card.json", "https://[::ffff:7f00:1]/card.json"],
  ])("%s redirecting to %s: RedirectRefusedError, and it is not asked", async (from, to) => {
    const asked: string[] = [];
    const fetch = (async (input: RequestInfo | URL) => {
      asked.push(String(input));
      if (String(input) === from) return new Response(null, { status: 302, headers: { Location: to } });
      return Response.json(cardJson());
    }) as typeof globalThis.fetch;
    const e = await resolveAgentCard(from, fresh({ fetch })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RedirectRefusedError);
    expect((e as Error).message).toContain(new URL(to).origin);
    expect(asked).toEqual([from]);
  });

  it("a redirect a browser followed out of sight to 127.0.0.1: its answer is not used", async () => {
    const browserFetch = (async (_url: RequestInfo | URL, init?: RequestInit) => {
      if (init?.redirect === "manual") {
        const opaque = new Response(null, { status: 200 });
        Object.defineProperty(opaque, "type", { value: "opaqueredirect" });
        return opaque;
      }
      const followed = Response.json(cardJson());
      Object.defineProperty(followed, "url", { value: "https://127.0.0.1:8443/card.json" });
      return followed;
    }) as typeof fetch;
    await expect(resolveAgentCard("https://agent.example/card.json", fresh({ fetch: browserFetch }))).rejects.toBeInstanceOf(
      RedirectRefusedError,
    );
  });

  it('localUrls: "allow" follows it', async () => {
    const fetch = (async (input: RequestInfo | URL) => {
      if (String(input) === HTTP_CARD_URL) return new Response(null, { status: 302, headers: { Location: `${local.url}/card.json` } });
      return globalThis.fetch(input);
    }) as typeof globalThis.fetch;
    local.handle((_req, res) => sendJson(res, 200, cardJson()));
    const r = await resolveAgentCard(HTTP_CARD_URL, fresh({ fetch, localUrls: "allow" }));
    expect(r.url).toBe(`${local.url}/card.json`);
  });

  it("a redirect cached for a caller that allowed it is not served to one that did not", async () => {
    const cache = new MemoryCardStore();
    let served = 0;
    const fetch = (async (input: RequestInfo | URL) => {
      if (String(input) === HTTP_CARD_URL) return new Response(null, { status: 302, headers: { Location: `${local.url}/card.json` } });
      return globalThis.fetch(input);
    }) as typeof globalThis.fetch;
    local.handle((_req, res) => {
      served++;
      sendJson(res, 200, cardJson(), { "Cache-Control": "max-age=600" });
    });
    await resolveAgentCard(HTTP_CARD_URL, { fetch, cache, localUrls: "allow" });
    await expect(resolveAgentCard(HTTP_CARD_URL, { fetch, cache })).rejects.toBeInstanceOf(RedirectRefusedError);
    expect(served).toBe(1);
  });
});

describe("an OAuth discovery document from another host", () => {
  it("naming a token endpoint on 127.0.0.1: AuthenticationError before the client secret goes there", async () => {
    const discovery = "https://idp.example/.well-known/openid-configuration";
    const idp = remote({}, { [discovery]: () => Response.json({ token_endpoint: `${local.url}/token` }) });
    const tokens = discoveredTokenProvider({ discoveryUrl: discovery, clientId: "id", clientSecret: "cs", fetch: idp.fetch });
    const e = await tokens.token().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as Error).message).toContain(`token_endpoint on this machine or its link (${local.url}/token)`);
    expect(idp.asked).toEqual([discovery]);
    expect(local.requests).toEqual([]);
  });

  it('localUrls: "allow" uses it', async () => {
    const discovery = "https://idp.example/.well-known/openid-configuration";
    const idp = remote({}, { [discovery]: () => Response.json({ token_endpoint: `${local.url}/token` }) });
    const fetch = ((input: RequestInfo | URL, init?: RequestInit) =>
      String(input) === discovery ? idp.fetch(input, init) : globalThis.fetch(input, init)) as typeof globalThis.fetch;
    const tokens = discoveredTokenProvider({ discoveryUrl: discovery, clientId: "id", clientSecret: "cs", fetch, localUrls: "allow" });
    expect(await tokens.token()).toBe("t");
    expect(local.requests).toHaveLength(1);
  });
});

describe("isLocalUrl", () => {
  it.each([
    ["http://127.0.0.1/", true],
    ["http://2130706433/", true],
    ["http://0.0.0.0/", true],
    ["http://169.254.0.1/", true],
    ["http://x.y.localhost/", true],
    ["http://localhost./", true],
    ["http://[::1]/", true],
    ["http://[::]/", true],
    ["http://[fe80::1]/", true],
    ["http://[febf:ffff::1]/", true],
    ["http://[::ffff:127.0.0.1]/", true],
    ["http://[::127.0.0.1]/", true],
    ["http://[::ffff:169.254.169.254]/", true],
    ["http://169.255.0.1/", false],
    ["http://10.0.0.1/", false],
    ["http://192.168.1.1/", false],
    ["http://[fec0::1]/", false],
    ["http://[::2]/", false],
    ["http://[::ffff:8.8.8.8]/", false],
    ["http://[2001:db8::1]/", false],
    ["http://localhost.example/", false],
    ["http://127.0.0.1.example.com/", false],
  ])("%s: %s", (url, expected) => {
    expect(isLocalUrl(new URL(url))).toBe(expected);
  });
});
