/**
 * Agent Card signatures: the canonical form of section 8.4.1, signing and
 * verification, key sets fetched from `jku`, policies, hostile cards, and
 * interoperation with the official @a2a-js/sdk.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { create, fromJson, toJson, type JsonValue } from "@bufbuild/protobuf";
import * as sdk from "@a2a-js/sdk";
import canonicalize from "canonicalize";
import { base64url, exportJWK, FlattenedSign, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { REQUIRED_FIELDS } from "../../../gen/lf/a2a/v1/a2a_facts.js";
import { AgentCardSchema, AgentCardSignatureSchema, type AgentCard } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { AbortedError, AgentCardVerificationError } from "../../../src/index.js";
import {
  applyVerifyPolicy,
  assertVerified,
  canonicalCardBytes,
  canonicalCardJson,
  JwksCache,
  signAgentCard,
  verifyAgentCard,
  type KeyStore,
  type VerificationFailureCode,
  type VerificationResult,
  type VerifyOptions,
} from "../../../src/trust.js";
import { cardJsonV03, keyPair, signJson, type TestKeyPair } from "../../support/cards.js";
import { sendJson, startFakeServer, type FakeServer } from "../../support/fake-server.js";
import { silentFirstFetch } from "../../support/silent-first.js";

// --- Fixtures ---------------------------------------------------------------------

type Pair = TestKeyPair;
const pair = keyPair;

let es: Pair;
let ed: Pair;
let rs: Pair;
let stranger: Pair;

/** Every REQUIRED field non-empty, a number inside a Struct, a non-ASCII character. */
const CARD_JSON = {
  name: "Café Agent",
  description: "Plans routes",
  supportedInterfaces: [{ url: "https://agent.example/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  provider: { url: "https://example.org", organization: "Example" },
  version: "1.2.0",
  capabilities: { streaming: true, extensions: [{ uri: "https://ext.example/x", params: { ratio: 1, nested: { n: 10 } } }] },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "route", name: "Route", description: "Plans a route", tags: ["maps"] }],
};

const parse = (json: unknown): AgentCard => fromJson(AgentCardSchema, json as JsonValue, { ignoreUnknownFields: true });
const card = (overrides: Record<string, unknown> = {}): AgentCard => parse({ ...CARD_JSON, ...overrides });
/** The card as it travels: ProtoJSON text, parsed again. */
const overTheWire = (c: AgentCard): AgentCard => parse(JSON.parse(JSON.stringify(toJson(AgentCardSchema, c))));
const store = (): KeyStore => ({ keys: [es.jwk, ed.jwk, rs.jwk] });

/** Signs with any protected header jose will produce, for cards a compliant signer would not make. */
async function rawSign(
  c: AgentCard,
  key: CryptoKey | Uint8Array,
  protectedHeader: Record<string, unknown>,
  extra: { header?: Record<string, unknown>; crit?: Record<string, boolean> } = {},
): Promise<AgentCard> {
  const signer = new FlattenedSign(canonicalCardBytes(c)).setProtectedHeader(protectedHeader);
  if (extra.header) signer.setUnprotectedHeader(extra.header);
  const jws = await signer.sign(key, extra.crit ? { crit: extra.crit } : undefined);
  return withSignature(c, { protected: jws.protected!, signature: jws.signature, header: jws.header });
}

function withSignature(c: AgentCard, sig: { protected: string; signature: string; header?: unknown }): AgentCard {
  const out = parse(toJson(AgentCardSchema, c));
  out.signatures.push(create(AgentCardSignatureSchema, sig as never));
  return out;
}

const encodeHeader = (h: unknown): string => base64url.encode(JSON.stringify(h));

function expectFailure(result: VerificationResult, code: VerificationFailureCode, index = 0): void {
  expect(result.verified).toBe(false);
  expect(result.failures.find((f) => f.index === index)?.code, JSON.stringify(result.failures)).toBe(code);
}

// --- Key set servers ------------------------------------------------------------------------

let home: FakeServer; // the agent's own origin
let elsewhere: FakeServer; // another origin
let homeKeys: { keys: JWK[] };

function keySetRoutes(getKeys: () => unknown) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? "";
    if (path === "/jwks.json") return sendJson(res, 200, getKeys());
    if (path === "/jwks-typed") return sendJson(res, 200, getKeys(), { "Content-Type": "application/jwk-set+json; charset=utf-8" });
    if (path === "/html") {
      res.writeHead(200, { "Content-Type": "text/html" });
      return res.end("<html></html>");
    }
    if (path === "/big") {
      // No Content-Length: the limit must hold while reading.
      res.writeHead(200, { "Content-Type": "application/json" });
      return res.end(JSON.stringify({ keys: [], pad: "x".repeat(100_000) }));
    }
    if (path === "/broken") {
      res.writeHead(200, { "Content-Type": "application/json" });
      return res.end("{");
    }
    if (path === "/error") return sendJson(res, 500, { error: "down" });
    if (path === "/redirect-in") {
      res.writeHead(302, { Location: "/jwks.json" });
      return res.end();
    }
    if (path === "/redirect-out") {
      res.writeHead(302, { Location: `${elsewhere.url}/jwks.json` });
      return res.end();
    }
    if (path === "/slow") return; // never answers
    res.writeHead(404);
    res.end();
  };
}

const fetchesOf = (s: FakeServer, path: string): number => s.requests.filter((r) => r.url === path).length;

/** Verification through the home server's key set, with a cache of its own. */
const viaJku = (extra: VerifyOptions = {}): VerifyOptions => ({
  cardUrl: `${home.url}/.well-known/agent-card.json`,
  jku: { allowHttp: true, cache: new JwksCache() },
  ...extra,
});

beforeAll(async () => {
  [es, ed, rs, stranger] = await Promise.all([pair("ES256", "es"), pair("EdDSA", "ed"), pair("RS256", "rs"), pair("ES256", "es")]);
  homeKeys = { keys: [es.jwk] };
  home = await startFakeServer(keySetRoutes(() => homeKeys));
  elsewhere = await startFakeServer(keySetRoutes(() => ({ keys: [es.jwk] })));
});

afterAll(async () => {
  await Promise.all([home?.close(), elsewhere?.close()]);
});

// --- Canonical form ---------------------------------------------------------------------------

