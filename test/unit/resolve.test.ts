/**
 * Agent Card resolution against fake servers: URL rules, validation,
 * redirects, limits and the HTTP cache.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import {
  AbortedError,
  AgentCardNotFoundError,
  CallTimeoutError,
  InvalidAgentCardError,
  MemoryCardStore,
  RedirectRefusedError,
  cardUrlCandidates,
  resolveAgentCard,
  type ResolveOptions,
} from "../../src/index.js";
import { cardJson, cardJsonV03 } from "../support/cards.js";
import { sendJson, startFakeServer, type FakeServer } from "../support/fake-server.js";

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<FakeServer> {
  const s = await startFakeServer(handler);
  servers.push(s);
  return s;
}

/** Each test gets its own store, so tests do not see each other's cards. */
const fresh = (extra: ResolveOptions = {}): ResolveOptions => ({ cache: new MemoryCardStore(), ...extra });

describe("URL rules", () => {
  it("keeps the URL's path, then tries the origin root, then the 0.3 location", () => {
    expect(cardUrlCandidates("https://h.example/agents/a")).toEqual([
      "https://h.example/agents/a/.well-known/agent-card.json",
      "https://h.example/.well-known/agent-card.json",
      "https://h.example/.well-known/agent.json",
    ]);
    expect(cardUrlCandidates("https://h.example/agents/a/")[0]).toBe("https://h.example/agents/a/.well-known/agent-card.json");
    expect(cardUrlCandidates("https://h.example")).toEqual([
      "https://h.example/.well-known/agent-card.json",
      "https://h.example/.well-known/agent.json",
    ]);
    expect(cardUrlCandidates("https://h.example/cards/mine.json")).toEqual(["https://h.example/cards/mine.json"]);
  });

  it("finds the card under the URL's path and sends A2A-Version: 1.0", async () => {
    const s = await serve((req, res) => {
      if (req.url === "/agents/a/.well-known/agent-card.json") sendJson(res, 200, cardJson());
      else sendJson(res, 404, {});
    });
    const r = await resolveAgentCard(`${s.url}/agents/a`, fresh());
    expect(r.card.name).toBe("Test Agent");
    expect(r.url).toBe(`${s.url}/agents/a/.well-known/agent-card.json`);
    expect(r.shape).toBe("1.0");
    expect(s.requests).toHaveLength(1);
    expect(s.requests[0]!.headers["a2a-version"]).toBe("1.0");
  });

  it("falls back on 404 to the root and then to the 0.3 location", async () => {
    const s = await serve((req, res) => {
      if (req.url === "/.well-known/agent.json") sendJson(res, 200, cardJsonV03());
      else sendJson(res, 404, {});
    });
    const r = await resolveAgentCard(`${s.url}/agents/a`, fresh());
    expect(s.requests.map((q) => q.url)).toEqual([
      "/agents/a/.well-known/agent-card.json",
      "/.well-known/agent-card.json",
      "/.well-known/agent.json",
    ]);
    expect(r.shape).toBe("0.3");
  });

  it("fails with AgentCardNotFoundError listing every URL tried", async () => {
    const s = await serve((_req, res) => sendJson(res, 404, {}));
    const e = await resolveAgentCard(`${s.url}/x`, fresh()).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(AgentCardNotFoundError);
    expect((e as AgentCardNotFoundError).tried).toHaveLength(3);
  });

  it("does not move on when the first location fails otherwise than 404", async () => {
    const s = await serve((_req, res) => sendJson(res, 500, { error: "boom" }));
    await expect(resolveAgentCard(`${s.url}/x`, fresh())).rejects.toMatchObject({ httpStatus: 500 });
    expect(s.requests).toHaveLength(1);
  });
});

