/**
 * The extended card of a newer agent: signed over fields this schema does not
 * know, it verifies over the JSON the agent sent on JSON-RPC and HTTP+JSON
 * (1.0 and 0.3 wires), and the card adopted is read from that JSON. The
 * official server drops unknown fields when it serialises a card, so these
 * agents are fakes; gRPC (binary) gets the normalised form, and says why a
 * signature over unknown fields cannot be checked.
 */
import type { ServerHttp2Stream } from "node:http2";
import { inspect } from "node:util";
import { equals, fromJson, toBinary, type JsonValue } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  A2AClient,
  AgentCardSchema,
  AgentCardVerificationError,
  AgentSession,
  InvalidAgentCardError,
  MemoryCardStore,
  type A2ATransport,
  type AgentCard,
  type HttpTransportOptions,
} from "../../../src/index.js";
import {
  createGrpcTransport,
  connect,
  createJsonRpcTransport,
  createJsonRpcTransportV03,
  createRestTransport,
  createRestTransportV03,
} from "../../../src/node.js";
import { JwksCache, signAgentCard } from "../../../src/trust.js";
import { cardJson, cardJsonV03, keyPair, signJson, type TestKeyPair } from "../../support/cards.js";
import { sendJson, startFakeServer, type FakeServer } from "../../support/fake-server.js";
import { frame, useFakeGrpcServer } from "../../support/fake-grpc-server.js";
import { deadPort } from "../../support/ports.js";
import { errorSurfaces } from "../../support/surfaces.js";

let key: TestKeyPair;
let server: FakeServer;
/** The JSON text the fake agent answers GetExtendedAgentCard with (the result, or the whole body). */
let served = "";

beforeAll(async () => {
  key = await keyPair("ES256", "agent-key");
  server = await startFakeServer((req, res, body) => {
    if (req.url === "/jsonrpc") {
      const { id } = JSON.parse(body) as { id: number };
      const text = `{"jsonrpc":"2.0","id":${id},"result":${served}}`;
      res.writeHead(200, { "Content-Type": "application/json" });
      return res.end(text);
    }
    if (req.url === "/rest/extendedAgentCard" || req.url === "/rest/v1/card") {
      res.writeHead(200, { "Content-Type": "application/json" });
      return res.end(served);
    }
    sendJson(res, 404, {});
  });
});
afterAll(() => server.close());

/** A card of a newer schema: members this one does not know, at the top and nested. */
function newerCard(): Record<string, unknown> {
  const base = cardJson({ description: "The extended card" });
  return {
    ...base,
    skills: [...(base.skills as object[]), { id: "secret", name: "Secret", description: "Extended only", tags: [], riskLevel: "low" }],
    trustRegistry: { url: "https://registry.example.com", level: 3 },
  };
}

/** A 0.3 agent's card with a member 0.3 does not have. */
function newerCardV03(): Record<string, unknown> {
  const { securitySchemes: _s, security: _q, ...base } = cardJsonV03({ description: "The extended card" });
  return { ...base, skills: [{ id: "secret", name: "Secret", description: "Extended only", tags: [] }], trustRegistry: { level: 3 } };
}

const publicCard = (): AgentCard =>
  fromJson(AgentCardSchema, cardJson({ capabilities: { extendedAgentCard: true } }) as JsonValue, { ignoreUnknownFields: true });

/** A session whose public card was signed and verified: the extended card must verify too. */
function sessionOver(transport: A2ATransport): AgentSession {
  return new AgentSession(
    new A2AClient(transport),
    { card: publicCard(), url: `${server.url}/.well-known/agent-card.json`, verification: { verified: true, failures: [] } },
    { verify: "off", verification: { keys: { keys: [key.jwk] } } },
  );
}

const WIRES: ReadonlyArray<{ name: string; v03: boolean; transport: (o?: Partial<HttpTransportOptions>) => A2ATransport }> = [
  { name: "JSON-RPC 1.0", v03: false, transport: (o) => createJsonRpcTransport({ baseUrl: `${server.url}/jsonrpc`, ...o }) },
  { name: "HTTP+JSON 1.0", v03: false, transport: (o) => createRestTransport({ baseUrl: `${server.url}/rest`, ...o }) },
  { name: "JSON-RPC 0.3", v03: true, transport: (o) => createJsonRpcTransportV03({ baseUrl: `${server.url}/jsonrpc`, ...o }) },
  { name: "HTTP+JSON 0.3", v03: true, transport: (o) => createRestTransportV03({ baseUrl: `${server.url}/rest`, ...o }) },
];

const skills = (card: AgentCard) => card.skills.map((s) => s.id);

async function refusal(s: AgentSession): Promise<AgentCardVerificationError> {
  const e = await s.extendedCard().catch((err: unknown) => err);
  expect(e).toBeInstanceOf(AgentCardVerificationError);
  expect(s.card).toBe(s.publicCard);
  return e as AgentCardVerificationError;
}

