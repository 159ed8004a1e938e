/**
 * Credentials as connect interceptors, one function per kind of security
 * scheme, for a transport's `interceptors`. Each loads its implementation
 * (auth/interceptors.ts) on its first call, so apps that do not
 * authenticate this way do not bundle it at start.
 */
import type { Interceptor } from "@connectrpc/connect";
import { onDemand } from "../base/on-demand.js";
import type { ApiKeyOptions, BasicCredentials, TokenSource } from "./interceptors.js";

type Implementation = typeof import("./interceptors.js");
type Next = Parameters<Interceptor>[0];

const implementation = onDemand(() => import("./interceptors.js"));

/** An interceptor that makes its real one on its first call, and then calls it. */
function loaded(make: (m: Implementation) => Interceptor): Interceptor {
  const made = onDemand(async () => make(await implementation()));
  return (next: Next) => {
    let bound: Promise<Next> | undefined;
    return async (req) => {
      bound ??= made().then((i) => i(next));
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
 * @example
 * ```ts
 * import { A2AClient, bearerAuth, clientCredentialsProvider, createRestTransport } from "a2a-connect";
 *
 * const tokens = clientCredentialsProvider({ tokenUrl: "https://auth.example.com/oauth/token", clientId: "my-app", clientSecret: "..." });
 * const client = new A2AClient(createRestTransport({ baseUrl: "https://agent.example.com/a2a/rest", interceptors: [bearerAuth(tokens)] }));
 * // or a fixed token, or a function asked on every call: bearerAuth("token"), bearerAuth(() => currentToken())
 * ```
 * @category Auth
 */
export function bearerAuth(token: TokenSource): Interceptor {
  return loaded((m) => m.bearerInterceptor(token));
}

/** `Authorization: <scheme> <token>`, for HTTP authentication schemes other than Basic and Bearer. @category Auth */
export function httpAuth(scheme: string, token: TokenSource): Interceptor {
  return loaded((m) => m.httpSchemeInterceptor(scheme, token));
}

/**
 * HTTP Basic: `Authorization: Basic base64(UTF-8 username:password)`.
 * @example
 * ```ts
 * import { connect, basicAuth } from "a2a-connect";
 *
 * const session = await connect("https://agent.example.com", { transport: { interceptors: [basicAuth({ username: "me", password: "..." })] } });
 * ```
 * @category Auth
 */
export function basicAuth(credentials: BasicCredentials): Interceptor {
  return loaded((m) => m.basicInterceptor(credentials));
}

/**
 * An API key in a header, a query parameter or a cookie. A query key fails
 * gRPC calls (gRPC has no query) with AuthenticationError. A cookie is sent
 * as a `Cookie` header: Node sends it; a browser would drop it, so there
 * the first call fails with AuthenticationError (cookies are the browser's
 * to send).
 * @example
 * ```ts
 * import { connect, apiKeyAuth } from "a2a-connect";
 *
 * const session = await connect("https://agent.example.com", {
 *   transport: { interceptors: [apiKeyAuth({ location: "header", name: "X-API-Key", value: "..." })] },
 * });
 * ```
 * @category Auth
 */
export function apiKeyAuth(options: ApiKeyOptions): Interceptor {
  return loaded((m) => m.apiKeyInterceptor(options));
}
