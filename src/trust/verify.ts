/**
 * Agent Card signatures (A2A 1.0, section 8.4): verification against a
 * caller's key store or a JWKS fetched from the signature's `jku`, and
 * signing.
 *
 * A signature is a flattened JWS whose payload is detached. Two payloads
 * are accepted, both computed here, never taken from the wire:
 * - the members the agent sent, without the top-level `signatures`, in RFC
 *   8785 form, when the card is given as received JSON. A newer agent signs
 *   fields this schema does not know yet, and its card must still verify
 *   (A2A#2122, A2A#2249);
 * - the normalised form of section 8.4.1 ({@link canonicalCardBytes}),
 *   computed from the card parsed with this schema.
 * Either way the card a caller gets (parsed from the same JSON, unknown
 * fields dropped) is a projection of bytes that were verified.
 *
 * Only asymmetric algorithms are accepted. A verifier that allowed `HS256`
 * could be fooled by a signature keyed with the agent's public key, and
 * `none` is no signature at all.
 *
 * Runs in browsers and Node: Web Crypto through `jose`, bytes as Uint8Array.
 */
import { clone, create, fromJson, isMessage, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import canonicalize from "canonicalize";
import { base64url, errors as joseErrors, FlattenedSign, flattenedVerify, type JWK } from "jose";
import { AgentCardSchema, AgentCardSignatureSchema, type AgentCard, type AgentCardSignature } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { AbortedError, AgentCardVerificationError, CallTimeoutError, RedirectRefusedError } from "../errors/family.js";
import { fetchJsonDocument } from "../discovery/fetch-document.js";
import { canonicalCardBytes } from "./canonical.js";
import { isV03Card } from "../v0_3/card.js";
import { findDuplicateKey } from "../discovery/json.js";
import { carriesSignatures } from "../discovery/signed.js";
import { identityOf, optionsKey } from "../discovery/options-key.js";

// --- Public types ----------------------------------------------------------------

/** Why one signature (or, with index -1, the card as a whole) did not verify. */
export type VerificationFailureCode =
  /** The card has no signatures (index -1). */
  | "no_signatures"
  /**
   * The card has no signatures, but cards from its origin were signed and
   * verified before in this process (index -1): a stripped signature is not
   * a free downgrade. See `ResolveOptions.downgrade`.
   */
  | "signatures_dropped"
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
  /** The key cannot be used: not a public key, cannot be imported, too short. */
  | "key_invalid"
  /** `jku` is not an absolute URL on an allowed origin, or `jku` fetching is off. */
  | "jku_not_allowed"
  /** `jku` is not https (and `allowHttp` is off). */
  | "jku_insecure"
  /** Fetching `jku` redirected off the allowed origins, or could not be checked. */
  | "jku_redirect"
  /** Fetching `jku` failed: network error, timeout or an unsuccessful status. */
  | "jku_fetch_failed"
  /** The `jku` response is not a JWKS: content type, size, JSON or shape. */
  | "jku_invalid_response"
  /** The signature does not match the card and key. */
  | "signature_invalid";

/** Why one signature (or the card as a whole) did not verify. */
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

/** The outcome of verifying an Agent Card's signatures. */
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

/** A public key to verify with: a JWK or a Web Crypto key. */
export type VerificationKey = JWK | CryptoKey;

/** Finds the key for a `kid`; `header` is the signature's protected header. */
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
 */
export type KeyStore =
  | {
      /** The trusted keys, as in a JWK Set. */
      keys: readonly JWK[];
    }
  | Readonly<Record<string, VerificationKey>>
  | KeyLookup;

/** Rules for fetching the key set a signature's `jku` header names. */
export interface JkuOptions {
  /**
   * Origins a `jku` may point to (and redirects may stay within).
   * Default: the origin of `cardUrl`, i.e. the agent's own origin.
   */
  allowedOrigins?: readonly string[];
  /** Allow `http:` key sets, for local development. Default false. */
  allowHttp?: boolean;
  /** Largest JWKS body accepted. Default 64 KiB. */
  maxBytes?: number;
  /** Where fetched key sets are kept. Default: one cache shared by the process or page. */
  cache?: JwksCache;
}

/** Trusted keys, allowed algorithms and key set fetching for verifying a card. */
export interface VerifyOptions {
  /**
   * Trusted keys, pinned: with `keys` given, a signature's `jku` is not
   * fetched unless `jku` is passed too, in which case a `kid` the store does
   * not hold is looked up at the `jku`.
   */
  keys?: KeyStore;
  /**
   * Rules for key sets named by `jku`; `false` never fetches one. Default:
   * `{}` (the card's own origin, https) without `keys`, `false` with `keys`.
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
  /** Per `jku` request, redirects included. Default 5000 (`resolveAgentCard` passes what is left of its own `timeoutMs`). */
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
 */
export type VerifyPolicy = "off" | "if-present" | "required";

/** How `signAgentCard` signs: the key id, and optionally the algorithm and headers. */
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

// --- Algorithms ---------------------------------------------------------------------

interface AlgSpec {
  kty: "EC" | "OKP" | "RSA";
  crv?: string;
  subtle: { name: string; namedCurve?: string; hash?: string };
}

const ALGORITHMS: Readonly<Record<string, AlgSpec>> = {
  ES256: { kty: "EC", crv: "P-256", subtle: { name: "ECDSA", namedCurve: "P-256" } },
  ES384: { kty: "EC", crv: "P-384", subtle: { name: "ECDSA", namedCurve: "P-384" } },
  ES512: { kty: "EC", crv: "P-521", subtle: { name: "ECDSA", namedCurve: "P-521" } },
  EdDSA: { kty: "OKP", crv: "Ed25519", subtle: { name: "Ed25519" } },
  Ed25519: { kty: "OKP", crv: "Ed25519", subtle: { name: "Ed25519" } },
  RS256: { kty: "RSA", subtle: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } },
  RS384: { kty: "RSA", subtle: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-384" } },
  RS512: { kty: "RSA", subtle: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-512" } },
  PS256: { kty: "RSA", subtle: { name: "RSA-PSS", hash: "SHA-256" } },
  PS384: { kty: "RSA", subtle: { name: "RSA-PSS", hash: "SHA-384" } },
  PS512: { kty: "RSA", subtle: { name: "RSA-PSS", hash: "SHA-512" } },
};

/** The algorithms accepted by default: every asymmetric JWS algorithm Web Crypto implements. */
export const DEFAULT_ALGORITHMS: readonly string[] = Object.freeze(Object.keys(ALGORITHMS));

const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_BYTES = 64 * 1024;
const DEFAULT_MAX_SIGNATURES = 10;
const MAX_REDIRECTS = 3;

// --- Verification ----------------------------------------------------------------------

/**
 * A card as the agent sent it: the JSON text, or the object `JSON.parse`
 * made of it. Verifying this form covers every member sent, fields this
 * schema does not know included.
 */
export type ReceivedAgentCard = string | Readonly<Record<string, unknown>>;

/**
 * Verifies a card's signatures. Resolves with a result whether or not any
 * signature verified (see {@link assertVerified}); rejects only for invalid
 * options (TypeError) and for an abort through `signal` (AbortedError).
 *
 * `card` is either the card as received (JSON text or its parsed object: a
 * signature over the members sent, or over the normalised form, verifies)
 * or a parsed `AgentCard` (only the normalised form can be checked, since
 * parsing dropped the fields the schema does not know: a newer agent's card
 * verifies only in its received form).
 *
 * Every signature is checked, so the result also names the stale or broken
 * ones next to the one that verified.
 */
export async function verifyAgentCard(card: AgentCard | ReceivedAgentCard, options: VerifyOptions = {}): Promise<VerificationResult> {
  const ctx = prepare(options);
  throwIfAborted(options.signal);
  const content = signedContent(card);
  if ("failure" in content) return { verified: false, failures: [content.failure] };
  if (content.signatures.length === 0) return { verified: false, failures: [noSignatures()] };
  if (content.payloads.length === 0) {
    return {
      verified: false,
      failures: [{ index: -1, code: "canonicalization_failed", reason: `the card has no canonical form: ${content.problem}` }],
    };
  }

  const result: VerificationResult = { verified: false, failures: [] };
  for (const [index, raw] of content.signatures.entries()) {
    if (index >= ctx.maxSignatures) {
      result.failures.push({ index, code: "too_many_signatures", reason: `only the first ${ctx.maxSignatures} signatures are checked` });
      continue;
    }
    let kid: string | undefined;
    try {
      const ok = await checkSignature(signatureOf(raw), content.payloads, ctx, (k) => (kid = k));
      if (!result.verified) {
        result.verified = true;
        result.kid = ok.kid;
        result.alg = ok.alg;
        result.keySource = ok.source;
        if (ok.jku !== undefined) result.jku = ok.jku;
        validity.set(result, ok.validUntil);
      }
    } catch (e) {
      if (!(e instanceof Rejection)) throw e;
      const reason = e.code === "signature_invalid" && content.note !== undefined ? `${e.message}; ${content.note}` : e.message;
      result.failures.push(kid === undefined ? { index, code: e.code, reason } : { index, kid, code: e.code, reason });
    }
  }
  return result;
}

// When the key behind a verified result stops being usable (its `exp`, or
// the end of the key set's freshness), in epoch ms: a caller that keeps the
// result (the card cache does) verifies again after that (section 8.4.3).
const validity = new WeakMap<VerificationResult, number>();

/** @internal Until when (epoch ms) a verified result may be reused; Infinity when its key states no end. */
export function verifiedUntil(result: VerificationResult): number {
  return validity.get(result) ?? Infinity;
}

/** A signature as it appears in a card: flattened JWS members without payload. */
interface SignatureMembers {
  protected: string;
  signature: string;
  header?: JsonObject | undefined;
}

type SignedContent =
  | { failure: VerificationFailure }
  | {
      signatures: readonly unknown[];
      /** The base64url payloads a signature may cover, the received form first. */
      payloads: string[];
      /** Why a form could not be computed, when none could. */
      problem: string;
      /** Said with every signature that does not match: what may be the cause. */
      note?: string | undefined;
    };

/** The signatures of a card and the payloads they may sign. */
function signedContent(card: AgentCard | ReceivedAgentCard): SignedContent {
  if (isMessage(card, AgentCardSchema)) {
    const normalised = payloadOf(() => canonicalCardBytes(card));
    return {
      signatures: card.signatures,
      payloads: "error" in normalised ? [] : [normalised.payload],
      problem: normalised.error ?? "",
      // Read from binary (gRPC), a card keeps the fields this schema does not
      // know only as bytes: a signature over them cannot be checked.
      note: hasUnknownFields(card) ? UNKNOWN_FIELDS_NOTE : undefined,
    };
  }
  let json: unknown = card;
  if (typeof card === "string") {
    try {
      json = JSON.parse(card);
    } catch {
      return { failure: { index: -1, code: "canonicalization_failed", reason: "the card text is not valid JSON" } };
    }
    const duplicate = findDuplicateKey(card);
    if (duplicate !== undefined) {
      return { failure: { index: -1, code: "canonicalization_failed", reason: `the card repeats the key ${clip(duplicate)}` } };
    }
  }
  if (!isPlainObject(json)) return { failure: { index: -1, code: "canonicalization_failed", reason: "the card is not a JSON object" } };
  const { signatures, ...members } = json;
  if (signatures !== undefined && signatures !== null && !Array.isArray(signatures)) {
    return { failure: { index: -1, code: "malformed_header", reason: "the card's signatures member is not a list" } };
  }
  const list = signatures ?? [];
  const payloads: string[] = [];
  const received = payloadOf(() => {
    const text = canonicalize(members);
    if (text === undefined) throw new TypeError("the card has no RFC 8785 form");
    return new TextEncoder().encode(text);
  });
  if (!("error" in received)) payloads.push(received.payload);
  // The normalised form exists for 1.0 cards only: no 0.3 signer produced it.
  const normalised = isV03Card(json)
    ? { error: "a 0.3 card is verified over the members it was sent with" }
    : payloadOf(() => canonicalCardBytes(fromJson(AgentCardSchema, members as JsonValue, { ignoreUnknownFields: true })));
  if (!("error" in normalised) && normalised.payload !== received.payload) payloads.push(normalised.payload);
  return { signatures: list, payloads, problem: received.error ?? "" };
}

const UNKNOWN_FIELDS_NOTE =
  "the card carries fields this client does not know; a card received in binary (gRPC) can be verified in its normalised form only";

/** Whether a message, or one nested in it, holds fields its schema does not know (kept as `$unknown` when read from binary). */
function hasUnknownFields(value: unknown, depth = 0): boolean {
  if (typeof value !== "object" || value === null || ArrayBuffer.isView(value) || depth > 32) return false;
  const unknown = (value as { $unknown?: unknown[] }).$unknown;
  if (Array.isArray(unknown) && unknown.length > 0) return true;
  return Object.values(value).some((v) => hasUnknownFields(v, depth + 1));
}

function payloadOf(bytes: () => Uint8Array): { payload: string; error?: undefined } | { error: string; payload?: undefined } {
  try {
    return { payload: base64url.encode(bytes()) };
  } catch (e) {
    return { error: errorMessage(e) };
  }
}

/** The members of one entry of a received `signatures` array, checked for shape. */
function signatureOf(raw: unknown): SignatureMembers {
  if (!isPlainObject(raw)) throw new Rejection("malformed_header", "the signature is not a JSON object");
  if (typeof raw.protected !== "string") throw new Rejection("malformed_header", "the signature has no protected header string");
  if (typeof raw.signature !== "string") throw new Rejection("malformed_signature", "the signature member is not a string");
  if (raw.header !== undefined && !isPlainObject(raw.header)) throw new Rejection("malformed_header", "the unprotected header is not an object");
  return { protected: raw.protected, signature: raw.signature, header: raw.header as JsonObject | undefined };
}

/** Throws an {@link AgentCardVerificationError} unless `result.verified`. */
export function assertVerified(result: VerificationResult): void {
  if (!result.verified) throw new AgentCardVerificationError(describeFailure(result), { result });
}

/**
 * Applies a verification policy to a card:
 * - `off`: nothing is checked; resolves `{ verified: false, skipped: true }`.
 * - `if-present`: an unsigned card passes unchecked (`skipped: true`); a
 *   signed card must have a signature that verifies.
 * - `required`: the card must have a signature that verifies.
 *
 * Throws {@link AgentCardVerificationError} when the policy is not met.
 */
export async function applyVerifyPolicy(card: AgentCard | ReceivedAgentCard, policy: VerifyPolicy, options: VerifyOptions = {}): Promise<VerificationResult> {
  if (policy !== "off" && policy !== "if-present" && policy !== "required") {
    throw new TypeError(`unknown verification policy "${String(policy)}": use "off", "if-present" or "required"`);
  }
  if (policy === "off") return { verified: false, skipped: true, failures: [] };
  if (!isSigned(card) && policy === "if-present") {
    prepare(options);
    return { verified: false, skipped: true, failures: [] };
  }
  const result = await verifyAgentCard(card, options);
  assertVerified(result);
  return result;
}

/** Whether a card, parsed or as received, carries any signature. */
function isSigned(card: AgentCard | ReceivedAgentCard): boolean {
  if (isMessage(card, AgentCardSchema)) return card.signatures.length > 0;
  let json: unknown = card;
  if (typeof card === "string") {
    try {
      json = JSON.parse(card);
    } catch {
      // Not JSON: verification reports why; it is not "unsigned".
      return true;
    }
  }
  return !isPlainObject(json) || carriesSignatures(json);
}

interface Context {
  keys: KeyStore | undefined;
  jku: false | { allowedOrigins: ReadonlySet<string>; allowHttp: boolean; maxBytes: number; cache: JwksCache };
  algorithms: ReadonlySet<string>;
  fetch: typeof fetch;
  /** 0 for the global fetch; key sets fetched through another function are kept apart. */
  fetchId: number;
  signal: AbortSignal | undefined;
  timeoutMs: number;
  now: () => number;
  maxSignatures: number;
}

function prepare(options: VerifyOptions): Context {
  const algorithms = new Set(options.algorithms ?? DEFAULT_ALGORITHMS);
  for (const alg of algorithms) {
    if (!(alg in ALGORITHMS)) {
      const why = alg === "none" || /^HS\d+$/.test(alg) ? "it is not an asymmetric signature algorithm" : "it is not a supported JWS algorithm";
      throw new TypeError(`algorithm "${alg}" cannot be allowed for Agent Card signatures: ${why}; choose from ${DEFAULT_ALGORITHMS.join(", ")}`);
    }
  }
  let cardOrigin: string | undefined;
  if (options.cardUrl !== undefined) cardOrigin = originOf(options.cardUrl, "cardUrl");
  let jku: Context["jku"] = false;
  // Trusted keys read as pinning: a card's jku is consulted beside them only when asked for.
  if (options.jku !== false && (options.jku !== undefined || options.keys === undefined)) {
    const o = options.jku ?? {};
    const list = o.allowedOrigins ?? (cardOrigin === undefined ? [] : [cardOrigin]);
    jku = {
      allowedOrigins: new Set(list.map((x) => originOf(x, "jku.allowedOrigins"))),
      allowHttp: o.allowHttp === true,
      maxBytes: positive(o.maxBytes, DEFAULT_MAX_BYTES, "jku.maxBytes"),
      cache: o.cache ?? sharedCache,
    };
  }
  return {
    keys: options.keys,
    jku,
    algorithms,
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    fetchId: options.fetch === undefined ? 0 : identityOf(options.fetch),
    signal: options.signal,
    timeoutMs: positive(options.timeoutMs, DEFAULT_TIMEOUT_MS, "timeoutMs"),
    now: options.now ?? Date.now,
    maxSignatures: positive(options.maxSignatures, DEFAULT_MAX_SIGNATURES, "maxSignatures"),
  };
}

/** A failed check of one signature; becomes a {@link VerificationFailure}. */
class Rejection extends Error {
  constructor(
    readonly code: VerificationFailureCode,
    message: string,
  ) {
    super(message);
  }
}

interface Verified {
  kid: string;
  alg: string;
  source: "store" | "jku";
  jku?: string;
  /** Epoch ms after which the key may no longer be used. */
  validUntil: number;
}

async function checkSignature(sig: SignatureMembers | AgentCardSignature, payloads: readonly string[], ctx: Context, onKid: (kid: string) => void): Promise<Verified> {
  const header = decodeProtectedHeader(sig.protected);
  const unprotected: JsonObject = sig.header ?? {};
  if (typeof header.kid === "string") onKid(header.kid);

  // RFC 7515 section 7.2.1: the two header objects must be disjoint, so a
  // parameter cannot say one thing protected and another unprotected.
  for (const name of Object.keys(unprotected)) {
    if (Object.hasOwn(header, name)) throw new Rejection("header_conflict", `"${name}" is in both the protected and the unprotected header`);
  }

  const alg = header.alg;
  if (typeof alg !== "string" || alg === "") throw new Rejection("missing_alg", "the protected header has no alg");
  if (!ctx.algorithms.has(alg)) throw new Rejection("alg_not_allowed", `alg "${clip(alg)}" is not allowed`);

  checkCritical(header, unprotected);

  if (header.typ !== undefined && (typeof header.typ !== "string" || !/^(application\/)?jose$/i.test(header.typ))) {
    throw new Rejection("typ_invalid", `typ "${clip(String(header.typ))}" is not JOSE`);
  }

  const kid = header.kid;
  if (typeof kid !== "string" || kid === "") throw new Rejection("missing_kid", "the protected header has no kid");

  if (!isBase64url(sig.signature) || sig.signature === "") throw new Rejection("malformed_signature", "the signature is empty or not base64url");

  const found = await findKeys(kid, header, ctx);
  let firstProblem: Rejection | undefined;
  let lastMismatch: Rejection | undefined;
  for (const candidate of found.candidates) {
    let key: CryptoKey | JWK;
    try {
      key = usableKey(candidate, kid, alg, ctx.now());
    } catch (e) {
      if (!(e instanceof Rejection)) throw e;
      firstProblem ??= e;
      continue;
    }
    for (const payload of payloads) {
      try {
        const jws = { protected: sig.protected, payload, signature: sig.signature, ...(sig.header === undefined ? {} : { header: sig.header }) };
        await flattenedVerify(jws, key, { algorithms: [alg] });
        const validUntil = Math.min(keyExpiry(candidate), found.validUntil);
        return { kid, alg, source: found.source, validUntil, ...(found.jku === undefined ? {} : { jku: found.jku }) };
      } catch (e) {
        lastMismatch = joseRejection(e);
        // A key that could not be used says more than "no match".
        if (lastMismatch.code !== "signature_invalid") {
          firstProblem ??= lastMismatch;
          break;
        }
      }
    }
  }
  throw firstProblem ?? lastMismatch ?? new Rejection("key_not_found", `no key for kid "${clip(kid)}"`);
}

function decodeProtectedHeader(encoded: string): Record<string, unknown> {
  if (encoded === "" || !isBase64url(encoded)) throw new Rejection("malformed_header", "the protected header is not base64url");
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(base64url.decode(encoded)));
  } catch {
    throw new Rejection("malformed_header", "the protected header is not UTF-8 JSON");
  }
  if (!isPlainObject(parsed)) throw new Rejection("malformed_header", "the protected header is not a JSON object");
  return parsed;
}

function checkCritical(header: Record<string, unknown>, unprotected: JsonObject): void {
  // The payload is always the base64url-encoded canonical card; an unencoded
  // payload (RFC 7797) would sign different bytes.
  if (header.b64 === false || unprotected.b64 === false) throw new Rejection("unencoded_payload", "unencoded payload (b64: false) is not allowed");
  if (unprotected.crit !== undefined) throw new Rejection("crit_unsupported", "crit must be in the protected header");
  const crit = header.crit;
  if (crit === undefined) return;
  if (!Array.isArray(crit) || crit.length === 0 || crit.some((c) => typeof c !== "string" || c === "") || new Set(crit).size !== crit.length) {
    throw new Rejection("crit_unsupported", "crit must be a non-empty list of distinct parameter names");
  }
  for (const name of crit as string[]) {
    // b64: true is the ordinary encoding, the one case understood.
    if (name === "b64" && header.b64 === true) continue;
    throw new Rejection("crit_unsupported", `critical header parameter "${clip(name)}" is not supported`);
  }
}

// --- Keys ------------------------------------------------------------------------------

interface Found {
  candidates: readonly unknown[];
  source: "store" | "jku";
  jku?: string;
  /** Epoch ms until which the source vouches for the keys: a key set's freshness. */
  validUntil: number;
}

/** When a JWK's own `exp` ends its use, in epoch ms; Infinity without one. */
function keyExpiry(key: unknown): number {
  return isPlainObject(key) && typeof key.exp === "number" ? key.exp * 1000 : Infinity;
}

async function findKeys(kid: string, header: Record<string, unknown>, ctx: Context): Promise<Found> {
  if (ctx.keys !== undefined) {
    const candidates = await fromStore(ctx.keys, kid, header);
    if (candidates.length > 0) return { candidates, source: "store", validUntil: Infinity };
  }
  const jku = header.jku;
  if (jku === undefined) {
    throw new Rejection("key_not_found", `no trusted key for kid "${clip(kid)}"${ctx.keys === undefined ? " (no key store given)" : ""} and no jku`);
  }
  if (typeof jku !== "string") throw new Rejection("malformed_header", "jku is not a string");
  if (ctx.jku === false) {
    throw new Rejection(
      "jku_not_allowed",
      ctx.keys === undefined
        ? "fetching keys from jku is turned off"
        : `no trusted key for kid "${clip(kid)}", and jku is not consulted when keys are given (pass jku to allow it)`,
    );
  }
  const url = checkJkuUrl(jku, ctx.jku, "jku_not_allowed");
  const rules = ctx.jku;
  const set = await rules.cache.keysFor(url, kid, keySetRequest(rules, ctx), () => fetchJwks(url, rules, ctx));
  const candidates = set.keys.filter((k) => k.kid === kid);
  if (candidates.length === 0) throw new Rejection("key_not_found", `no key with kid "${clip(kid)}" in the key set at ${url}`);
  return { candidates, source: "jku", jku: url, validUntil: set.validUntil };
}

/** What the key set cache needs to know of a caller: its clock, its fetch, and whether its rules allow a cached fetch. */
function keySetRequest(rules: JkuRules, ctx: Context): KeySetRequest {
  return {
    now: ctx.now,
    fetchId: ctx.fetchId,
    rulesKey: optionsKey({ origins: [...rules.allowedOrigins].sort(), http: rules.allowHttp, maxBytes: rules.maxBytes }),
    allows: (fetched) => {
      if (fetched.bytes > rules.maxBytes || fetched.redirects.length > MAX_REDIRECTS) return false;
      try {
        for (const hop of fetched.redirects) checkJkuUrl(hop, rules, "jku_redirect");
      } catch (e) {
        if (e instanceof Rejection) return false;
        throw e;
      }
      return true;
    },
  };
}

async function fromStore(store: KeyStore, kid: string, header: Record<string, unknown>): Promise<readonly unknown[]> {
  if (typeof store === "function") {
    let key: unknown;
    try {
      key = await store(kid, header);
    } catch (e) {
      throw new Rejection("key_lookup_failed", `the key lookup for kid "${clip(kid)}" failed: ${errorMessage(e)}`);
    }
    return key === undefined || key === null ? [] : [key];
  }
  const keys = (store as { keys?: unknown }).keys;
  if (Array.isArray(keys)) return keys.filter((k) => isPlainObject(k) && k.kid === kid);
  return Object.hasOwn(store, kid) ? [(store as Record<string, unknown>)[kid]] : [];
}

/** Checks a candidate key against the signature and returns what to verify with. */
function usableKey(candidate: unknown, kid: string, alg: string, now: number): CryptoKey | JWK {
  const spec = ALGORITHMS[alg]!;
  if (isCryptoKey(candidate)) {
    if (candidate.type !== "public") throw new Rejection("key_invalid", `the CryptoKey for kid "${clip(kid)}" is not a public key`);
    if (!candidate.usages.includes("verify")) throw new Rejection("key_ops_no_verify", `the CryptoKey for kid "${clip(kid)}" is not usable to verify`);
    const a = candidate.algorithm as { name: string; namedCurve?: string; hash?: { name: string } };
    const fits =
      a.name === spec.subtle.name &&
      (spec.subtle.namedCurve === undefined || a.namedCurve === spec.subtle.namedCurve) &&
      (spec.subtle.hash === undefined || a.hash?.name === spec.subtle.hash);
    if (!fits) throw new Rejection("key_alg_mismatch", `the CryptoKey for kid "${clip(kid)}" is a ${a.name} key, not one for ${alg}`);
    return candidate;
  }
  if (!isPlainObject(candidate) || typeof candidate.kty !== "string") {
    throw new Rejection("key_invalid", `the key for kid "${clip(kid)}" is neither a JWK nor a CryptoKey`);
  }
  const jwk = candidate as JWK & { exp?: unknown; nbf?: unknown };
  if (jwk.kid !== undefined && jwk.kid !== kid) throw new Rejection("kid_mismatch", `the key stored under kid "${clip(kid)}" has kid "${clip(String(jwk.kid))}"`);
  if (jwk.use !== undefined && jwk.use !== "sig") throw new Rejection("key_use_not_sig", `the key "${clip(kid)}" has use "${clip(String(jwk.use))}", not "sig"`);
  if (jwk.key_ops !== undefined && !(Array.isArray(jwk.key_ops) && jwk.key_ops.includes("verify"))) {
    throw new Rejection("key_ops_no_verify", `the key_ops of key "${clip(kid)}" do not include "verify"`);
  }
  if (jwk.alg !== undefined && jwk.alg !== alg) throw new Rejection("key_alg_mismatch", `the key "${clip(kid)}" is for alg "${clip(String(jwk.alg))}", the signature uses "${alg}"`);
  if (jwk.kty !== spec.kty || (spec.crv !== undefined && jwk.crv !== spec.crv)) {
    throw new Rejection("key_alg_mismatch", `the key "${clip(kid)}" (${clip(String(jwk.kty))}${jwk.crv ? ` ${clip(String(jwk.crv))}` : ""}) cannot verify ${alg}`);
  }
  // JWKs have no standard validity period; keys that state one are held to
  // it, since an expired key must not be used (section 8.4.3).
  if (typeof jwk.exp === "number" && jwk.exp * 1000 <= now) throw new Rejection("key_expired", `the key "${clip(kid)}" expired`);
  if (typeof jwk.nbf === "number" && jwk.nbf * 1000 > now) throw new Rejection("key_expired", `the key "${clip(kid)}" is not valid yet`);
  return publicPart(jwk);
}

/** Only the public parameters: verification never needs more, and Web Crypto rejects a private JWK imported to verify. */
function publicPart(jwk: JWK): JWK {
  switch (jwk.kty) {
    case "EC":
      return { kty: "EC", crv: jwk.crv, x: jwk.x, y: jwk.y } as JWK;
    case "OKP":
      return { kty: "OKP", crv: jwk.crv, x: jwk.x } as JWK;
    default:
      return { kty: "RSA", n: jwk.n, e: jwk.e } as JWK;
  }
}

function joseRejection(e: unknown): Rejection {
  if (e instanceof Rejection) return e;
  if (e instanceof joseErrors.JWSSignatureVerificationFailed) return new Rejection("signature_invalid", "the signature does not match the card");
  if (e instanceof joseErrors.JOSEAlgNotAllowed) return new Rejection("alg_not_allowed", errorMessage(e));
  if (e instanceof joseErrors.JWSInvalid) return new Rejection("malformed_header", errorMessage(e));
  return new Rejection("key_invalid", `the key cannot be used: ${errorMessage(e)}`);
}

// --- Remote key sets (jku) -----------------------------------------------------------------

type JkuRules = Exclude<Context["jku"], false>;

function checkJkuUrl(raw: string, rules: JkuRules, code: "jku_not_allowed" | "jku_redirect"): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Rejection(code, `jku "${clip(raw)}" is not an absolute URL`);
  }
  if (url.protocol !== "https:" && !(rules.allowHttp && url.protocol === "http:")) {
    throw new Rejection(code === "jku_redirect" ? code : "jku_insecure", `${clip(url.origin === "null" ? url.protocol : url.origin)} is not https`);
  }
  if (url.username !== "" || url.password !== "") throw new Rejection(code, "a jku must not carry credentials");
  if (!rules.allowedOrigins.has(url.origin)) {
    const allowed = rules.allowedOrigins.size === 0 ? "none (pass cardUrl or jku.allowedOrigins)" : [...rules.allowedOrigins].join(", ");
    throw new Rejection(code, `${clip(url.origin)} is not an allowed key origin; allowed: ${allowed}`);
  }
  url.hash = "";
  return url.href;
}

