/**
 * Credentials as connect interceptors, one per kind of security scheme. They
 * work on every binding: HTTP headers on JSON-RPC and HTTP+JSON, metadata on
 * gRPC (both are `req.header`). Pass them in a transport's `interceptors`,
 * or let `connect(url, { auth })` build them from the Agent Card.
 *
 * A credential that can be renewed (a token provider) is renewed once when
 * the agent rejects it (401 with a `WWW-Authenticate` challenge, or gRPC
 * UNAUTHENTICATED) and the call is made again: unary calls, and streams that
 * have not delivered an event yet.
 */
import type { Interceptor, StreamRequest, UnaryRequest } from "@connectrpc/connect";
import { AuthenticationError } from "../errors/family.js";
import { toA2AError } from "../errors/classify.js";
import { base64 } from "../base/base64.js";
import { opaque, redactSecrets } from "../errors/redact.js";

/** Supplies access tokens and can be told that one was rejected. @category Auth */
export interface TokenProvider {
  /** A token to send now (cached by the provider as it sees fit). */
  token(): Promise<string>;
  /**
   * The agent rejected `stale`: the next `token()` gets a fresh one (unless
   * the provider has already moved on from `stale`).
   */
  invalidate(stale: string): void;
}

/** A fixed token, a function returning one (called on every call; cache in it), or a provider. @category Auth */
export type TokenSource = string | (() => string | Promise<string>) | TokenProvider;

type Req = UnaryRequest | StreamRequest;

/** How one credential goes on a request. */
interface Credential {
  /** The request with the credential on it, and the value used (to invalidate it if rejected). */
  apply(req: Req): Promise<{ req: Req; used: string }>;
  /** The agent rejected `used`: make the next `apply` use a fresh value. False when there is nothing fresher. */
  renew?(used: string): boolean;
  /** Values to mask in errors, besides the value used. */
  secrets: readonly string[];
}

const GRPC_UNAUTHENTICATED = 16;

/** What a header name and an authentication scheme name are made of (RFC 9110 token). */
const HTTP_TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

function isGrpc(req: Req): boolean {
  return /^application\/grpc/i.test(req.header.get("content-type") ?? "");
}

/** Rejections that a call made again already answered: an outer credential does not try once more. */
const settled = new WeakSet<object>();

/** Whether an error is the agent rejecting the credential in a way a fresh one may fix. */
function rejected(e: unknown): boolean {
  if (typeof e === "object" && e !== null && settled.has(e)) return false;
  const err = toA2AError(e);
  return err instanceof AuthenticationError && (err.challenge !== undefined || err.grpcCode === GRPC_UNAUTHENTICATED);
}

/** Marks the error of a call made again: one retry per call, however many credentials it carries. */
function final(e: unknown): unknown {
  if (typeof e === "object" && e !== null) settled.add(e);
  return e;
}

async function* replay<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

/**
 * The interceptor for one credential. Every error that leaves it, from the
 * call or from a stream's events, is redacted once, on its way out, with
 * every value this call sent and the credential's own secrets (errors/redact.ts):
 * the agent's answer may echo any of them.
 */
function credentialInterceptor(c: Credential, description: string): Interceptor {
  const interceptor: Interceptor = (next) => (req) => {
    // The values sent on this call; filled as they are applied.
    const used: string[] = [];
    const redact = (e: unknown) => redactSecrets(e, [...used, ...c.secrets]);
    return authenticated(c, next, req, used, redact).catch((e: unknown) => Promise.reject(redact(e)));
  };
  return opaque(interceptor, description);
}

