/**
 * Which of the card's security schemes each `auth` credential is for. The
 * keys of `auth` are scheme names, which read like credential kinds
 * (`bearer`, `apiKey`): a key that names no scheme of the card is matched
 * by its kind when that leaves no doubt, and is otherwise an error before
 * any call, never a credential left out without a word.
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { SecuritySchemeSchema, type AgentCard, type SecurityScheme } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { AuthenticationError } from "../errors/family.js";
import type { ClientCredential, Credential } from "./plan.js";

/** The credentials of `auth`, each under the name of the scheme it is for. */
export interface MatchedCredentials {
  /** Credentials by scheme name. */
  credentials: Record<string, Credential>;
  /** The schemes by name: the card's, or for a card that declares none, the one each credential stands for. */
  schemes: Record<string, SecurityScheme>;
  /** The key of `auth` each scheme's credential was given under, for messages. */
  keys: Record<string, string>;
  /** The card declares no scheme: the credentials go by their kind in the Authorization header. */
  undeclared: boolean;
}

/** The kinds of credential `auth` takes, and how each is written. */
const SHAPES = {
  token: "{ token }",
  apiKey: "{ value }",
  basic: "{ username, password }",
  clientCredentials: "{ clientId, clientSecret }",
  external: "{ external: true }",
} as const;
type Kind = keyof typeof SHAPES;

export const has = (c: Credential, key: string): boolean => typeof c === "object" && c !== null && key in c;

function kindOf(c: Credential): Kind | undefined {
  if (has(c, "external")) return "external";
  if (has(c, "token")) return "token";
  if (has(c, "value")) return "apiKey";
  if (has(c, "username") && has(c, "password")) return "basic";
  if (has(c, "clientId") && has(c, "clientSecret")) return "clientCredentials";
  return undefined;
}

/** A scheme in words, for messages: `OAuth 2.0`, `API key in header "X-API-Key"`. */
export function describeScheme(scheme: SecurityScheme | undefined): string {
  const s = scheme?.scheme;
  switch (s?.case) {
    case "apiKeySecurityScheme":
      return `API key in ${s.value.location} "${s.value.name}"`;
    case "httpAuthSecurityScheme":
      return `HTTP ${s.value.scheme}`;
    case "oauth2SecurityScheme":
      return "OAuth 2.0";
    case "openIdConnectSecurityScheme":
      return "OpenID Connect";
    case "mtlsSecurityScheme":
      return "mutual TLS";
    default:
      return "unknown scheme";
  }
}

/**
 * Where client credentials get their tokens for a scheme: the app's own
 * `tokenUrl`, else the scheme's client credentials flow, its
 * `oauth2MetadataUrl` or its OpenID Connect discovery document. Undefined
 * when the scheme names no token endpoint.
 */
export function tokenEndpointOf(scheme: SecurityScheme, c: ClientCredential): { tokenUrl: string } | { discoveryUrl: string } | undefined {
  if (c.tokenUrl) return { tokenUrl: c.tokenUrl };
  const s = scheme.scheme;
  if (s.case === "openIdConnectSecurityScheme") return { discoveryUrl: s.value.openIdConnectUrl };
  if (s.case !== "oauth2SecurityScheme") return undefined;
  const flow = s.value.flows?.flow;
  if (flow?.case === "clientCredentials" && flow.value.tokenUrl) return { tokenUrl: flow.value.tokenUrl };
  if (s.value.oauth2MetadataUrl) return { discoveryUrl: s.value.oauth2MetadataUrl };
  return undefined;
}

/** Whether a credential of `kind` can be sent as `scheme` asks. */
function fits(kind: Kind, c: Credential, scheme: SecurityScheme): boolean {
  const s = scheme.scheme;
  switch (s.case) {
    case "apiKeySecurityScheme":
      return kind === "apiKey";
    case "httpAuthSecurityScheme": {
      const name = s.value.scheme.toLowerCase();
      return name === "basic" ? kind === "basic" : name === "bearer" && kind === "token";
    }
    case "oauth2SecurityScheme":
    case "openIdConnectSecurityScheme":
      return kind === "token" || (kind === "clientCredentials" && tokenEndpointOf(scheme, c as ClientCredential) !== undefined);
    default:
      return false;
  }
}

const quoted = (names: readonly string[]) => names.map((n) => `"${n}"`).join(", ");
/** `auth.a`, `auth.a and auth.b`, `auth.a, auth.b and auth.c`. */
function keysOf(keys: readonly string[]): string {
  const named = keys.map((k) => `auth.${k}`);
  return named.length < 2 ? named.join("") : `${named.slice(0, -1).join(", ")} and ${named.at(-1)}`;
}

/**
 * Each credential of `auth` under the scheme it is for: the scheme its key
 * names; else the one scheme of the card its kind fits (a token: HTTP
 * Bearer, OAuth 2.0 or OpenID Connect; a value: an API key; a username and
 * password: HTTP Basic; client credentials: OAuth 2.0 or OpenID Connect
 * with a token endpoint), when no other key is for that scheme. A card
 * that declares no scheme: see `undeclaredSchemes`. Throws
 * AuthenticationError naming the keys left over and the card's schemes.
 */
