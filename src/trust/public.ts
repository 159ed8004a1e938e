/**
 * The functions of a2a-connect/trust that run the verifier's code, given
 * the code of the start it uses (verify-kit.ts's `VERIFY_KIT`): discovery
 * and sessions load the verifier on demand and hand it the kit themselves,
 * so that the verifier imports none of the start (docs/size.md, "Where the
 * bytes go"); this module, which the entry alone imports, does it for
 * callers of the entry.
 */
import type { AgentCard } from "../../gen/lf/a2a/v1/a2a_pb.js";
import type { VerificationResult } from "../errors/verification-result.js";
// For the link in applyVerifyPolicy's comment.
import type { AgentCardVerificationError } from "../errors/family.js";
import { canonicalBytesWith, canonicalJsonWith } from "./canonical.js";
import type { ReceivedAgentCard, VerifyOptions, VerifyPolicy } from "./options.js";
import { applyPolicyWith, verifyWith } from "./verify.js";
import { VERIFY_KIT } from "./verify-kit.js";

/**
 * Verifies a card's signatures. Resolves with a result whether or not any
 * signature verified (see {@link assertVerified}); rejects only for invalid
 * options (TypeError) and for an abort through `signal` (AbortedError).
 *
 * `card` is either the card as received (JSON text or its parsed object: a
 * signature over the members sent, over the normalised form, or over the
 * normalised form with the members this schema does not know as sent, verifies)
 * or a parsed `AgentCard` (only the normalised form can be checked, since
 * parsing dropped the fields the schema does not know: a newer agent's card
 * verifies only in its received form).
 *
 * Every signature is checked, so the result also names the stale or broken
 * ones next to the one that verified.
 * @example
 * ```ts
 * import { verifyAgentCard, assertVerified } from "a2a-connect/trust";
 *
 * const cardUrl = "https://agent.example.com/.well-known/agent-card.json";
 * const received = await (await fetch(cardUrl)).text();
 * const result = await verifyAgentCard(received, { cardUrl }); // keys from the signature's jku, on the card's origin
 * for (const f of result.failures) console.log(f.index, f.code, f.reason);
 * assertVerified(result); // throws AgentCardVerificationError unless one signature verified
 * ```
 * @category Discovery and trust
 */
export function verifyAgentCard(card: AgentCard | ReceivedAgentCard, options: VerifyOptions = {}): Promise<VerificationResult> {
  return verifyWith(VERIFY_KIT, card, options);
}

/**
 * Applies a verification policy to a card:
 * - `off`: nothing is checked; resolves `{ verified: false, skipped: true }`.
 * - `if-present`: an unsigned card passes unchecked (`skipped: true`); a
 *   signed card must have a signature that verifies.
 * - `required`: the card must have a signature that verifies.
 *
 * Throws {@link AgentCardVerificationError} when the policy is not met.
 * @category Discovery and trust
 */
export function applyVerifyPolicy(
  card: AgentCard | ReceivedAgentCard,
  policy: VerifyPolicy,
  options: VerifyOptions = {},
): Promise<VerificationResult> {
  return applyPolicyWith(VERIFY_KIT, card, policy, options);
}

/** The RFC 8785 text of a card's signed content. @category Discovery and trust */
export function canonicalCardJson(card: AgentCard): string {
  return canonicalJsonWith(VERIFY_KIT, card);
}

/** The bytes a card signature covers: UTF-8 of {@link canonicalCardJson}. @category Discovery and trust */
export function canonicalCardBytes(card: AgentCard): Uint8Array {
  return canonicalBytesWith(VERIFY_KIT, card);
}
