/**
 * Key sets over plain http: used by default only when both the card and the
 * key set (and every redirect on the way) are on loopback, so that a local
 * agent verifies without options while no other origin, and no DNS name
 * that merely looks local, can get an http key set accepted.
 */
import type { JWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { JwksCache, verifyAgentCard, type VerificationResult, type VerifyOptions } from "../../../src/trust.js";
import { isLoopbackUrl } from "../../../src/trust/loopback.js";
import { cardJson, keyPair, signJson, type TestKeyPair } from "../../support/cards.js";

let key: TestKeyPair;

beforeAll(async () => {
  key = await keyPair("ES256", "es");
});

/**
 * A fetch that serves the key set at `/jwks.json` of any origin and a 302
 * to `redirects[url]` where one is listed; it records every URL asked for,
 * so a test can tell that a refused URL was never fetched.
 */
function keyServer(redirects: Record<string, string> = {}) {
  const asked: string[] = [];
  const serve = (async (input: RequestInfo | URL) => {
    const url = String(input);
    asked.push(url);
    const to = redirects[url];
    if (to !== undefined) return new Response(null, { status: 302, headers: { Location: to } });
    if (new URL(url).pathname !== "/jwks.json") return new Response(null, { status: 404 });
    return new Response(JSON.stringify({ keys: [key.jwk satisfies JWK] }), { headers: { "Content-Type": "application/json" } });
  }) as typeof fetch;
  return { fetch: serve, asked };
}

const signedCard = (jku: string) => signJson(cardJson(), key, "ES256", { jku });

/** Verifies a card signed with `jku`, fetched from `cardOrigin`, through `server`. */
async function verifyAt(cardOrigin: string, jku: string, server = keyServer(), extra: Partial<VerifyOptions> = {}) {
  const signed = await signedCard(jku);
  const result = await verifyAgentCard(signed, {
    cardUrl: `${cardOrigin}/.well-known/agent-card.json`,
    fetch: server.fetch,
    ...extra,
    jku: { cache: new JwksCache(), ...extra.jku },
  });
  return { result, asked: server.asked };
}

function failureOf(result: VerificationResult) {
  expect(result.verified).toBe(false);
  return result.failures[0]!;
}

describe("http key sets by default", () => {
  it.each([
    ["http://127.0.0.1:41241", "http://127.0.0.1:41241/jwks.json"],
    ["http://127.9.8.7:8080", "http://127.9.8.7:8080/jwks.json"],
    ["http://localhost:41241", "http://localhost:41241/jwks.json"],
    ["http://[::1]:41241", "http://[::1]:41241/jwks.json"],
  ])("a card from %s verifies with its key set at %s", async (origin, jku) => {
    const { result, asked } = await verifyAt(origin, jku);
    expect(result).toMatchObject({ verified: true, keySource: "jku", jku });
    expect(asked).toEqual([jku]);
  });

  it("a loopback address however it is spelled is loopback (the URL parser writes it in dotted decimal)", async () => {
    const { result, asked } = await verifyAt("http://0x7f.1:8080", "http://2130706433:8080/jwks.json");
    expect(result.verified).toBe(true);
    expect(asked).toEqual(["http://127.0.0.1:8080/jwks.json"]);
  });

  it("a card from another origin cannot name an http key set, even one on loopback, and the message says what would allow it", async () => {
    const { result, asked } = await verifyAt("https://agent.example", "http://127.0.0.1:41241/jwks.json", keyServer(), {
      jku: { allowedOrigins: ["http://127.0.0.1:41241"] },
    });
    const failure = failureOf(result);
    expect(failure.code).toBe("jku_insecure");
    expect(failure.reason).toContain("http://127.0.0.1:41241 is not https");
    expect(failure.reason).toMatch(/both the card and the keys are on loopback.*allowHttp: true/);
    expect(asked).toEqual([]);
  });

  it("a card from loopback cannot name an http key set elsewhere, even on an allowed origin", async () => {
    const { result, asked } = await verifyAt("http://127.0.0.1:41241", "http://keys.example/jwks.json", keyServer(), {
      jku: { allowedOrigins: ["http://keys.example"] },
    });
    expect(failureOf(result).code).toBe("jku_insecure");
    expect(asked).toEqual([]);
  });

  it.each([
    "http://127.0.0.1.nip.io",
    "http://app.localhost",
    "http://localhost.example.com",
    "http://localhost.",
    "http://[::ffff:127.0.0.1]",
    "http://0.0.0.0",
  ])("%s is a name or address resolved elsewhere, not loopback: its http key set is refused", async (origin) => {
    const { result, asked } = await verifyAt(origin, `${origin}/jwks.json`);
    expect(failureOf(result).code).toBe("jku_insecure");
    expect(asked).toEqual([]);
  });

  it("a redirect from a loopback key set to http elsewhere is refused before it is followed", async () => {
    const jku = "http://127.0.0.1:41241/jwks-moved";
    const server = keyServer({ [jku]: "http://keys.example/jwks.json" });
    const { result, asked } = await verifyAt("http://127.0.0.1:41241", jku, server, {
      jku: { allowedOrigins: ["http://127.0.0.1:41241", "http://keys.example"] },
    });
    expect(failureOf(result).code).toBe("jku_redirect");
    expect(asked).toEqual([jku]);
  });

  it("a key set cached by a caller with allowHttp is not served to one whose default refuses how it was fetched", async () => {
    const jku = "http://127.0.0.1:41241/jwks-moved";
    const server = keyServer({ [jku]: "http://keys.example/jwks.json" });
    const cache = new JwksCache();
    const allowedOrigins = ["http://127.0.0.1:41241", "http://keys.example"];
    const lenient = await verifyAt("http://127.0.0.1:41241", jku, server, { jku: { allowHttp: true, allowedOrigins, cache } });
    expect(lenient.result.verified).toBe(true);
    const strict = await verifyAt("http://127.0.0.1:41241", jku, server, { jku: { allowedOrigins, cache } });
    expect(failureOf(strict.result).code).toBe("jku_redirect");
  });

  it("without a cardUrl no card is known to be local: an http key set is refused", async () => {
    const signed = await signedCard("http://127.0.0.1:41241/jwks.json");
    const server = keyServer();
    const result = await verifyAgentCard(signed, {
      fetch: server.fetch,
      jku: { allowedOrigins: ["http://127.0.0.1:41241"], cache: new JwksCache() },
    });
    expect(failureOf(result).code).toBe("jku_insecure");
    expect(server.asked).toEqual([]);
  });
});

describe("allowHttp", () => {
  it("false refuses an http key set even on loopback, and says so", async () => {
    const { result, asked } = await verifyAt("http://127.0.0.1:41241", "http://127.0.0.1:41241/jwks.json", keyServer(), {
      jku: { allowHttp: false },
    });
    const failure = failureOf(result);
    expect(failure.code).toBe("jku_insecure");
    expect(failure.reason).toContain("jku.allowHttp is false");
    expect(asked).toEqual([]);
  });

  it("true allows an http key set on the card's origin wherever it is", async () => {
    const { result } = await verifyAt("http://agent.example", "http://agent.example/jwks.json", keyServer(), { jku: { allowHttp: true } });
    expect(result.verified).toBe(true);
  });
});

describe("isLoopbackUrl", () => {
  it.each([
    ["http://localhost/", true],
    ["http://LOCALHOST:1/", true],
    ["http://127.0.0.1/", true],
    ["http://127.255.255.254/", true],
    ["http://127.1/", true],
    ["https://[::1]:8443/", true],
    ["http://[0:0:0:0:0:0:0:1]/", true],
    ["http://128.0.0.1/", false],
    ["http://127.0.0.1.nip.io/", false],
    ["http://a.localhost/", false],
    ["http://localhost./", false],
    ["http://[::ffff:7f00:1]/", false],
    ["http://[::2]/", false],
  ])("%s: %s", (url, expected) => {
    expect(isLoopbackUrl(new URL(url))).toBe(expected);
  });
});

describe("loopback names of one port", () => {
  it.each(["http://127.0.0.1:41241/jwks.json", "http://[::1]:41241/jwks.json"])(
    "a card fetched as localhost may name its keys at %s, an address localhost reaches on the same port",
    async (jku) => {
      const { result, asked } = await verifyAt("http://localhost:41241", jku);
      expect(result).toMatchObject({ verified: true, keySource: "jku", jku });
      expect(asked).toEqual([jku]);
    },
  );

  it("a redirect from localhost to 127.0.0.1 on the same port is followed", async () => {
    const jku = "http://localhost:41241/jwks-moved";
    const { result, asked } = await verifyAt("http://localhost:41241", jku, keyServer({ [jku]: "http://127.0.0.1:41241/jwks.json" }));
    expect(result.verified).toBe(true);
    expect(asked).toEqual([jku, "http://127.0.0.1:41241/jwks.json"]);
  });

  it.each([
    ["http://127.0.0.1:41241", "http://localhost:41241/jwks.json", "http://localhost:41241"],
    ["http://127.0.0.1:41241", "http://[::1]:41241/jwks.json", "http://[::1]:41241"],
    ["http://[::1]:41241", "http://127.0.0.1:41241/jwks.json", "http://127.0.0.1:41241"],
  ])(
    "a card fetched from the address %s may not name %s, and the refusal says they differ only as loopback names",
    async (card, jku, origin) => {
      const { result, asked } = await verifyAt(card, jku);
      const failure = failureOf(result);
      expect(failure.code).toBe("jku_not_allowed");
      expect(failure.reason).toContain(`${origin} is not an allowed key origin (allowed: ${card})`);
      expect(failure.reason).toContain(`differs from ${card} only as another loopback name for the same port`);
      expect(failure.reason).toContain(`fetch the card from ${origin}`);
      expect(failure.reason).toContain(`verification: { jku: { allowedOrigins: ["${card}","${origin}"] } }`);
      expect(asked).toEqual([]);
    },
  );

  it.each([
    ["another port", "http://127.0.0.1:41242/jwks.json"],
    ["another loopback address", "http://127.0.0.2:41241/jwks.json"],
    ["another scheme", "https://127.0.0.1:41241/jwks.json"],
  ])("a card fetched as localhost may not name its keys on %s", async (_what, jku) => {
    const { result, asked } = await verifyAt("http://localhost:41241", jku);
    const failure = failureOf(result);
    expect(failure.code).toBe("jku_not_allowed");
    expect(failure.reason).not.toContain("loopback name");
    expect(asked).toEqual([]);
  });

  it("allowedOrigins given are taken as written: localhost alone does not allow 127.0.0.1", async () => {
    const { result } = await verifyAt("http://localhost:41241", "http://127.0.0.1:41241/jwks.json", keyServer(), {
      jku: { allowedOrigins: ["http://localhost:41241"] },
    });
    expect(failureOf(result).reason).toContain("differs from http://localhost:41241 only as another loopback name for the same port");
  });
});

describe("a refused key origin", () => {
  it("names the allowed origins and the option that would allow it", async () => {
    const { result } = await verifyAt("https://agent.example", "https://keys.example/jwks.json");
    const failure = failureOf(result);
    expect(failure.code).toBe("jku_not_allowed");
    expect(failure.reason).toBe(
      'https://keys.example is not an allowed key origin (allowed: https://agent.example); to trust key sets there, pass verification: { jku: { allowedOrigins: ["https://agent.example","https://keys.example"] } } to connect() or resolveAgentCard() (jku: { allowedOrigins } to verifyAgentCard())',
    );
  });

  it("of a card that came from no known URL names cardUrl, for an https key set as for an http one", async () => {
    for (const jku of ["https://keys.example/jwks.json", "http://127.0.0.1:41241/jwks.json"]) {
      const server = keyServer();
      const result = await verifyAgentCard(await signedCard(jku), { fetch: server.fetch, jku: { cache: new JwksCache() } });
      const failure = failureOf(result);
      expect(failure.reason).toContain("where the card came from is not known: pass cardUrl, the URL it was fetched from");
      expect(server.asked).toEqual([]);
    }
  });
});
