/**
 * What a resolve of an Agent Card is given (`ResolveOptions`), and what its
 * steps share while it runs (`Exchange`): both the resolver and the
 * verification it loads on demand read them, so they live apart from either.
 */
import type { CardStore } from "./cache.js";
import type { DocumentFetchOptions } from "../trust/fetch-document.js";
import type { LocalUrlPolicy } from "../trust/local-urls.js";
import type { VerifyOptions, VerifyPolicy } from "../trust/options.js";

/** How `resolveAgentCard` fetches, caches and verifies a card. @category Discovery and trust */
export interface ResolveOptions extends DocumentFetchOptions {
  /**
   * The card cache. Default: one in-memory cache shared by every resolve in
   * this process. `false` fetches every time.
   */
  cache?: CardStore | false | undefined;
  /** Serve a stale cached card when revalidating it fails (network error or 5xx). Default false. */
  staleIfError?: boolean | undefined;
  /**
   * Signature policy. "if-present" (default): a card that carries signatures
   * must verify; "required": a card must carry a verifying signature; "off".
   */
  verify?: VerifyPolicy | undefined;
  /**
   * Keys and rules for verification. Its `fetch`, `signal` and `timeoutMs`
   * default to the resolve's own, and key set requests count against the
   * resolve's `timeoutMs`.
   */
  verification?: Omit<VerifyOptions, "cardUrl"> | undefined;
  /**
   * An unsigned card from an origin whose cards were signed and verified
   * earlier in this process (asked for with the same `headers` and
   * `fetch`), under "if-present": "refuse" (default) throws
   * AgentCardVerificationError (code `signatures_dropped`), since stripping
   * the signatures must not be a free downgrade; "allow" accepts it as
   * unsigned.
   */
  downgrade?: "refuse" | "allow" | undefined;
  /**
   * What a card fetched from a host that is not on this machine or its link
   * may name there (`localhost`, `*.localhost`, 127.0.0.0/8, 0.0.0.0/8,
   * 169.254.0.0/16 where cloud metadata services answer, `[::1]`, `[::]`,
   * fe80::/10, and the IPv4-mapped forms of those addresses): "refuse"
   * (default) fails the resolve (and `connect()`) with
   * AgentCardVerificationError (code `local_url`, naming the field and the
   * URL) when an interface or a security scheme's URL (token,
   * authorization, metadata, discovery) leads there, before anything is
   * sent there or any key set is fetched, and refuses a redirect from such a
   * host to such an address (RedirectRefusedError); "allow" follows them,
   * for a card that names the agent's local side on purpose (a tunnel, a
   * sidecar). A card fetched from this machine or its link (an address the
   * app gave), or handed to `connect()`, is not checked.
   */
  localUrls?: LocalUrlPolicy | undefined;
}

/** One resolve under way: the caller's options with the exchange's signal, and its deadline. */
export interface Exchange extends ResolveOptions {
  signal: AbortSignal;
  /** Epoch ms by which the whole resolve ends. */
  deadline: number;
}
