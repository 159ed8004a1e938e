/**
 * The shape a response must have (src/protocol/response-shape.ts), for
 * GetExtendedAgentCard: a card is held to what discovery holds a card to,
 * so one lacking only the REQUIRED fields that describe the agent (its
 * description, name, version, skills) is read, and one lacking what a call
 * needs (its interfaces, capabilities) is refused.
 */
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { A2AService, AgentCardSchema, AgentSkillSchema, ProtocolError, type AgentCard } from "../../../src/index.js";
import { checkedResponse } from "../../../src/protocol/response-shape.js";

const method = A2AService.method.getExtendedAgentCard;

/** A whole card, changed by `change`. */
function card(change: (c: AgentCard) => void = () => {}): AgentCard {
  const c = create(AgentCardSchema, {
    name: "Agent",
    description: "An agent",
    version: "1.0.0",
    capabilities: { streaming: true },
    supportedInterfaces: [{ url: "https://example.com/a2a", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }],
  });
  change(c);
  return c;
}

describe("GetExtendedAgentCard's card", () => {
  it("lacking only what describes the agent (description, name, version, skills, a skill's description): read", () => {
    const answer = card((c) => {
      c.name = "";
      c.description = "";
      c.version = "";
      c.skills = [create(AgentSkillSchema, { id: "s", name: "S" })];
    });
    expect(checkedResponse(method, answer, { httpStatus: 200 })).toBe(answer);
  });

  it("lacking its capabilities: ProtocolError naming the field", () => {
    const answer = card((c) => {
      c.capabilities = undefined;
    });
    expect(() => checkedResponse(method, answer, { httpStatus: 200 })).toThrow(ProtocolError);
    expect(() => checkedResponse(method, answer, { httpStatus: 200 })).toThrow(
      /GetExtendedAgentCard response \(HTTP 200\) lacks the REQUIRED field "capabilities"/,
    );
  });

  it("with an interface lacking its URL: ProtocolError naming the field", () => {
    const answer = card((c) => {
      c.supportedInterfaces[0]!.url = "";
    });
    expect(() => checkedResponse(method, answer, {})).toThrow(/lacks the REQUIRED field "supportedInterfaces\[0\]\.url"/);
  });
});