describe.each(WIRES)("$name", ({ v03, transport }) => {
  const signedNewer = () => signJson(v03 ? newerCardV03() : newerCard(), key);

  it("a newer agent's extended card, signed over fields this schema does not know, verifies and replaces the public card", async () => {
    served = JSON.stringify(await signedNewer());
    const s = sessionOver(transport());
    const card = await s.extendedCard();
    expect(s.card).toBe(card);
    expect(skills(card)).toContain("secret");
    expect(card.description).toBe("The extended card");
    expect(s.extendedCardVerification).toMatchObject({ verified: true, kid: "agent-key" });
    // Fields outside the schema are verified, not carried.
    expect(Object.keys(card)).not.toContain("trustRegistry");
  });

  it("the card adopted is read again from the verified JSON, not the message handed through the call", async () => {
    served = JSON.stringify(await signedNewer());
    let handed: AgentCard | undefined;
    const record: Interceptor = (next) => async (req) => {
      const res = await next(req);
      handed = res.message as AgentCard;
      return res;
    };
    const s = sessionOver(transport({ interceptors: [record] }));
    const card = await s.extendedCard();
    expect(handed).toBeDefined();
    expect(card).not.toBe(handed);
    expect(equals(AgentCardSchema, card, handed!)).toBe(true);
  });

  it("a card changed after signing is refused: a known member, or a member this schema does not know", async () => {
    const signed = await signedNewer();
    served = JSON.stringify({ ...signed, description: "all your base" });
    expect((await refusal(sessionOver(transport()))).result.failures.map((f) => f.code)).toEqual(["signature_invalid"]);
    served = JSON.stringify({ ...signed, trustRegistry: { level: 0 } });
    expect((await refusal(sessionOver(transport()))).result.failures.map((f) => f.code)).toEqual(["signature_invalid"]);
  });

  it("a message changed by an interceptor is checked as it is, not passed on the strength of the JSON", async () => {
    served = JSON.stringify(await signedNewer());
    const tamper: Interceptor = (next) => async (req) => {
      const res = await next(req);
      (res.message as AgentCard).description = "all your base";
      return res;
    };
    const e = await refusal(sessionOver(transport({ interceptors: [tamper] })));
    expect(e.result.failures.map((f) => f.code)).toEqual(["signature_invalid"]);
  });

  it("stripping the signatures from the JSON does not pass, since the public card verified", async () => {
    const { signatures: _gone, ...unsigned } = await signedNewer();
    served = JSON.stringify(unsigned);
    expect((await refusal(sessionOver(transport()))).result.failures.map((f) => f.code)).toEqual(["no_signatures"]);
  });
});

