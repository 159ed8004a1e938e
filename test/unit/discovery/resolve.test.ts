/**
 * Agent Card resolution against fake servers: URL rules, validation,
 * redirects, limits and the HTTP cache.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import * as v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  AgentCardSchema,
  AbortedError,
  AgentCardNotFoundError,
  AgentCardVerificationError,
  CallTimeoutError,
  InvalidAgentCardError,
  InvalidParamsError,
  MemoryCardStore,
  RedirectRefusedError,
  connect,
  resolveAgentCard,
  userMessage,
  type ResolveOptions,
} from "../../../src/index.js";
import { cardUrlCandidates, parseCard } from "../../../src/toolkit.js";
import { JwksCache, verifyAgentCard } from "../../../src/trust.js";
import { cardJson, cardJsonV03, keyPair, signJson, type TestKeyPair } from "../../support/cards.js";
import { sendJson, startFakeServer, within, type FakeServer } from "../../support/fake-server.js";
import { silentFirstFetch } from "../../support/silent-first.js";

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
  it("keeps the URL's path, then tries the origin root, then the 0.3 location, then the last segment's well-known place", () => {
    expect(cardUrlCandidates("https://h.example/agents/a")).toEqual([
      "https://h.example/agents/a/.well-known/agent-card.json",
      "https://h.example/.well-known/agent-card.json",
      "https://h.example/.well-known/agent.json",
      "https://h.example/.well-known/a/agent-card.json",
    ]);
    expect(cardUrlCandidates("https://h.example/echo/?q=1").at(-1)).toBe("https://h.example/.well-known/echo/agent-card.json");
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
    expect((e as AgentCardNotFoundError).tried).toHaveLength(4);
  });

  it("finds a card at /.well-known/{last segment}/agent-card.json, where VoltAgent and Mastra serve theirs, once the usual places have none", async () => {
    const s = await serve((req, res) => {
      if (req.url === "/.well-known/echo/agent-card.json") sendJson(res, 200, cardJson());
      else sendJson(res, 404, {});
    });
    const session = await connect(`${s.url}/agents/echo`, fresh());
    expect(session.cardUrl).toBe(`${s.url}/.well-known/echo/agent-card.json`);
    expect(s.requests.map((q) => q.url)).toEqual([
      "/agents/echo/.well-known/agent-card.json",
      "/.well-known/agent-card.json",
      "/.well-known/agent.json",
      "/.well-known/echo/agent-card.json",
    ]);
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

  it("names every missing REQUIRED field a call needs, nested ones included", async () => {
    const { description: _d, version: _v, capabilities: _c, ...partial } = cardJson();
    const body = { ...partial, supportedInterfaces: [{ url: "https://a.example" }], skills: [{ id: "s", name: "n" }] };
    const e = (await cardFrom(JSON.stringify(body))) as InvalidAgentCardError;
    expect(e).toBeInstanceOf(InvalidAgentCardError);
    expect(e.problem).toBe("missing-fields");
    expect([...e.missingFields].sort()).toEqual(
      ["capabilities", "supportedInterfaces[0].protocolBinding", "supportedInterfaces[0].protocolVersion"].sort(),
    );
    expect(e.message).toMatch(
      / lacks required fields: capabilities, supportedInterfaces\[0\]\.protocolBinding, supportedInterfaces\[0\]\.protocolVersion$/,
    );
  });

  it("reads a card that lacks only REQUIRED fields no call needs (description, provider.url, ...), with a warning naming them", async () => {
    const { description: _d, version: _v, ...partial } = cardJson();
    const body = { ...partial, provider: { organization: "Example" }, skills: [{ id: "s", name: "n" }] };
    const r = (await cardFrom(JSON.stringify(body))) as Awaited<ReturnType<typeof resolveAgentCard>>;
    expect([r.card.description, r.card.version, r.card.provider?.url, r.card.skills[0]!.tags]).toEqual(["", "", "", []]);
    const warning =
      "the card lacks REQUIRED fields no call needs, read as empty: description, version, provider.url, skills[0].description, skills[0].tags";
    expect(r.warnings).toEqual([warning]);
    // The same for a card in hand, and with every such field left out.
    const session = await connect(JSON.parse(JSON.stringify(body)));
    expect(session.warnings).toEqual([warning]);
    const { name: _n, defaultInputModes: _i, defaultOutputModes: _o, skills: _s, ...bare } = partial;
    expect(parseCard(bare, "").warnings).toEqual([
      "the card lacks REQUIRED fields no call needs, read as empty: name, description, version, defaultInputModes, defaultOutputModes, skills",
    ]);
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

  it.each([
    ["1.0", cardJson()],
    ["0.3", cardJsonV03()],
  ])("a %s card nesting an unknown member 100,000 levels deep (200 KB) is read, not a RangeError", async (_shape, card) => {
    const depth = 100_000;
    const body = `${JSON.stringify(card).slice(0, -1)},"future":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    const r = (await cardFrom(body)) as Awaited<ReturnType<typeof resolveAgentCard>>;
    expect(r.card.name).toBe(card.name);
    // What parseCard keeps of the document is frozen to the bottom.
    let inner: unknown = parseCard(body, "").json.future;
    for (let i = 1; i < depth; i++) inner = (inner as unknown[])[0];
    expect(inner).toEqual([]);
    expect(Object.isFrozen(inner)).toBe(true);
  });

  it("a card arriving a byte per chunk costs about its bytes while it is read, not an object per chunk", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const bytes = new TextEncoder().encode(JSON.stringify(cardJson({ description: "d".repeat(400_000) })));
    let held = 0;
    let before = 0;
    let at = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at === 0) {
          gc();
          before = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
        }
        if (at === bytes.length - 1) {
          gc();
          held = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - before;
        }
        if (at === bytes.length) return controller.close();
        controller.enqueue(Uint8Array.of(bytes[at++]!));
      },
    });
    const fetch = async () => new Response(body, { headers: { "Content-Type": "application/json" } });
    const r = await resolveAgentCard("https://a.example/card.json", fresh({ fetch }));
    expect(r.card.description).toHaveLength(400_000);
    // Decoded chunk by chunk into a rope, the 400,000 chunks held some 13 MB beside the card's 0.4.
    expect(held).toBeLessThan(6 * 1024 * 1024);
  });

  it("a URL that is not an absolute http(s) URL is InvalidParamsError, without quoting it", async () => {
    for (const url of [
      "http://[::1",
      "http://exa mple.com/?key=SECRET-KEY",
      "/card.json",
      "javascript:SECRET-KEY",
      "ftp://a.example/SECRET-KEY",
      "",
    ]) {
      const e = await resolveAgentCard(url, fresh()).catch((x: unknown) => x);
      expect(e, url).toBeInstanceOf(InvalidParamsError);
      expect((e as Error).message).toBe("the URL must be an absolute http or https URL");
    }
  });

  it("a timeoutMs, maxBytes or maxRedirects that is not a number above 0 is InvalidParamsError naming it, before any request", async () => {
    const s = await serve((_req, res) => sendJson(res, 200, cardJson()));
    for (const [option, value] of [
      ["timeoutMs", Number.NaN],
      ["timeoutMs", -1],
      ["maxBytes", Number.NaN],
      ["maxBytes", "1024"],
      ["maxRedirects", Number.NaN],
    ] as const) {
      const e = await resolveAgentCard(s.url, fresh({ [option]: value })).catch((x: unknown) => x);
      expect(e, `${option}: ${value}`).toBeInstanceOf(InvalidParamsError);
      expect((e as Error).message).toMatch(new RegExp(`^${option} must be a number above 0`));
    }
    expect(s.requests).toHaveLength(0);
    // 0 redirects is a limit of its own: none followed.
    expect((await resolveAgentCard(s.url, fresh({ maxRedirects: 0 }))).card.name).toBe("Test Agent");
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

  it("given to connect() as their JSON are read as fetched ones, the 0.3 reading held to connect()'s signal", async () => {
    const session = await connect(JSON.parse(JSON.stringify(cardJsonV03())));
    expect(session.card.supportedInterfaces.map((i) => [i.protocolBinding, i.protocolVersion])[0]).toEqual(["JSONRPC", "0.3.0"]);
    expect(session.interface?.version).toBe("0.3");
    const aborted = connect(JSON.parse(JSON.stringify(cardJsonV03())), { signal: AbortSignal.abort(new Error("gone")) });
    await expect(aborted).rejects.toBeInstanceOf(AbortedError);
  });
});

describe("interface URLs relative to the card's", () => {
  const relative = (url: string, protocolBinding = "JSONRPC") =>
    cardJson({ supportedInterfaces: [{ url, protocolBinding, protocolVersion: "1.0" }] });

  it("are resolved against the URL the card came from, after redirects, and the result and the session say so", async () => {
    const s = await serve((req, res) => {
      if (req.url === "/agents/echo/.well-known/agent-card.json") {
        res.writeHead(302, { Location: "/cards/echo.json" });
        res.end();
      } else if (req.url === "/cards/echo.json") sendJson(res, 200, relative("/a2a/echo"), { "Cache-Control": "max-age=60" });
      else if (req.url === "/a2a/echo")
        sendJson(res, 200, { jsonrpc: "2.0", id: 1, result: { message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "hi" }] } } });
      else sendJson(res, 404, {});
    });
    const r = await resolveAgentCard(`${s.url}/agents/echo`, fresh());
    expect(r.card.supportedInterfaces[0]!.url).toBe(`${s.url}/a2a/echo`);
    expect(r.warnings).toEqual([`supportedInterfaces[0].url is relative; resolved against the card's URL to ${s.url}/a2a/echo`]);
    // The same from the cache.
    const cache = new MemoryCardStore();
    await resolveAgentCard(`${s.url}/agents/echo`, { cache });
    const hit = await resolveAgentCard(`${s.url}/agents/echo`, { cache });
    expect([hit.cache, hit.warnings]).toEqual(["hit", r.warnings]);

    const session = await connect(`${s.url}/agents/echo`, fresh());
    expect(session.warnings).toEqual(r.warnings);
    expect(session.interface?.interface.url).toBe(`${s.url}/a2a/echo`);
    await session.client.sendMessage({ message: userMessage("hi") });
    expect(s.requests.at(-1)!.url).toBe("/a2a/echo");
    // Nothing to say: no warnings.
    expect((await connect(JSON.parse(JSON.stringify(cardJson())))).warnings).toEqual([]);
  });

  it("./ and ../ resolve too; what could be a host (agent.example/a2a, a gRPC host:port) is left as written", async () => {
    const s = await serve((_req, res) =>
      sendJson(
        res,
        200,
        cardJson({
          supportedInterfaces: [
            { url: "../a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
            { url: "./rest", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
            { url: "127.0.0.1:50051", protocolBinding: "GRPC", protocolVersion: "1.0" },
            { url: "agent.example/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
          ],
        }),
      ),
    );
    const r = await resolveAgentCard(`${s.url}/agents/echo/card.json`, fresh());
    expect(r.card.supportedInterfaces.map((i) => i.url)).toEqual([
      `${s.url}/agents/a2a`,
      `${s.url}/agents/echo/rest`,
      "127.0.0.1:50051",
      "agent.example/a2a",
    ]);
    expect(r.warnings).toHaveLength(2);
  });

  it("in a card in hand, which came from no URL, are refused naming the field", async () => {
    const json = cardJson({
      supportedInterfaces: [
        { url: "https://agent.example/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        { url: "/a2a/echo", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      ],
    });
    const message = fromJson(AgentCardSchema, json as JsonValue);
    // As JSON.parse gives it (any), which connect() reads as a card's JSON.
    const parsedJson = JSON.parse(JSON.stringify(json));
    for (const attempt of [() => connect(parsedJson), () => connect(message), async () => parseCard(json, "")]) {
      const e = await attempt().catch((x: unknown) => x);
      if (!(e instanceof InvalidAgentCardError)) throw e;
      expect(e.problem).toBe("relative-url");
      expect(e.message).toMatch(/^the Agent Card given gives supportedInterfaces\[1\]\.url as a relative URL \(\/a2a\/echo\)/);
    }
    // The message names the option that would say where the card came from.
    expect(() => parseCard(json, "")).toThrow(/say where it came from with cardUrl \(connect\(card, \{ cardUrl \}\)\)/);
    // A card file's path is no URL to resolve against either.
    expect(() => parseCard(json, "/home/me/card.json")).toThrow(
      /^the Agent Card at \/home\/me\/card\.json gives supportedInterfaces\[1\]\.url/,
    );
  });
});

describe("relative interface URLs in a card in hand with cardUrl", () => {
  it("resolve against it, with a warning each, and leave the caller's card as it was", async () => {
    const json = cardJson({
      supportedInterfaces: [{ url: "../a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    });
    const message = fromJson(AgentCardSchema, json as JsonValue);
    const cardUrl = "https://agent.example/agents/echo/card.json";
    for (const target of [JSON.parse(JSON.stringify(json)), message]) {
      const session = await connect(target, { cardUrl });
      expect(session.card.supportedInterfaces[0]!.url).toBe("https://agent.example/agents/a2a");
      expect(session.warnings).toEqual([
        "supportedInterfaces[0].url is relative; resolved against the card's URL to https://agent.example/agents/a2a",
      ]);
      expect(session.cardUrl).toBe(cardUrl);
    }
    expect(message.supportedInterfaces[0]!.url).toBe("../a2a");
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

  it("a redirect a browser hides (opaque) is followed without the caller's headers, since its target may be another origin", async () => {
    // What Chromium does (test/browser checks it there): a manual redirect
    // is opaque to the page; followed, it keeps every header but
    // Authorization across origins.
    const followedWith: Headers[] = [];
    const browserFetch = (async (_url: RequestInfo | URL, init?: RequestInit) => {
      if (init?.redirect === "manual") {
        const opaque = new Response(null, { status: 200 });
        Object.defineProperty(opaque, "type", { value: "opaqueredirect" });
        return opaque;
      }
      followedWith.push(new Headers(init?.headers));
      const elsewhere = new Response(JSON.stringify(cardJson()), { headers: { "Content-Type": "application/json" } });
      Object.defineProperty(elsewhere, "url", { value: "https://elsewhere.example/card.json" });
      return elsewhere;
    }) as typeof fetch;
    const r = await resolveAgentCard(
      "https://agent.example/card.json",
      fresh({ fetch: browserFetch, headers: { Authorization: "Bearer t0k", "X-Api-Key": "k" } }),
    );
    expect(r.url).toBe("https://elsewhere.example/card.json");
    expect(followedWith).toHaveLength(1);
    expect([...followedWith[0]!.keys()].sort()).toEqual(["a2a-version", "accept"]);
  });

  it("maxRedirects 0 refuses a redirect a browser hides (opaque) without following it, as it refuses one it sees", async () => {
    const followed: string[] = [];
    const browserFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (init?.redirect === "manual") {
        const opaque = new Response(null, { status: 200 });
        Object.defineProperty(opaque, "type", { value: "opaqueredirect" });
        return opaque;
      }
      followed.push(String(input));
      const elsewhere = new Response(JSON.stringify(cardJson()), { headers: { "Content-Type": "application/json" } });
      Object.defineProperty(elsewhere, "url", { value: "https://elsewhere.example/card.json" });
      return elsewhere;
    }) as typeof fetch;
    const e = await resolveAgentCard("https://agent.example/card.json", fresh({ fetch: browserFetch, maxRedirects: 0 })).catch(
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(RedirectRefusedError);
    expect((e as Error).message).toContain("https://agent.example/card.json");
    expect(followed).toEqual([]);
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

describe("redirects to what is not http or https", () => {
  it.each([
    ["data:", (body: string) => `data:application/json,${encodeURIComponent(body)}`],
    ["file:", () => "file:///etc/agent-card.json"],
  ])("a redirect to a %s URL is refused with RedirectRefusedError, signed card or not", async (scheme, location) => {
    const key = await keyPair("ES256", "k1");
    for (const card of [cardJson(), await signJson(cardJson(), key)]) {
      const s = await serve((_req, res) => {
        res.writeHead(302, { Location: location(JSON.stringify(card)) });
        res.end();
      });
      const e = await resolveAgentCard(`${s.url}/card.json`, fresh()).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(RedirectRefusedError);
      expect((e as Error).message).toContain(`to a ${scheme} URL`);
    }
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

  it("an already aborted signal fails at once, asking neither the network nor the cache, even for a cached card", async () => {
    const s = await serve((_req, res) => sendJson(res, 200, cardJson(), { "Cache-Control": "max-age=60" }));
    const options = fresh();
    await resolveAgentCard(`${s.url}/c.json`, options);
    let asked = 0;
    const store = options.cache as MemoryCardStore;
    const counting = { get: (k: string) => (asked++, store.get(k)), set: store.set.bind(store), delete: store.delete.bind(store) };
    const e = await resolveAgentCard(`${s.url}/c.json`, { ...options, cache: counting, signal: AbortSignal.abort() }).catch(
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(AbortedError);
    expect(asked).toBe(0);
    expect(s.requests).toHaveLength(1);
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

describe("shared state never decides another caller's outcome", () => {
  let key: TestKeyPair;
  beforeAll(async () => {
    key = await keyPair("ES256", "k1");
  });
  const _trusting = (extra: ResolveOptions = {}): ResolveOptions =>
    fresh({ verify: "required", verification: { keys: { keys: [key.jwk] } }, ...extra });

  it("concurrent resolves with different redirect policies do not share a result", async () => {
    const s = await serve((req, res) => {
      if (req.url === "/old.json") {
        res.writeHead(302, { Location: "/new.json" });
        res.end();
      } else setImmediate(() => sendJson(res, 200, cardJson()));
    });
    const store = new MemoryCardStore();
    const [follow, refuse] = await Promise.allSettled([
      resolveAgentCard(`${s.url}/old.json`, { cache: store }),
      resolveAgentCard(`${s.url}/old.json`, { cache: store, redirect: "error" }),
    ]);
    expect(follow.status).toBe("fulfilled");
    expect(refuse.status === "rejected" && refuse.reason).toBeInstanceOf(RedirectRefusedError);
  });

  it("a resolve that joins one started earlier is not cut short by the earlier one's deadline", async () => {
    // The clock is faked: the second caller comes 600 ms into the first's
    // 1000 ms, and the card server never answers the first request.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      const { fetch: f, asked, requests } = silentFirstFetch(() => cardJson());
      const options = fresh({ fetch: f, timeoutMs: 1000 });
      const first = resolveAgentCard("https://agent.example/card.json", options).catch((err: unknown) => err);
      await asked;
      vi.advanceTimersByTime(600);
      const second = resolveAgentCard("https://agent.example/card.json", options).catch((err: unknown) => err);
      vi.advanceTimersByTime(400);
      expect(await first).toBeInstanceOf(CallTimeoutError);
      expect(await second).toMatchObject({ cache: "miss", card: { name: "Test Agent" } });
      expect(requests()).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a cached card is served only to a caller whose redirect rules would have fetched it", async () => {
    const target = await serve((_req, res) => sendJson(res, 200, cardJson({ name: "Elsewhere" }), { "Cache-Control": "max-age=600" }));
    const s = await serve((_req, res) => {
      res.writeHead(302, { Location: `${target.url.replace("127.0.0.1", "localhost")}/card.json` });
      res.end();
    });
    const store = new MemoryCardStore();
    const url = `${s.url}/card.json`;
    expect((await resolveAgentCard(url, { cache: store })).cache).toBe("miss");
    const refuse = () => {
      throw new RedirectRefusedError("refused by the caller's rule");
    };
    for (const rules of [{ redirect: "same-origin" }, { redirect: "error" }, { maxRedirects: 0 }, { checkRedirect: refuse }] as const) {
      await expect(resolveAgentCard(url, { cache: store, ...rules }), JSON.stringify(rules)).rejects.toBeInstanceOf(RedirectRefusedError);
    }
    expect(target.requests).toHaveLength(1);
    expect((await resolveAgentCard(url, { cache: store })).cache).toBe("hit");
  });

  it("a cached card larger than the caller's size limit is not served to it", async () => {
    const s = await serve((_req, res) =>
      sendJson(res, 200, cardJson({ description: "x".repeat(2000) }), { "Cache-Control": "max-age=600" }),
    );
    const store = new MemoryCardStore();
    await resolveAgentCard(`${s.url}/c.json`, { cache: store });
    const e = await resolveAgentCard(`${s.url}/c.json`, { cache: store, maxBytes: 1000 }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(InvalidAgentCardError);
    expect((e as InvalidAgentCardError).problem).toBe("too-large");
  });

  it("a kept verification is not used once the key that made it has expired (spec 8.4.3)", async () => {
    let t = Date.now();
    const expiring = { ...key.jwk, exp: Math.floor(t / 1000) + 60 };
    const signed = await signJson(cardJson(), key);
    const s = await serve((_req, res) => sendJson(res, 200, signed, { "Cache-Control": "max-age=3600" }));
    const options = fresh({ verify: "required", verification: { keys: { keys: [expiring] }, now: () => t } });
    expect((await resolveAgentCard(`${s.url}/c.json`, options)).verification?.verified).toBe(true);
    t += 30_000;
    expect(await resolveAgentCard(`${s.url}/c.json`, options)).toMatchObject({ cache: "hit", verification: { verified: true } });
    t += 60_000;
    const e = await resolveAgentCard(`${s.url}/c.json`, options).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(AgentCardVerificationError);
    expect((e as AgentCardVerificationError).result.failures.map((f) => f.code)).toEqual(["key_expired"]);
  });

  it("the resolve's fetch also fetches the key sets", async () => {
    let signed: Record<string, unknown> = {};
    const s = await serve((req, res) => sendJson(res, 200, req.url === "/jwks.json" ? { keys: [key.jwk] } : signed));
    signed = await signJson(cardJson(), key, "ES256", { jku: `${s.url}/jwks.json` });
    const seen: string[] = [];
    const counting: typeof fetch = (input, init) => {
      seen.push(String(input));
      return fetch(input, init);
    };
    const r = await resolveAgentCard(
      `${s.url}/c.json`,
      fresh({ fetch: counting, verify: "required", verification: { jku: { allowHttp: true, cache: new JwksCache() } } }),
    );
    expect(r.verification).toMatchObject({ verified: true, keySource: "jku" });
    expect(seen).toEqual([`${s.url}/c.json`, `${s.url}/jwks.json`]);
  });
});

describe("deadline and abort cover the key sets", () => {
  let key: TestKeyPair;
  beforeAll(async () => {
    key = await keyPair("ES256", "k1");
  });

  /** A card whose jku never answers; `asked` settles when the key set is requested. */
  async function silentKeySet() {
    let keySetAsked!: () => void;
    const asked = new Promise<void>((resolve) => (keySetAsked = resolve));
    let signed: Record<string, unknown> = {};
    const s = await serve((req, res) => (req.url === "/c.json" ? sendJson(res, 200, signed) : keySetAsked()));
    signed = await signJson(cardJson(), key, "ES256", { jku: `${s.url}/jwks.json` });
    return { s, asked, options: fresh({ verification: { jku: { allowHttp: true, cache: new JwksCache() } } }) };
  }

  it("timeoutMs bounds the whole exchange, key sets included", async () => {
    const { s, options } = await silentKeySet();
    const started = Date.now();
    const e = await resolveAgentCard(`${s.url}/c.json`, { ...options, timeoutMs: 500 }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(CallTimeoutError);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(s.requests.map((r) => r.url)).toEqual(["/c.json", "/jwks.json"]);
  });

  it("a resolve whose key set another resolve is already fetching still ends by its own timeoutMs", async () => {
    const { s, asked, options } = await silentKeySet();
    const first = new AbortController();
    const patient = resolveAgentCard(`${s.url}/c.json`, { ...options, timeoutMs: 5_000, signal: first.signal }).catch(
      (err: unknown) => err,
    );
    await asked;
    try {
      const started = Date.now();
      const e = await resolveAgentCard(`${s.url}/c.json`, { ...options, timeoutMs: 300 }).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(CallTimeoutError);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      first.abort();
      expect(await patient).toBeInstanceOf(AbortedError);
    }
  });

  it("an abort while a key set is being fetched ends the resolve at once", async () => {
    const { s, asked, options } = await silentKeySet();
    const controller = new AbortController();
    const pending = resolveAgentCard(`${s.url}/c.json`, { ...options, signal: controller.signal }).catch((err: unknown) => err);
    await asked;
    const abortedAt = Date.now();
    controller.abort();
    expect(await pending).toBeInstanceOf(AbortedError);
    expect(Date.now() - abortedAt).toBeLessThan(200);
  });
});

