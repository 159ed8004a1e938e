/**
 * OAuth 2.0 client credentials token providers, for `bearerAuth`. Each
 * loads its implementation (auth/oauth.ts) on first use.
 */
import { onDemand } from "../base/on-demand.js";
import { checkLimit } from "../call/option-checks.js";
import type { TokenProvider } from "./interceptors.js";
import type { ClientCredentialsOptions, ClientCredentialsProviderOptions, DiscoveredProviderOptions } from "./oauth.js";

type Implementation = typeof import("./oauth.js");

const implementation = onDemand(() => import("./oauth.js"));

/**
 * Refused when the provider is made, not at its first token: a NaN timeout
 * would abort every token request at once, a NaN early refresh fetch a
 * token for every call.
 */
function checkNumbers(options: ClientCredentialsOptions): void {
  checkLimit(options.timeoutMs, "timeoutMs");
  if (options.refreshEarlyMs !== 0) checkLimit(options.refreshEarlyMs, "refreshEarlyMs");
}

/** A provider that makes its real one on its first token. */
function loaded(make: (m: Implementation) => TokenProvider): TokenProvider {
  let provider: TokenProvider | undefined;
  const made = onDemand(async () => (provider = make(await implementation())));
  return {
    token: async () => (await made()).token(),
    // Before the first token there is nothing to invalidate.
    invalidate: (stale) => provider?.invalidate(stale),
  };
}

/**
 * OAuth 2.0 client credentials at a token endpoint: tokens cached until
 * shortly before they expire (10% of their lifetime, at most 30 s),
 * concurrent callers sharing one request, a rejected token replaced.
 * @example
 * ```ts
 * import { connect, bearerAuth, clientCredentialsProvider } from "a2a-connect";
 *
 * const tokens = clientCredentialsProvider({
 *   tokenUrl: "https://auth.example.com/oauth/token",
 *   clientId: "my-app",
 *   clientSecret: "...",
 *   scopes: ["a2a"],
 * });
 * const session = await connect("https://agent.example.com", { transport: { interceptors: [bearerAuth(tokens)] } });
 * // Or by the name of the card's OAuth 2.0 scheme, the token endpoint taken from the card:
 * const same = await connect("https://agent.example.com", { auth: { oauth: { clientId: "my-app", clientSecret: "..." } } });
 * ```
 * @category Auth
 */
export function clientCredentialsProvider(options: ClientCredentialsProviderOptions): TokenProvider {
  checkNumbers(options);
  return loaded((m) => m.clientCredentialsTokens(options));
}

/**
 * As `clientCredentialsProvider`, with the token endpoint from an OpenID Connect discovery document or RFC 8414 metadata.
 * @example
 * ```ts
 * import { connect, bearerAuth, discoveredTokenProvider } from "a2a-connect";
 *
 * const tokens = discoveredTokenProvider({
 *   discoveryUrl: "https://auth.example.com/.well-known/openid-configuration",
 *   clientId: "my-app",
 *   clientSecret: "...",
 * });
 * const session = await connect("https://agent.example.com", { transport: { interceptors: [bearerAuth(tokens)] } });
 * ```
 * @category Auth
 */
export function discoveredTokenProvider(options: DiscoveredProviderOptions): TokenProvider {
  checkNumbers(options);
  return loaded((m) => m.discoveredTokens(options));
}

/** The `token_endpoint` of an OpenID Connect discovery document or RFC 8414 metadata (https, or http on loopback). @category Auth */
export async function discoverTokenEndpoint(
  discoveryUrl: string,
  options: Pick<DiscoveredProviderOptions, "fetch" | "timeoutMs" | "localUrls"> = {},
): Promise<string> {
  return (await implementation()).findTokenEndpoint(discoveryUrl, options);
}
