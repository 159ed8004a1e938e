/**
 * The auth API of the root entry. Each function loads its implementation on
 * first use, so that apps which do not authenticate this way (and the
 * `connect()` of apps that pass no `auth`) do not bundle it at start.
 */
import type { Interceptor } from "@connectrpc/connect";
import type { AgentCard } from "../../gen/lf/a2a/v1/a2a_pb.js";
import type { ApiKeyOptions, BasicCredentials, TokenProvider, TokenSource } from "./interceptors.js";
import type { ClientCredentialsOptions, ClientCredentialsProviderOptions, DiscoveredProviderOptions } from "./oauth.js";
import type { AuthCredentials, AuthPlanOptions } from "./plan.js";

type Interceptors = typeof import("./interceptors.js");
type Next = Parameters<Interceptor>[0];

let interceptors: Promise<Interceptors> | undefined;

function lazyInterceptor(make: (m: Interceptors) => Interceptor): Interceptor {
  let made: Promise<Interceptor> | undefined;
  return (next: Next) => {
    let bound: Promise<Next> | undefined;
    return async (req) => {
      bound ??= (made ??= (interceptors ??= import("./interceptors.js")).then(make)).then((i) => i(next));
      return (await bound)(req);
    };
  };
}

/**
 * `Authorization: Bearer <token>`. `token` is a string, a function returning
 * one (asked on every call, and once more after a rejection), or a
 * TokenProvider such as `clientCredentialsProvider`. A provider's token that
 * the agent rejects (401 with a challenge, gRPC UNAUTHENTICATED) is renewed
 * once and the call made again.
 */
export function bearerAuth(token: TokenSource): Interceptor {
  return lazyInterceptor((m) => m.bearerAuth(token));
}

/** `Authorization: <scheme> <token>`, for HTTP authentication schemes other than Basic and Bearer. */
export function httpAuth(scheme: string, token: TokenSource): Interceptor {
  return lazyInterceptor((m) => m.httpAuth(scheme, token));
}

/** HTTP Basic: `Authorization: Basic base64(UTF-8 username:password)`. */
export function basicAuth(credentials: BasicCredentials): Interceptor {
  return lazyInterceptor((m) => m.basicAuth(credentials));
}

/**
 * An API key in a header, a query parameter or a cookie. A query key fails
 * gRPC calls (gRPC has no query) with AuthenticationError. A cookie is sent
 * as a `Cookie` header: Node sends it, browsers drop it (in a browser,
 * cookies are the browser's to send).
 */
export function apiKeyAuth(options: ApiKeyOptions): Interceptor {
  return lazyInterceptor((m) => m.apiKeyAuth(options));
}

function lazyProvider(make: (m: typeof import("./oauth.js")) => TokenProvider): TokenProvider {
  let made: Promise<TokenProvider> | undefined;
  let provider: TokenProvider | undefined;
  const get = () =>
    (made ??= import("./oauth.js").then((m) => (provider = make(m))).catch((e: unknown) => {
      made = undefined;
      throw e;
    }));
  return {
    token: async () => (await get()).token(),
    invalidate: (stale) => provider?.invalidate(stale),
  };
}

/**
 * OAuth 2.0 client credentials at a token endpoint: tokens cached until
 * shortly before they expire (10% of their lifetime, at most 30 s),
 * concurrent callers sharing one request, a rejected token replaced.
 */
export function clientCredentialsProvider(options: ClientCredentialsProviderOptions): TokenProvider {
  return lazyProvider((m) => m.clientCredentialsProvider(options));
}

/** As `clientCredentialsProvider`, with the token endpoint from an OpenID Connect discovery document or RFC 8414 metadata. */
export function discoveredTokenProvider(options: DiscoveredProviderOptions): TokenProvider {
  return lazyProvider((m) => m.discoveredTokenProvider(options));
}

/** The `token_endpoint` of an OpenID Connect discovery document or RFC 8414 metadata (https, or http on loopback). */
export async function discoverTokenEndpoint(
  discoveryUrl: string,
  options: Pick<ClientCredentialsOptions, "fetch" | "timeoutMs"> = {},
): Promise<string> {
  return (await import("./oauth.js")).discoverTokenEndpoint(discoveryUrl, options);
}

/**
 * The interceptors that satisfy a card's requirements with `auth`, as
 * `connect()` chooses them; `{ requirements: skill.securityRequirements }`
 * for a skill's own. Fails with AuthenticationError when they cannot be met.
 */
export async function authInterceptors(card: AgentCard, auth: AuthCredentials, options: AuthPlanOptions = {}): Promise<Interceptor[]> {
  return (await import("./plan.js")).planAuth(card, auth, options).interceptors;
}
