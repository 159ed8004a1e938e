/**
 * The 0.3 proto's Agent Card (GetExtendedAgentCard over gRPC and HTTP+JSON
 * 0.3) as a 1.0 card, read by the one 0.3 card conversion (card.ts) that
 * discovery and JSON-RPC 0.3 also use, so a card means the same whichever
 * way it arrives.
 *
 * The 0.3 card's ProtoJSON and its JSON schema agree but for two things
 * made equal here: a security requirement (`{"schemes": {"oauth": {"list":
 * ["read"]}}}` in ProtoJSON, `{"oauth": ["read"]}` in the schema), and the
 * security schemes, which ProtoJSON already writes in the 1.0 form (one
 * member per kind) and card.ts passes on as they are.
 */
import { create, type JsonObject } from "@bufbuild/protobuf";
import * as V03 from "../../gen/a2a/v1/a2a_pb.js";
import * as V1 from "../../gen/lf/a2a/v1/a2a_pb.js";
import { isRecord } from "../base/is-record.js";
import { cardV03ToV1 } from "./card.js";
import type { V03JsonKit } from "./runner-kit.js";

/**
 * A 0.3 Agent Card (from GetExtendedAgentCard) as a 1.0 card, read with
 * the start's `messageFromJson` (runner-kit.ts), as every card is.
 */
export function agentCardFromV03(c: V03.AgentCard, kit: V03JsonKit): V1.AgentCard {
  const json = kit.protoJsonOf(V03.AgentCardSchema, c) as JsonObject;
  if (Array.isArray(json.security)) json.security = json.security.map(requirementJson);
  if (Array.isArray(json.skills)) {
    for (const skill of json.skills) {
      if (isRecord(skill) && Array.isArray(skill.security)) skill.security = skill.security.map(requirementJson);
    }
  }
  const card = kit.messageFromJson(V1.AgentCardSchema, cardV03ToV1(json) as JsonObject);
  // The 0.3 proto's capability flags have no presence: unset is false.
  const caps = (card.capabilities ??= create(V1.AgentCapabilitiesSchema));
  caps.streaming ??= false;
  caps.pushNotifications ??= false;
  caps.extendedAgentCard ??= false;
  return card;
}

/** A requirement's ProtoJSON as the 0.3 card schema writes it: scheme name -> scopes. */
function requirementJson(req: unknown): JsonObject {
  const schemes = isRecord(req) && isRecord(req.schemes) ? req.schemes : {};
  return Object.fromEntries(
    Object.entries(schemes).map(([name, scopes]) => [name, isRecord(scopes) && Array.isArray(scopes.list) ? scopes.list : []]),
  );
}
