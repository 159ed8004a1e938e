/**
 * From an Agent Card's security schemes and requirements, and credentials
 * by scheme name, to the interceptors that authenticate every call.
 * `connect(url, { auth })` loads this on demand.
 */
import type { Interceptor } from "@connectrpc/connect";
import type { AgentCard, SecurityRequirement, SecurityScheme } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { AuthenticationError } from "../errors/family.js";
import { isLoopbackUrl } from "../trust/loopback.js";
import { areLoopbackAliases } from "../trust/loopback-names.js";
import type { LocalUrlPolicy } from "../trust/local-urls.js";
import { parsedUrl, safeUrl } from "../base/urls.js";
import type { Binding } from "../base/bindings.js";
import { grpcBaseUrl, type GrpcTlsOptions } from "../bindings/grpc/url.js";
import { apiKeyInterceptor, basicInterceptor, bearerInterceptor, httpSchemeInterceptor, type TokenSource } from "./interceptors.js";
import { clientCredentialsTokens, discoveredTokens, type ClientCredentialsOptions } from "./oauth.js";
import { describeScheme, has, matchCredentials, tokenEndpointOf } from "./match.js";

/** A bearer token (HTTP bearer, OAuth 2.0 or OpenID Connect schemes; other HTTP schemes send it with their name). @category Auth */
export interface TokenCredential {
  /** The token, a function returning it, or a provider that can renew it after a 401. */
  token: TokenSource;
}

/** An API key; where it goes (header, query, cookie) and its name come from the card. @category Auth */
export interface ApiKeyCredential {
  /** The key, or a function returning it (called again to renew it after a 401). */
  value: string | (() => string | Promise<string>);
}

/** HTTP Basic. @category Auth */
export interface BasicCredential {
  /** Must not contain a colon (RFC 7617). */
  username: string;
  /** Any UTF-8 text; never appears in errors. */
  password: string;
}

/**
 * OAuth 2.0 client credentials, for an OAuth 2.0 scheme (token URL from its
 * clientCredentials flow, or from its `oauth2MetadataUrl`) or an OpenID
 * Connect scheme (token endpoint from its discovery document). Scopes are
 * those the chosen requirement lists for the scheme, plus `scopes`.
 * @category Auth
 */
export interface ClientCredential extends Omit<ClientCredentialsOptions, "fetch"> {
  /**
   * Use this token endpoint instead of the one the card names. A card
   * fetched from `cardUrl` whose signature did not verify gets the client
   * secret sent only to a token endpoint (or discovery document) on its own
   * origin; for one elsewhere, name it here.
   */
  tokenUrl?: string | undefined;
}

/**
 * The app provides this credential itself: a browser's cookies, a TLS client
 * certificate in the `httpClient`, a header in `transport.headers`. It
 * counts as present when choosing a requirement; nothing is added.
 * @category Auth
 */
export interface ExternalCredential {
  /** Always true: marks the scheme as handled outside a2a-connect. */
  external: true;
}

/** What `auth` accepts for one security scheme. @category Auth */
export type Credential = TokenCredential | ApiKeyCredential | BasicCredential | ClientCredential | ExternalCredential;

/**
 * Credentials by the name of the card's security scheme they are for. A
 * key that names no scheme of the card is for the one scheme its kind fits
 * (`{ token }`: HTTP Bearer, OAuth 2.0 or OpenID Connect; `{ value }`: an
 * API key; `{ username, password }`: HTTP Basic; `{ clientId, clientSecret }`:
 * OAuth 2.0 or OpenID Connect with a token endpoint) when exactly one fits
 * and no other key is for it; otherwise it fails with AuthenticationError
 * naming the card's schemes, before any call. For a card that declares no
 * scheme, one credential goes in the Authorization header (`{ token }` as
 * Bearer, `{ username, password }` as Basic, client credentials with a
 * `tokenUrl` as Bearer), to the card's own origin only; an API key, which
 * has no name or place without a scheme, fails.
 * @example
 * ```ts
 * import { connect } from "a2a-connect";
 *
 * // Keys are the names of the card's securitySchemes; the first requirement
 * // all of whose schemes have credentials is used.
 * const session = await connect("https://agent.example.com", {
 *   auth: {
 *     bearer: { token: () => "token-from-your-login" },
 *     apiKey: { value: "..." },
 *     basic: { username: "me", password: "..." },
 *   },
 * });
 * ```
 * @category Auth
 */
export type AuthCredentials = Readonly<Record<string, Credential>>;

