/**
 * A private HTTP cache for Agent Cards (RFC 9111): fresh entries are served
 * without a request, stale ones are revalidated (If-None-Match /
 * If-Modified-Since) and their body reused on 304.
 *
 * What a card cache needs of the RFC, and no more: freshness from
 * `max-age`, else `Expires`, else a heuristic from `Last-Modified`; `Age`;
 * `no-store` and `no-cache` on either side, the request's `max-age`;
 * `Vary: *`. The cache is a client's own (section 3.5), so `private` and
 * responses to requests with credentials may be kept; `s-maxage` is for
 * shared caches and is not read. Entries are told apart by URL and every
 * request header, which satisfies any `Vary`.
 */
import { sha256Hex } from "../base/bytes.js";
import { safeUrl } from "../base/urls.js";
import { keepNames } from "../base/keep-names.js";

/** What a store keeps per card URL; plain data, so any store can hold it. @category Discovery and trust */
export interface StoredCard {
  /** The card document as received. */
  body: string;
  /** The URL that answered, after redirects. */
  url: string;
  /**
   * The URLs redirected to on the way, the last being `url`; absent or empty
   * when the URL asked answered. A cached card is served only to callers
   * whose redirect rules allow this way.
   */
  redirects?: string[];
  /** When the response (or its latest 304) arrived, in epoch milliseconds. */
  receivedAt: number;
  /** The response headers caching reads, by lower-case name. */
  headers: Record<string, string>;
}

/** Where cached cards live. The default keeps them in memory; supply your own to share them. @category Discovery and trust */
export interface CardStore {
  /** The entry kept under `key`, if any. */
  get(key: string): StoredCard | undefined | Promise<StoredCard | undefined>;
  /** Keeps `value` under `key`, replacing what was there. */
  set(key: string, value: StoredCard): void | Promise<void>;
  /** Forgets the entry under `key`. */
  delete(key: string): void | Promise<void>;
}

/**
 * An in-memory store that forgets the least recently used entries beyond
 * `maxEntries` (default 256), or while the cards' JSON kept exceeds
 * `maxChars` characters all together (default 16 Mi): agents serving cards
 * near the size limit (1 MiB) cannot make it hold 256 of them.
 * @category Discovery and trust
 */
export class MemoryCardStore implements CardStore {
  private readonly entries = new Map<string, StoredCard>();
  /** The characters of every entry's body. */
  private chars = 0;
  constructor(
    private readonly maxEntries = 256,
    private readonly maxChars = 16 * 1024 * 1024,
  ) {}

  /** The entry kept under `key`, marked as the most recently used. */
  get(key: string): StoredCard | undefined {
    const v = this.entries.get(key);
    if (v !== undefined && this.entries.size > 1) {
      // Re-insert to mark as recently used (Map keeps insertion order).
      this.entries.delete(key);
      this.entries.set(key, v);
    }
    return v;
  }

  /** Keeps `value` under `key`, dropping the least recently used entries beyond `maxEntries` or `maxChars`. */
  set(key: string, value: StoredCard): void {
    this.delete(key);
    this.entries.set(key, value);
    this.chars += charsOf(value);
    while (this.entries.size > this.maxEntries || this.chars > this.maxChars) {
      this.delete(this.entries.keys().next().value!);
    }
  }

  /** Forgets the entry under `key`. */
  delete(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.chars -= charsOf(entry);
    this.entries.delete(key);
  }
}
keepNames({ MemoryCardStore });

/**
 * The key a card is stored under: its URL by origin and path, and a
 * SHA-256 digest of `distinct`, everything that tells entries apart (the
 * whole URL, every request header). So the request's credentials (an
 * `Authorization` header, an API key in the query) are never a key in
 * clear: a store may persist its keys, share them or print them. Undefined
 * where Web Crypto cannot digest (a page in an insecure context): no store
 * is used there.
 */
export async function cardStoreKey(url: string, distinct: string): Promise<string | undefined> {
  if (globalThis.crypto?.subtle === undefined) return undefined;
  return `${safeUrl(url)} ${await sha256Hex(distinct)}`;
}

/** An entry's size as the memory store counts it: its body's characters (an entry of another shape may have none). */
function charsOf(entry: StoredCard): number {
  return typeof entry.body === "string" ? entry.body.length : 0;
}

const KEPT = ["cache-control", "pragma", "date", "expires", "age", "etag", "last-modified", "vary"];

