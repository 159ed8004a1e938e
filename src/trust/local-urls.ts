/**
 * The addresses a card from elsewhere may not send the client to: this
 * machine and its link (loopback, `*.localhost`, link-local, where cloud
 * metadata services answer). A card served by another host that names one
 * (an interface, an OAuth endpoint), or a redirect from another host to
 * one, would make the client call services that trust whoever runs on this
 * machine, with the app's credentials. A card fetched from this machine or
 * its link (an address the app gave), or handed in by the app, is the app's
 * own choice and is not checked.
 */
import type { AgentCard } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { AgentCardVerificationError, RedirectRefusedError } from "../errors/family.js";
import { isLocalUrl } from "./loopback.js";
import { isRecord } from "../base/is-record.js";
import { parsedUrl, safeInterfaceUrl, safeUrl } from "../base/urls.js";

/** What a card from another host may name on this machine or its link: "refuse" (default) or "allow". @category Discovery and trust */
export type LocalUrlPolicy = "refuse" | "allow";

/** What ends every refusal: where the address is, and what would allow it. */
const HINT = ` is on this machine or its link, off limits to another host (localUrls: "allow" permits it)`;

/**
 * Refuses, with AgentCardVerificationError naming the field and the URL, a
 * card fetched from `cardUrl` (a host not on this machine or its link) that
 * names an address on this machine or its link, in an
 * interface or a security scheme (token, authorization, metadata and
 * discovery URLs).
 */
export function checkCardLocalUrls(card: AgentCard, cardUrl: string, policy: LocalUrlPolicy | undefined): void {
  const from = parsedUrl(cardUrl);
  // A card from this machine or its link came from an address the app gave (a redirect there from elsewhere is refused).
  if (policy === "allow" || !from || isLocalUrl(from)) return;
  const found = localUrlIn(card);
  if (!found) return;
  const reason = `${found.field}: ${safeInterfaceUrl(found.url)}${HINT}`;
  throw new AgentCardVerificationError(`refused the Agent Card at ${safeUrl(cardUrl)}: ${reason}`, {
    result: { verified: false, failures: [{ index: -1, code: "local_url", reason }] },
  });
}

/** A redirect from a host not on this machine to an address on this machine or its link, refused unless `policy` allows it. */
export function checkLocalRedirect(from: URL, to: URL, policy: LocalUrlPolicy | undefined): void {
  if (policy === "allow" || isLocalUrl(from) || !isLocalUrl(to)) return;
  throw new RedirectRefusedError(`refused redirect from ${from.origin}: ${safeUrl(to.href)}${HINT}`);
}

/** Whether a URL a document names (an interface's `host:port` too) leads to this machine or its link. */
export function leadsHere(url: string): boolean {
  const target = hostUrlOf(url);
  return target !== undefined && isLocalUrl(target);
}

/** The first URL of the card's interfaces and security schemes that leads to this machine or its link, with its field. */
function localUrlIn(card: AgentCard): { field: string; url: string } | undefined {
  for (const [n, iface] of card.supportedInterfaces.entries()) {
    if (leadsHere(iface.url)) return { field: `supportedInterfaces[${n}].url`, url: iface.url };
  }
  for (const [name, scheme] of Object.entries(card.securitySchemes)) {
    const found = urlFieldIn(scheme.scheme, `securitySchemes.${name.slice(0, 64)}`);
    if (found) return found;
  }
  return undefined;
}

/**
 * Every field whose name ends in `Url` in a security scheme, whatever its
 * kind (OAuth flows, metadata, OpenID Connect discovery), so that a scheme
 * added later is covered too. A oneof (`{ case, value }`) is named by its
 * case, as in the card's JSON.
 */
function urlFieldIn(value: unknown, path: string): { field: string; url: string } | undefined {
  if (!isRecord(value)) return undefined;
  if (typeof value.case === "string") return urlFieldIn(value.value, `${path}.${value.case}`);
  // Fields of a message only: the keys of a map (a flow's scopes) are the agent's words, not fields.
  const message = "$typeName" in value;
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === "string") {
      if (message && /url$/i.test(key) && leadsHere(v)) return { field: `${path}.${key}`, url: v };
      continue;
    }
    // A oneof's own name is not in the JSON: its case is.
    const oneof = isRecord(v) && typeof v.case === "string";
    const found = urlFieldIn(v, oneof ? path : `${path}.${key}`);
    if (found) return found;
  }
  return undefined;
}

/**
 * The host a card's URL leads to, parsed as the transports parse it, so
 * that every spelling of an address reads as one: an http(s) URL as it is;
 * a gRPC `host:port` or `grpc(s)://` as an http URL of the same authority.
 */
function hostUrlOf(raw: string): URL | undefined {
  const u = parsedUrl(raw);
  if (u && (u.protocol === "http:" || u.protocol === "https:")) return u;
  return parsedUrl(`http://${raw.replace(/^[\w+.-]+:\/\//, "")}`);
}
