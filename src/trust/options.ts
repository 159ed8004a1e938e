/**
 * What a caller gives the verifier and the signer: the card as received,
 * trusted keys, `jku` rules, the verification policy, signing options.
 * Types only: the browser-safe core names them without loading the verifier.
 */
import type { JWK } from "jose";
// Named by a {@link} below; type-only, so nothing of it is loaded.
import type { DEFAULT_ALGORITHMS } from "./algorithms.js";
import type { JwksCache } from "./jwks-cache.js";

/**
 * A card as the agent sent it: the JSON text, or the object `JSON.parse`
 * made of it. Verifying this form covers every member sent, fields this
 * schema does not know included.
 * @category Discovery and trust
 */
export type ReceivedAgentCard = string | Readonly<Record<string, unknown>>;

/** A public key to verify with: a JWK or a Web Crypto key. @category Discovery and trust */
export type VerificationKey = JWK | CryptoKey;

/** Finds the key for a `kid`; `header` is the signature's protected header. @category Discovery and trust */
export type KeyLookup = (
  kid: string,
  header: Readonly<Record<string, unknown>>,
) => Promise<VerificationKey | undefined> | VerificationKey | undefined;

/**
 * Keys the caller trusts: a JWKS (`{ keys: [...] }`), keys by `kid`, or a
 * lookup function.
 *
 * A JWK that carries private members (`d`, ...) is accepted; only its public
 * part is used. Symmetric (`oct`) keys never verify anything here. A JWK
 * with a numeric `exp` or `nbf` (seconds, as in JWT) is used only between
 * them.
 * @category Discovery and trust
 */
export type KeyStore =
  | {
      /** The trusted keys, as in a JWK Set. */
      keys: readonly JWK[];
    }
  | Readonly<Record<string, VerificationKey>>
  | KeyLookup;

/** Rules for fetching the key set a signature's `jku` header names. @category Discovery and trust */
export interface JkuOptions {
  /**
   * Origins a `jku` may point to (and redirects may stay within), taken as
   * written. Default: the origin of `cardUrl`, i.e. the agent's own origin;
   * for a card fetched as `localhost`, also `127.0.0.1` and `[::1]` on its
   * scheme and port, the addresses that name reaches (a card fetched from
   * an address is held to that address: the name could reach another
   * socket). None without `cardUrl`.
   */
  allowedOrigins?: readonly string[];
  /**
   * `true` allows `http:` key sets on any allowed origin (local development
   * only); `false` refuses every `http:` key set. Default: `http:` only when
   * both the card (`cardUrl`) and the key set URL, and every redirect on the
   * way, are on loopback (`localhost`, 127.0.0.0/8, `[::1]`).
   */
  allowHttp?: boolean;
  /** Largest JWKS body accepted. Default 64 KiB. */
  maxBytes?: number;
  /** Where fetched key sets are kept. Default: one cache shared by the process or page. */
  cache?: JwksCache;
}

/**
 * Trusted keys, allowed algorithms and key set fetching for verifying a card.
 * @example
 * ```ts
 * import { connect } from "a2a-connect";
 *
 * // Pinned keys: a signature must verify with one of these, and no jku is fetched.
 * const session = await connect("https://agent.example.com", {
 *   verify: "required",
 *   verification: { keys: { keys: [{ kty: "EC", crv: "P-256", kid: "agent-key-1", x: "...", y: "..." }] } },
 * });
 * ```
 * @category Discovery and trust
 */
export interface VerifyOptions {
  /**
   * Trusted keys, pinned: with `keys` given, a signature's `jku` is not
   * fetched unless `jku` is passed too, in which case a `kid` the store does
   * not hold is looked up at the `jku`.
   */
  keys?: KeyStore;
  /**
   * Rules for key sets named by `jku`; `false` never fetches one. Default:
   * `{}` (the card's own origin, https, or http when both are on loopback)
   * without `keys`, `false` with `keys`.
   */
  jku?: JkuOptions | false;
  /** Where the card was fetched from; its origin is the default allowed `jku` origin. */
  cardUrl?: string;
  /**
   * Accepted `alg` values, a subset of {@link DEFAULT_ALGORITHMS}.
   * Naming `none`, an `HS*` algorithm or an unknown one throws a TypeError.
   */
  algorithms?: readonly string[];
  /** The `fetch` used for `jku` key sets. Default: the global one. */
  fetch?: typeof fetch;
  /** Cancels verification, and any key set fetch under way. */
  signal?: AbortSignal;
  /**
   * Per `jku` key set, redirects included, and also when the key set is one
   * another verification is already fetching (whatever `fetch` does with
   * its signal). Default 5000 (`resolveAgentCard` passes what is left of its
   * own `timeoutMs`).
   */
  timeoutMs?: number;
  /** The clock, in epoch milliseconds, for key expiry and the JWKS cache. */
  now?: () => number;
  /** Signatures beyond this many are reported, not checked. Default 10. */
  maxSignatures?: number;
}

/**
 * When a card's signatures are checked: `"if-present"` verifies a card that
 * carries signatures, `"required"` also rejects one that carries none,
 * `"off"` checks nothing.
 * @category Discovery and trust
 */
export type VerifyPolicy = "off" | "if-present" | "required";

/** How `signAgentCard` signs: the key id, and optionally the algorithm and headers. @category Discovery and trust */
export interface SignOptions {
  /** The key id put in the protected header, by which verifiers find the key. */
  kid: string;
  /** Default: from the key (ES256/ES384/ES512, EdDSA, RS256, or PS256 by the key's hash). */
  alg?: string;
  /** A JWKS URL to put in the protected header. */
  jku?: string;
  /** Unprotected header parameters; their names must differ from the protected ones. */
  header?: Record<string, unknown>;
}