/** Heuristic freshness (section 4.2.2): a tenth of the time since the last change, at most a day. */
const HEURISTIC_FRACTION = 0.1;
const HEURISTIC_MAX_MS = 86_400_000;

/** What a store keeps of a card response: its body, URL, arrival time and caching headers. */
export function storedCard(headers: Headers, body: string, url: string, now = Date.now()): StoredCard {
  const kept: Record<string, string> = {};
  for (const name of KEPT) {
    const v = headers.get(name);
    if (v !== null) kept[name] = v;
  }
  return { body, url, receivedAt: now, headers: kept };
}

/** Whether a response to this request may be kept at all (section 3). */
export function storable(request: Headers, entry: StoredCard): boolean {
  return (
    !directives(request.get("cache-control")).has("no-store") &&
    !directives(entry.headers["cache-control"]).has("no-store") &&
    entry.headers.vary?.trim() !== "*"
  );
}

/** Whether the entry may answer this request without asking the server (section 4.2). */
export function fresh(entry: StoredCard, request: Headers, now = Date.now()): boolean {
  const age = currentAge(entry, now);
  const req = directives(request.get("cache-control"));
  if (req.has("no-cache") || (request.get("cache-control") === null && /no-cache/i.test(request.get("pragma") ?? ""))) return false;
  const reqMaxAge = seconds(req.get("max-age"));
  if (reqMaxAge !== undefined && age > reqMaxAge * 1000) return false;
  return age < lifetime(entry);
}

/** Conditional request headers that ask the server whether the entry is still current. */
export function revalidationHeaders(entry: StoredCard): Record<string, string> {
  const h: Record<string, string> = {};
  if (entry.headers.etag !== undefined) h["If-None-Match"] = entry.headers.etag;
  if (entry.headers["last-modified"] !== undefined) h["If-Modified-Since"] = entry.headers["last-modified"];
  return h;
}

/** The entry after a 304: the new response's headers over the stored ones (section 4.3.4). */
export function revalidated(entry: StoredCard, notModified: Headers, now = Date.now()): StoredCard {
  const update = storedCard(notModified, entry.body, entry.url, now);
  return { ...entry, receivedAt: update.receivedAt, headers: { ...entry.headers, ...update.headers } };
}

/** Freshness lifetime in milliseconds (section 4.2.1). */
function lifetime(entry: StoredCard): number {
  const h = entry.headers;
  const cc = directives(h["cache-control"]);
  if (cc.has("no-cache") || (h["cache-control"] === undefined && /no-cache/i.test(h.pragma ?? ""))) return 0;
  const maxAge = seconds(cc.get("max-age"));
  if (maxAge !== undefined) return maxAge * 1000;
  const date = dateOf(h.date) ?? entry.receivedAt;
  if (h.expires !== undefined) {
    const expires = dateOf(h.expires);
    return expires === undefined ? 0 : Math.max(0, expires - date);
  }
  const modified = dateOf(h["last-modified"]);
  return modified !== undefined && modified < date ? Math.min((date - modified) * HEURISTIC_FRACTION, HEURISTIC_MAX_MS) : 0;
}

/**
 * The response's `Age` plus the time since it arrived (section 4.2.3). The
 * apparent age from `Date` is left out: clocks disagree more often than
 * responses sit in transit.
 */
function currentAge(entry: StoredCard, now: number): number {
  return (seconds(entry.headers.age) ?? 0) * 1000 + Math.max(0, now - entry.receivedAt);
}

/** `Cache-Control` directives by lower-case name; a value without `=` is "". */
// A cache hit reads the same few Cache-Control values again and again:
// each is parsed once. The maps handed out are never modified.
const parsedDirectives = new Map<string, ReadonlyMap<string, string>>();

function directives(value: string | null | undefined): ReadonlyMap<string, string> {
  const text = value ?? "";
  let out = parsedDirectives.get(text);
  if (out === undefined) {
    if (parsedDirectives.size >= 64) parsedDirectives.clear();
    out = parseDirectives(text);
    parsedDirectives.set(text, out);
  }
  return out;
}

function parseDirectives(value: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of value.split(",")) {
    const eq = part.indexOf("=");
    const name = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (name)
      out.set(
        name,
        eq < 0
          ? ""
          : part
              .slice(eq + 1)
              .trim()
              .replace(/^"(.*)"$/, "$1"),
      );
  }
  return out;
}

/** A delta-seconds value (section 1.2.2); undefined if absent or malformed. */
function seconds(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

function dateOf(value: string | undefined): number | undefined {
  const t = value === undefined ? NaN : Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}