async function fetchJwks(url: string, rules: JkuRules, ctx: Context): Promise<FetchedKeySet> {
  let doc;
  try {
    doc = await fetchJsonDocument(url, {
      fetch: ctx.fetch,
      signal: ctx.signal,
      timeoutMs: ctx.timeoutMs,
      maxBytes: rules.maxBytes,
      maxRedirects: MAX_REDIRECTS,
      headers: { Accept: "application/jwk-set+json, application/json" },
      // Every hop is held to the same origin rules as the jku itself.
      checkRedirect: (target) => void checkJkuUrl(target.href, rules, "jku_redirect"),
      invalid: (_problem, message) => new Rejection("jku_invalid_response", message),
    });
  } catch (e) {
    if (e instanceof Rejection || e instanceof AbortedError) throw e;
    if (e instanceof RedirectRefusedError) throw new Rejection("jku_redirect", e.message);
    if (e instanceof CallTimeoutError) throw new Rejection("jku_fetch_failed", `fetching the key set timed out after ${ctx.timeoutMs} ms`);
    throw new Rejection("jku_fetch_failed", `fetching the key set failed: ${errorMessage(e)}`);
  }
  if (doc.status !== 200) throw new Rejection("jku_fetch_failed", `the key set URL answered HTTP ${doc.status}`);
  let json: unknown;
  try {
    json = JSON.parse(doc.text);
  } catch {
    throw new Rejection("jku_invalid_response", "the key set is not valid JSON");
  }
  if (!isPlainObject(json) || !Array.isArray(json.keys)) throw new Rejection("jku_invalid_response", "the key set has no keys array");
  return {
    keys: json.keys.filter((k): k is JWK => isPlainObject(k) && typeof k.kty === "string"),
    redirects: doc.redirects,
    bytes: new TextEncoder().encode(doc.text).byteLength,
  };
}

