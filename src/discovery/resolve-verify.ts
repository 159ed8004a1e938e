/**
 * How `resolveAgentCard` verifies a card it found: loaded with the verifier,
 * the first time a resolve has a signature to check, so that apps which
 * never meet a signed card do not carry it.
 *
 * Two pieces of state live here, both shared by the process and both kept
 * from deciding one caller's outcome by another's options:
 * - verifications kept per received card, by the content of the options
 *   they were made under, and only while the key that made them may be used;
 * - the origins that served signed, verified cards, so that the same origin
 *   serving an unsigned card reads as the downgrade it may be.
 */
import { AgentCardVerificationError } from "../errors/family.js";
import type { VerifyPolicy } from "../trust/options.js";
import type { VerificationResult } from "../errors/verification-result.js";
import { applyPolicyWith, verifiedUntil } from "../trust/verify.js";
import type { VerifyKit } from "../trust/verify-kit.js";
import type { AgentCard } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { safeUrl } from "../base/urls.js";
import type { Exchange } from "./resolve-options.js";

/** A card as resolved: the JSON received, the card parsed from it, and whether the JSON is signed. */
export interface ReceivedCard {
  json: Readonly<Record<string, unknown>>;
  card: AgentCard;
  signed: boolean;
}

interface Kept {
  result: VerificationResult;
  at: number;
  until: number;
}

// By received JSON (one frozen object per stored card), then by options content.
const kept = new WeakMap<object, Map<string, Kept>>();
// Distinct verification options per card kept at once; beyond, the oldest is forgotten.
const MAX_KEPT_PER_CARD = 8;

// Origins whose cards were signed and verified in this process, with the
// request headers they were asked with and the fetch function used when a
// caller brought its own: a card served to other credentials (another
// tenant's) is another card, as in the card cache. Bounded; the oldest are
// forgotten first.
const signedOrigins = new Set<string>();
const MAX_SIGNED_ORIGINS = 1024;

/**
 * Verifies a resolved card under the caller's policy and options, or throws
 * AgentCardVerificationError. `kit`: trust/verify-kit.ts's `VERIFY_KIT`, the
 * start's code this module and the verifier use, handed by discovery.
 */
export async function verifyResolved(
  received: ReceivedCard,
  url: string,
  policy: VerifyPolicy,
  request: Exchange,
  kit: VerifyKit,
): Promise<VerificationResult | undefined> {
  const verification = request.verification ?? {};
  const asked = [...new Headers(request.headers)].join("\n");
  const origin = `${new URL(url).origin}\n${asked}${request.fetch === undefined ? "" : `\n#${kit.identityOf(request.fetch)}`}`;
  if (!received.signed && policy === "if-present") {
    if (request.downgrade !== "allow" && signedOrigins.has(origin)) throw downgraded(url);
    return undefined;
  }
  const now = (verification.now ?? Date.now)();
  // Everything that could change the outcome, the signal aside.
  const key = kit.optionsKey({ policy, url, verification: { ...verification, signal: undefined }, fetch: request.fetch });
  let byOptions = kept.get(received.json);
  const hit = byOptions?.get(key);
  // A kept result is used only while the key that verified it may be (section 8.4.3).
  if (hit && now >= hit.at && now < hit.until) return hit.result;
  // What is left of the resolve's time; none left to count (a resolve without a limit): the verifier's default.
  const left = Math.min(verification.timeoutMs ?? Infinity, request.deadline - Date.now());
  const result = await applyPolicyWith(kit, received.signed ? received.json : received.card, policy, {
    ...verification,
    fetch: verification.fetch ?? request.fetch,
    signal: request.signal,
    timeoutMs: Number.isFinite(left) ? Math.max(1, left) : undefined,
    cardUrl: url,
  });
  if (!byOptions) kept.set(received.json, (byOptions = new Map()));
  byOptions.delete(key);
  byOptions.set(key, { result, at: now, until: verifiedUntil(result) });
  if (byOptions.size > MAX_KEPT_PER_CARD) byOptions.delete(byOptions.keys().next().value!);
  signedOrigins.delete(origin);
  signedOrigins.add(origin);
  if (signedOrigins.size > MAX_SIGNED_ORIGINS) signedOrigins.delete(signedOrigins.values().next().value!);
  return result;
}

function downgraded(url: string): AgentCardVerificationError {
  const origin = new URL(url).origin;
  const result: VerificationResult = {
    verified: false,
    failures: [
      {
        index: -1,
        code: "signatures_dropped",
        reason: `the card carries no signatures, but cards from ${origin} were signed and verified before (downgrade: "allow" accepts it)`,
      },
    ],
  };
  return new AgentCardVerificationError(`the Agent Card at ${safeUrl(url)} is unsigned, but its origin served signed cards before`, {
    result,
  });
}
