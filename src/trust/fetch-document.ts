/**
 * Fetching small JSON documents from places the caller does not control
 * (Agent Cards, key sets): bounded in time and size, with redirects under
 * the caller's policy, and credentials never sent to another origin.
 */
import { AbortedError, CallTimeoutError, InvalidAgentCardError, RedirectRefusedError } from "../errors/family.js";
import { classified } from "../errors/classification.js";
import { redirectTarget } from "../http/redirect-target.js";
import { checkHttpUrl, checkLimit } from "../call/option-checks.js";
import { checkLocalRedirect, type LocalUrlPolicy } from "./local-urls.js";
import { followSignal, unlessAborted } from "../base/abort.js";
import { concatBytes } from "../base/bytes.js";
import { isJsonContentType } from "../base/media-type.js";
import { startTimer } from "../base/timers.js";
import { safeUrl } from "../base/urls.js";
import { readerIterable } from "../http/fetch-client.js";
import { withoutUserInfo } from "../http/url-credentials.js";

/**
 * - "follow": follow up to `maxRedirects`, to any origin (credentials stay behind).
 * - "same-origin": follow only within the origin first asked.
 * - "error": treat any redirect as an error.
 * An https URL never redirects to http, and no URL to anything but http or https.
 * @category Discovery and trust
 */
export type RedirectPolicy = "follow" | "same-origin" | "error";

/** How a card or key set is fetched: bounded in time and size, redirects by policy. @category Discovery and trust */
export interface DocumentFetchOptions {
  /** The `fetch` to use. Default: the global one. */
  fetch?: typeof fetch | undefined;
  /** Sent to the first origin only. */
  headers?: HeadersInit | undefined;
  /** Cancels the fetch. */
  signal?: AbortSignal | undefined;
  /** Default 10 000 ms for the whole exchange, redirects and body included, whatever `fetch` does with its signal. */
  timeoutMs?: number | undefined;
  /** Default 1 MiB. */
  maxBytes?: number | undefined;
  /** Which redirects to follow. Default "follow". */
  redirect?: RedirectPolicy | undefined;
  /**
   * Default 5; 0 refuses every redirect. A browser follows a redirect out of
   * sight, so there the hops cannot be counted (it follows up to its own
   * limit), but 0 still refuses any, before it is followed.
   */
  maxRedirects?: number | undefined;
  /** Further rules for redirect targets (throw to refuse one), on top of the policy. */
  checkRedirect?: ((target: URL) => void) | undefined;
  /**
   * Whether a redirect from a host not on this machine may lead to one on
   * this machine or its link (`localhost`, `*.localhost`, 127.0.0.0/8,
   * 0.0.0.0/8, 169.254.0.0/16, `[::1]`, `[::]`, fe80::/10, and the IPv4-mapped
   * forms of those addresses): "refuse" (default) fails with
   * RedirectRefusedError before the request is made, "allow" follows it.
   */
  localUrls?: LocalUrlPolicy | undefined;
  /** The error for a body that is not JSON or too large. Default: InvalidAgentCardError. */
  invalid?: ((problem: "content-type" | "too-large", message: string) => Error) | undefined;
}

/** The answer to `fetchJsonDocument`. */
export interface FetchedDocument {
  /** HTTP status of the final response. */
  status: number;
  /** The URL that answered, after redirects. */
  url: string;
  /**
   * Every URL redirected to, in order, the last being `url`; empty when the
   * first URL answered. Kept so that a cached document is served only to
   * callers whose redirect rules would have followed the same way.
   */
  redirects: string[];
  /** Headers of the final response. */
  headers: Headers;
  /** The body of a 200 response (checked to be JSON); "" otherwise. */
  text: string;
}

const SAFE_HEADERS = ["accept", "a2a-version"];

/**
 * GETs a JSON document within the time and size limits of `options`,
 * following redirects as its policy allows; the body is read only from a
 * 200 response with a JSON content type.
 */