it("an extended card that repeats a key is refused as an invalid card, naming the key", async () => {
  const text = JSON.stringify(await signJson(newerCard(), key));
  // The verifier and a reader that keeps the first value would see different cards.
  served = text.replace(/^\{/, '{"description":"all your base",');
  const s = sessionOver(WIRES[0]!.transport());
  const e = await s.extendedCard().catch((err: unknown) => err);
  expect(e).toBeInstanceOf(InvalidAgentCardError);
  expect(e).toMatchObject({ problem: "duplicate-key", message: expect.stringContaining("$.result.description") as unknown });
  expect(s.card).toBe(s.publicCard);
});

describe("gRPC: the card arrives in binary, only its normalised form can be verified", () => {
  const grpc = useFakeGrpcServer();
  /** The binary card, then an unknown field 999 (a string): what a newer agent's card looks like to this schema. */
  let reply: Uint8Array = new Uint8Array();
  const withUnknownField = (card: AgentCard) =>
    Uint8Array.from([...toBinary(AgentCardSchema, card), 0xba, 0x3e, 0x05, ...new TextEncoder().encode("newer")]);
  const respond = (stream: ServerHttp2Stream) => {
    stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
    stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
    stream.end(frame(reply));
  };
  const session = () => {
    grpc.handler = respond;
    return sessionOver(createGrpcTransport({ baseUrl: `127.0.0.1:${grpc.port}` }));
  };
  const extended = () => fromJson(AgentCardSchema, newerCard() as JsonValue, { ignoreUnknownFields: true });

  it("a card signed over members this client does not know fails, and the reason says why", async () => {
    // Signed over the JSON the agent would send; over gRPC the unknown member is bytes.
    const signed = await signJson(newerCard(), key);
    reply = withUnknownField(fromJson(AgentCardSchema, signed as JsonValue, { ignoreUnknownFields: true }));
    const e = await refusal(session());
    expect(e.result.failures).toHaveLength(1);
    expect(e.result.failures[0]).toMatchObject({ code: "signature_invalid" });
    expect(e.result.failures[0]!.reason).toContain("the card carries fields this client does not know");
    expect(e.message).toContain("can be verified in its normalised form only");
  });

  it("a card signed over its normalised form verifies, unknown fields and all", async () => {
    reply = withUnknownField(await signAgentCard(extended(), key.privateKey, { kid: key.kid }));
    const s = session();
    const card = await s.extendedCard();
    expect(skills(card)).toContain("secret");
    expect(s.extendedCardVerification).toMatchObject({ verified: true, kid: "agent-key" });
  });

  it("without unknown fields, a signature that does not match says nothing about them", async () => {
    const card = await signAgentCard(extended(), key.privateKey, { kid: key.kid });
    card.description = "all your base";
    reply = toBinary(AgentCardSchema, card);
    const e = await refusal(session());
    expect(e.result.failures[0]!.reason).not.toContain("does not know");
  });
});

describe("a session over a card in hand", () => {
  it("verifies a signed extended card with the trusted keys, though the card came from no URL", async () => {
    const overJsonRpc = { supportedInterfaces: [{ url: `${server.url}/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }] };
    const card = await signJson(cardJson({ ...overJsonRpc, capabilities: { extendedAgentCard: true } }), key);
    served = JSON.stringify(await signJson(cardJson({ ...overJsonRpc, description: "The extended card" }), key));
    // As JSON.parse gives it.
    const session = await connect(JSON.parse(JSON.stringify(card)) as AgentCard, { verification: { keys: { keys: [key.jwk] } } });
    expect(session.verification?.verified).toBe(true);
    expect((await session.extendedCard()).description).toBe("The extended card");
    expect(session.extendedCardVerification).toMatchObject({ verified: true, kid: "agent-key", keySource: "store" });
  });
});

describe("key sets of a session's cards come through connect()'s fetch", () => {
  // The key set URL is reachable only through the caller's fetch (a proxy,
  // a private CA, an allow-list): connect() must use it for every card.
  const JKU = "https://127.0.0.1:1/jwks.json";
  let agent: FakeServer;
  let publicCard: Record<string, unknown> = {};
  let extendedCard: Record<string, unknown> = {};
  beforeAll(async () => {
    agent = await startFakeServer((req, res, body) => {
      if (req.url === "/card.json") return sendJson(res, 200, publicCard);
      const { id } = JSON.parse(body) as { id: number };
      sendJson(res, 200, { jsonrpc: "2.0", id, result: extendedCard });
    });
    const signed = (overrides: Record<string, unknown>) =>
      signJson(
        cardJson({
          supportedInterfaces: [{ url: `${agent.url}/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
          capabilities: { extendedAgentCard: true },
          ...overrides,
        }),
        key,
        "ES256",
        { jku: JKU },
      );
    publicCard = await signed({});
    extendedCard = await signed({ description: "The extended card" });
  });
  afterAll(() => agent.close());

  const callersFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    if (String(input) === JKU)
      return new Response(JSON.stringify({ keys: [key.jwk] }), { headers: { "Content-Type": "application/json" } });
    return fetch(input, init);
  }) as typeof fetch;
  const options = () => ({
    fetch: callersFetch,
    cache: new MemoryCardStore(),
    verify: "required" as const,
    verification: { jku: { allowedOrigins: ["https://127.0.0.1:1"], cache: new JwksCache() } },
  });

  it.each([
    // As JSON.parse gives it, which connect() takes as a card in hand.
    ["a card in hand", () => JSON.parse(JSON.stringify(publicCard)) as AgentCard],
    ["a discovered card", () => `${agent.url}/card.json`],
  ])("%s and its extended card are verified with key sets fetched through it", async (_name, target) => {
    const session = await connect(target(), options());
    expect(session.verification).toMatchObject({ verified: true, keySource: "jku", jku: JKU });
    expect((await session.extendedCard()).description).toBe("The extended card");
    expect(session.extendedCardVerification).toMatchObject({ verified: true, keySource: "jku", jku: JKU });
  });
});

it("a session that kept extended card loads by their calls' headers shows none of those headers when logged", async () => {
  const client = new A2AClient(createJsonRpcTransport({ baseUrl: `http://127.0.0.1:${await deadPort()}/a2a` }));
  const card = fromJson(AgentCardSchema, cardJson({ capabilities: { extendedAgentCard: true } }) as JsonValue);
  const session = new AgentSession(client, { card });
  const failed = await session.extendedCard({ headers: { Authorization: "Bearer kept-SECRET-1" } }).catch((e: unknown) => e);
  for (const text of errorSurfaces(failed)) expect(text).not.toContain("kept-SECRET-1");
  // A load in flight is kept under its headers meanwhile.
  const pending = session.extendedCard({ headers: { "X-Api-Key": "kept-SECRET-2" } }).catch(() => undefined);
  for (const text of [inspect(session, { depth: Infinity, showHidden: true }), JSON.stringify(session), String(session)]) {
    expect(text).not.toContain("kept-SECRET");
  }
  await pending;
});
