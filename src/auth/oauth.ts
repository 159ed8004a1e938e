/**
 * Token providers for OAuth 2.0 client credentials (RFC 6749 section 4.4):
 * the token endpoint given directly, or found through an OpenID Connect
 * discovery document or RFC 8414 authorization server metadata. Tokens are
 * cached until shortly before they expire; concurrent callers share one
 * request; a token the agent rejects is replaced on the next call.
 */
import { AuthenticationError, RedirectRefusedError } from "../errors/family.js";
import { toA2AError } from "../errors/classify.js";
import { fetchJsonDocument, readLimited } from "../trust/fetch-document.js";
import { leadsHere, type LocalUrlPolicy } from "../trust/local-urls.js";
import { isLocalUrl, isLoopbackUrl } from "../trust/loopback.js";
import { isRedirectStatus } from "../http/redirect-target.js";
import { unlessAborted } from "../base/abort.js";
import { base64 } from "../base/base64.js";
import { isJsonObject } from "../base/is-record.js";
import { isJsonContentType } from "../base/media-type.js";
import { onDemand } from "../base/on-demand.js";
import { startTimer } from "../base/timers.js";
import { safeUrl } from "../base/urls.js";
import type { TokenProvider } from "./interceptors.js";
import { sentSecrets } from "../http/sent-secrets.js";
import { opaque, redactSecrets } from "../errors/redact.js";

/** The client and how to ask for its tokens. @category Auth */
export interface ClientCredentialsOptions {
  /** The client's id at the authorization server. */
  clientId: string;
  /** The client's secret; sent only to the token endpoint, never to another origin, never in errors. */
  clientSecret: string;
  /** Scopes to ask for (sent space-separated as `scope`); none by default. */
  scopes?: readonly string[] | undefined;
  /**
   * How the client authenticates to the token endpoint: "basic" (default,
   * HTTP Basic with the form-encoded id and secret, RFC 6749 section 2.3.1)
   * or "body" (`client_id` and `client_secret` form fields).
   */
  clientAuth?: "basic" | "body" | undefined;
  /**
   * Further form fields, e.g. `{ audience: "..." }` or `{ resource: "..." }`.
   * Those whose name says they are credentials (`client_assertion`,
   * `subject_token`, `password`: any name with assertion, secret, password,
   * token, code, key or verifier in it) are masked on errors as the secret is.
   */
  params?: Readonly<Record<string, string>> | undefined;
  /**
   * How long before its expiry a token is replaced, at most half its
   * lifetime. Default: 10% of its lifetime, at most 30 s.
   */
  refreshEarlyMs?: number | undefined;
  /** Timeout of each request to the token endpoint (and discovery). Default 10 000 ms. */
  timeoutMs?: number | undefined;
  /** The fetch to use for the token endpoint and discovery. Default: the global fetch. */
  fetch?: typeof fetch | undefined;
  /** The clock, for tests. Default `Date.now`. */
  now?: (() => number) | undefined;
}

/** Client credentials at a known token endpoint. @category Auth */
export interface ClientCredentialsProviderOptions extends ClientCredentialsOptions {
  /** The token endpoint. https, or http on a loopback host. */
  tokenUrl: string;
}

/** Client credentials at the token endpoint a discovery document names. @category Auth */
export interface DiscoveredProviderOptions extends ClientCredentialsOptions {
  /**
   * An OpenID Connect discovery document (`.../.well-known/openid-configuration`)
   * or RFC 8414 authorization server metadata: its `token_endpoint` is used.
   */
  discoveryUrl: string;
  /**
   * Whether a document from a host not on this machine may name a token
   * endpoint on this machine or its link (loopback, `*.localhost`,
   * link-local): "refuse" (default) fails with AuthenticationError before
   * the client secret is sent there; "allow" uses it.
   */
  localUrls?: LocalUrlPolicy | undefined;
}

const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