describe("validation", () => {
  async function cardFrom(body: string, contentType = "application/json") {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "Content-Type": contentType });
      res.end(body);
    });
    return resolveAgentCard(`${s.url}/card.json`, fresh()).catch((e: unknown) => e);
  }

  it("names every missing REQUIRED field, nested ones included", async () => {
    const { description: _d, version: _v, ...partial } = cardJson();
    const body = { ...partial, supportedInterfaces: [{ url: "https://a.example" }], skills: [{ id: "s", name: "n" }] };
    const e = (await cardFrom(JSON.stringify(body))) as InvalidAgentCardError;
    expect(e).toBeInstanceOf(InvalidAgentCardError);
    expect(e.problem).toBe("missing-fields");
    expect([...e.missingFields].sort()).toEqual(
      [
        "description",
        "version",
        "supportedInterfaces[0].protocolBinding",
        "supportedInterfaces[0].protocolVersion",
        "skills[0].description",
        "skills[0].tags",
      ].sort(),
    );
  });

  it.each([
    ["malformed-json", '{"name": "truncated', "application/json"],
    ["duplicate-key", JSON.stringify(cardJson()).replace('"name":"Test Agent"', '"name":"Test Agent","name":"Evil"'), "application/json"],
    ["not-an-object", "[1,2,3]", "application/json"],
    ["content-type", JSON.stringify(cardJson()), "text/html"],
    ["wrong-shape", JSON.stringify(cardJson({ capabilities: { streaming: "yes please" } })), "application/json"],
  ])("rejects a card with problem %s", async (problem, body, type) => {
    const e = await cardFrom(body, type);
    expect(e).toBeInstanceOf(InvalidAgentCardError);
    expect((e as InvalidAgentCardError).problem).toBe(problem);
  });

  it("accepts +json content types and ignores unknown fields", async () => {
    const r = (await cardFrom(JSON.stringify(cardJson({ futureField: { x: 1 } })), "application/a2a+json; charset=utf-8")) as Awaited<
      ReturnType<typeof resolveAgentCard>
    >;
    expect(r.card.name).toBe("Test Agent");
    expect(Object.keys(r.card)).not.toContain("futureField");
  });

  it("refuses a body over the size limit without reading it all", async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.write(`{"name":"${"x".repeat(64 * 1024)}`);
      // Never ends: the client must stop reading at the limit.
    });
    const e = await resolveAgentCard(`${s.url}/card.json`, fresh({ maxBytes: 16 * 1024 })).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(InvalidAgentCardError);
    expect((e as InvalidAgentCardError).problem).toBe("too-large");
  });

  it("returns a frozen card", async () => {
    const r = (await cardFrom(JSON.stringify(cardJson()))) as Awaited<ReturnType<typeof resolveAgentCard>>;
    expect(Object.isFrozen(r.card)).toBe(true);
    expect(Object.isFrozen(r.card.skills[0])).toBe(true);
  });
});

describe("0.3 cards", () => {
  it("are converted to the 1.0 shape", async () => {
    const s = await serve((_req, res) => sendJson(res, 200, cardJsonV03()));
    const { card, shape } = await resolveAgentCard(`${s.url}/agent.json`, fresh());
    expect(shape).toBe("0.3");
    expect(card.supportedInterfaces.map((i) => [i.url, i.protocolBinding, i.protocolVersion])).toEqual([
      ["https://agent.example.com/a2a/jsonrpc", "JSONRPC", "0.3.0"],
      ["https://agent.example.com/a2a/rest", "HTTP+JSON", "0.3.0"],
      ["agent.example.com:443", "GRPC", "0.3.0"],
    ]);
    expect(card.capabilities?.extendedAgentCard).toBe(true);
    expect(card.securitySchemes.bearer?.scheme.case).toBe("httpAuthSecurityScheme");
    const key = card.securitySchemes.key?.scheme;
    expect(key?.case === "apiKeySecurityScheme" && key.value.location).toBe("header");
    const oauth = card.securitySchemes.oauth?.scheme;
    expect(oauth?.case === "oauth2SecurityScheme" && oauth.value.flows?.flow.case).toBe("clientCredentials");
    expect(card.securityRequirements.map((r) => Object.keys(r.schemes))).toEqual([["bearer"], ["oauth"]]);
    expect(card.securityRequirements[1]!.schemes.oauth!.list).toEqual(["read"]);
    expect(Object.keys(card.skills[0]!.securityRequirements[0]!.schemes)).toEqual(["key"]);
  });
});

