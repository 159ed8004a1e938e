/**
 * Interface selection (spec 8.3.2): which of a card's `supportedInterfaces`
 * to use, in which order to try the rest, and why any was passed over.
 *
 * The rule:
 * 1. Interfaces this runtime cannot speak are passed over (unknown binding,
 *    no transport for it here, a protocol version not in `protocolVersions`,
 *    no URL or one the binding cannot call), and so are those of a binding left out of `bindings` when the
 *    caller insists on some.
 * 2. The rest keep the card's order: the first usable entry is the one the
 *    agent prefers, and spec 8.3.2 says to use it.
 * 3. Only what the caller asks for moves an entry ahead: `preferredBindings`
 *    (listed bindings first, in that order), then `preferredVersions` (the
 *    same for versions); entries that tie keep their card order.
 * The first candidate is used; the others are for failover and version
 * fallback, in the same order.
 */
import type { AgentInterface } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { InvalidParamsError } from "../errors/family.js";
import { checkGrpcBaseUrl, checkHttpBaseUrl } from "../call/option-checks.js";
import { BINDINGS, type Binding, type Candidate } from "../base/bindings.js";
import { parseVersion } from "../protocol/version.js";

/** An interface of the card this client will not use, and why. */
export interface PassedOver {
  /** The interface as the card lists it. */
  interface: AgentInterface;
  /** Why it was passed over, in words. */
  reason: string;
}

/** What `rankInterfaces` goes by besides the card. */
export interface SelectionRules {
  /**
   * The only bindings that may be used, e.g. `["GRPC"]`: interfaces of other
   * bindings are passed over, so no call ever fails over to them. Default:
   * every binding.
   */
  bindings?: readonly Binding[] | undefined;
  /** Bindings to prefer, in order, over the card's order. */
  preferredBindings?: readonly Binding[] | undefined;
  /** Versions to prefer, in order, over the card's order (after `preferredBindings`). */
  preferredVersions?: readonly string[] | undefined;
  /** Versions the client will speak; entries of other versions are passed over. Default ["1.0", "0.3"]. */
  protocolVersions?: readonly string[] | undefined;
  /** Whether a transport exists here for a binding and version, and if not, why. */
  supports(binding: Binding, version: string): true | string;
  /** Why an interface of this binding at this URL may not be used (e.g. it would expose credentials), if it may not. */
  refuses?(binding: Binding, url: string): string | undefined;
}

/** The versions the client speaks when not told otherwise. */
export const DEFAULT_PROTOCOL_VERSIONS: readonly string[] = ["1.0", "0.3"];

/**
 * Sorts a card's interfaces into those this client can use, best first, and
 * those it passes over, by the rule of spec 8.3.2 (see `connect()`).
 */
export function rankInterfaces(
  interfaces: readonly AgentInterface[],
  rules: SelectionRules,
): {
  /** Usable interfaces, best first: the first is used, the rest are for failover and fallback. */
  candidates: Candidate[];
  /** The other interfaces, each with the reason. */
  passedOver: PassedOver[];
} {
  const versions = (rules.protocolVersions ?? DEFAULT_PROTOCOL_VERSIONS).map((v) => parseVersion(v) ?? v);
  const allowed = bindingList(rules.bindings, "bindings");
  const preferred = bindingList(rules.preferredBindings, "preferredBindings");
  const passedOver: PassedOver[] = [];
  const usable: Array<Candidate & { position: number }> = [];
  const seen = new Set<string>();
  interfaces.forEach((iface, position) => {
    const binding = BINDINGS.find((b) => b === iface.protocolBinding.trim().toUpperCase());
    const version = parseVersion(iface.protocolVersion);
    let reason: string | undefined;
    if (!iface.url) reason = "it has no URL";
    else if (!binding) reason = `binding "${iface.protocolBinding}" is not one this client speaks`;
    else if (!callableUrl(binding, iface.url)) reason = `its URL is not one ${binding} can call`;
    else if (allowed && !allowed.includes(binding)) reason = `binding ${binding} is not among the bindings allowed (${allowed.join(", ")})`;
    else if (!version) reason = `protocol version "${iface.protocolVersion}" is not a version`;
    else if (!versions.includes(version)) reason = `protocol version ${version} is not among the versions allowed (${versions.join(", ")})`;
    else {
      const supported = rules.supports(binding, version);
      reason = supported !== true ? supported : rules.refuses?.(binding, iface.url);
    }
    // A set, not a scan of the usable ones: a card of thousands of interfaces would cost their square.
    const key = `${iface.url}\n${binding}\n${version}\n${iface.tenant}`;
    if (!reason && seen.has(key)) reason = "it repeats an earlier interface";
    if (reason) passedOver.push({ interface: iface, reason });
    else {
      seen.add(key);
      usable.push({ interface: iface, binding: binding!, version: version!, position });
    }
  });

  // Listed first, in the order given; unlisted after, tied with each other.
  const rankBy = <T>(preferred: readonly T[] | undefined) => {
    const list = preferred ?? [];
    return (x: T) => {
      const i = list.indexOf(x);
      return i >= 0 ? i : list.length;
    };
  };
  const bindingRank = rankBy(preferred);
  const versionRank = rankBy(rules.preferredVersions?.map((v) => parseVersion(v) ?? v));
  usable.sort(
    (a, b) => bindingRank(a.binding) - bindingRank(b.binding) || versionRank(a.version) - versionRank(b.version) || a.position - b.position,
  );
  return { candidates: usable.map(({ position: _p, ...c }) => c), passedOver };
}

/**
 * A list of binding names as the caller gave it, spelled as this client
 * spells them (case and spaces do not matter); a name that is not a binding,
 * or an empty `bindings` (which would allow none), is refused before any
 * interface is looked at, rather than silently allowing or preferring nothing.
 */
export function bindingList(list: readonly string[] | undefined, option: "bindings" | "preferredBindings"): Binding[] | undefined {
  if (list === undefined) return undefined;
  const known = `(${BINDINGS.join(", ")})`;
  if (!Array.isArray(list) || (option === "bindings" && list.length === 0)) {
    throw new InvalidParamsError(`${option} must be a ${option === "bindings" ? "non-empty " : ""}list of bindings ${known}`);
  }
  return list.map(
    (name) =>
      BINDINGS.find((b) => b === String(name).trim().toUpperCase()) ??
      throwInvalid(`${option}: ${JSON.stringify(String(name)).slice(0, 40)} is not a binding ${known}`),
  );
}

/**
 * Whether a binding's transport can call `url`: an absolute http(s) URL
 * (for gRPC also `host:port` or `grpc(s)://`). A card may list anything
 * (`javascript:`, `file:`, a relative path); such an interface is passed
 * over with its reason rather than failing every call as a connection
 * failure.
 */
function callableUrl(binding: Binding, url: string): boolean {
  try {
    (binding === "GRPC" ? checkGrpcBaseUrl : checkHttpBaseUrl)(url);
    return true;
  } catch {
    return false;
  }
}

function throwInvalid(message: string): never {
  throw new InvalidParamsError(message);
}