describe("canonical form (section 8.4.1)", () => {
  const FRAGMENT = {
    name: "Example Agent",
    description: "",
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    skills: [],
  };
  const SPEC_OUTPUT = '{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}';

  it("reproduces the specification's example byte for byte on the fragment's fields", () => {
    const canon = JSON.parse(canonicalCardJson(parse(FRAGMENT))) as Record<string, unknown>;
    const restricted = Object.fromEntries(Object.keys(FRAGMENT).map((k) => [k, canon[k]]));
    expect(canonicalize(restricted)).toBe(SPEC_OUTPUT);
  });

  it("adds every REQUIRED top-level field the fragment lacks, with its default, and nothing else", () => {
    const text = canonicalCardJson(parse(FRAGMENT));
    const canon = JSON.parse(text) as Record<string, unknown>;
    const required = AgentCardSchema.fields
      .filter((f) => REQUIRED_FIELDS[AgentCardSchema.typeName]?.includes(f.number))
      .map((f) => f.jsonName);
    // Every field of the fragment is REQUIRED, so the output's keys are exactly the REQUIRED set.
    expect(Object.keys(canon).sort()).toEqual([...required].sort());
    const added = Object.keys(canon).filter((k) => !(k in FRAGMENT));
    expect(Object.fromEntries(added.map((k) => [k, canon[k]]))).toEqual({
      supportedInterfaces: [],
      version: "",
      defaultInputModes: [],
      defaultOutputModes: [],
    });
    expect(text).toBe(
      '{"capabilities":{"pushNotifications":false,"streaming":false},"defaultInputModes":[],"defaultOutputModes":[],' +
        '"description":"","name":"Example Agent","skills":[],"supportedInterfaces":[],"version":""}',
    );
  });

  it("fills REQUIRED fields inside nested messages, lists and maps, and keeps optional fields only when set", () => {
    const c = parse({
      name: "n",
      iconUrl: "", // optional, explicitly set: kept
      capabilities: { extensions: [{ uri: "u", required: false }] }, // implicit default: omitted
      provider: {},
      supportedInterfaces: [{ url: "https://a.example" }],
      skills: [{ id: "s" }],
      securitySchemes: { o: { oauth2SecurityScheme: { flows: { clientCredentials: {} } } } },
      signatures: [{ protected: "p", signature: "s" }],
    });
    expect(JSON.parse(canonicalCardJson(c))).toEqual({
      name: "n",
      description: "",
      version: "",
      iconUrl: "",
      capabilities: { extensions: [{ uri: "u" }] },
      provider: { url: "", organization: "" },
      supportedInterfaces: [{ url: "https://a.example", protocolBinding: "", protocolVersion: "" }],
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [{ id: "s", name: "", description: "", tags: [] }],
      securitySchemes: { o: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: "", scopes: {} } } } } },
    });
  });

  it("is UTF-8 of the canonical text, without signatures and without unknown fields", () => {
    const c = card({ injected: "x" });
    const signedLater = withSignature(c, { protected: "a", signature: "b" });
    expect(canonicalCardBytes(c)).toEqual(new TextEncoder().encode(canonicalCardJson(c)));
    expect(canonicalCardJson(signedLater)).toBe(canonicalCardJson(c));
    expect(canonicalCardJson(c)).not.toContain("injected");
    expect(canonicalCardJson(c)).toContain('"name":"Café Agent"');
  });
});

// --- Signing and verifying --------------------------------------------------------------------

