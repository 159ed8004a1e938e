/**
 * What a card's signatures may sign. Three payloads are accepted, all
 * computed here, never taken from the wire:
 * - the members the agent sent, without the top-level `signatures`, in RFC
 *   8785 form, when the card is given as received JSON. A newer agent signs
 *   fields this schema does not know yet, and its card must still verify
 *   (A2A#2122, A2A#2249);
 * - the normalised form of section 8.4.1 ({@link canonicalCardBytes}),
 *   computed from the card parsed with this schema;
 * - for received JSON, that normalised form with the members this schema
 *   does not know added as received, at every level: what a signer that
 *   knows newer fields makes of a card written by hand (its defaults and
 *   empties dropped by section 8.4.1, its newer fields kept).
 * Whichever verifies, the card a caller gets (parsed from the same JSON,
 * unknown fields dropped) is a projection of bytes that were verified.
 */
import { isMessage, type JsonValue } from "@bufbuild/protobuf";
import canonicalize from "canonicalize";
import * as base64url from "jose/base64url";
import { AgentCardSchema, type AgentCard } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { canonicalBytesWith, canonicalText, normalisedCardJson, withUnknownMembers } from "./canonical.js";
import type { VerifyKit } from "./verify-kit.js";
import type { ReceivedAgentCard } from "./options.js";
import { clip, errorMessage } from "./rejection.js";
import type { VerificationFailure } from "../errors/verification-result.js";
import { isJsonObject } from "../base/is-record.js";

/** A card's signatures and the payloads they may sign, or why the card as a whole cannot be checked. */
export type SignedContent =
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

/** The signatures of a card and the payloads they may sign; `kit`: verify-kit.ts's `VERIFY_KIT`. */
export function signedContent(card: AgentCard | ReceivedAgentCard, kit: VerifyKit): SignedContent {
  if (isMessage(card, AgentCardSchema)) {
    const normalised = payloadOf(() => canonicalBytesWith(kit, card));
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
    const duplicate = kit.findDuplicateKey(card);
    if (duplicate !== undefined) {
      return { failure: { index: -1, code: "canonicalization_failed", reason: `the card repeats the key ${clip(duplicate)}` } };
    }
  }
  if (!isJsonObject(json)) return { failure: { index: -1, code: "canonicalization_failed", reason: "the card is not a JSON object" } };
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
  // The normalised forms exist for 1.0 cards only: no 0.3 signer produced them.
  if (!kit.isV03Card(json)) {
    const known = () => normalisedCardJson(kit.messageFromJson(AgentCardSchema, members as JsonValue), kit);
    for (const form of [known, () => withUnknownMembers(known(), members, AgentCardSchema)]) {
      const normalised = payloadOf(() => new TextEncoder().encode(canonicalText(form())));
      if (!("error" in normalised) && !payloads.includes(normalised.payload)) payloads.push(normalised.payload);
    }
  }
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

/** Whether a card, parsed or as received, carries any signature; `kit`: verify-kit.ts's `VERIFY_KIT`. */
export function isSigned(card: AgentCard | ReceivedAgentCard, kit: VerifyKit): boolean {
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
  return !isJsonObject(json) || kit.carriesSignatures(json);
}