describe("a key set shared with another caller's fetch in flight", () => {
  let key: TestKeyPair;
  beforeAll(async () => {
    key = await keyPair("ES256", "k1");
  });

  /**
   * Two cards naming one key set that never answers, a cache shared by
   * their verifications, and a first caller whose long timeout keeps the
   * key set request in flight; `asked` settles when it is sent.
   */
  async function sharedSilentKeySet() {
    let keySetAsked!: () => void;
    const asked = new Promise<void>((resolve) => (keySetAsked = resolve));
    const cards: Record<string, Record<string, unknown>> = {};
    const s = await serve((req, res) => (req.url! in cards ? sendJson(res, 200, cards[req.url!]) : keySetAsked()));
    for (const name of ["/a.json", "/b.json"]) {
      cards[name] = await signJson(cardJson({ name }), key, "ES256", { jku: `${s.url}/jwks.json` });
    }
    const cache = new JwksCache();
    const first = new AbortController();
    const firstDone = verifyAgentCard(cards["/a.json"]!, {
      cardUrl: `${s.url}/a.json`,
      jku: { allowHttp: true, cache },
      signal: first.signal,
      timeoutMs: 60_000,
    }).catch((e: unknown) => e);
    await asked;
    return { s, cards, cache, stopFirst: () => (first.abort(), firstDone) };
  }

  it("the second caller's timeoutMs and signal still bound its wait (verifyAgentCard, resolveAgentCard)", async () => {
    const { s, cards, cache, stopFirst } = await sharedSilentKeySet();
    try {
      let started = Date.now();
      const timed = await within(
        verifyAgentCard(cards["/b.json"]!, { cardUrl: `${s.url}/b.json`, jku: { allowHttp: true, cache }, timeoutMs: 100 }),
        2000,
        "the second verification",
      );
      expect(timed).toMatchObject({ verified: false, failures: [{ code: "jku_fetch_failed" }] });
      expect(Date.now() - started).toBeLessThan(1000);

      const controller = new AbortController();
      const pending = verifyAgentCard(cards["/b.json"]!, {
        cardUrl: `${s.url}/b.json`,
        jku: { allowHttp: true, cache },
        signal: controller.signal,
      }).catch((e: unknown) => e);
      started = Date.now();
      controller.abort();
      expect(await within(pending, 2000, "the aborted verification")).toBeInstanceOf(AbortedError);
      expect(Date.now() - started).toBeLessThan(200);

      started = Date.now();
      const resolved = await resolveAgentCard(
        `${s.url}/b.json`,
        fresh({ timeoutMs: 150, verification: { jku: { allowHttp: true, cache } } }),
      ).catch((e: unknown) => e);
      expect(resolved).toBeInstanceOf(CallTimeoutError);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      await stopFirst();
    }
  });
});

