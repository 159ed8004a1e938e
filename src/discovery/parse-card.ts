/**
 * `parseCard`, the toolkit's reader of a card document, which reads a 0.3
 * card at once: a module of its own, since a static import of the 0.3
 * reading (v0_3/card.ts) would bring it into the start of every app that
 * imports discovery, which reads 0.3 cards with it loaded on demand
 * (resolve.ts's `readCard`).
 */
import { cardV03ToV1 } from "../v0_3/card.js";
import { isV03Card } from "../v0_3/card-version.js";
import { cardFrom, cardJson, type ParsedAgentCard } from "./resolve.js";

/**
 * Parses and validates a card, given as JSON text or as the value
 * `JSON.parse` made of it (either shape, 1.0 or 0.3); throws
 * InvalidAgentCardError naming what is wrong. `json` is the document as
 * received (frozen; a copy of a value given), which signatures are
 * verified over; `card` is parsed from it. `url` names the card in errors:
 * a URL by its origin and path, a local name (a file's path) as it is, ""
 * for a card in hand. Interface URLs relative to the card's (`/a2a`) are
 * resolved against an http(s) `url`, each with a warning; with any other
 * `url` they are an InvalidAgentCardError (problem "relative-url").
 * @example
 * ```ts
 * import { cardUrlCandidates, parseCard } from "a2a-connect/toolkit";
 *
 * const [url = ""] = cardUrlCandidates("https://agent.example.com");
 * const { card, json } = parseCard(await (await fetch(url)).text(), url);
 * console.log(card.name, card.supportedInterfaces.length, Object.keys(json));
 * // A card already parsed, e.g. from a file: "" names it "the Agent Card given" in errors.
 * const given = parseCard(JSON.parse('{"name":"local"}') as Record<string, unknown>, "");
 * ```
 * @category For tool authors
 */
export function parseCard(document: string | Readonly<Record<string, unknown>>, url: string): ParsedAgentCard {
  const { json, named } = cardJson(document, url);
  return cardFrom(json, isV03Card(json) ? cardV03ToV1 : undefined, url, named);
}
