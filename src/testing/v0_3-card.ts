/**
 * The test agent's card where it serves A2A 0.3: where its 0.3 interfaces
 * are, and the card as a 0.3 agent publishes it (specification 0.3, 5.5
 * and 5.6): the main `url` with its `preferredTransport`, every interface
 * in `additionalInterfaces`, `protocolVersion`, the extended card under
 * `supportsAuthenticatedExtendedCard`, security schemes with a `type`
 * discriminator and requirements as scheme -> scopes. It is written from
 * the agent's 1.0 card, whose members a test lays over the card in 1.0's
 * shape whichever version it serves: the reverse of what the client reads
 * a 0.3 card with (v0_3/card.ts). An agent that serves both versions
 * publishes its 1.0 card with the 0.3 members beside them, as the official
 * SDKs' servers do, so a 0.3 client finds its interface too.
 */
import type { AgentCardJson } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { isRecord } from "../base/is-record.js";
import type { TestBinding } from "./card.js";

type Json = Record<string, unknown>;

/** A protocol version the test agent speaks. @category Testing */
export type TestVersion = "1.0" | "0.3";

/** The version a 0.3 card says it speaks. */
const V03_PROTOCOL_VERSION = "0.3.0";

/** Where each binding is served on the 0.3 wire, under the agent's origin: beside the 1.0 ones, so one agent serves both. */
export const INTERFACE_PATHS_V03: Readonly<Record<Exclude<TestBinding, "GRPC">, string>> = {
  JSONRPC: "/v0.3/jsonrpc",
  "HTTP+JSON": "/v0.3/rest",
};

/** Whether an interface of the 1.0 card is one of the 0.3 wire. */
const isV03 = (i: { protocolVersion?: string }) => i.protocolVersion?.startsWith("0.3") === true;

/**
 * The card as served: the 1.0 card where it speaks only 1.0, the 0.3 card
 * where only 0.3, and where it speaks both the 1.0 card with the 0.3
 * members of its 0.3 interfaces beside its own.
 */
export function servedCard(card: AgentCardJson, versions: readonly TestVersion[]): Json {
  if (!versions.includes("0.3")) return card as Json;
  if (!versions.includes("1.0")) return cardJsonV03(card, "schema");
  const { url, preferredTransport, additionalInterfaces, protocolVersion, supportsAuthenticatedExtendedCard } = cardJsonV03(card, "schema");
  return { ...card, url, preferredTransport, additionalInterfaces, protocolVersion, supportsAuthenticatedExtendedCard };
}

/**
 * The 0.3 card of the agent's 1.0 card: its 0.3 interfaces, the first the
 * main one. `form` is the 0.3 JSON schema's (the card at the well-known
 * path, JSON-RPC's extended card) or the 0.3 proto's JSON (HTTP+JSON's
 * `/v1/card`), which differ only in how they write security: the proto
 * keeps 1.0's one member per scheme kind, and requirements as lists.
 */
export function cardJsonV03(card: AgentCardJson, form: "schema" | "proto"): Json {
  const { supportedInterfaces, capabilities, securitySchemes, securityRequirements, skills, ...rest } = card;
  const interfaces = (supportedInterfaces ?? []).filter(isV03);
  const { extendedAgentCard, ...caps } = capabilities ?? {};
  const out: Json = {
    ...rest,
    protocolVersion: V03_PROTOCOL_VERSION,
    url: interfaces[0]?.url ?? "",
    preferredTransport: interfaces[0]?.protocolBinding ?? "JSONRPC",
    additionalInterfaces: interfaces.map((i) => ({ url: i.url, transport: i.protocolBinding })),
    capabilities: caps,
    supportsAuthenticatedExtendedCard: extendedAgentCard ?? false,
  };
  const requirement = form === "schema" ? requirementV03 : (r: unknown) => r;
  if (securitySchemes) {
    out.securitySchemes =
      form === "schema" ? Object.fromEntries(Object.entries(securitySchemes).map(([k, s]) => [k, schemeV03(s)])) : securitySchemes;
  }
  if (securityRequirements) out.security = securityRequirements.map(requirement);
  if (skills) {
    out.skills = skills.map(({ securityRequirements: skillSecurity, ...skill }) =>
      skillSecurity ? { ...skill, security: skillSecurity.map(requirement) } : skill,
    );
  }
  return out;
}

/** 1.0: `{ "schemes": { "oauth": { "list": ["read"] } } }`; 0.3: `{ "oauth": ["read"] }`. */
function requirementV03(req: unknown): Json {
  const schemes = isRecord(req) && isRecord(req.schemes) ? req.schemes : {};
  return Object.fromEntries(Object.entries(schemes).map(([name, s]) => [name, isRecord(s) && Array.isArray(s.list) ? s.list : []]));
}

/** 1.0 wraps each kind of scheme in a member of its own; 0.3 names the kind in `type`. */
function schemeV03(scheme: unknown): unknown {
  if (!isRecord(scheme)) return scheme;
  const {
    apiKeySecurityScheme: apiKey,
    httpAuthSecurityScheme,
    oauth2SecurityScheme,
    openIdConnectSecurityScheme,
    mtlsSecurityScheme,
  } = scheme;
  if (isRecord(apiKey)) {
    const { location, ...s } = apiKey;
    return { type: "apiKey", ...s, in: location };
  }
  if (isRecord(httpAuthSecurityScheme)) return { type: "http", ...httpAuthSecurityScheme };
  if (isRecord(oauth2SecurityScheme)) return { type: "oauth2", ...oauth2SecurityScheme };
  if (isRecord(openIdConnectSecurityScheme)) return { type: "openIdConnect", ...openIdConnectSecurityScheme };
  if (isRecord(mtlsSecurityScheme)) return { type: "mutualTLS", ...mtlsSecurityScheme };
  return scheme;
}