/** Credentials go over https only (http is allowed on loopback hosts, for development). */
export function checkEndpoint(url: string, what: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new AuthenticationError(`${what} is not a URL`);
  }
  // fetch refuses such a URL naming it whole, password included.
  if (u.username || u.password)
    throw new AuthenticationError(`${what} must not carry user info: the client authenticates with its id and secret`);
  if (u.protocol !== "https:" && !(u.protocol === "http:" && isLoopbackUrl(u))) {
    throw new AuthenticationError(`${what} must be https (http only on a loopback host): ${u.origin}`);
  }
  return u;
}

interface Cached {
  token: string;
  /** When to replace it (its expiry less the early refresh); Infinity without expires_in. */
  until: number;
  /** When it expires. */
  expires: number;
}

/** `clientCredentialsProvider` (documented in auth/providers.ts). */
export function clientCredentialsTokens(options: ClientCredentialsProviderOptions): TokenProvider {
  const tokenUrl = options.tokenUrl;
  return tokenProvider(
    options,
    tokenUrl,
    async () => checkEndpoint(tokenUrl, "the token URL").href,
    `OAuth 2.0 client credentials at ${safeUrl(tokenUrl)}`,
  );
}

/**
 * `discoveredTokenProvider` (documented in auth/providers.ts). The document
 * is fetched on first use and kept (fetched again if that failed).
 */
export function discoveredTokens(options: DiscoveredProviderOptions): TokenProvider {
  const find = onDemand(() => findTokenEndpoint(options.discoveryUrl, options));
  return tokenProvider(options, options.discoveryUrl, find, `OAuth 2.0 client credentials via ${safeUrl(options.discoveryUrl)}`);
}

/** `discoverTokenEndpoint` (documented in auth/providers.ts). */
export async function findTokenEndpoint(
  discoveryUrl: string,
  options: Pick<DiscoveredProviderOptions, "fetch" | "timeoutMs" | "localUrls"> = {},
): Promise<string> {
  const url = checkEndpoint(discoveryUrl, "the discovery URL");
  const where = safeUrl(url.href);
  let doc;
  try {
    doc = await fetchJsonDocument(url.href, {
      fetch: options.fetch,
      timeoutMs: options.timeoutMs,
      maxBytes: 256 * 1024,
      // A redirect may not downgrade to http (fetchJsonDocument's rule) nor leave the origin.
      redirect: "same-origin",
      invalid: (_problem, message) => new AuthenticationError(`bad discovery document: ${message}`),
    });
  } catch (e) {
    if (e instanceof AuthenticationError) throw e;
    throw new AuthenticationError(`could not read the discovery document at ${where}: ${toA2AError(e).message}`, { cause: e });
  }
  if (doc.status !== 200) throw new AuthenticationError(`the discovery document at ${where} answered HTTP ${doc.status}`);
  let json: unknown;
  try {
    json = JSON.parse(doc.text);
  } catch {
    throw new AuthenticationError(`the discovery document at ${where} is not valid JSON`);
  }
  const record = typeof json === "object" && json !== null ? (json as Record<string, unknown>) : {};
  const endpoint = record.token_endpoint;
  if (typeof endpoint !== "string" || endpoint === "") {
    throw new AuthenticationError(`the discovery document at ${where} names no token_endpoint`);
  }
  const grants = record.grant_types_supported;
  if (Array.isArray(grants) && !grants.includes("client_credentials")) {
    throw new AuthenticationError(`the authorization server at ${where} does not offer the client_credentials grant`);
  }
  const tokenUrl = checkEndpoint(endpoint, "the discovery document's token_endpoint");
  // Another host may not send the client secret to services of this machine or its link.
  if (options.localUrls !== "allow" && !isLocalUrl(url) && leadsHere(tokenUrl.href)) {
    throw new AuthenticationError(
      `the discovery document at ${where} names a token_endpoint on this machine or its link (${safeUrl(tokenUrl.href)}), and a document from another host is not followed there (localUrls: "allow" permits it)`,
    );
  }
  return tokenUrl.href;
}