/** One call with the credential on it, made again once if the agent rejects a renewable one. */
async function authenticated(
  c: Credential,
  next: Parameters<Interceptor>[0],
  req: Req,
  used: string[],
  redact: (e: unknown) => unknown,
): Promise<Awaited<ReturnType<typeof next>>> {
  const apply = async () => {
    const applied = await c.apply(req);
    used.push(applied.used);
    return applied;
  };
  const first = await apply();
  const retryable = (e: unknown, value: string): boolean => !req.signal.aborted && c.renew !== undefined && rejected(e) && c.renew(value);

  if (!req.stream) {
    try {
      return await next(first.req);
    } catch (e) {
      if (!retryable(e, first.used)) throw e;
      const again = await apply();
      // Nothing fresher to offer: the agent's answer stands.
      if (again.used === first.used) throw e;
      return await next(again.req).catch((e2: unknown) => Promise.reject(final(e2)));
    }
  }

  // A2A streams are server-streaming: one request message, kept so the
  // call can be made again.
  const messages: unknown[] = [];
  for await (const m of req.message) messages.push(m);
  const open = (r: Req) => next({ ...(r as StreamRequest), message: replay(messages) } as StreamRequest);
  let res;
  let retried = false;
  try {
    res = await open(first.req);
  } catch (e) {
    if (!retryable(e, first.used)) throw e;
    retried = true;
    const again = await apply();
    if (again.used === first.used) throw e;
    res = await open(again.req).catch((e2: unknown) => Promise.reject(final(e2)));
  }
  if (!res.stream) return res;
  const firstResponse = res;
  // Some servers report the rejection in the stream itself (gRPC trailers):
  // before the first event, that call too is made once more.
  async function* events(): AsyncGenerator<unknown> {
    let current = firstResponse;
    try {
      for (;;) {
        let delivered = false;
        try {
          for await (const m of current.message) {
            delivered = true;
            yield m;
          }
          return;
        } catch (e) {
          if (delivered || retried || !retryable(e, used.at(-1)!)) throw retried ? final(e) : e;
          retried = true;
          const before = used.length;
          const again = await apply();
          if (used.indexOf(again.used) < before) throw e;
          const next2 = await open(again.req).catch((e2: unknown) => Promise.reject(final(e2)));
          if (!next2.stream) throw e;
          current = next2;
        }
      }
    } catch (e) {
      // The events are read after the call has returned: their errors
      // leave the interceptor here.
      throw redact(e);
    }
  }
  return { ...res, message: events() as typeof res.message };
}

/**
 * Puts a credential in a header. A value the Headers class refuses (a line
 * break, a control character, a character above U+00FF: a token read with
 * a stray newline) fails as AuthenticationError naming the credential only:
 * the Headers class quotes the value it refuses, and nothing was sent yet
 * that the error's masking would know.
 */
function setCredential(req: Req, name: string, value: string, what: string): void {
  try {
    req.header.set(name, value);
  } catch {
    throw new AuthenticationError(
      `${what}: the credential is not a valid header value (not shown): it has a line break, a control character or a character above U+00FF`,
    );
  }
}

function isProvider(s: TokenSource): s is TokenProvider {
  return typeof s === "object" && s !== null && typeof s.token === "function" && typeof s.invalidate === "function";
}

/** Reads a token source; checks what it gives. */
function tokenCredential(source: TokenSource, format: (token: string) => string, what: string): Credential {
  if (typeof source !== "string" && typeof source !== "function" && !isProvider(source)) {
    throw new TypeError(`${what}: give a token, a function returning one, or a TokenProvider`);
  }
  const read = async (): Promise<string> => {
    const t = typeof source === "string" ? source : typeof source === "function" ? await source() : await source.token();
    if (typeof t !== "string" || t === "") throw new AuthenticationError(`${what}: no token to send (the token source gave none)`);
    return t;
  };
  return {
    async apply(req) {
      const token = await read();
      setCredential(req, "Authorization", format(token), what);
      return { req, used: token };
    },
    // A fixed token cannot be renewed; a function is simply asked again.
    renew:
      typeof source === "string"
        ? undefined
        : (used) => {
            if (isProvider(source)) source.invalidate(used);
            return true;
          },
    secrets: typeof source === "string" ? [source] : [],
  };
}

/** `bearerAuth` (documented in auth/schemes.ts). */
export function bearerInterceptor(token: TokenSource): Interceptor {
  return credentialInterceptor(
    tokenCredential(token, (t) => `Bearer ${t}`, "bearer auth"),
    "bearer auth",
  );
}

/** `httpAuth` (documented in auth/schemes.ts). */
export function httpSchemeInterceptor(scheme: string, token: TokenSource): Interceptor {
  if (!HTTP_TOKEN.test(scheme)) throw new TypeError(`"${scheme}" is not an HTTP authentication scheme name`);
  return credentialInterceptor(
    tokenCredential(token, (t) => `${scheme} ${t}`, `${scheme} auth`),
    `${scheme} auth`,
  );
}

