/**
 * Interface URLs a card gives relative to where it is served
 * (`"url": "/a2a/echo"`, as some servers write them). Only a reference that
 * starts with `/`, `./` or `../` is read as one: it means one thing against
 * the card's URL (RFC 3986 section 5). A bare `agent.example/a2a` or a gRPC
 * `host:port` could be a host as well as a path, and is left as written
 * (selection passes it over when its binding cannot call it).
 */
import type { AgentCard } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { InvalidAgentCardError } from "../errors/family.js";
import { parsedUrl, safeInterfaceUrl } from "../base/urls.js";

/**
 * Resolves, in `card`, each relative interface URL against `cardUrl`, and
 * says so in a warning each. With no http(s) URL the card came from (a card
 * in hand, a file), there is nothing to resolve against: InvalidAgentCardError
 * naming the field, before anything in `card` is changed.
 */
export function resolveRelativeInterfaces(card: AgentCard, cardUrl: string, named: string): string[] {
  const base = parsedUrl(cardUrl);
  const web = base?.protocol === "https:" || base?.protocol === "http:";
  const warnings: string[] = [];
  card.supportedInterfaces.forEach((iface, i) => {
    if (!/^\.{0,2}\//.test(iface.url)) return;
    const field = `supportedInterfaces[${i}].url`;
    if (!web) {
      throw new InvalidAgentCardError(
        `${named} gives ${field} as a relative URL (${safeInterfaceUrl(iface.url)}), and it came from no URL to resolve it against: say where it came from with cardUrl (connect(card, { cardUrl })), or pass a resolveAgentCard result`,
        { problem: "relative-url" },
      );
    }
    iface.url = new URL(iface.url, base).href;
    warnings.push(`${field} is relative; resolved against the card's URL to ${safeInterfaceUrl(iface.url)}`);
  });
  return warnings;
}