/**
 * The provider of tokens from `endpoint()`. `given` is the URL the
 * application gave (token or discovery URL): a key in its query is masked
 * on errors with the client's secret.
 */
function tokenProvider(
  options: ClientCredentialsOptions,
  given: string,
  endpoint: () => Promise<string>,
  description: string,
): TokenProvider {
  const { clientId, clientSecret } = options;
  if (typeof clientId !== "string" || clientId === "" || typeof clientSecret !== "string") {
    throw new TypeError("client credentials: give { clientId, clientSecret }");
  }
  const now = options.now ?? Date.now;
  const basic = basicCredentials(clientId, clientSecret);
  // What the token endpoint may echo back, masked on every error: the secret in each form it is
  // sent in, what the provider was given to find its endpoint, and the form fields that are credentials.
  const secrets = [clientSecret, basic, ...sentSecrets(undefined, given), ...credentialParams(options.params)];
  let cached: Cached | undefined;
  let pending: Promise<Cached> | undefined;

  const fetchToken = async (): Promise<Cached> => {
    const url = await endpoint();
    const issued = now();
    const { token, lifetimeMs } = await requestToken(url, options, secrets, basic);
    if (lifetimeMs === undefined) return { token, until: Infinity, expires: Infinity };
    // At most half the lifetime: a token shorter-lived than refreshEarlyMs would else be replaced on every call.
    const early = Math.min(options.refreshEarlyMs ?? Math.min(30_000, lifetimeMs / 10), lifetimeMs / 2);
    return { token, until: issued + lifetimeMs - early, expires: issued + lifetimeMs };
  };

  const provider: TokenProvider = {
    async token() {
      if (cached && now() < cached.until) return cached.token;
      if (!pending) {
        const p = fetchToken().then(
          (c) => {
            cached = c;
            return c;
          },
          (e: unknown) => {
            // What the token endpoint echoes may hold the secret in any
            // form, the Basic value, or the token in hand.
            throw redactSecrets(e, [...secrets, cached?.token]);
          },
        );
        pending = p;
        // Settled either way, the next caller past expiry starts afresh.
        void p.then(
          () => pending === p && (pending = undefined),
          () => pending === p && (pending = undefined),
        );
      }
      const previous = cached;
      try {
        return (await pending).token;
      } catch (e) {
        // An early refresh that failed: the token in hand is still good for now.
        if (previous && previous === cached && now() < previous.expires) return previous.token;
        throw e;
      }
    },
    invalidate(stale) {
      if (cached?.token === stale) cached = undefined;
    },
  };
  return opaque(provider, description);
}

/** Form fields that carry a credential (`client_assertion`, `subject_token`, `password`, `code_verifier`...), by name. */
const CREDENTIAL_PARAM = /assertion|secret|password|token|code|key|verifier/i;

/** The values of the `params` that are credentials, masked as the client secret is. */
function credentialParams(params: Readonly<Record<string, string>> | undefined): string[] {
  return Object.entries(params ?? {})
    .filter(([name, value]) => CREDENTIAL_PARAM.test(name) && typeof value === "string")
    .map(([, value]) => value);
}

function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

/** The HTTP Basic credentials of RFC 6749 section 2.3.1: base64 of the form-encoded id and secret. */
function basicCredentials(clientId: string, clientSecret: string): string {
  return base64(new TextEncoder().encode(`${formEncode(clientId)}:${formEncode(clientSecret)}`));
}

