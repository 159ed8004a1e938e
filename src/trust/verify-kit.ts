/**
 * The code of the start that verification (verify.ts and its modules,
 * discovery/resolve-verify.ts, client/extended-card.ts, all loaded on
 * demand) uses, handed to it by its callers (discovery, the session, and
 * the public functions of a2a-connect/trust) rather than imported: a module
 * that the verifier imported too would leave the start's chunk for a chunk
 * shared with it, which every app loads at start (docs/size.md, "Where the
 * bytes go").
 */
import { requiredFields } from "../protocol/required.js";
import { findDuplicateKey } from "../base/duplicate-keys.js";
import { identityOf, optionsKey } from "../base/options-key.js";
import { carriesSignatures } from "./signed.js";
import { isV03Card } from "../v0_3/card-version.js";
import { messageFromJson, protoJsonOf } from "../protocol/proto-json.js";

/**
 * The REQUIRED fields of a message, the repeated-key scanner, the option
 * keys, what tells signed and 0.3 cards, and the reading and writing of
 * ProtoJSON (a card's, for its canonical form).
 */
export const VERIFY_KIT = {
  requiredFields,
  findDuplicateKey,
  identityOf,
  optionsKey,
  carriesSignatures,
  isV03Card,
  messageFromJson,
  protoJsonOf,
} as const;

/** The type of `VERIFY_KIT`. */
export type VerifyKit = typeof VERIFY_KIT;