export async function fetchJsonDocument(url: string, options: DocumentFetchOptions = {}): Promise<FetchedDocument> {
  checkDocumentFetch(url, options);
  const fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const invalid = options.invalid ?? ((problem, message) => new InvalidAgentCardError(message, { problem }));
  const { controller, unlink } = followSignal(
    options.signal,
    () => new AbortedError("the request was aborted", { cause: options.signal?.reason }),
  );
  const timer = startTimer(
    () => controller.abort(new CallTimeoutError(`no complete answer from ${safeUrl(url)} within ${timeoutMs} ms`)),
    timeoutMs,
  );
  const redirects: string[] = [];
  const signal = controller.signal;
  const exchange = async (): Promise<FetchedDocument> => {
    const res = await followRedirects(fetchFn, url, options, signal, redirects);
    const doc: FetchedDocument = { status: res.status, url: res.url || url, redirects, headers: res.headers, text: "" };
    // Answered after the exchange was given up (a fetch that ignores its signal): let the body go.
    if (res.status !== 200 || signal.aborted) {
      await res.body?.cancel().catch(() => {});
      return doc;
    }
    const type = res.headers.get("Content-Type");
    if (!isJsonContentType(type)) {
      await res.body?.cancel().catch(() => {});
      throw invalid("content-type", `expected JSON from ${safeUrl(doc.url)}, got content type "${type ?? "none"}"`);
    }
    doc.text = await readLimited(res, maxBytes, () =>
      invalid("too-large", `the document at ${safeUrl(doc.url)} is larger than ${maxBytes} bytes`),
    );
    return doc;
  };
  try {
    // Raced against the signal: a `fetch` that ignores its signal, or a body
    // whose reads never settle, cannot hold the exchange past its deadline.
    return await unlessAborted(exchange(), signal);
  } catch (e) {
    if (controller.signal.aborted) throw controller.signal.reason;
    // fetch reports network failures as TypeErrors, named by the URL of the
    // hop that failed; what our own checks throw is already the error to report.
    // The classification loads then, within the exchange's deadline and signal.
    throw e instanceof TypeError ? await unlessAborted(classified(e, undefined, redirects.at(-1) ?? url), signal) : e;
  } finally {
    clearTimeout(timer);
    unlink();
  }
}

/**
 * Refuses what would fail later as something else: a URL that is not an
 * absolute http(s) URL (a bare TypeError from `new URL`, or a "connection"
 * failure), a limit that is not a number (NaN switches it off; a NaN or
 * negative timeout fires at once).
 */
export function checkDocumentFetch(url: unknown, options: DocumentFetchOptions): void {
  checkHttpUrl(url, "the URL");
  checkLimit(options.timeoutMs, "timeoutMs");
  checkLimit(options.maxBytes, "maxBytes");
  // 0 refuses every redirect, as "error" does.
  if (options.maxRedirects !== 0) checkLimit(options.maxRedirects, "maxRedirects");
}

async function followRedirects(
  fetchFn: typeof fetch,
  url: string,
  options: DocumentFetchOptions,
  signal: AbortSignal,
  redirects: string[],
): Promise<Response> {
  const policy = options.redirect ?? "follow";
  // The URL's user info goes as the first origin's credentials, as the caller's headers do.
  const asked = withoutUserInfo(url, new Headers(options.headers));
  const first = new URL(asked.url);
  let current = first;
  let headers = asked.header;
  for (let hop = 0; ; hop++) {
    const res = await fetchFn(current.href, { headers, signal, redirect: "manual", credentials: "omit" });
    if (res.type === "opaqueredirect") {
      // Browsers hide the target of a manual redirect. Let the browser
      // follow it, then check where the answer came from. Where it leads
      // cannot be known before, and a browser strips only `Authorization`
      // across origins (an API key header goes along): the request is made
      // again with the headers that may go to any origin, and nothing else.
      // What can be told before following: whether any redirect (one more) may be followed at all.
      checkMayFollow(first, current, hop, options);
      const followed = await fetchFn(current.href, { headers: safeHeaders(headers), signal, redirect: "follow", credentials: "omit" });
      const target = new URL(followed.url || current.href);
      if (target.href !== current.href) redirects.push(target.href);
      try {
        checkTarget(first, current, target, policy);
        // Already fetched (the browser followed it): at least its answer is not used.
        checkLocalRedirect(current, target, options.localUrls);
        options.checkRedirect?.(target);
      } catch (e) {
        await followed.body?.cancel().catch(() => {});
        throw e;
      }
      return followed;
    }
    const location = res.status >= 300 && res.status < 400 ? res.headers.get("Location") : null;
    if (location === null) return res;
    await res.body?.cancel().catch(() => {});
    const next = checkHop(first, current, location, hop, options);
    redirects.push(next.href);
    if (next.origin !== current.origin) headers = safeHeaders(headers);
    current = next;
  }
}