/** A key set as fetched, with how it was obtained. */
interface FetchedKeySet {
  keys: JWK[];
  /** The URLs redirected to on the way, the last being where the set came from. */
  redirects: readonly string[];
  /** The size of the body. */
  bytes: number;
}

/** @internal A caller of the key set cache: its clock, its fetch function, and its rules. */
interface KeySetRequest {
  now: () => number;
  fetchId: number;
  /** The content of the rules a fetch is checked against; failures are remembered per rules. */
  rulesKey: string;
  /** Whether these rules would have accepted a set fetched the way `fetched` was. */
  allows: (fetched: Omit<FetchedKeySet, "keys">) => boolean;
}

/** Freshness and size limits of a `JwksCache`. */
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
 * Key sets fetched from `jku` URLs, by URL and fetch function. Lets key
 * rotation take effect (an unknown `kid` refetches) without letting cards
 * make a fetch per verification.
 *
 * A set is shared only where it changes no caller's outcome: each entry
 * remembers the redirects it was fetched through and its size, and is
 * served only to a caller whose rules (allowed origins, http, size) would
 * have accepted that fetch; others fetch again under their own rules. A
 * failed fetch is remembered for callers with the same rules only.
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
  async keysFor(url: string, kid: string, request: KeySetRequest, load: () => Promise<FetchedKeySet>): Promise<{ keys: readonly JWK[]; validUntil: number }> {
    const key = `${request.fetchId}\n${url}`;
    const flight = `${key}\n${request.rulesKey}`;
    const pending = this.#inflight.get(flight);
    if (pending) {
      try {
        const entry = await pending;
        return { keys: entry.fetched!.keys, validUntil: entry.at + this.#maxAgeMs };
      } catch (e) {
        // Another caller's abort is not this caller's answer.
        if (!(e instanceof AbortedError)) throw e;
      }
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
        if (e instanceof Rejection) this.#store(key, { at: request.now(), error: e, errorRules: request.rulesKey });
        throw e;
      },
    );
    this.#inflight.set(flight, p);
    try {
      const stored = await p;
      return { keys: stored.fetched!.keys, validUntil: stored.at + this.#maxAgeMs };
    } finally {
      this.#inflight.delete(flight);
    }
  }

  #store(key: string, entry: CacheEntry): CacheEntry {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    return entry;
  }
}