/** A user name and password for HTTP Basic. @category Auth */
export interface BasicCredentials {
  /** Must not contain a colon (RFC 7617). */
  username: string;
  /** Any UTF-8 text; never appears in errors. */
  password: string;
}

/** Base64 of the UTF-8 bytes of `text` (RFC 7617 with charset UTF-8). */
function base64Utf8(text: string): string {
  return base64(new TextEncoder().encode(text));
}

/** `basicAuth` (documented in auth/schemes.ts). */
export function basicInterceptor(credentials: BasicCredentials): Interceptor {
  const { username, password } = credentials;
  if (typeof username !== "string" || typeof password !== "string") throw new TypeError("basic auth: give { username, password }");
  if (username.includes(":")) throw new TypeError("basic auth: a username cannot contain a colon");
  const encoded = base64Utf8(`${username}:${password}`);
  return credentialInterceptor(
    {
      async apply(req) {
        req.header.set("Authorization", `Basic ${encoded}`);
        return { req, used: encoded };
      },
      secrets: [password, encoded],
    },
    "basic auth",
  );
}

/** Where an API key goes, under which name, and the key. @category Auth */
export interface ApiKeyOptions {
  /** Where the key goes, as the card's APIKeySecurityScheme says: "header", "query" or "cookie". */
  location: "header" | "query" | "cookie";
  /** The header, query parameter or cookie name. */
  name: string;
  /** The key: a string, or a function returning one (asked on every call). */
  value: string | (() => string | Promise<string>);
}

/**
 * Whether this runtime's fetch drops a `Cookie` header, as browsers do (a
 * forbidden request header): a cookie key set there would silently not be
 * sent. Node, Deno and Bun send it.
 */
function cookieHeaderDropped(): boolean {
  try {
    return !new Request("http://localhost/", { headers: { Cookie: "a=b" } }).headers.has("Cookie");
  } catch {
    return false;
  }
}

/** `apiKeyAuth` (documented in auth/schemes.ts). */
export function apiKeyInterceptor(options: ApiKeyOptions): Interceptor {
  const { location, name, value } = options;
  if (location !== "header" && location !== "query" && location !== "cookie") {
    throw new TypeError(`API key location must be "header", "query" or "cookie", got "${String(location)}"`);
  }
  if (typeof name !== "string" || name === "") throw new TypeError("API key: the name is missing");
  // Else every call would fail inside the Headers class, untyped.
  if (location === "header" && !HTTP_TOKEN.test(name)) throw new TypeError(`API key: "${name}" is not a valid header name`);
  if (location === "cookie" && cookieHeaderDropped()) {
    throw new AuthenticationError(
      `the API key "${name}" goes in a cookie, and this runtime (a browser) does not let a page set the Cookie header: every call would go without it. ` +
        'Let the browser send the cookie (for another origin, fetch with credentials: "include") and mark the scheme { external: true }',
    );
  }
  const read = async (): Promise<string> => {
    const v = typeof value === "function" ? await value() : value;
    if (typeof v !== "string" || v === "") throw new AuthenticationError(`API key "${name}": no value to send`);
    return v;
  };
  return credentialInterceptor(
    {
      async apply(req) {
        if (location === "query" && isGrpc(req)) {
          throw new AuthenticationError(
            `the API key "${name}" goes in the URL query, which gRPC does not have: use a JSON-RPC or HTTP+JSON interface`,
            {
              binding: "GRPC",
            },
          );
        }
        const key = await read();
        if (location === "header") {
          setCredential(req, name, key, `API key "${name}"`);
          return { req, used: key };
        }
        if (location === "cookie") {
          const cookieName = encodeURIComponent(name);
          // Others' cookies stay; ours is replaced (a call made again sets it anew).
          const others = (req.header.get("Cookie") ?? "")
            .split(";")
            .map((c) => c.trim())
            .filter((c) => c !== "" && !c.startsWith(`${cookieName}=`));
          req.header.set("Cookie", [...others, `${cookieName}=${encodeURIComponent(key)}`].join("; "));
          return { req, used: key };
        }
        const url = new URL(req.url);
        url.searchParams.set(name, key);
        return { req: { ...req, url: url.href } as Req, used: key };
      },
      renew: typeof value === "function" ? () => true : undefined,
      secrets: typeof value === "string" ? [value] : [],
    },
    `API key auth (${location} ${name})`,
  );
}