describe("sign and verify", () => {
  it.each([
    ["ES256", () => es],
    ["EdDSA", () => ed],
    ["RS256", () => rs],
  ])("round-trips with %s", async (alg, get) => {
    const k = get();
    const signed = await signAgentCard(card(), k.privateKey, { kid: k.kid });
    const result = await verifyAgentCard(overTheWire(signed), { keys: store() });
    expect(result).toEqual({ verified: true, kid: k.kid, alg, keySource: "store", failures: [] });
  });

  it("writes the protected header the specification describes and leaves the input card alone", async () => {
    const original = card();
    const signed = await signAgentCard(original, es.privateKey, { kid: "es", jku: "https://agent.example/jwks.json" });
    expect(original.signatures).toHaveLength(0);
    expect(signed.signatures).toHaveLength(1);
    const text = new TextDecoder().decode(base64url.decode(signed.signatures[0]!.protected));
    expect(text).toBe('{"alg":"ES256","typ":"JOSE","kid":"es","jku":"https://agent.example/jwks.json"}');
  });

  it("signs with a private JWK and verifies with a store that holds it, using only its public part", async () => {
    const privateJwk = { ...(await exportJWK(es.privateKey)), kid: "es" };
    const signed = await signAgentCard(card(), privateJwk, { kid: "es" });
    expect(Object.isFrozen(privateJwk)).toBe(false);
    expect((await verifyAgentCard(signed, { keys: { keys: [privateJwk] } })).verified).toBe(true);
  });

  it("takes keys by kid, as CryptoKeys or JWKs, or from a lookup function", async () => {
    const signed = await signAgentCard(card(), ed.privateKey, { kid: "ed" });
    expect((await verifyAgentCard(signed, { keys: { ed: ed.publicKey } })).verified).toBe(true);
    expect((await verifyAgentCard(signed, { keys: { ed: ed.jwk } })).verified).toBe(true);
    const lookup = vi.fn(async (kid: string) => (kid === "ed" ? ed.publicKey : undefined));
    expect((await verifyAgentCard(signed, { keys: lookup })).verified).toBe(true);
    expect(lookup).toHaveBeenCalledWith("ed", expect.objectContaining({ alg: "EdDSA", kid: "ed", typ: "JOSE" }));
  });

  it("in a page without Web Crypto (http but not localhost), a signature fails saying so, not as a bad key", async () => {
    const signed = await signAgentCard(card(), es.privateKey, { kid: "es" });
    // What a browser gives a page in an insecure context: getRandomValues, no subtle.
    vi.stubGlobal("crypto", { getRandomValues: (a: Uint8Array) => globalThis.crypto.getRandomValues(a) });
    try {
      for (const key of [es.jwk, es.publicKey]) {
        const result = await verifyAgentCard(signed, { keys: { es: key } });
        expectFailure(result, "key_invalid");
        const reason = result.failures[0]!.reason;
        expect(reason).toMatch(/no Web Crypto \(crypto\.subtle\)/);
        expect(reason).toMatch(/secure context \(https, or http on localhost\)/);
        expect(reason).not.toMatch(/undefined/);
      }
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("keeps earlier signatures valid when another is added (key rotation)", async () => {
    const twice = await signAgentCard(await signAgentCard(card(), es.privateKey, { kid: "es" }), rs.privateKey, { kid: "rs" });
    const result = await verifyAgentCard(twice, { keys: store() });
    expect(result).toMatchObject({ verified: true, kid: "es", failures: [] });
    expect((await verifyAgentCard(twice, { keys: { rs: rs.jwk } })).failures.map((f) => f.code)).toEqual(["key_not_found"]);
  });

  it("carries an unprotected header and verifies with it", async () => {
    const signed = await signAgentCard(card(), es.privateKey, { kid: "es", header: { note: "rotated 2026" } });
    expect(signed.signatures[0]!.header).toEqual({ note: "rotated 2026" });
    expect((await verifyAgentCard(overTheWire(signed), { keys: store() })).verified).toBe(true);
  });

  it("accepts every JSON encoding that canonicalizes the same", async () => {
    const signed = await signAgentCard(card(), es.privateKey, { kid: "es" });
    const text = JSON.stringify(toJson(AgentCardSchema, signed));
    expect(text).toContain('"ratio":1,');
    const reorder = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(reorder)
        : typeof v === "object" && v !== null
          ? Object.fromEntries(
              Object.entries(v)
                .reverse()
                .map(([k, x]) => [k, reorder(x)]),
            )
          : v;
    const variants = [
      text.replace("Café", "Caf\\u00e9").replaceAll("/", "\\/"),
      JSON.stringify(reorder(JSON.parse(text))),
      text.replace('"ratio":1,', '"ratio":1.0,'),
      text.replace('"ratio":1,', '"ratio":1e0,'),
      text.replace('"ratio":1,', '"ratio":10E-1,'),
      JSON.stringify(JSON.parse(text), null, "\t \n").replaceAll('": ', '"\r\n :\t'),
    ];
    for (const variant of variants) {
      expect(variant).not.toBe(text);
      const result = await verifyAgentCard(parse(JSON.parse(variant)), { keys: store() });
      expect(result.verified, variant).toBe(true);
    }
  });

  it("rejects option mistakes when called, never at verification time", async () => {
    const c = card();
    for (const alg of ["none", "HS256", "HS512", "XX1"]) {
      await expect(verifyAgentCard(c, { algorithms: ["ES256", alg] })).rejects.toThrow(TypeError);
    }
    await expect(verifyAgentCard(c, { algorithms: ["HS256"] })).rejects.toThrow(/not an asymmetric signature algorithm/);
    await expect(verifyAgentCard(c, { cardUrl: "not a url" })).rejects.toThrow(TypeError);
    await expect(signAgentCard(c, es.privateKey, { kid: "es", alg: "HS256" })).rejects.toThrow(TypeError);
    await expect(signAgentCard(c, es.publicKey, { kid: "es" })).rejects.toThrow(/private key/);
    await expect(signAgentCard(c, es.jwk, { kid: "es" })).rejects.toThrow(/private JWK/);
  });
});

// --- Policies ------------------------------------------------------------------------------------

describe("verification policy", () => {
  it("off: skips", async () => {
    const tampered = await signAgentCard(card(), es.privateKey, { kid: "es" });
    tampered.name = "Other";
    expect(await applyVerifyPolicy(tampered, "off")).toEqual({ verified: false, skipped: true, failures: [] });
  });

  it("if-present: skips unsigned cards, verifies signed ones, throws when none verifies", async () => {
    expect(await applyVerifyPolicy(card(), "if-present", { keys: store() })).toEqual({ verified: false, skipped: true, failures: [] });
    const signed = await signAgentCard(card(), es.privateKey, { kid: "es" });
    expect((await applyVerifyPolicy(signed, "if-present", { keys: store() })).verified).toBe(true);
    signed.name = "Other";
    const error = await applyVerifyPolicy(signed, "if-present", { keys: store() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentCardVerificationError);
    const e = error as AgentCardVerificationError;
    expect(e.result.failures).toEqual([{ index: 0, kid: "es", code: "signature_invalid", reason: expect.any(String) }]);
    expect(e.message).toContain('kid "es"');
    expect(e.message).toContain("signature_invalid");
    for (const secret of [es.jwk.x!, es.jwk.y!]) expect(e.message).not.toContain(secret);
  });

  it("required: throws for unsigned cards and cards without a good signature", async () => {
    const unsigned = await applyVerifyPolicy(card(), "required", { keys: store() }).catch((e: unknown) => e);
    expect(unsigned).toBeInstanceOf(AgentCardVerificationError);
    expect((unsigned as AgentCardVerificationError).result.failures[0]!.code).toBe("no_signatures");
    const signed = await signAgentCard(card(), rs.privateKey, { kid: "rs" });
    expect((await applyVerifyPolicy(signed, "required", { keys: store() })).verified).toBe(true);
    await expect(applyVerifyPolicy(signed, "required", { keys: { keys: [es.jwk] } })).rejects.toThrow(/key_not_found/);
    await expect(applyVerifyPolicy(signed, "sometimes" as never)).rejects.toThrow(TypeError);
  });

  it("assertVerified throws the typed error with the result", () => {
    const result: VerificationResult = {
      verified: false,
      failures: [{ index: 1, kid: "k", code: "key_expired", reason: "the key expired" }],
    };
    expect(() => assertVerified(result)).toThrow(AgentCardVerificationError);
    expect(() => assertVerified(result)).toThrow(/signature 1 \(kid "k"\): key_expired/);
    expect(() => assertVerified({ verified: true, failures: [] })).not.toThrow();
  });
});

// --- Hostile cards ---------------------------------------------------------------------------------

describe("hostile cards", () => {
  const verify = (c: AgentCard, extra: VerifyOptions = {}) => verifyAgentCard(c, { keys: store(), ...extra });

  it("1. alg none", async () => {
    const c = withSignature(card(), { protected: encodeHeader({ alg: "none", typ: "JOSE", kid: "es" }), signature: "" });
    expectFailure(await verify(c), "alg_not_allowed");
  });

  it("2. HS256 keyed with the public key's bytes", async () => {
    const secret = new TextEncoder().encode(JSON.stringify(es.jwk));
    const c = await rawSign(card(), secret, { alg: "HS256", typ: "JOSE", kid: "es" });
    expectFailure(await verify(c), "alg_not_allowed");
    await expect(verify(c, { algorithms: ["HS256"] })).rejects.toThrow(TypeError);
  });

  it("3. unknown kid", async () => {
    const c = await signAgentCard(card(), stranger.privateKey, { kid: "nobody" });
    expectFailure(await verify(c), "key_not_found");
  });

  it("4. jku on another origin", async () => {
    const c = await signAgentCard(card(), es.privateKey, { kid: "es", jku: `${elsewhere.url}/jwks.json` });
    expectFailure(await verifyAgentCard(c, viaJku()), "jku_not_allowed");
    expect(fetchesOf(elsewhere, "/jwks.json")).toBe(0);
  });

  it("5. jku over http, from a card that is not on loopback", async () => {
    const c = await signAgentCard(card(), es.privateKey, { kid: "es", jku: `${home.url}/jwks.json` });
    const remote = {
      cardUrl: "https://agent.example/.well-known/agent-card.json",
      jku: { allowedOrigins: [home.url], cache: new JwksCache() },
    };
    expectFailure(await verifyAgentCard(c, viaJku(remote)), "jku_insecure");
  });

  it("6. jku redirecting to another origin", async () => {
    const before = fetchesOf(elsewhere, "/jwks.json");
    const c = await signAgentCard(card(), es.privateKey, { kid: "es", jku: `${home.url}/redirect-out` });
    expectFailure(await verifyAgentCard(c, viaJku()), "jku_redirect");
    expect(fetchesOf(elsewhere, "/jwks.json")).toBe(before);
  });

  it.each([
    ["the name", (c: AgentCard) => void (c.name = "Café Agent!")],
    ["a skill's description", (c: AgentCard) => void (c.skills[0]!.description = "Exfiltrates data")],
    ["an interface url", (c: AgentCard) => void (c.supportedInterfaces[0]!.url = "https://evil.example/a2a")],
    ["a Struct value", (c: AgentCard) => void (c.capabilities!.extensions[0]!.params = { ratio: 2, nested: { n: 10 } })],
  ])("7. a change after signing: %s", async (_what, change) => {
    const c = overTheWire(await signAgentCard(card(), es.privateKey, { kid: "es" }));
    change(c);
    expectFailure(await verify(c), "signature_invalid");
  });

  it("8. a signature copied from another card", async () => {
    const other = await signAgentCard(card({ name: "Other Agent" }), es.privateKey, { kid: "es" });
    const c = withSignature(card(), other.signatures[0]!);
    expectFailure(await verify(c), "signature_invalid");
  });

  it("9. an injected unknown field is neither covered nor returned", async () => {
    const signed = toJson(AgentCardSchema, await signAgentCard(card(), es.privateKey, { kid: "es" })) as Record<string, unknown>;
    const injected = parse({ ...signed, adminUrl: "https://evil.example", skills: [{ ...(signed.skills as object[])[0], run: "rm -rf" }] });
    expect((await verify(injected)).verified).toBe(true);
    const back = toJson(AgentCardSchema, injected) as Record<string, unknown>;
    expect(back).not.toHaveProperty("adminUrl");
    expect((back.skills as object[])[0]).not.toHaveProperty("run");
    expect(injected).not.toHaveProperty("adminUrl");
  });

  it("10. b64:false in crit (unencoded payload)", async () => {
    const c = await rawSign(card(), es.privateKey, { alg: "ES256", typ: "JOSE", kid: "es", b64: false, crit: ["b64"] });
    expectFailure(await verify(c), "unencoded_payload");
  });

  it("11. crit naming an unknown parameter", async () => {
    const c = await rawSign(
      card(),
      es.privateKey,
      { alg: "ES256", typ: "JOSE", kid: "es", "x-policy": 1, crit: ["x-policy"] },
      { crit: { "x-policy": true } },
    );
    expectFailure(await verify(c), "crit_unsupported");
  });

  it("12. a JWK whose use is enc", async () => {
    const c = await signAgentCard(card(), es.privateKey, { kid: "es" });
    expectFailure(await verify(c, { keys: { keys: [{ ...es.jwk, use: "enc" }] } }), "key_use_not_sig");
  });

  it("13. a JWK whose key_ops lack verify", async () => {
    const c = await signAgentCard(card(), es.privateKey, { kid: "es" });
    expectFailure(await verify(c, { keys: { keys: [{ ...es.jwk, key_ops: ["sign"] }] } }), "key_ops_no_verify");
  });

  it("14. a JWK whose alg differs from the header's", async () => {
    const c = await signAgentCard(card(), es.privateKey, { kid: "es" });
    expectFailure(await verify(c, { keys: { keys: [{ ...es.jwk, alg: "ES384" }] } }), "key_alg_mismatch");
  });

  it("15. one good and one bad signature: verifies, and reports the bad one", async () => {
    const bad = await signAgentCard(card(), stranger.privateKey, { kid: "es" });
    const both = await signAgentCard(bad, rs.privateKey, { kid: "rs" });
    const result = await verify(both);
    expect(result).toMatchObject({ verified: true, kid: "rs", alg: "RS256" });
    expect(result.failures).toEqual([{ index: 0, kid: "es", code: "signature_invalid", reason: expect.any(String) }]);
  });

  it("16. all signatures bad: fails, reporting each", async () => {
    const one = await signAgentCard(card(), stranger.privateKey, { kid: "es" });
    const two = await signAgentCard(one, stranger.privateKey, { kid: "ghost" });
    const result = await verify(two);
    expect(result.verified).toBe(false);
    expect(result.failures.map((f) => [f.index, f.kid, f.code])).toEqual([
      [0, "es", "signature_invalid"],
      [1, "ghost", "key_not_found"],
    ]);
  });

  it("17. a protected header that is not base64url, or not JSON", async () => {
    const good = (await signAgentCard(card(), es.privateKey, { kid: "es" })).signatures[0]!;
    expectFailure(await verify(withSignature(card(), { protected: "eyJ+/=", signature: good.signature })), "malformed_header");
    expectFailure(
      await verify(withSignature(card(), { protected: base64url.encode("{alg: ES256"), signature: good.signature })),
      "malformed_header",
    );
    expectFailure(
      await verify(withSignature(card(), { protected: base64url.encode('["ES256"]'), signature: good.signature })),
      "malformed_header",
    );
  });

  it("18. typ other than JOSE", async () => {
    const c = await rawSign(card(), es.privateKey, { alg: "ES256", typ: "JWT", kid: "es" });
    expectFailure(await verify(c), "typ_invalid");
    const lower = await rawSign(card(), es.privateKey, { alg: "ES256", typ: "jose", kid: "es" });
    expect((await verify(lower)).verified).toBe(true);
  });

  it("19. no kid", async () => {
    const c = await rawSign(card(), es.privateKey, { alg: "ES256", typ: "JOSE" });
    expectFailure(await verify(c), "missing_kid");
  });

  it("20. a parameter in both headers", async () => {
    const good = (await signAgentCard(card(), es.privateKey, { kid: "es" })).signatures[0]!;
    const c = withSignature(card(), { protected: good.protected, signature: good.signature, header: { kid: "rs" } });
    expectFailure(await verify(c), "header_conflict");
  });

  it("21. a key stored under a kid that names another kid", async () => {
    const c = await signAgentCard(card(), es.privateKey, { kid: "es" });
    expectFailure(await verify(c, { keys: { es: { ...es.jwk, kid: "other" } } }), "kid_mismatch");
  });

  it("22. an expired key", async () => {
    const c = await signAgentCard(card(), es.privateKey, { kid: "es" });
    const expired = { ...es.jwk, exp: 1_700_000_000 };
    expectFailure(await verify(c, { keys: { keys: [expired] } }), "key_expired");
    expect((await verify(c, { keys: { keys: [expired] }, now: () => 1_600_000_000_000 })).verified).toBe(true);
  });

  it("23. a header alg the key cannot do (RS256 over an EC key)", async () => {
    const sig = (await signAgentCard(card(), rs.privateKey, { kid: "rs" })).signatures[0]!;
    const c = withSignature(card(), { protected: encodeHeader({ alg: "RS256", typ: "JOSE", kid: "es" }), signature: sig.signature });
    expectFailure(await verify(c), "key_alg_mismatch");
    expectFailure(await verify(c, { keys: { es: es.publicKey } }), "key_alg_mismatch");
  });

  it("24. an empty or non-base64url signature", async () => {
    const good = (await signAgentCard(card(), es.privateKey, { kid: "es" })).signatures[0]!;
    expectFailure(await verify(withSignature(card(), { protected: good.protected, signature: "" })), "malformed_signature");
    expectFailure(await verify(withSignature(card(), { protected: good.protected, signature: "a+b/c=" })), "malformed_signature");
  });

  it("25. a card with no canonical form (lone surrogate)", async () => {
    const c = await signAgentCard(card(), es.privateKey, { kid: "es" });
    c.description = "bad \ud800";
    expectFailure(await verify(c), "canonicalization_failed", -1);
  });

  it("26. more signatures than allowed are not checked", async () => {
    let c = card();
    for (let i = 0; i < 3; i++) c = await signAgentCard(c, stranger.privateKey, { kid: `k${i}` });
    const result = await verify(c, { maxSignatures: 2 });
    expect(result.failures.map((f) => f.code)).toEqual(["key_not_found", "key_not_found", "too_many_signatures"]);
  });

  it("27. a jku when jku fetching is off", async () => {
    const c = await signAgentCard(card(), es.privateKey, { kid: "es", jku: `${home.url}/jwks.json` });
    expectFailure(await verifyAgentCard(c, viaJku({ jku: false })), "jku_not_allowed");
  });
});

// --- Key sets from jku ---------------------------------------------------------------------------

describe("key sets from jku", () => {
  const signedWith = (p: Pair, path: string) => signAgentCard(card(), p.privateKey, { kid: p.kid, jku: `${home.url}${path}` });

  it("fetches from the card's own origin and reports where the key came from", async () => {
    const result = await verifyAgentCard(await signedWith(es, "/jwks.json"), viaJku());
    expect(result).toEqual({ verified: true, kid: "es", alg: "ES256", keySource: "jku", jku: `${home.url}/jwks.json`, failures: [] });
    expect((await verifyAgentCard(await signedWith(es, "/jwks-typed"), viaJku())).verified).toBe(true);
  });

  it("follows a redirect that stays on an allowed origin", async () => {
    expect((await verifyAgentCard(await signedWith(es, "/redirect-in"), viaJku())).verified).toBe(true);
  });

  it("accepts another origin only when listed", async () => {
    const c = await signAgentCard(card(), es.privateKey, { kid: "es", jku: `${elsewhere.url}/jwks.json` });
    const result = await verifyAgentCard(c, viaJku({ jku: { allowHttp: true, allowedOrigins: [elsewhere.url], cache: new JwksCache() } }));
    expect(result.verified).toBe(true);
  });

  it("a key set repeating one kid hundreds of times: each signature is checked against a few of them, not all", async () => {
    // 400 keys that do not match, all under the signature's kid (about 60 KB, within jku.maxBytes).
    homeKeys = { keys: Array.from({ length: 400 }, () => stranger.jwk) };
    let c = await signedWith(es, "/jwks.json");
    for (let i = 0; i < 2; i++) c = withSignature(c, (await signedWith(es, "/jwks.json")).signatures[0]!);
    const checks = vi.spyOn(crypto.subtle, "verify");
    try {
      const result = await verifyAgentCard(c, viaJku());
      expect(result.verified).toBe(false);
      expect(result.failures.map((f) => f.code)).toEqual(["signature_invalid", "signature_invalid", "signature_invalid"]);
      // 3 signatures, at most 4 keys each, each over at most 2 payloads.
      expect(checks.mock.calls.length).toBeLessThanOrEqual(3 * 4 * 2);
    } finally {
      checks.mockRestore();
      homeKeys = { keys: [es.jwk] };
    }
  });

  it("an abort during the checks ends the verification there, with AbortedError", async () => {
    homeKeys = { keys: Array.from({ length: 400 }, () => stranger.jwk) };
    const controller = new AbortController();
    const checks = vi.spyOn(crypto.subtle, "verify").mockImplementation(async () => {
      controller.abort();
      return false;
    });
    try {
      const e = await verifyAgentCard(await signedWith(es, "/jwks.json"), viaJku({ signal: controller.signal })).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(AbortedError);
      expect(checks).toHaveBeenCalledTimes(1);
    } finally {
      checks.mockRestore();
      homeKeys = { keys: [es.jwk] };
    }
  });

  it("prefers the key store over the jku", async () => {
    const c = await signedWith(es, "/jwks.json");
    const before = fetchesOf(home, "/jwks.json");
    expect(await verifyAgentCard(c, viaJku({ keys: store() }))).toMatchObject({ verified: true, keySource: "store" });
    expect(fetchesOf(home, "/jwks.json")).toBe(before);
  });

  it.each([
    ["/html", "jku_invalid_response", /content type "text\/html"/],
    ["/big", "jku_invalid_response", /larger than/],
    ["/broken", "jku_invalid_response", /not valid JSON/],
    ["/error", "jku_fetch_failed", /HTTP 500/],
    ["/slow", "jku_fetch_failed", /timed out after 150 ms/],
  ] as const)("refuses %s with %s", async (path, code, reason) => {
    const result = await verifyAgentCard(await signedWith(es, path), viaJku({ timeoutMs: 150 }));
    expectFailure(result, code);
    expect(result.failures[0]!.reason).toMatch(reason);
  });

  it("caches a key set, refetches for an unknown kid at most once per cooldown, and expires it", async () => {
    homeKeys = { keys: [es.jwk] };
    const cache = new JwksCache({ maxAgeMs: 600_000, cooldownMs: 30_000 });
    let t = 1_000_000;
    const options = viaJku({ jku: { allowHttp: true, cache }, now: () => t });
    const fetches = () => fetchesOf(home, "/rotating");
    home.handle((req, res) => (req.url === "/rotating" ? sendJson(res, 200, homeKeys) : keySetRoutes(() => homeKeys)(req, res)));
    try {
      const byEs = await signedWith(es, "/rotating");
      const byEd = await signedWith(ed, "/rotating");
      const start = fetches();

      expect((await verifyAgentCard(byEs, options)).verified).toBe(true);
      expect((await verifyAgentCard(byEs, options)).verified).toBe(true);
      expect(fetches()).toBe(start + 1);

      homeKeys = { keys: [es.jwk, ed.jwk] }; // the agent rotates in a new key
      t += 1_000;
      expectFailure(await verifyAgentCard(byEd, options), "key_not_found");
      expect(fetches()).toBe(start + 1); // within the cooldown: no refetch

      t += 30_000;
      expect((await verifyAgentCard(byEd, options)).verified).toBe(true);
      expect(fetches()).toBe(start + 2);

      t += 600_000;
      expect((await verifyAgentCard(byEs, options)).verified).toBe(true);
      expect(fetches()).toBe(start + 3);
    } finally {
      homeKeys = { keys: [es.jwk] };
      home.handle(keySetRoutes(() => homeKeys));
    }
  });

  it("remembers a failed fetch for the cooldown", async () => {
    const cache = new JwksCache();
    const c = await signedWith(es, "/error");
    const before = fetchesOf(home, "/error");
    expectFailure(await verifyAgentCard(c, viaJku({ jku: { allowHttp: true, cache } })), "jku_fetch_failed");
    expectFailure(await verifyAgentCard(c, viaJku({ jku: { allowHttp: true, cache } })), "jku_fetch_failed");
    expect(fetchesOf(home, "/error")).toBe(before + 1);
  });

  it("holds a redirect a browser followed (opaque to the page) to the same origin rules", async () => {
    const c = await signedWith(es, "/jwks.json");
    // A browser hides a manual redirect's target; followed, the answer
    // tells where it came from.
    const opaque = new Response(null, { status: 200 });
    Object.defineProperty(opaque, "type", { value: "opaqueredirect" });
    const elsewhere = new Response(JSON.stringify({ keys: [es.jwk] }), { headers: { "Content-Type": "application/json" } });
    Object.defineProperty(elsewhere, "url", { value: "https://keys.elsewhere.example/jwks.json" });
    const browserFetch = async (_url: RequestInfo | URL, init?: RequestInit) => (init?.redirect === "manual" ? opaque : elsewhere);
    const result = await verifyAgentCard(c, viaJku({ fetch: browserFetch as typeof fetch }));
    expectFailure(result, "jku_redirect");
  });

  it("rejects with AbortedError when the caller aborts", async () => {
    const controller = new AbortController();
    const pending = verifyAgentCard(await signedWith(es, "/slow"), viaJku({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
  });
});

// --- Trusted keys pin; key sets are shared only where they change nothing ------------------------

describe("trusted keys pin", () => {
  // An attacker who serves a card and a key set from the agent's origin
  // (here over https, through the caller's fetch) signs with a kid the
  // caller's keys do not hold.
  let attacker: Pair;
  beforeAll(async () => {
    attacker = await pair("ES256", "attacker");
  });
  const keySetFetch = (keys: JWK[], seen: string[] = []) =>
    (async (url: RequestInfo | URL) => {
      seen.push(String(url));
      return new Response(JSON.stringify({ keys }), { headers: { "Content-Type": "application/json" } });
    }) as typeof fetch;

  it("with keys given, an unknown kid is not looked up at the card's jku", async () => {
    const c = await signAgentCard(card(), attacker.privateKey, { kid: "attacker", jku: "https://agent.example/jwks.json" });
    const seen: string[] = [];
    const options = {
      keys: { keys: [es.jwk] },
      cardUrl: "https://agent.example/.well-known/agent-card.json",
      fetch: keySetFetch([attacker.jwk], seen),
    };
    const result = await verifyAgentCard(c, { ...options, jku: undefined });
    expectFailure(result, "jku_not_allowed");
    expect(result.failures[0]!.reason).toMatch(/jku is not consulted when keys are given/);
    expect(seen).toEqual([]);
    // Asked for, the jku is consulted beside the keys.
    expect(await verifyAgentCard(c, { ...options, jku: { cache: new JwksCache() } })).toMatchObject({ verified: true, keySource: "jku" });
  });
});

describe("the key set cache serves a set only to callers who could have fetched it", () => {
  const keySetFetch = (keys: JWK[], seen: string[] = []) =>
    (async (url: RequestInfo | URL) => {
      seen.push(String(url));
      return new Response(JSON.stringify({ keys }), { headers: { "Content-Type": "application/json" } });
    }) as typeof fetch;

  it("a key set fetched through one caller's fetch is not served to a caller with another", async () => {
    const cache = new JwksCache();
    const c = await signAgentCard(card(), es.privateKey, { kid: "es", jku: "https://keys.example/jwks.json" });
    const options = (f: typeof fetch): VerifyOptions => ({
      cardUrl: "https://keys.example/.well-known/agent-card.json",
      jku: { cache },
      fetch: f,
    });
    expect((await verifyAgentCard(c, options(keySetFetch([es.jwk])))).verified).toBe(true);
    const seen: string[] = [];
    expectFailure(await verifyAgentCard(c, options(keySetFetch([], seen))), "key_not_found");
    expect(seen).toEqual(["https://keys.example/jwks.json"]);
  });

  it("a key set fetched under one caller's clock is not served to a caller with another", async () => {
    // No cooldown: a caller may refetch for an unknown kid at once, so what
    // decides is only how old the cached set is, by each caller's clock.
    const cache = new JwksCache({ cooldownMs: 0 });
    let served: JWK[] = [es.jwk];
    const f = (async () =>
      new Response(JSON.stringify({ keys: served }), { headers: { "Content-Type": "application/json" } })) as typeof fetch;
    const options = (extra: VerifyOptions = {}): VerifyOptions => ({
      cardUrl: "https://keys.example/.well-known/agent-card.json",
      jku: { cache },
      fetch: f,
      ...extra,
    });
    const jku = "https://keys.example/jwks.json";
    const byEs = await signAgentCard(card(), es.privateKey, { kid: "es", jku });
    // A caller whose clock reads a day ahead (verifying as of tomorrow).
    expect((await verifyAgentCard(byEs, options({ now: () => Date.now() + 86_400_000 }))).verified).toBe(true);
    served = [es.jwk, ed.jwk]; // the agent rotates in a new key
    const byEd = await signAgentCard(card(), ed.privateKey, { kid: "ed", jku });
    expect(await verifyAgentCard(byEd, options())).toMatchObject({ verified: true, kid: "ed", keySource: "jku" });
  });

  it("a key set fetched under wider rules is not served to a caller whose rules refuse how it was fetched", async () => {
    const cache = new JwksCache();
    const c = await signAgentCard(card(), es.privateKey, { kid: "es", jku: `${home.url}/redirect-out` });
    const lenient = viaJku({ jku: { allowHttp: true, allowedOrigins: [home.url, elsewhere.url], cache } });
    expect((await verifyAgentCard(c, lenient)).verified).toBe(true);
    // The set came through a redirect to another origin: a caller that
    // allows only the card's origin would not have accepted it.
    expectFailure(await verifyAgentCard(c, viaJku({ jku: { allowHttp: true, cache } })), "jku_redirect");
    // Nor one whose size limit is below the set's size.
    const small = await verifyAgentCard(
      c,
      viaJku({ jku: { allowHttp: true, allowedOrigins: [home.url, elsewhere.url], maxBytes: 20, cache } }),
    );
    expectFailure(small, "jku_invalid_response");
    // A failure under strict rules is not remembered for the lenient caller.
    expect((await verifyAgentCard(c, lenient)).verified).toBe(true);
  });
});

describe("one caller's end is not another's: a key set fetch shared by callers", () => {
  /** A key set `fetch` whose first request never answers and whose later ones answer with `keys`. */
  const silentFirst = (keys: JWK[]) => silentFirstFetch(() => ({ keys }));
  const options = (f: typeof fetch, cache: JwksCache, extra: VerifyOptions = {}): VerifyOptions => ({
    cardUrl: "https://keys.example/.well-known/agent-card.json",
    jku: { cache },
    fetch: f,
    ...extra,
  });
  const signedCard = () => signAgentCard(card(), es.privateKey, { kid: "es", jku: "https://keys.example/jwks.json" });

  it("a caller that joins a key set fetch another caller started still ends by its own timeoutMs and signal", async () => {
    const c = await signedCard();
    const silent = silentFirst([es.jwk]);
    const cache = new JwksCache();
    const first = new AbortController();
    const started = verifyAgentCard(c, options(silent.fetch, cache, { timeoutMs: 5_000, signal: first.signal })).catch((e: unknown) => e);
    await silent.asked;
    try {
      const joinedAt = Date.now();
      const result = await verifyAgentCard(c, options(silent.fetch, cache, { timeoutMs: 100 }));
      expect(Date.now() - joinedAt).toBeLessThan(2_000);
      expectFailure(result, "jku_fetch_failed");
      expect(result.failures[0]!.reason).toMatch(/timed out after 100 ms/);

      const own = new AbortController();
      const aborted = verifyAgentCard(c, options(silent.fetch, cache, { signal: own.signal })).catch((e: unknown) => e);
      const abortedAt = Date.now();
      own.abort();
      expect(await aborted).toBeInstanceOf(AbortedError);
      expect(Date.now() - abortedAt).toBeLessThan(500);
      expect(silent.requests()).toBe(1);
    } finally {
      first.abort();
      expect(await started).toBeInstanceOf(AbortedError);
    }
  });

  it("a key set fetch that timed out for one caller is neither passed to nor remembered for another", async () => {
    const c = await signedCard();
    const silent = silentFirst([es.jwk]);
    const cache = new JwksCache();
    const short = verifyAgentCard(c, options(silent.fetch, cache, { timeoutMs: 100 }));
    await silent.asked;
    // Joins the fetch under way, with time to spare.
    const patient = verifyAgentCard(c, options(silent.fetch, cache, { timeoutMs: 30_000 }));
    const shortResult = await short;
    expectFailure(shortResult, "jku_fetch_failed");
    expect(shortResult.failures[0]!.reason).toMatch(/timed out after 100 ms/);
    expect(await patient).toMatchObject({ verified: true, keySource: "jku" });
    // Within the cooldown, a later caller is not told of the timeout either.
    expect(await verifyAgentCard(c, options(silent.fetch, cache, { timeoutMs: 30_000 }))).toMatchObject({ verified: true });
    expect(silent.requests()).toBe(2);
  });
});

// --- Cards as received --------------------------------------------------------------------------------

describe("cards as received (forward compatibility)", () => {
  /** A card of a newer schema: fields this one does not know, at the top and nested. */
  const NEWER = { ...CARD_JSON, trustTier: "gold", skills: [{ ...CARD_JSON.skills[0], costPerCall: 3 }] };

  it("a newer agent's card, signed over fields this schema does not know, verifies as received", async () => {
    const signed = await signJson(NEWER, es);
    expect(await verifyAgentCard(signed, { keys: store() })).toMatchObject({ verified: true, kid: "es", keySource: "store" });
    expect(await verifyAgentCard(JSON.stringify(signed), { keys: store() })).toMatchObject({ verified: true, kid: "es" });
    await expect(applyVerifyPolicy(signed, "required", { keys: store() })).resolves.toMatchObject({ verified: true });
    // Parsed, the card has lost those fields: its normalised form is not what was signed.
    expectFailure(await verifyAgentCard(parse(signed), { keys: store() }), "signature_invalid");
  });

  it("a change to a field this schema does not know breaks the signature", async () => {
    const signed = await signJson(NEWER, es);
    expectFailure(await verifyAgentCard({ ...signed, trustTier: "platinum" }, { keys: store() }), "signature_invalid");
  });

  it("a card signed in the normalised form verifies as received; fields added after signing are neither covered nor kept", async () => {
    const signed = toJson(AgentCardSchema, await signAgentCard(card({ description: "" }), es.privateKey, { kid: "es" })) as Record<
      string,
      unknown
    >;
    expect(signed).not.toHaveProperty("description"); // ProtoJSON omits it; the normalised form has it
    expect((await verifyAgentCard(signed, { keys: store() })).verified).toBe(true);
    // Passes through the normalised form, which the added field is not part of.
    expect((await verifyAgentCard({ ...signed, adminUrl: "https://evil.example" }, { keys: store() })).verified).toBe(true);
    expect(parse({ ...signed, adminUrl: "https://evil.example" })).not.toHaveProperty("adminUrl");
  });

  it("a hand-written newer card, signed over the normalised form of the fields this schema knows with the others as received, verifies as received; any change breaks it", async () => {
    // As written by hand: empties the normalised form drops (section 8.4.1), beside fields this schema does not know, at the top and nested.
    const iface = CARD_JSON.supportedInterfaces[0]!;
    const skill = CARD_JSON.skills[0]!;
    const written = {
      ...CARD_JSON,
      securitySchemes: {},
      supportedInterfaces: [{ ...iface, tenant: "", region: "eu-west" }],
      skills: [{ ...skill, examples: [], costPerCall: 3 }],
      trustTier: "gold",
    };
    // What a signer applying section 8.4.1 with the fields it knows makes of it: the empties gone, the rest as written.
    const signerForm = {
      ...CARD_JSON,
      supportedInterfaces: [{ ...iface, region: "eu-west" }],
      skills: [{ ...skill, costPerCall: 3 }],
      trustTier: "gold",
    };
    const { signatures } = await signJson(signerForm, es);
    const card = { ...written, signatures };
    expect(await verifyAgentCard(card, { keys: store() })).toMatchObject({ verified: true, kid: "es" });
    expect((await verifyAgentCard(JSON.stringify(card), { keys: store() })).verified).toBe(true);
    // The card returned is parsed from it: the fields this schema knows.
    expect(parse(card)).not.toHaveProperty("trustTier");
    // Any change, to a field this schema knows or not, at the top or nested, or one added, breaks it.
    const changed = [
      { ...card, trustTier: "platinum" },
      { ...card, supportedInterfaces: [{ ...written.supportedInterfaces[0], region: "us-east" }] },
      { ...card, skills: [{ ...written.skills[0], costPerCall: 0 }] },
      { ...card, description: "Plans other routes" },
      { ...card, supportedInterfaces: [{ ...written.supportedInterfaces[0], url: "https://evil.example/a2a" }] },
      { ...card, adminUrl: "https://evil.example" },
      { ...card, skills: [{ ...written.skills[0], examples: ["added"] }] },
    ];
    for (const c of changed) expectFailure(await verifyAgentCard(c, { keys: store() }), "signature_invalid");
  });

  it("refuses received text that repeats a key or is not a JSON object", async () => {
    const signed = JSON.stringify(await signJson(NEWER, es));
    expectFailure(
      await verifyAgentCard(signed.replace('{"name":', '{"name":"Evil","name":'), { keys: store() }),
      "canonicalization_failed",
      -1,
    );
    expectFailure(await verifyAgentCard("[1]", { keys: store() }), "canonicalization_failed", -1);
    expectFailure(await verifyAgentCard("{", { keys: store() }), "canonicalization_failed", -1);
  });

  it("reads the signatures of received JSON, refusing malformed ones", async () => {
    const signed = await signJson(NEWER, es);
    const sig = (signed.signatures as Record<string, unknown>[])[0]!;
    expectFailure(await verifyAgentCard({ ...signed, signatures: [{ ...sig, protected: 1 }] }, { keys: store() }), "malformed_header");
    expectFailure(
      await verifyAgentCard({ ...signed, signatures: [{ ...sig, signature: null }] }, { keys: store() }),
      "malformed_signature",
    );
    // A `signatures` member that is not a list is no way to pass as unsigned.
    await expect(applyVerifyPolicy({ ...signed, signatures: sig }, "if-present", { keys: store() })).rejects.toBeInstanceOf(
      AgentCardVerificationError,
    );
    await expect(applyVerifyPolicy(NEWER, "if-present", {})).resolves.toMatchObject({ skipped: true });
  });

  it("a 0.3 card is verified over the members it was sent with", async () => {
    const signed = await signJson(cardJsonV03(), es);
    expect((await verifyAgentCard(signed, { keys: store() })).verified).toBe(true);
    expectFailure(await verifyAgentCard({ ...signed, url: "https://evil.example/a2a" }, { keys: store() }), "signature_invalid");
  });
});

// --- Interoperation with @a2a-js/sdk ---------------------------------------------------------------

describe("interop with @a2a-js/sdk", () => {
  type TheirCard = ReturnType<typeof sdk.AgentCard.fromJSON>;
  const toTheirs = (c: AgentCard): TheirCard => sdk.AgentCard.fromJSON(toJson(AgentCardSchema, c));
  const fromTheirs = (c: TheirCard): AgentCard => parse(sdk.AgentCard.toJSON(c));
  const theirSign = (c: TheirCard) => sdk.generateAgentCardSignature(es.privateKey, { alg: "ES256", kid: "es", typ: "JOSE" })(c);
  const theirVerify = (c: TheirCard) => sdk.verifyAgentCardSignature(async (kid) => ({ es: es.jwk, rs: rs.jwk, ed: ed.jwk })[kid]!)(c);

  // The official verifier logs each failed signature at debug level.
  beforeAll(() => void vi.spyOn(console, "debug").mockImplementation(() => undefined));
  afterAll(() => vi.restoreAllMocks());

  it("agrees on the canonical form when no REQUIRED field is empty", () => {
    expect(sdk.canonicalizeAgentCard(toTheirs(card()))).toBe(canonicalCardJson(card()));
  });

  it("verifies their signature, and they verify ours (ES256, EdDSA, RS256)", async () => {
    const theirs = await theirSign(toTheirs(card()));
    expect(await verifyAgentCard(fromTheirs(theirs), { keys: store() })).toMatchObject({ verified: true, kid: "es" });
    for (const k of [es, ed, rs]) {
      const ours = await signAgentCard(card(), k.privateKey, { kid: k.kid });
      await expect(theirVerify(toTheirs(ours))).resolves.toBeUndefined();
    }
  });

  it('departs on an empty REQUIRED field: they omit description "", so neither side verifies the other', async () => {
    const c = card({ description: "" });
    const theirText = sdk.canonicalizeAgentCard(toTheirs(c));
    const ourText = canonicalCardJson(c);
    expect(ourText).toContain('"description":""');
    expect(JSON.parse(theirText)).not.toHaveProperty("description");
    expect(theirText).toBe(ourText.replace('"description":"",', ""));

    expectFailure(await verifyAgentCard(fromTheirs(await theirSign(toTheirs(c))), { keys: store() }), "signature_invalid");
    await expect(theirVerify(toTheirs(await signAgentCard(c, es.privateKey, { kid: "es" })))).rejects.toThrow(/No valid signatures/);
  });

  it("departs on the specification's own example: they drop description and skills", () => {
    const fragment = {
      name: "Example Agent",
      description: "",
      capabilities: { streaming: false, pushNotifications: false, extensions: [] },
      skills: [],
    };
    expect(sdk.canonicalizeAgentCard(sdk.AgentCard.fromJSON(fragment))).toBe(
      '{"capabilities":{"pushNotifications":false,"streaming":false},"name":"Example Agent"}',
    );
  });

  it("departs inside Struct values: they drop empty strings there too", () => {
    const c = card({ capabilities: { extensions: [{ uri: "https://ext.example/x", params: { mode: "", ratio: 1 } }] } });
    expect(canonicalCardJson(c)).toContain('"params":{"mode":"","ratio":1}');
    expect(sdk.canonicalizeAgentCard(toTheirs(c))).toContain('"params":{"ratio":1}');
  });

  it("departs on security schemes: their typed card loses them, so they are not signed", async () => {
    const c = card({
      securitySchemes: { key: { apiKeySecurityScheme: { location: "header", name: "X-Key" } } },
      securityRequirements: [{ schemes: { key: { list: [] } } }],
    });
    const theirText = sdk.canonicalizeAgentCard(toTheirs(c));
    expect(theirText).not.toContain("securitySchemes");
    expect(theirText).not.toContain("securityRequirements");
    expect(canonicalCardJson(c)).toContain('"securitySchemes":{"key":{"apiKeySecurityScheme":{"location":"header","name":"X-Key"}}}');

    // Swapping the scheme after they signed goes unnoticed by their verifier; ours refuses.
    const signed = await theirSign(toTheirs(c));
    const swapped = fromTheirs(signed);
    const scheme = swapped.securitySchemes.key!.scheme;
    if (scheme.case === "apiKeySecurityScheme") scheme.value.name = "X-Exfiltrate";
    await expect(theirVerify(toTheirs(swapped))).resolves.toBeUndefined();
    expectFailure(await verifyAgentCard(swapped, { keys: store() }), "signature_invalid");
    // And a card with a scheme signed by us does not verify there.
    await expect(theirVerify(toTheirs(await signAgentCard(c, es.privateKey, { kid: "es" })))).rejects.toThrow(/No valid signatures/);
  });
});