/** Options of `planAuth` and `authInterceptors`. @category Auth */
export interface AuthPlanOptions {
  /**
   * The requirements to satisfy, e.g. a skill's `securityRequirements`.
   * Default, and for an empty list (a skill that names none of its own):
   * the card's `securityRequirements`.
   */
  requirements?: readonly SecurityRequirement[] | undefined;
  /** fetch for token endpoints and discovery documents. */
  fetch?: typeof fetch | undefined;
  /**
   * Send the credentials over plain http to hosts other than this machine.
   * Default false: a call to an `http://` URL whose host is not `localhost`,
   * 127.0.0.0/8 or `[::1]` fails with AuthenticationError before any
   * credential is put on it (and `connect()` passes such interfaces over),
   * since anyone on the way could read and replay them.
   */
  authOverHttp?: boolean | undefined;
  /**
   * Whether the OpenID Connect discovery document or OAuth metadata a
   * scheme names may, when served by a host not on this machine, name a
   * token endpoint on this machine or its link: "refuse" (default) or
   * "allow" (see `ResolveOptions.localUrls`; `connect()` passes its own).
   */
  localUrls?: LocalUrlPolicy | undefined;
  /**
   * Where the card came from (`AgentSession.cardUrl`; `connect()` passes
   * it). For a card that declares no security scheme, the credentials go
   * only to this origin (this machine counting as one origin under its
   * names): the card asked for none, so nothing vouches for the other
   * places it names. Without it, as for a card in hand, they go where the
   * interceptors are used. With it, the client secret of client
   * credentials goes only to a token endpoint the card names on this
   * origin, unless `cardVerified` or the credential's own `tokenUrl`.
   */
  cardUrl?: string | undefined;
  /**
   * Whether the card's signature verified (`ResolvedAgentCard.verification?.verified`;
   * `connect()` passes it): the token endpoints such a card names, on any
   * origin, may have the client secret.
   */
  cardVerified?: boolean | undefined;
}

/** What `planAuth` chose: the schemes, and the interceptors that send their credentials. */
export interface AuthPlan {
  /** The schemes used, by name (empty: the calls go without credentials). */
  schemes: string[];
  interceptors: Interceptor[];
  /** Why gRPC interfaces cannot carry these credentials, if they cannot (a key in the query). */
  grpcUnsupported: string | undefined;
  /** Why the credentials may not go to an interface at this http(s) URL (plain http elsewhere than loopback; another origin than `cardUrl`), if they may not. */
  refusedAt(url: string): string | undefined;
  /**
   * `refusedAt` of the URL a transport of `binding` calls for an interface at
   * `url`: a gRPC `host:port` is https or http by its host and `tls`.
   */
  refusedAtInterface(binding: Binding, url: string, tls: boolean | GrpcTlsOptions | undefined): string | undefined;
}

/**
 * Chooses the requirement to satisfy: the first of the card's alternatives
 * that names at least one scheme and whose every scheme has a credential;
 * else an empty alternative (anonymous access allowed); else, when the card
 * lists none, every credential given. Credentials are first matched to the
 * card's schemes (match.ts): a key that names no scheme is taken by its
 * kind where that leaves no doubt, and is otherwise an AuthenticationError.
 * Throws AuthenticationError, naming what the card asks for, when the card
 * requires authentication that the credentials cannot satisfy. Unless
 * `authOverHttp`, the interceptors refuse a call over plain http to a host
 * other than this machine, and `refusedAt` says so of such a URL; for a
 * card that declares no scheme, fetched from `cardUrl`, likewise a call to
 * another origin.
 */
