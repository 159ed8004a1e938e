/**
 * The cache of key sets fetched from `jku` URLs (`JwksCache`), shared by
 * the verifications of a process unless a caller brings its own.
 */
import type { JWK } from "jose";
import { AbortedError, CallTimeoutError } from "../errors/family.js";
import { unlessAborted } from "../base/abort.js";
import { Rejection } from "./rejection.js";
import { positive } from "./values.js";
import { keepNames } from "../base/keep-names.js";

/** A key set as fetched, with how it was obtained. */
export interface FetchedKeySet {
  keys: JWK[];
  /** The URLs redirected to on the way, the last being where the set came from. */
  redirects: readonly string[];
  /** The size of the body. */
  bytes: number;
}

/** @internal A caller of the key set cache: its clock, its fetch function, and its rules. */
export interface KeySetRequest {
  now: () => number;
  fetchId: number;
  /** Which clock `now` is: an entry's age is read on the clock it was stored by. */
  clockId: number;
  /** Aborts with this caller's own end (its abort or its deadline): it stops waiting, for its own fetch or another's. */
  signal: AbortSignal;
  /** The content of the rules a fetch is checked against; failures are remembered per rules. */
  rulesKey: string;
  /** Whether these rules would have accepted a set fetched the way `fetched` was. */
  allows: (fetched: Omit<FetchedKeySet, "keys">) => boolean;
}

/** Freshness and size limits of a `JwksCache`. @category Discovery and trust */
export interface JwksCacheOptions {
  /** How long a fetched key set is used. Default 10 minutes. */
  maxAgeMs?: number;
  /**
   * Least time between two fetches of one URL: an unknown `kid` refetches a
   * cached set at most this often, and a failed fetch is remembered this long.
   * Default 30 seconds.
   */
  cooldownMs?: number;
  /** Key set URLs remembered at once. Default 32. */
  maxEntries?: number;
}

interface CacheEntry {
  at: number;
  fetched?: FetchedKeySet;
  error?: Rejection;
  /** The rules under which `error` happened: another caller's rules may not fail the same way. */
  errorRules?: string;
}

/**
 * Key sets fetched from `jku` URLs, by URL, fetch function and clock. Lets key
 * rotation take effect (an unknown `kid` refetches) without letting cards
 * make a fetch per verification.
 *
 * A set is shared only where it changes no caller's outcome: each entry
 * remembers the redirects it was fetched through and its size, and is
 * served only to a caller whose rules (allowed origins, http, size) would
 * have accepted that fetch; others fetch again under their own rules. A
 * failed fetch is remembered for callers with the same rules only, and one
 * that a caller's abort or timeout ended is not remembered: a caller that
 * joined it fetches for itself, within its own time.
 * @category Discovery and trust
 */
export class JwksCache {
  readonly #maxAgeMs: number;
  readonly #cooldownMs: number;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, CacheEntry>();
  readonly #inflight = new Map<string, Promise<CacheEntry>>();

  constructor(options: JwksCacheOptions = {}) {
    this.#maxAgeMs = positive(options.maxAgeMs, 10 * 60_000, "maxAgeMs", true);
    this.#cooldownMs = positive(options.cooldownMs, 30_000, "cooldownMs", true);
    this.#maxEntries = positive(options.maxEntries, 32, "maxEntries");
  }

  /** Forgets every key set, so the next verification fetches again. */
  clear(): void {
    this.#entries.clear();
  }

  /** @internal The keys at `url`, and until when (epoch ms) they may be used. */
  async keysFor(
    url: string,
    kid: string,
    request: KeySetRequest,
    load: () => Promise<FetchedKeySet>,
  ): Promise<{ keys: readonly JWK[]; validUntil: number }> {
    const key = `${request.fetchId}\n${request.clockId}\n${url}`;
    const flight = `${key}\n${request.rulesKey}`;
    const pending = this.#inflight.get(flight);
    if (pending) {
      // Waited for within this caller's own time; another caller's abort or
      // timeout is not this caller's answer: it fetches for itself.
      const shared = await unlessAborted(pending.catch(unlessCallersEnd), request.signal);
      if (shared) return { keys: shared.fetched!.keys, validUntil: shared.at + this.#maxAgeMs };
    }
    const entry = this.#entries.get(key);
    const t = request.now();
    if (entry !== undefined && t - entry.at < this.#maxAgeMs) {
      const cooling = t - entry.at < this.#cooldownMs;
      if (entry.error !== undefined && cooling && entry.errorRules === request.rulesKey) throw entry.error;
      const fetched = entry.fetched;
      if (fetched !== undefined && (cooling || fetched.keys.some((k) => k.kid === kid)) && request.allows(fetched)) {
        return { keys: fetched.keys, validUntil: entry.at + this.#maxAgeMs };
      }
    }
    const p = load().then(
      (fetched) => this.#store(key, { at: request.now(), fetched }),
      (e: unknown) => {
        // Only the key set's own failures are remembered (an abort or a
        // timeout is not a Rejection): a caller's end is nobody else's.
        if (e instanceof Rejection) this.#store(key, { at: request.now(), error: e, errorRules: request.rulesKey });
        throw e;
      },
    );
    this.#inflight.set(flight, p);
    try {
      const stored = await p;
      return { keys: stored.fetched!.keys, validUntil: stored.at + this.#maxAgeMs };
    } finally {
      // A caller that joined this fetch and then fetched for itself may have put its own here.
      if (this.#inflight.get(flight) === p) this.#inflight.delete(flight);
    }
  }

  #store(key: string, entry: CacheEntry): CacheEntry {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    return entry;
  }
}
keepNames({ JwksCache });

/** Undefined for a fetch that ended with its caller (aborted, or out of time); what else it threw, thrown. */
function unlessCallersEnd(e: unknown): undefined {
  if (e instanceof AbortedError || e instanceof CallTimeoutError) return undefined;
  throw e;
}
