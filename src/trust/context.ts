/**
 * The options of one verification, checked once and with their defaults
 * filled in: the context every step of the verifier reads. Invalid options
 * throw a TypeError here, before anything is fetched.
 */
import type { VerifyKit } from "./verify-kit.js";
import { ALGORITHMS, DEFAULT_ALGORITHMS } from "./algorithms.js";
import { JwksCache } from "./jwks-cache.js";
import { isLoopbackUrl } from "./loopback.js";
import { localhostAddresses } from "./loopback-names.js";
import type { KeyStore, VerifyOptions } from "./options.js";
import { positive } from "./values.js";

const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_BYTES = 64 * 1024;
const DEFAULT_MAX_SIGNATURES = 10;

const sharedCache = new JwksCache();

/**
 * Which `http:` key set URLs (and redirect hops) are accepted: `"any"`
 * (`allowHttp: true`), `"loopback"` (the default for a card fetched from this
 * machine: loopback URLs only), `"none"` (the default elsewhere) or
 * `"refused"` (`allowHttp: false`, not even loopback).
 */
export type HttpKeySets = "any" | "loopback" | "none" | "refused";

/** The rules a `jku` and the fetch of its key set are held to. */
export interface JkuRules {
  allowedOrigins: ReadonlySet<string>;
  /** Whether the options said where the card came from (`cardUrl`): the refusals say what to pass when not. */
  cardKnown: boolean;
  http: HttpKeySets;
  maxBytes: number;
  cache: JwksCache;
}

/** One verification's options, checked, defaults applied. */
export interface Context {
  keys: KeyStore | undefined;
  /** `false`: no key set is fetched. */
  jku: false | JkuRules;
  algorithms: ReadonlySet<string>;
  fetch: typeof fetch;
  /** 0 for the global fetch; key sets fetched through another function are kept apart. */
  fetchId: number;
  /** 0 for the system clock; key sets timed by another clock are kept apart (their age is that clock's). */
  clockId: number;
  signal: AbortSignal | undefined;
  timeoutMs: number;
  now: () => number;
  maxSignatures: number;
  /** The start's code that verification uses (verify-kit.ts's `VERIFY_KIT`), handed by the caller. */
  kit: VerifyKit;
}

/** Checks `options` and fills in their defaults; throws a TypeError naming an invalid option. `kit`: verify-kit.ts's `VERIFY_KIT`. */
export function prepare(options: VerifyOptions, kit: VerifyKit): Context {
  const algorithms = new Set(options.algorithms ?? DEFAULT_ALGORITHMS);
  for (const alg of algorithms) {
    if (!(alg in ALGORITHMS)) {
      const why =
        alg === "none" || /^HS\d+$/.test(alg) ? "it is not an asymmetric signature algorithm" : "it is not a supported JWS algorithm";
      throw new TypeError(
        `algorithm "${alg}" cannot be allowed for Agent Card signatures: ${why}; choose from ${DEFAULT_ALGORITHMS.join(", ")}`,
      );
    }
  }
  let cardOrigin: string | undefined;
  if (options.cardUrl !== undefined) cardOrigin = originOf(options.cardUrl, "cardUrl");
  // A card from this machine may name its keys on this machine over http (a
  // local agent has no certificate); a card from anywhere else may not.
  const cardIsLocal = cardOrigin !== undefined && isLoopbackUrl(new URL(cardOrigin));
  let jku: Context["jku"] = false;
  // Trusted keys read as pinning: a card's jku is consulted beside them only when asked for.
  if (options.jku !== false && (options.jku !== undefined || options.keys === undefined)) {
    const o = options.jku ?? {};
    // A card fetched as localhost may name its keys at either address that
    // name reaches on its port: no other machine, port or socket. Origins
    // given are taken as written.
    const list = o.allowedOrigins ?? (cardOrigin === undefined ? [] : [cardOrigin, ...localhostAddresses(new URL(cardOrigin))]);
    jku = {
      allowedOrigins: new Set(list.map((x) => originOf(x, "jku.allowedOrigins"))),
      cardKnown: cardOrigin !== undefined,
      http: o.allowHttp === true ? "any" : o.allowHttp === false ? "refused" : cardIsLocal ? "loopback" : "none",
      maxBytes: positive(o.maxBytes, DEFAULT_MAX_BYTES, "jku.maxBytes"),
      cache: o.cache ?? sharedCache,
    };
  }
  return {
    keys: options.keys,
    jku,
    algorithms,
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    fetchId: options.fetch === undefined ? 0 : kit.identityOf(options.fetch),
    clockId: options.now === undefined ? 0 : kit.identityOf(options.now),
    signal: options.signal,
    timeoutMs: positive(options.timeoutMs, DEFAULT_TIMEOUT_MS, "timeoutMs"),
    now: options.now ?? Date.now,
    maxSignatures: positive(options.maxSignatures, DEFAULT_MAX_SIGNATURES, "maxSignatures"),
    kit,
  };
}

/** The origin of URL option `option`; refused naming the option, never its text, whose user info or query may hold a credential. */
function originOf(value: string, option: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${option}: not an absolute URL`);
  }
  if (url.origin === "null") throw new TypeError(`${option}: a ${url.protocol} URL has no origin`);
  return url.origin;
}