/**
 * Whether a document reached from `first` through `redirects` could have
 * been fetched under `options`: the same checks as when following them, for
 * a document taken from a cache. Throws what following would have thrown.
 */
export function checkRedirectChain(first: string, redirects: readonly string[], options: DocumentFetchOptions): void {
  const start = new URL(first);
  let from = start;
  redirects.forEach((hop, i) => {
    from = checkHop(start, from, hop, i, options);
  });
}

/** The target of redirect number `hop` (from 0), from `from` to `location`, when it may be followed; throws why not. */
function checkHop(first: URL, from: URL, location: string, hop: number, options: DocumentFetchOptions): URL {
  const policy = options.redirect ?? "follow";
  checkMayFollow(first, from, hop, options);
  const to = redirectTarget(location, from);
  checkTarget(first, from, to, policy);
  checkLocalRedirect(from, to, options.localUrls);
  options.checkRedirect?.(to);
  return to;
}

/** Whether redirect number `hop` (from 0), wherever it leads, may be followed under the policy and `maxRedirects`; throws why not. */
function checkMayFollow(first: URL, from: URL, hop: number, options: DocumentFetchOptions): void {
  const max = options.maxRedirects ?? 5;
  if (options.redirect === "error") throw new RedirectRefusedError(`${safeUrl(from.href)} redirects, and redirects are not allowed`);
  if (hop >= max) throw new RedirectRefusedError(`more than ${max} redirects from ${safeUrl(first.href)}`);
}

function checkTarget(first: URL, from: URL, to: URL, policy: RedirectPolicy): void {
  // A document is fetched from the web: a data:, file: or blob: URL names no
  // origin that its keys, its cache entry or the caller's rules could speak of.
  if (to.protocol !== "https:" && to.protocol !== "http:") {
    throw new RedirectRefusedError(`refused redirect from ${from.origin} to a ${to.protocol} URL; only http and https are followed`);
  }
  if (from.protocol === "https:" && to.protocol !== "https:") {
    throw new RedirectRefusedError(`refused redirect from https to ${to.protocol} (${to.origin})`);
  }
  if (policy === "same-origin" && to.origin !== first.origin) {
    throw new RedirectRefusedError(`refused redirect from ${first.origin} to another origin (${to.origin})`);
  }
}

/** Only headers that carry no credentials cross to another origin. */
function safeHeaders(h: Headers): Headers {
  const out = new Headers();
  for (const name of SAFE_HEADERS) {
    const v = h.get(name);
    if (v !== null) out.set(name, v);
  }
  return out;
}

/**
 * A response body as text, refused with `tooLarge()` past `maxBytes`
 * (declared or read). Its bytes are gathered in one buffer and decoded
 * once: text added chunk by chunk is a rope of a piece per chunk, some 32
 * bytes for a one-byte chunk.
 */
export async function readLimited(res: Response, maxBytes: number, tooLarge: () => Error): Promise<string> {
  const declared = Number(res.headers.get("Content-Length") ?? "NaN");
  if (declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  return utf8.decode(await concatBytes(readerIterable(res.body), maxBytes, tooLarge));
}

const utf8 = new TextDecoder();