export function planAuth(card: AgentCard, auth: AuthCredentials, options: AuthPlanOptions = {}): AuthPlan {
  // A skill without requirements of its own is under the card's: a list cannot say "none" apart from "not given".
  const requirements = options.requirements?.length ? options.requirements : card.securityRequirements;
  refuseEmptyValues(auth);
  const matched = matchCredentials(card, auth);
  const declared = matched.schemes;
  const given = (name: string) => Object.hasOwn(matched.credentials, name);

  let chosen: Array<{ name: string; scopes: string[] }>;
  if (requirements.length === 0) {
    chosen = Object.keys(matched.credentials).map((name) => ({ name, scopes: [] }));
  } else {
    const names = (r: SecurityRequirement) => Object.keys(r.schemes);
    const full = requirements.find((r) => names(r).length > 0 && names(r).every(given));
    const anonymous = requirements.some((r) => names(r).length === 0);
    if (!full && !anonymous) {
      const asks = requirements
        .map((r) =>
          names(r)
            .map((n) => `${n} (${describeScheme(declared[n])})`)
            .join(" + "),
        )
        .join("; or ");
      const have = Object.entries(matched.keys).map(([name, key]) => (key === name ? name : `${name} (as auth.${key})`));
      throw new AuthenticationError(
        `the agent requires authentication that the credentials given do not satisfy: it asks for ${asks}; credentials were given for ${
          have.length > 0 ? have.join(", ") : "no scheme"
        }`,
      );
    }
    chosen = full ? names(full).map((name) => ({ name, scopes: full.schemes[name]?.list ?? [] })) : [];
  }

  const interceptors: Interceptor[] = [];
  let grpcUnsupported: string | undefined;
  const secretRefusal = tokenEndpointRefusal(card, options);
  for (const { name, scopes } of chosen) {
    const credential = matched.credentials[name]!;
    if (has(credential, "external")) continue;
    try {
      const made = interceptorFor(name, matched.keys[name]!, credential, declared[name]!, scopes, options, secretRefusal);
      interceptors.push(made.interceptor);
      grpcUnsupported ??= made.grpcUnsupported;
    } catch (e) {
      // A credential or a scheme the interceptors cannot take (a Basic user
      // name with a colon, a header name with a space): typed, before any call.
      if (e instanceof TypeError) throw new AuthenticationError(`scheme "${name}" (${describeScheme(declared[name])}): ${e.message}`);
      throw e;
    }
  }
  const schemes = chosen.map((c) => c.name);
  const httpsOnly = interceptors.length > 0 && options.authOverHttp !== true;
  // Nothing in the card asked for these credentials: they go to the agent the card came from, not to whatever it names.
  const home = interceptors.length > 0 && matched.undeclared && options.cardUrl ? parsedUrl(options.cardUrl) : undefined;
  const refusedAt = (url: string) =>
    (httpsOnly ? plainHttpRefusal(url, schemes) : undefined) ?? (home ? otherOriginRefusal(url, home, schemes) : undefined);
  // Outermost of the credentials: a call to such a URL fails before any is applied.
  if (httpsOnly || home) interceptors.unshift(refusing(refusedAt));
  const refusedAtInterface = (binding: Binding, url: string, tls: boolean | GrpcTlsOptions | undefined) =>
    refusedAt(binding === "GRPC" ? grpcBaseUrl(url, tls) : url);
  return { schemes, interceptors, grpcUnsupported, refusedAt, refusedAtInterface };
}

/**
 * Why credentials that no scheme of the card asked for may not go to
 * `url`: an origin other than the card's. This machine is one origin
 * under its names (`localhost`, 127.0.0.1, `[::1]`: LOOPBACK_NAMES), port
 * for port: a local agent's card is often fetched by one name and names
 * another; another 127.x address may be another program's socket.
 */
function otherOriginRefusal(url: string, home: URL, schemes: readonly string[]): string | undefined {
  const u = parsedUrl(url);
  if (!u || isOnOrigin(u, home)) return undefined;
  return `the card declares no security scheme, and the credentials for ${schemes.join(", ")} go only to the origin it came from (${home.origin}); to send them to ${u.origin}, put them in transport.headers`;
}

/** Whether `u` is on `home`'s origin, this machine being one origin under its names (LOOPBACK_NAMES), port for port. */
function isOnOrigin(u: URL, home: URL): boolean {
  return u.origin === home.origin || areLoopbackAliases(u, home);
}

/**
 * Why the client secret may not go to the token endpoint a card names
 * (`named`: its token URL, or the discovery document that names one):
 * the card came from `cardUrl`, the endpoint is on another origin, and no
 * verified signature vouches for it. A card's own site speaks for the
 * document it serves, and a signed card for what it names; anything else
 * could be a card written to collect secrets. Undefined when it may go:
 * a card in hand without `cardUrl` is the application's own choice, as
 * its interfaces are.
 */
function tokenEndpointRefusal(card: AgentCard, options: AuthPlanOptions): (named: string) => string | undefined {
  const home = options.cardUrl ? parsedUrl(options.cardUrl) : undefined;
  if (!home || options.cardVerified) return () => undefined;
  const why = card.signatures.length > 0 ? "its signature was not verified" : "the card is not signed";
  return (named) => {
    const u = parsedUrl(named);
    if (u && isOnOrigin(u, home)) return undefined;
    return `the client secret goes only to a token URL the application pins, one on the card's own origin (${home.origin}), or one named by a card whose signature verified, and ${why}`;
  };
}

/**
 * Why the credentials may not go to `url`: plain http to a host other
 * than this machine, where anyone on the way reads them. Undefined when
 * they may. Loopback stays allowed for development.
 */
function plainHttpRefusal(url: string, schemes: readonly string[]): string | undefined {
  const u = parsedUrl(url);
  if (u?.protocol !== "http:" || isLoopbackUrl(u)) return undefined;
  return `${u.origin} is plain http to a host other than this machine, and the credentials for ${schemes.join(", ")} are not sent unencrypted (use an https interface, or allow it with authOverHttp: true)`;
}