describe("redirects", () => {
  it("follows a redirect and keeps credentials on the same origin", async () => {
    const s = await serve((req, res) => {
      if (req.url === "/old.json") {
        res.writeHead(301, { Location: "/new.json" });
        res.end();
      } else sendJson(res, 200, cardJson());
    });
    const r = await resolveAgentCard(`${s.url}/old.json`, fresh({ headers: { Authorization: "Bearer t0k" } }));
    expect(r.url).toBe(`${s.url}/new.json`);
    expect(s.requests[1]!.headers.authorization).toBe("Bearer t0k");
  });

  it("never sends credentials to another origin", async () => {
    const target = await serve((_req, res) => sendJson(res, 200, cardJson()));
    const origin = await serve((_req, res) => {
      res.writeHead(302, { Location: `${target.url.replace("127.0.0.1", "localhost")}/card.json` });
      res.end();
    });
    const r = await resolveAgentCard(`${origin.url}/card.json`, fresh({ headers: { Authorization: "Bearer t0k", "X-Api-Key": "k" } }));
    expect(r.card.name).toBe("Test Agent");
    expect(target.requests[0]!.headers.authorization).toBeUndefined();
    expect(target.requests[0]!.headers["x-api-key"]).toBeUndefined();
    expect(target.requests[0]!.headers["a2a-version"]).toBe("1.0");
  });

  it("refuses redirects the policy does not allow", async () => {
    const other = await serve((_req, res) => sendJson(res, 200, cardJson()));
    const s = await serve((req, res) => {
      res.writeHead(302, { Location: req.url === "/loop.json" ? "/loop.json" : `${other.url.replace("127.0.0.1", "localhost")}/c.json` });
      res.end();
    });
    await expect(resolveAgentCard(`${s.url}/c.json`, fresh({ redirect: "same-origin" }))).rejects.toBeInstanceOf(RedirectRefusedError);
    await expect(resolveAgentCard(`${s.url}/c.json`, fresh({ redirect: "error" }))).rejects.toBeInstanceOf(RedirectRefusedError);
    await expect(resolveAgentCard(`${s.url}/loop.json`, fresh())).rejects.toThrow(/more than 5 redirects/);
    expect(other.requests).toHaveLength(0);
  });
});

describe("time and cancellation", () => {
  it("times out a server that never answers", async () => {
    const s = await serve(() => {});
    const e = await resolveAgentCard(`${s.url}/c.json`, fresh({ timeoutMs: 100 })).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(CallTimeoutError);
  });

  it("stops when the caller aborts", async () => {
    const s = await serve(() => {});
    const controller = new AbortController();
    const p = resolveAgentCard(`${s.url}/c.json`, fresh({ signal: controller.signal }));
    controller.abort();
    await expect(p).rejects.toBeInstanceOf(AbortedError);
  });
});

