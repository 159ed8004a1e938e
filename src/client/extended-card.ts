/**
 * How a session verifies an extended card, loaded with the verifier when a
 * card first needs checking. What is verified is what is adopted:
 * - over JSON-RPC and HTTP+JSON (1.0 and 0.3), the JSON the agent sent,
 *   every member included, fields this schema does not know too (RFC 8785
 *   without `signatures`, or the normalised form); the card adopted is read
 *   again from that JSON, so it is a projection of the verified bytes;
 * - over gRPC, where the card arrives in binary and the JSON of fields this
 *   client does not know cannot be rebuilt, and wherever an interceptor
 *   replaced or changed the message: the message itself, in its normalised
 *   form only.
 */
import { AgentCardSchema, type AgentCard } from "../../gen/lf/a2a/v1/a2a_pb.js";
import type { VerifyOptions, VerifyPolicy } from "../trust/options.js";
import type { VerificationResult } from "../errors/verification-result.js";
import { applyPolicyWith } from "../trust/verify.js";
import type { VerifyKit } from "../trust/verify-kit.js";
import { InvalidAgentCardError } from "../errors/family.js";
import type { ReceivedJson } from "../http/received-json.js";

export { callLimits } from "./extended-limits.js";

/**
 * The card to adopt and how it verified, from the message and the JSON its
 * transport kept (`receivedJsonOf`); throws AgentCardVerificationError
 * when the policy is not met, InvalidAgentCardError for a JSON body that
 * repeats a key. `kit`: trust/verify-kit.ts's `VERIFY_KIT`, the start's code
 * this module and the verifier use, handed by the session.
 */
export async function verifyExtendedCard(
  message: AgentCard,
  sent: ReceivedJson<AgentCard> | undefined,
  policy: VerifyPolicy,
  options: VerifyOptions,
  kit: VerifyKit,
): Promise<{ card: AgentCard; verification: VerificationResult }> {
  // A repeated key would let readers disagree on what was signed.
  const duplicate = sent && kit.findDuplicateKey(sent.text);
  if (duplicate) throw new InvalidAgentCardError(`the extended Agent Card repeats the key ${duplicate}`, { problem: "duplicate-key" });
  const fromSent = sent?.reparse();
  // A message that no longer reads as its JSON does (an interceptor changed
  // it) is not described by that JSON: it is checked as it is. Compared as
  // the ProtoJSON the start writes anyway: `equals`, or `toBinary`, called
  // here would keep its code in every app's start (docs/size.md).
  if (sent !== undefined && fromSent !== undefined && sameJson(kit, fromSent, message)) {
    return { card: fromSent, verification: await applyPolicyWith(kit, sent.json, policy, options) };
  }
  return { card: message, verification: await applyPolicyWith(kit, message, policy, options) };
}

/** Whether two cards write the same ProtoJSON (fields in number order); false where one cannot be written. */
function sameJson(kit: VerifyKit, a: AgentCard, b: AgentCard): boolean {
  try {
    return JSON.stringify(kit.protoJsonOf(AgentCardSchema, a)) === JSON.stringify(kit.protoJsonOf(AgentCardSchema, b));
  } catch {
    return false;
  }
}