/** Fails a call whose URL `refusedAt` refuses, before any credential is put on it. */
function refusing(refusedAt: (url: string) => string | undefined): Interceptor {
  return (next) => async (req) => {
    const refused = refusedAt(req.url);
    if (refused) throw new AuthenticationError(`the call was not made: ${refused}`);
    return next(req);
  };
}

/**
 * A token or key given as "" would pass connect() and fail every call
 * (the interceptors send none): it fails here, before any call, by its key.
 */
function refuseEmptyValues(auth: AuthCredentials): void {
  // A key left undefined (`{ bearer: token ? { token } : undefined }`) is no credential: matchCredentials skips it.
  for (const [key, credential] of Object.entries(auth)) {
    for (const field of ["token", "value"] as const) {
      if (has(credential, field) && (credential as Partial<Record<typeof field, unknown>>)[field] === "") {
        throw new AuthenticationError(
          `auth.${key}.${field} is empty: give the ${field === "token" ? "token" : "API key"}, or a function returning it`,
        );
      }
    }
  }
}

/** The interceptor that sends `credential` as the card's scheme `name` says. */
function interceptorFor(
  name: string,
  key: string,
  credential: Credential,
  declared: SecurityScheme,
  scopes: string[],
  options: AuthPlanOptions,
  secretRefusal: (named: string) => string | undefined,
): { interceptor: Interceptor; grpcUnsupported?: string } {
  const scheme = declared.scheme;
  const wrong = (expected: string) =>
    new AuthenticationError(`auth.${key} does not fit the card's scheme "${name}" (${describeScheme(declared)}): give ${expected}`);
  switch (scheme.case) {
    case "apiKeySecurityScheme": {
      if (!has(credential, "value")) throw wrong("{ value }");
      const location = scheme.value.location.toLowerCase();
      if (location !== "header" && location !== "query" && location !== "cookie") {
        throw new AuthenticationError(`the card's scheme "${name}" puts its API key in an unknown place ("${scheme.value.location}")`);
      }
      const interceptor = apiKeyInterceptor({ location, name: scheme.value.name, value: (credential as ApiKeyCredential).value });
      if (location !== "query") return { interceptor };
      return { interceptor, grpcUnsupported: `the API key of scheme "${name}" goes in the URL query, which gRPC does not have` };
    }
    case "httpAuthSecurityScheme": {
      const kind = scheme.value.scheme.toLowerCase();
      if (kind === "basic") {
        if (!has(credential, "username") || !has(credential, "password")) throw wrong("{ username, password }");
        return { interceptor: basicInterceptor(credential as BasicCredential) };
      }
      if (!has(credential, "token")) throw wrong("{ token }");
      const token = (credential as TokenCredential).token;
      return { interceptor: kind === "bearer" ? bearerInterceptor(token) : httpSchemeInterceptor(scheme.value.scheme, token) };
    }
    case "oauth2SecurityScheme":
    case "openIdConnectSecurityScheme": {
      if (has(credential, "token")) return { interceptor: bearerInterceptor((credential as TokenCredential).token) };
      if (!has(credential, "clientId") || !has(credential, "clientSecret")) throw wrong("{ clientId, clientSecret } or { token }");
      const c = credential as ClientCredential;
      const endpoint = tokenEndpointOf(declared, c);
      if (!endpoint) {
        const flow = scheme.case === "oauth2SecurityScheme" ? scheme.value.flows?.flow : undefined;
        throw new AuthenticationError(
          `the card's OAuth 2.0 scheme "${name}" offers no client credentials flow${flow?.case ? ` (only ${flow.case})` : ""}: get a token another way and give { token }`,
        );
      }
      const named = "tokenUrl" in endpoint ? endpoint.tokenUrl : endpoint.discoveryUrl;
      const refused = c.tokenUrl ? undefined : secretRefusal(named);
      if (refused) {
        const what = "tokenUrl" in endpoint ? "the token URL" : "its token endpoint through the document at";
        throw new AuthenticationError(
          `auth.${key}: the card's scheme "${name}" names ${what} ${safeUrl(named)}; ${refused}: set auth.${key}.tokenUrl to the token endpoint the secret may go to`,
        );
      }
      const common = { ...c, scopes: [...scopes, ...(c.scopes ?? [])], fetch: options.fetch, localUrls: options.localUrls };
      const tokens =
        "tokenUrl" in endpoint
          ? clientCredentialsTokens({ ...common, tokenUrl: endpoint.tokenUrl })
          : discoveredTokens({ ...common, discoveryUrl: endpoint.discoveryUrl });
      return { interceptor: bearerInterceptor(tokens) };
    }
    default:
      throw wrong("{ external: true } (this scheme is set up outside a2a-connect, e.g. a TLS client certificate in the httpClient)");
  }
}
