/**
 * Verifying Agent Card signatures (A2A 1.0, section 8.4) against a caller's
 * key store or a JWKS fetched from the signature's `jku`; and the policy
 * (`off`, `if-present`, `required`) that discovery and sessions apply.
 * Every signature of a card is checked, so the result also names the stale
 * or broken ones next to the one that verified.
 *
 * The steps live beside this file: the options checked (context.ts), what a
 * signature may sign (signed-content.ts), its JWS headers (jws.ts), its keys
 * (keys.ts, jku.ts, jwks-cache.ts). Discovery loads this module on demand.
 *
 * Runs in browsers and Node: Web Crypto through `jose`, bytes as Uint8Array.
 */
import type { JWK } from "jose";
import type { AgentCard, AgentCardSignature } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { AbortedError, AgentCardVerificationError } from "../errors/family.js";
import { prepare, type Context } from "./context.js";
import { checkHeaders, joseRejection, signatureOf, verifyJws, type SignatureMembers } from "./jws.js";
import { findKeys, keyExpiry, usableKey } from "./keys.js";
import type { ReceivedAgentCard, VerifyOptions, VerifyPolicy } from "./options.js";
import { clip, Rejection } from "./rejection.js";
import type { VerificationFailure, VerificationResult } from "../errors/verification-result.js";
import { isSigned, signedContent } from "./signed-content.js";
import type { VerifyKit } from "./verify-kit.js";

/**
 * Verifies a card's signatures (public.ts's `verifyAgentCard`, which says
 * how), with `kit`, verify-kit.ts's `VERIFY_KIT`: the start's code this
 * module uses, handed by its caller since it loads on demand.
 */
export async function verifyWith(
  kit: VerifyKit,
  card: AgentCard | ReceivedAgentCard,
  options: VerifyOptions = {},
): Promise<VerificationResult> {
  const ctx = prepare(options, kit);
  throwIfAborted(options.signal);
  const content = signedContent(card, kit);
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

/** Throws an {@link AgentCardVerificationError} unless `result.verified`. @category Discovery and trust */
export function assertVerified(result: VerificationResult): void {
  if (!result.verified) throw new AgentCardVerificationError(describeFailure(result), { result });
}

/**
 * Applies a verification policy to a card (public.ts's `applyVerifyPolicy`,
 * which says how), with `kit` as {@link verifyWith} takes it.
 */
export async function applyPolicyWith(
  kit: VerifyKit,
  card: AgentCard | ReceivedAgentCard,
  policy: VerifyPolicy,
  options: VerifyOptions = {},
): Promise<VerificationResult> {
  if (policy !== "off" && policy !== "if-present" && policy !== "required") {
    throw new TypeError(`unknown verification policy "${String(policy)}": use "off", "if-present" or "required"`);
  }
  if (policy === "off") return { verified: false, skipped: true, failures: [] };
  if (!isSigned(card, kit) && policy === "if-present") {
    prepare(options, kit);
    return { verified: false, skipped: true, failures: [] };
  }
  const result = await verifyWith(kit, card, options);
  assertVerified(result);
  return result;
}

/** A signature that verified: with which key, from where, and for how long. */
interface Verified {
  kid: string;
  alg: string;
  source: "store" | "jku";
  jku?: string;
  /** Epoch ms after which the key may no longer be used. */
  validUntil: number;
}

/** Checks one signature against every key found for its `kid` and every payload it may sign; throws the Rejection that says most. */
async function checkSignature(
  sig: SignatureMembers | AgentCardSignature,
  payloads: readonly string[],
  ctx: Context,
  onKid: (kid: string) => void,
): Promise<Verified> {
  const { header, alg, kid } = checkHeaders(sig, ctx.algorithms, onKid);
  const found = await findKeys(kid, header, ctx);
  let firstProblem: Rejection | undefined;
  let lastMismatch: Rejection | undefined;
  // Key sets SHOULD give each key its own kid (RFC 7517 4.5): a few under
  // one kid are tried (a key and its successor, one per key type), not the
  // hundreds a hostile key set may repeat, each a signature check per payload.
  for (const candidate of found.candidates.slice(0, MAX_KEYS_PER_KID)) {
    // A verification can take long (many signatures, keys and payloads): the signal ends it between checks.
    throwIfAborted(ctx.signal);
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
        await verifyJws(sig, payload, key, alg);
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

/** How many keys of one kid a signature is checked against. */
const MAX_KEYS_PER_KID = 4;

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
