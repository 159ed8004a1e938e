/**
 * Which protocol an Agent Card's JSON is written for, told apart without
 * reading it: every card read at start is asked this, while the reading of a
 * 0.3 card in the 1.0 shape (card.ts) loads only for an agent that serves one.
 */

/** A 0.3 card names its endpoint at the top level and has no supportedInterfaces. */
export function isV03Card(json: Readonly<Record<string, unknown>>): boolean {
  return !("supportedInterfaces" in json) && (typeof json.url === "string" || typeof json.protocolVersion === "string");
}
