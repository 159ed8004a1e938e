/**
 * Agent Cards of protocol 0.3 in the 1.0 shape, so that callers see one card
 * type (see ../shared spec "what's new in v1": card structure changes).
 * Which cards are 0.3 cards is card-version.ts's.
 */
import { isRecord } from "../base/is-record.js";

type Json = Record<string, unknown>;

/** Rewrites a 0.3 card's JSON into the 1.0 JSON shape; unknown fields are left for the parser to drop. */
export function cardV03ToV1(json: Json): Json {
  const {
    url,
    preferredTransport,
    additionalInterfaces,
    protocolVersion,
    supportsAuthenticatedExtendedCard,
    security,
    securitySchemes,
    skills,
    capabilities,
    ...rest
  } = json;
  const version = typeof protocolVersion === "string" && protocolVersion !== "" ? protocolVersion : "0.3";

  const interfaces: Json[] = [];
  const add = (u: unknown, binding: unknown) => {
    if (typeof u !== "string") return;
    const protocolBinding = typeof binding === "string" && binding !== "" ? binding : "JSONRPC";
    if (interfaces.some((i) => i.url === u && i.protocolBinding === protocolBinding)) return;
    interfaces.push({ url: u, protocolBinding, protocolVersion: version });
  };
  // The main URL speaks the preferred transport; the card lists it first.
  add(url, preferredTransport);
  if (Array.isArray(additionalInterfaces)) {
    for (const i of additionalInterfaces) if (isRecord(i)) add(i.url, i.transport);
  }

  const caps: Json = isRecord(capabilities) ? { ...capabilities } : {};
  delete caps.stateTransitionHistory;
  if (typeof supportsAuthenticatedExtendedCard === "boolean") caps.extendedAgentCard = supportsAuthenticatedExtendedCard;

  const out: Json = { ...rest, supportedInterfaces: interfaces, capabilities: caps };
  if (Array.isArray(security)) out.securityRequirements = security.map(requirementV1);
  if (isRecord(securitySchemes)) {
    out.securitySchemes = Object.fromEntries(Object.entries(securitySchemes).map(([k, v]) => [k, schemeV1(v)]));
  }
  if (Array.isArray(skills)) {
    out.skills = skills.map((s) => {
      if (!isRecord(s)) return s;
      const { security: skillSecurity, ...skill } = s;
      return Array.isArray(skillSecurity) ? { ...skill, securityRequirements: skillSecurity.map(requirementV1) } : skill;
    });
  }
  return out;
}

/** 0.3: `{ "oauth": ["read"] }`; 1.0: `{ "schemes": { "oauth": { "list": ["read"] } } }`. */
function requirementV1(req: unknown): Json {
  if (!isRecord(req)) return { schemes: {} };
  return {
    schemes: Object.fromEntries(Object.entries(req).map(([name, scopes]) => [name, { list: Array.isArray(scopes) ? scopes : [] }])),
  };
}

/** 0.3 schemes carry a `type` discriminator; 1.0 wraps each kind in its own member. */
function schemeV1(scheme: unknown): unknown {
  if (!isRecord(scheme)) return scheme;
  const { type, ...s } = scheme;
  switch (type) {
    case "apiKey": {
      const { in: location, ...apiKey } = s;
      return { apiKeySecurityScheme: { ...apiKey, location } };
    }
    case "http":
      return { httpAuthSecurityScheme: s };
    case "oauth2":
      return { oauth2SecurityScheme: { ...s, flows: flowsV1(s.flows) } };
    case "openIdConnect":
      return { openIdConnectSecurityScheme: s };
    case "mutualTLS":
      return { mtlsSecurityScheme: s };
    default:
      return scheme;
  }
}

// 1.0 holds one flow per scheme; a 0.3 card may list several. Keep the
// strongest one that 1.0 still describes.
const FLOW_PREFERENCE = ["authorizationCode", "clientCredentials", "deviceCode", "implicit", "password"];

function flowsV1(flows: unknown): unknown {
  if (!isRecord(flows)) return flows;
  const name = FLOW_PREFERENCE.find((f) => isRecord(flows[f]));
  return name ? { [name]: flows[name] } : {};
}