describe("downgrades and newer cards", () => {
  let key: TestKeyPair;
  beforeAll(async () => {
    key = await keyPair("ES256", "k1");
  });
  const keys = (): ResolveOptions["verification"] => ({ keys: { keys: [key.jwk] } });

  it("an unsigned card from an origin that served signed, verified cards is refused unless downgrade is allowed", async () => {
    const signed = await signJson(cardJson(), key);
    let signing = true;
    const s = await serve((_req, res) => sendJson(res, 200, signing ? signed : cardJson()));
    expect((await resolveAgentCard(`${s.url}/c.json`, fresh({ verification: keys() }))).verification?.verified).toBe(true);
    signing = false;
    const e = await resolveAgentCard(`${s.url}/c.json`, fresh()).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(AgentCardVerificationError);
    expect((e as AgentCardVerificationError).result.failures.map((f) => f.code)).toEqual(["signatures_dropped"]);
    expect(await resolveAgentCard(`${s.url}/c.json`, fresh({ downgrade: "allow" }))).toMatchObject({ verification: undefined });
    expect((await resolveAgentCard(`${s.url}/c.json`, fresh({ verify: "off" }))).card.name).toBe("Test Agent");
  });

  it("a card served to other credentials (another tenant's) is not taken for a downgrade of the signed one served to these", async () => {
    const signed = await signJson(cardJson(), key);
    let signing = true;
    const s = await serve((req, res) =>
      sendJson(res, 200, req.headers.authorization === "Bearer tenant-a" && signing ? signed : cardJson({ name: "Tenant B" })),
    );
    const as = (token: string, extra: ResolveOptions = {}) => fresh({ headers: { Authorization: `Bearer ${token}` }, ...extra });
    const a = await resolveAgentCard(`${s.url}/c.json`, as("tenant-a", { verification: keys() }));
    expect(a.verification?.verified).toBe(true);
    const b = await resolveAgentCard(`${s.url}/c.json`, as("tenant-b"));
    expect(b).toMatchObject({ card: { name: "Tenant B" }, verification: undefined });
    // Tenant A is still protected: its card losing its signatures is refused.
    signing = false;
    const e = await resolveAgentCard(`${s.url}/c.json`, as("tenant-a")).catch((err: unknown) => err);
    expect((e as AgentCardVerificationError).result.failures.map((f) => f.code)).toEqual(["signatures_dropped"]);
  });

  it("a newer agent's card, signed over fields this schema does not know, verifies; the card returned is parsed from it", async () => {
    const signed = await signJson(
      cardJson({ trustTier: "gold", skills: [{ id: "s1", name: "Skill", description: "Does things", tags: ["t"], price: 3 }] }),
      key,
    );
    const s = await serve((_req, res) => sendJson(res, 200, signed));
    const r = await resolveAgentCard(`${s.url}/c.json`, fresh({ verify: "required", verification: keys() }));
    expect(r.verification).toMatchObject({ verified: true, kid: "k1", keySource: "store" });
    expect(r.card.skills[0]!.name).toBe("Skill");
    expect(r.card).not.toHaveProperty("trustTier");
  });

  it("a signed 0.3 card is verified over what was sent, and a bad signature is not taken for none", async () => {
    const signed = await signJson(cardJsonV03(), key);
    let served = signed;
    const s = await serve((_req, res) => sendJson(res, 200, served));
    const r = await resolveAgentCard(`${s.url}/c.json`, fresh({ verify: "required", verification: keys() }));
    expect(r).toMatchObject({ shape: "0.3", verification: { verified: true, kid: "k1" } });
    served = { ...signed, url: "https://evil.example/a2a" };
    const e = await resolveAgentCard(`${s.url}/c.json`, fresh({ verification: keys() })).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(AgentCardVerificationError);
    expect((e as AgentCardVerificationError).result.failures.map((f) => f.code)).toEqual(["signature_invalid"]);
  });
});