export function matchCredentials(card: AgentCard, auth: Readonly<Record<string, Credential | undefined>>): MatchedCredentials {
  const declared = card.securitySchemes;
  const given = Object.keys(auth).filter((k) => auth[k] !== undefined);
  if (Object.keys(declared).length === 0) return undeclaredSchemes(given, auth);

  const credentials: Record<string, Credential> = {};
  const keys: Record<string, string> = {};
  const named = new Set(given.filter((k) => Object.hasOwn(declared, k)));
  for (const k of named) {
    credentials[k] = auth[k]!;
    keys[k] = k;
  }
  const problems: string[] = [];
  // Keys that fit exactly one scheme, by that scheme: two keys for one scheme leave the intent open.
  const byKind = new Map<string, string[]>();
  for (const k of given.filter((k) => !named.has(k))) {
    const c = auth[k]!;
    const kind = kindOf(c);
    const unmatched = (why: string) => problems.push(`auth.${k} matches no security scheme of the card (${why})`);
    if (kind === undefined) {
      unmatched(`it is none of ${Object.values(SHAPES).join(", ")}`);
      continue;
    }
    if (kind === "external") {
      unmatched(`${SHAPES.external} is given by the scheme's name`);
      continue;
    }
    const fitting = Object.keys(declared).filter((n) => fits(kind, c, declared[n]!));
    if (fitting.length === 0) unmatched(`no scheme of the card takes ${SHAPES[kind]}`);
    else if (fitting.length > 1) unmatched(`a ${SHAPES[kind]} fits ${quoted(fitting)}: use one of these names as its key`);
    else if (named.has(fitting[0]!)) unmatched(`a ${SHAPES[kind]} fits "${fitting[0]}", which auth.${fitting[0]} is for`);
    else byKind.set(fitting[0]!, [...(byKind.get(fitting[0]!) ?? []), k]);
  }
  for (const [scheme, ks] of byKind) {
    if (ks.length > 1) {
      problems.push(`${keysOf(ks)} match no security scheme of the card (each fits "${scheme}" alone: give one)`);
      continue;
    }
    credentials[scheme] = auth[ks[0]!]!;
    keys[scheme] = ks[0]!;
  }
  if (problems.length > 0) {
    const listed = Object.keys(declared).map((n) => `"${n}" (${describeScheme(declared[n])})`);
    throw new AuthenticationError(`${problems.join("; ")}; the card declares: ${listed.join(", ")}`);
  }
  return { credentials, schemes: declared, keys, undeclared: false };
}

/**
 * A card that declares no scheme says nothing of how to authenticate, but
 * a credential given for its agent is most likely wanted there: one that
 * goes in the Authorization header without the card's help is sent so (a
 * token as Bearer, a username and password as Basic, client credentials
 * with the app's `tokenUrl` as Bearer). An API key (no name, no place),
 * client credentials without a token endpoint, or two credentials for the
 * one header cannot be placed: AuthenticationError.
 */
function undeclaredSchemes(given: readonly string[], auth: Readonly<Record<string, Credential | undefined>>): MatchedCredentials {
  const none = "the card declares no security scheme";
  const cannot = (k: string, why: string) => new AuthenticationError(`auth.${k} cannot be sent: ${none}, ${why}`);
  if (given.length > 1) {
    throw new AuthenticationError(
      `${keysOf(given)} cannot be sent together: ${none}, and each would go in the one Authorization header; give one`,
    );
  }
  const credentials: Record<string, Credential> = {};
  const schemes: Record<string, SecurityScheme> = {};
  const keys: Record<string, string> = {};
  for (const k of given) {
    const c = auth[k]!;
    const kind = kindOf(c);
    let scheme: MessageInitShape<typeof SecuritySchemeSchema>["scheme"];
    if (kind === "token") scheme = { case: "httpAuthSecurityScheme", value: { scheme: "Bearer" } };
    else if (kind === "basic") scheme = { case: "httpAuthSecurityScheme", value: { scheme: "Basic" } };
    // No flow: the token endpoint is the app's tokenUrl (tokenEndpointOf).
    else if (kind === "clientCredentials" && (c as ClientCredential).tokenUrl) scheme = { case: "oauth2SecurityScheme", value: {} };
    else if (kind === "apiKey") {
      throw cannot(k, "so nothing says where an API key goes (header, query or cookie) or under which name; put it in transport.headers");
    } else if (kind === "clientCredentials") {
      throw cannot(k, "so it names no token endpoint for client credentials; give tokenUrl");
    } else {
      throw cannot(k, `and it is none of ${SHAPES.token}, ${SHAPES.basic}, or client credentials with a tokenUrl`);
    }
    credentials[k] = c;
    schemes[k] = create(SecuritySchemeSchema, { scheme });
    keys[k] = k;
  }
  return { credentials, schemes, keys, undeclared: true };
}