const sharedCache = new JwksCache();

// --- Signing ---------------------------------------------------------------------------------

/**
 * Returns a copy of `card` with one more signature: a JWS over the card's
 * canonical form with protected header `{alg, typ: "JOSE", kid, jku?}`.
 * Signatures already on the card stay valid, since `signatures` is not
 * part of the signed content.
 */
export async function signAgentCard(card: AgentCard, key: CryptoKey | JWK, options: SignOptions): Promise<AgentCard> {
  if (typeof options.kid !== "string" || options.kid === "") throw new TypeError("signAgentCard needs a kid");
  const alg = options.alg ?? algorithmOf(key);
  const spec = ALGORITHMS[alg];
  if (spec === undefined) throw new TypeError(`cannot sign with "${alg}": use one of ${DEFAULT_ALGORITHMS.join(", ")}`);
  let signingKey: CryptoKey | JWK;
  if (isCryptoKey(key)) {
    if (key.type !== "private") throw new TypeError("signing needs a private key");
    signingKey = key;
  } else {
    if (!isPlainObject(key) || typeof key.d !== "string") throw new TypeError("signing needs a private JWK (with d)");
    if (key.kty !== spec.kty || (spec.crv !== undefined && key.crv !== spec.crv)) throw new TypeError(`a ${String(key.kty)} key cannot sign ${alg}`);
    // jose freezes the JWK objects it is given; the caller's stays untouched.
    signingKey = { ...key };
  }
  const protectedHeader: Record<string, unknown> = { alg, typ: "JOSE", kid: options.kid };
  if (options.jku !== undefined) {
    try {
      protectedHeader.jku = new URL(options.jku).href;
    } catch {
      throw new TypeError(`jku "${options.jku}" is not an absolute URL`);
    }
  }
  const header = options.header;
  if (header !== undefined) {
    for (const name of Object.keys(header)) {
      if (Object.hasOwn(protectedHeader, name) || name === "crit" || name === "b64") {
        throw new TypeError(`"${name}" cannot be an unprotected header parameter`);
      }
    }
  }
  const signer = new FlattenedSign(canonicalCardBytes(card)).setProtectedHeader(protectedHeader);
  if (header !== undefined && Object.keys(header).length > 0) signer.setUnprotectedHeader(header);
  const jws = await signer.sign(signingKey);
  const signed = clone(AgentCardSchema, card);
  signed.signatures.push(
    create(AgentCardSignatureSchema, {
      protected: jws.protected!,
      signature: jws.signature,
      ...(jws.header === undefined ? {} : { header: JSON.parse(JSON.stringify(jws.header)) as JsonObject }),
    }),
  );
  return signed;
}

