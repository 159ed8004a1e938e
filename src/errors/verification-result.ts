/**
 * What verifying an Agent Card reports: the result, and for each signature
 * that did not verify, why. Types only, importing nothing, so that the error
 * family (whose AgentCardVerificationError carries a result) and the
 * browser-safe core can name them without loading the verifier; here,
 * beside the error family, as trust/ and discovery/ sit above it.
 */

/** Why one signature (or, with index -1, the card as a whole) did not verify. @category Discovery and trust */
export type VerificationFailureCode =
  /** The card has no signatures (index -1). */
  | "no_signatures"
  /**
   * The card has no signatures, but cards from its origin were signed and
   * verified before in this process (index -1): a stripped signature is not
   * a free downgrade. See `ResolveOptions.downgrade`.
   */
  | "signatures_dropped"
  /**
   * The card was fetched from a host not on this machine and names an
   * address on this machine or its link (loopback, `*.localhost`,
   * link-local) in an interface or a security scheme (index -1); `reason`
   * names the field and the URL. See `ResolveOptions.localUrls`.
   */
  | "local_url"
  /** The card cannot be put in canonical form, e.g. a lone surrogate in a string, or received text is not a JSON object (index -1). */
  | "canonicalization_failed"
  /** More signatures than `maxSignatures`; this one was not looked at. */
  | "too_many_signatures"
  /** `protected` is not base64url of a JSON object, or `header` is not an object. */
  | "malformed_header"
  /** `signature` is empty or not base64url. */
  | "malformed_signature"
  /** A parameter appears in both the protected and the unprotected header. */
  | "header_conflict"
  | "missing_alg"
  /** `alg` is not in the allowlist (`none` and `HS*` never are). */
  | "alg_not_allowed"
  | "missing_kid"
  /** `typ` is present and not `JOSE`. */
  | "typ_invalid"
  /** `crit` names a parameter this verifier does not implement, or is malformed. */
  | "crit_unsupported"
  /** `b64: false` (RFC 7797): the payload must be the base64url-encoded canonical card. */
  | "unencoded_payload"
  /** No key with the signature's `kid` in the store, and none at its `jku`. */
  | "key_not_found"
  /** The key store's lookup function threw. */
  | "key_lookup_failed"
  /** A key was found under the `kid`, but it names a different `kid`. */
  | "kid_mismatch"
  /** The JWK's `use` is present and not `sig`. */
  | "key_use_not_sig"
  /** The JWK's `key_ops` (or the CryptoKey's usages) lack `verify`. */
  | "key_ops_no_verify"
  /** The key's `alg`, type or curve does not match the header's `alg`. */
  | "key_alg_mismatch"
  /** The JWK's `exp` has passed or its `nbf` has not come. */
  | "key_expired"
  /** The key cannot be used: not a public key, cannot be imported, too short; or the runtime has no Web Crypto (a page in an insecure context). */
  | "key_invalid"
  /** `jku` is not an absolute URL on an allowed origin, or `jku` fetching is off. */
  | "jku_not_allowed"
  /** `jku` is not https, and `http:` is not allowed for it (see `JkuOptions.allowHttp`). */
  | "jku_insecure"
  /** Fetching `jku` redirected off the allowed origins, or could not be checked. */
  | "jku_redirect"
  /** Fetching `jku` failed: network error, timeout or an unsuccessful status. */
  | "jku_fetch_failed"
  /** The `jku` response is not a JWKS: content type, size, JSON or shape. */
  | "jku_invalid_response"
  /** The signature does not match the card and key. */
  | "signature_invalid";

/** Why one signature (or the card as a whole) did not verify. @category Discovery and trust */
export interface VerificationFailure {
  /** Position in `card.signatures`; -1 for failures of the card as a whole. */
  index: number;
  /** The signature's `kid`, when it has one. */
  kid?: string;
  /** What went wrong, for people. Never contains key material. */
  reason: string;
  /** What went wrong, for code. */
  code: VerificationFailureCode;
}

/** The outcome of verifying an Agent Card's signatures. @category Discovery and trust */
export interface VerificationResult {
  /** True when at least one signature verified with a trusted key. */
  verified: boolean;
  /** True when a policy decided not to verify. */
  skipped?: boolean;
  /** Of the first signature that verified. */
  kid?: string;
  /** The JWS algorithm of that signature, e.g. `ES256`. */
  alg?: string;
  /** Where its key came from: the caller's `keys`, or the key set its `jku` names. */
  keySource?: "store" | "jku";
  /** The JWKS URL the key came from, when `keySource` is `"jku"`. */
  jku?: string;
  /** Every signature that did not verify, also when another one did. */
  failures: VerificationFailure[];
}