/** A token from `tokenUrl`; `secrets` are what its text quoted back is masked of. */
async function requestToken(
  tokenUrl: string,
  options: ClientCredentialsOptions,
  secrets: readonly string[],
  basic: string,
): Promise<{ token: string; lifetimeMs: number | undefined }> {
  const where = safeUrl(tokenUrl);
  // Server text cut short is masked first: a cut could leave part of a secret.
  const quoted = (text: string, max: number) => redactSecrets(text, secrets).slice(0, max);
  const form = new URLSearchParams({ grant_type: "client_credentials" });
  const scopes = [...new Set(options.scopes ?? [])];
  if (scopes.length > 0) form.set("scope", scopes.join(" "));
  for (const [k, v] of Object.entries(options.params ?? {})) form.set(k, v);
  const headers = new Headers({ "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" });
  if (options.clientAuth === "body") {
    form.set("client_id", options.clientId);
    form.set("client_secret", options.clientSecret);
  } else {
    headers.set("Authorization", `Basic ${basic}`);
  }

  const fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const timeoutMs = options.timeoutMs ?? 10_000;
  const controller = new AbortController();
  const timer = startTimer(() => controller.abort(), timeoutMs);
  let status: number;
  let text: string;
  let type: string | null;
  try {
    // The secret goes to this URL only: a redirect is an error, not followed.
    // Raced against the timeout: a fetch that ignores its signal would hold
    // this shared request, and every call waiting for a token, for good.
    const res = await unlessAborted(
      fetchFn(tokenUrl, {
        method: "POST",
        headers,
        body: form.toString(),
        redirect: "manual",
        credentials: "omit",
        signal: controller.signal,
      }),
      controller.signal,
    );
    if (res.type === "opaqueredirect" || isRedirectStatus(res.status)) {
      await res.body?.cancel().catch(() => {});
      throw new RedirectRefusedError(
        `it answered with a redirect${res.status ? ` (HTTP ${res.status})` : ""}, and the client secret goes to the token URL only`,
      );
    }
    status = res.status;
    type = res.headers.get("Content-Type");
    text = await unlessAborted(
      readLimited(
        res,
        MAX_TOKEN_RESPONSE_BYTES,
        () => new AuthenticationError(`the token response is larger than ${MAX_TOKEN_RESPONSE_BYTES} bytes`),
      ),
      controller.signal,
    );
  } catch (e) {
    // With the URL, a network failure names where it went and, in a page, that it may be the token endpoint's CORS rules.
    const why = controller.signal.aborted ? `no answer within ${timeoutMs} ms` : toA2AError(e, undefined, tokenUrl).message;
    throw new AuthenticationError(`could not get an access token from ${where}: ${why}`, { cause: e });
  } finally {
    clearTimeout(timer);
  }
  let json: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (isJsonObject(parsed)) json = parsed;
  } catch {
    // Reported below.
  }
  if (status < 200 || status >= 300) {
    // RFC 6749 section 5.2: { error, error_description }.
    const code = typeof json?.error === "string" ? `: ${json.error}` : "";
    const description = typeof json?.error_description === "string" ? ` (${quoted(json.error_description, 200)})` : "";
    throw new AuthenticationError(`the token endpoint ${where} refused the client credentials with HTTP ${status}${code}${description}`);
  }
  if (!json || (type !== null && !isJsonContentType(type))) {
    throw new AuthenticationError(`the token endpoint ${where} did not answer with a JSON token response`);
  }
  const token = json.access_token;
  if (typeof token !== "string" || token === "") throw new AuthenticationError(`the token endpoint ${where} sent no access_token`);
  const tokenType = json.token_type;
  if (typeof tokenType === "string" && tokenType.toLowerCase() !== "bearer") {
    throw new AuthenticationError(
      `the token endpoint ${where} issued a "${quoted(tokenType, 40)}" token; only Bearer tokens are supported`,
    );
  }
  const expires = typeof json.expires_in === "string" ? Number(json.expires_in) : json.expires_in;
  const lifetimeMs = typeof expires === "number" && Number.isFinite(expires) && expires > 0 ? expires * 1000 : undefined;
  return { token, lifetimeMs };
}
