/**
 * An HTTP cache for Agent Cards, following RFC 9111 through
 * http-cache-semantics: fresh entries are served without a request, stale
 * ones are revalidated (If-None-Match / If-Modified-Since) and their body
 * reused on 304.
 */
import CachePolicy from "http-cache-semantics";

/** What a store keeps per card URL; plain data, so any store can hold it. */
export interface StoredCard {
  /** `CachePolicy.toObject()` */
  policy: CachePolicy.CachePolicyObject;
  body: string;
  /** The URL that answered, after redirects. */
  url: string;
}

/** Where cached cards live. The default keeps them in memory; supply your own to share them. */
export interface CardStore {
  get(key: string): StoredCard | undefined | Promise<StoredCard | undefined>;
  set(key: string, value: StoredCard): void | Promise<void>;
  delete(key: string): void | Promise<void>;
}

/** An in-memory store that forgets the least recently used entry beyond `maxEntries`. */
export class MemoryCardStore implements CardStore {
  private readonly entries = new Map<string, StoredCard>();
  constructor(private readonly maxEntries = 256) {}

  get(key: string): StoredCard | undefined {
    const v = this.entries.get(key);
    if (v !== undefined && this.entries.size > 1) {
      // Re-insert to mark as recently used (Map keeps insertion order).
      this.entries.delete(key);
      this.entries.set(key, v);
    }
    return v;
  }

  set(key: string, value: StoredCard): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.maxEntries) {
      this.entries.delete(this.entries.keys().next().value!);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

/** The request as http-cache-semantics sees it. */
export function cacheRequest(url: string, headers: Headers): CachePolicy.Request {
  return { url, method: "GET", headers: Object.fromEntries(headers) };
}

export function cacheResponse(status: number, headers: Headers): CachePolicy.Response {
  return { status, headers: Object.fromEntries(headers) };
}

// A client's own cache is private (RFC 9111 section 3.5): a card fetched
// with credentials may be kept, and `private` responses too.
export const POLICY_OPTIONS: CachePolicy.Options = { shared: false };

const policies = new WeakMap<StoredCard, CachePolicy>();

/** The live policy object of a stored entry, rebuilt once per entry object. */
export function policyOf(entry: StoredCard): CachePolicy {
  let p = policies.get(entry);
  if (!p) {
    p = CachePolicy.fromObject(entry.policy);
    policies.set(entry, p);
  }
  return p;
}

export function storedCard(policy: CachePolicy, body: string, url: string): StoredCard {
  const entry: StoredCard = { policy: policy.toObject(), body, url };
  policies.set(entry, policy);
  return entry;
}

export { CachePolicy };