function algorithmOf(key: CryptoKey | JWK): string {
  if (isCryptoKey(key)) {
    const a = key.algorithm as { name: string; namedCurve?: string; hash?: { name: string } };
    const found = Object.entries(ALGORITHMS).find(
      ([name, s]) =>
        name !== "Ed25519" &&
        s.subtle.name === a.name &&
        (s.subtle.namedCurve === undefined || s.subtle.namedCurve === a.namedCurve) &&
        (s.subtle.hash === undefined || s.subtle.hash === a.hash?.name),
    );
    if (found) return found[0];
    throw new TypeError(`no JWS algorithm for a ${a.name} key; pass alg`);
  }
  if (typeof key.alg === "string") return key.alg;
  if (key.kty === "EC") {
    const found = Object.entries(ALGORITHMS).find(([, s]) => s.kty === "EC" && s.crv === key.crv);
    if (found) return found[0];
  }
  if (key.kty === "OKP" && key.crv === "Ed25519") return "EdDSA";
  if (key.kty === "RSA") return "RS256";
  throw new TypeError(`no JWS algorithm for this ${String(key.kty)} key; pass alg`);
}

// --- Small helpers ------------------------------------------------------------------------------

function describeFailure(result: VerificationResult): string {
  if (result.failures.length === 0) return "the Agent Card signature was not verified";
  const parts = result.failures.map((f) => {
    const who = f.index < 0 ? "card" : `signature ${f.index}${f.kid === undefined ? "" : ` (kid "${clip(f.kid)}")`}`;
    return `${who}: ${f.code}: ${f.reason}`;
  });
  return `the Agent Card has no signature that verifies; ${parts.join("; ")}`;
}

function noSignatures(): VerificationFailure {
  return { index: -1, code: "no_signatures", reason: "the card carries no signatures" };
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new AbortedError("agent card verification was aborted", { cause: signal.reason });
}

function originOf(value: string, option: string): string {
  let origin: string;
  try {
    origin = new URL(value).origin;
  } catch {
    throw new TypeError(`${option}: "${value}" is not an absolute URL`);
  }
  if (origin === "null") throw new TypeError(`${option}: "${value}" has no origin`);
  return origin;
}

function positive(value: number | undefined, fallback: number, option: string, allowZero = false): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) throw new TypeError(`${option} must be a positive number`);
  return value;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function isBase64url(s: string): boolean {
  return BASE64URL.test(s) && s.length % 4 !== 1;
}

function isCryptoKey(v: unknown): v is CryptoKey {
  return (typeof CryptoKey !== "undefined" && v instanceof CryptoKey) || Object.prototype.toString.call(v) === "[object CryptoKey]";
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Header values come from the card's publisher: keep what is echoed short. */
function clip(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