describe("HTTP caching", () => {
  it("serves a fresh card from the cache without a request", async () => {
    const s = await serve((_req, res) => sendJson(res, 200, cardJson(), { "Cache-Control": "max-age=60" }));
    const options = fresh();
    const first = await resolveAgentCard(`${s.url}/c.json`, options);
    const second = await resolveAgentCard(`${s.url}/c.json`, options);
    expect([first.cache, second.cache]).toEqual(["miss", "hit"]);
    expect(second.card).toBe(first.card);
    expect(s.requests).toHaveLength(1);
  });

  it("does not store no-store responses", async () => {
    const s = await serve((_req, res) => sendJson(res, 200, cardJson(), { "Cache-Control": "no-store" }));
    const options = fresh();
    await resolveAgentCard(`${s.url}/c.json`, options);
    const second = await resolveAgentCard(`${s.url}/c.json`, options);
    expect(second.cache).toBe("miss");
    expect(s.requests).toHaveLength(2);
  });

  it("revalidates with If-None-Match and reuses the body on 304", async () => {
    const s = await serve((req, res) => {
      if (req.headers["if-none-match"] === '"v1"') {
        res.writeHead(304, { ETag: '"v1"', "Cache-Control": "no-cache" });
        res.end();
      } else sendJson(res, 200, cardJson(), { ETag: '"v1"', "Cache-Control": "no-cache" });
    });
    const options = fresh();
    const first = await resolveAgentCard(`${s.url}/c.json`, options);
    const second = await resolveAgentCard(`${s.url}/c.json`, options);
    expect(second.cache).toBe("revalidated");
    expect(second.card).toBe(first.card);
    expect(s.requests[1]!.headers["if-none-match"]).toBe('"v1"');
  });

  it("revalidates with If-Modified-Since", async () => {
    const modified = new Date(Date.now() - 3_600_000).toUTCString();
    const s = await serve((req, res) => {
      if (req.headers["if-modified-since"] === modified) {
        res.writeHead(304, { "Cache-Control": "max-age=0" });
        res.end();
      } else sendJson(res, 200, cardJson(), { "Last-Modified": modified, "Cache-Control": "max-age=0" });
    });
    const options = fresh();
    await resolveAgentCard(`${s.url}/c.json`, options);
    expect((await resolveAgentCard(`${s.url}/c.json`, options)).cache).toBe("revalidated");
  });

  it("serves a stale card when revalidation fails only if allowed", async () => {
    let up = true;
    const s = await serve((_req, res) => {
      if (up) sendJson(res, 200, cardJson(), { ETag: '"v1"', "Cache-Control": "max-age=0" });
      else sendJson(res, 503, {});
    });
    const options = fresh();
    await resolveAgentCard(`${s.url}/c.json`, options);
    up = false;
    await expect(resolveAgentCard(`${s.url}/c.json`, options)).rejects.toMatchObject({ httpStatus: 503 });
    const stale = await resolveAgentCard(`${s.url}/c.json`, { ...options, staleIfError: true });
    expect(stale.cache).toBe("stale");
    expect(stale.card.name).toBe("Test Agent");
  });

  it("shares one request among concurrent resolves of one URL", async () => {
    const s = await serve((_req, res) => {
      setImmediate(() => sendJson(res, 200, cardJson()));
    });
    const options = fresh();
    const all = await Promise.all([1, 2, 3, 4, 5].map(() => resolveAgentCard(`${s.url}/c.json`, options)));
    expect(new Set(all.map((r) => r.card)).size).toBe(1);
    expect(s.requests).toHaveLength(1);
  });

  it("keeps cards fetched with different credentials apart", async () => {
    const s = await serve((req, res) =>
      sendJson(res, 200, cardJson({ name: `for ${req.headers.authorization ?? "anyone"}` }), { "Cache-Control": "max-age=60" }),
    );
    const options = fresh();
    const a = await resolveAgentCard(`${s.url}/c.json`, { ...options, headers: { Authorization: "Bearer a" } });
    const b = await resolveAgentCard(`${s.url}/c.json`, { ...options, headers: { Authorization: "Bearer b" } });
    expect([a.card.name, b.card.name]).toEqual(["for Bearer a", "for Bearer b"]);
  });

  it("the in-memory store is bounded", () => {
    const store = new MemoryCardStore(2);
    const entry = { body: "", url: "", receivedAt: 0, headers: {} };
    store.set("a", entry);
    store.set("b", entry);
    store.get("a");
    store.set("c", entry);
    expect([store.get("a"), store.get("b"), store.get("c")]).toEqual([entry, undefined, entry]);
  });
});
