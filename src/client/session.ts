/**
 * A session with one agent: its card, the client that talks to it, and the
 * extended card, fetched once through the session's own transport (so with
 * its credentials) and verified before it replaces the public card.
 */
import type { AgentCard } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { UnsupportedOperationError, type NoCompatibleInterfaceError } from "../errors/family.js";
import { followSignal, unlessAborted } from "../base/abort.js";
import { CallDeadline } from "../call/deadline.js";
import { headersFrom } from "../call/options.js";
import { checkDuration } from "../call/option-checks.js";
import { optionsKey } from "../base/options-key.js";
import type { ResolvedAgentCard } from "../discovery/resolve.js";
import { checkCardLocalUrls, type LocalUrlPolicy } from "../trust/local-urls.js";
import { VERIFY_KIT } from "../trust/verify-kit.js";
import { receivedJsonOf } from "../http/received-json.js";
import type { VerifyOptions, VerifyPolicy } from "../trust/options.js";
import type { VerificationResult } from "../errors/verification-result.js";
import type { A2AClient, CallOptions } from "./client.js";
import { withCapabilityChecks } from "./capabilities.js";
import type { FailoverTransport } from "../call/failover.js";
import type { Candidate } from "../base/bindings.js";
import { keepNames } from "../base/keep-names.js";
import type { LimitsKit } from "./extended-limits.js";

/** What the extended card's limits (extended-limits.ts, loaded on demand) are handed of the start's code. */
const LIMITS_KIT: LimitsKit = { followSignal, unlessAborted };

/** How an `AgentSession` treats the extended card, and how its interface was chosen. @category Connect and call */
export interface SessionOptions {
  /**
   * Signature policy for the extended card; the same default as discovery:
   * "if-present". When the public card verified, the extended card must
   * verify too ("required"), whatever this says.
   */
  verify?: VerifyPolicy | undefined;
  /** Keys and rules for verifying the extended card. */
  verification?: Omit<VerifyOptions, "cardUrl"> | undefined;
  /** How `connect()` chose the interface. */
  selection?: Selection | undefined;
  /**
   * Whether an extended card may name this machine or its link when the
   * public card came from another host (see `ResolveOptions.localUrls`):
   * "refuse" (default) keeps such a card from replacing the public one,
   * with AgentCardVerificationError; "allow" adopts it.
   */
  localUrls?: LocalUrlPolicy | undefined;
}

/** The interfaces a session may use, best first, and those it passed over. @category For tool authors */
export interface Selection {
  /** The transport of the session's client, which moves between the candidates. */
  transport: FailoverTransport;
  /** Usable interfaces, best first. */
  candidates: readonly Candidate[];
  /** The card's other interfaces, each with the reason. */
  passedOver: NoCompatibleInterfaceError["passedOver"];
}

/**
 * One agent, as `connect()` returns it: its card, a client for it, the
 * interface in use and those it may fail over to, and the extended card on
 * demand. Built by `connect()`; the constructor is for callers that choose
 * the client themselves.
 * @category Connect and call
 */
export class AgentSession {
  /** The card as discovered. */
  readonly publicCard: AgentCard;
  /** Where the public card came from; key sets (`jku`) are trusted on its origin by default. */
  readonly cardUrl: string | undefined;
  /** How the public card verified, if it was verified. */
  readonly verification: VerificationResult | undefined;
  /** What discovery read leniently in the public card, in words (`ResolvedAgentCard.warnings`). */
  readonly warnings: readonly string[];
  private current: AgentCard;
  /**
   * The extended cards loaded (or loading), by what each call asked with:
   * its headers and extensions. An agent answers by the caller's
   * credentials, so a card loaded with one call's is never another's answer.
   * A private field (#), which `util.inspect` and JSON do not show: its keys
   * hold the headers' values, credentials among them.
   */
  readonly #extended = new Map<string, Promise<AgentCard>>();
  private extendedResult: VerificationResult | undefined;
  /**
   * The client for this agent, held to the capabilities of the card in
   * force: its four push notification config operations fail with
   * `PushNotificationNotSupportedError`, without a request, while the card
   * does not declare `capabilities.pushNotifications`; while it does not
   * declare `capabilities.streaming`, `sendStreamingMessage` sends the
   * message with SendMessage and yields its result as the one event (a task
   * as a `task` event, a direct reply as a `message` event), and
   * `subscribeToTask` fails with `UnsupportedOperationError` before any
   * request.
   */
  readonly client: A2AClient;

  constructor(
    client: A2AClient,
    resolved: Pick<ResolvedAgentCard, "card"> & Partial<Pick<ResolvedAgentCard, "url" | "verification" | "warnings">>,
    private readonly options: SessionOptions = {},
  ) {
    this.client = withCapabilityChecks(client, () => this.current);
    this.publicCard = resolved.card;
    this.current = resolved.card;
    this.cardUrl = resolved.url;
    this.verification = resolved.verification;
    this.warnings = resolved.warnings ?? [];
  }

  /** The interface calls go to now; it changes when the session fails over. */
  get interface(): Candidate | undefined {
    return this.options.selection?.transport.current;
  }

  /** Usable interfaces, best first: the first is chosen, the rest are for failover and fallback. */
  get candidates(): readonly Candidate[] {
    return this.options.selection?.candidates ?? [];
  }

  /** Interfaces of the card that were passed over, each with the reason. */
  get passedOver(): Selection["passedOver"] {
    return this.options.selection?.passedOver ?? [];
  }

  /**
   * The card in force: the extended card once it has been loaded with the
   * session's own credentials (an `extendedCard()` call without `headers`
   * or `extensions` of its own), else the public one.
   */
  get card(): AgentCard {
    return this.current;
  }

  /** How the extended card verified, once loaded. */
  get extendedCardVerification(): VerificationResult | undefined {
    return this.extendedResult;
  }

  /**
   * The extended card. Fetched on first use and kept, for each set of call
   * headers and extensions (the agent answers by the caller's credentials);
   * `refresh: true` fetches it again. A card that fails verification never replaces the one in force,
   * nor does an unsigned one when the public card was signed and verified.
   */
  extendedCard(options: CallOptions & { refresh?: boolean } = {}): Promise<AgentCard> {
    if (!this.publicCard.capabilities?.extendedAgentCard) {
      return Promise.reject(
        new UnsupportedOperationError("the agent's card does not offer an extended card (capabilities.extendedAgentCard)"),
      );
    }
    const asked = askedWith(options);
    const kept = asked === undefined ? undefined : this.#extended.get(asked);
    if (!kept || options.refresh) {
      const pending = this.loadExtended(options);
      if (asked === undefined) return pending;
      this.#extended.delete(asked);
      this.#extended.set(asked, pending);
      if (this.#extended.size > MAX_EXTENDED_KEPT) this.#extended.delete(this.#extended.keys().next().value!);
      // A failed load is not remembered: the next call tries again.
      pending.catch(() => {
        if (this.#extended.get(asked) === pending) this.#extended.delete(asked);
      });
      return pending;
    }
    return this.joinExtended(kept, options);
  }

  /**
   * A load another call started, awaited within this call's own signal and
   * timeout (loaded on demand: calls rarely overlap).
   */
  private async joinExtended(shared: Promise<AgentCard>, options: CallOptions): Promise<AgentCard> {
    // The call's own deadline, started before the code loads (call/deadline.ts); a timeout that is no number is refused.
    checkDuration(options.timeoutMs, "timeoutMs");
    const deadline = new CallDeadline("stream", options.timeoutMs).start();
    return (await import("./extended-limits.js")).joinLoad(shared, options, deadline, (again) => this.extendedCard(again), LIMITS_KIT);
  }

  private async loadExtended(options: CallOptions): Promise<AgentCard> {
    // The operation's one deadline, which its verification is held to: its own timeoutMs, none without.
    const deadline = new CallDeadline("stream", options.timeoutMs).start();
    const message = await this.client.getExtendedAgentCard({}, options);
    // A public card that was signed and verified is not given up for one that
    // is not, whatever the policy: else stripping the extended card's
    // signatures would undo the check of the public one.
    const policy = this.verification?.verified === true ? "required" : (this.options.verify ?? "if-present");
    let card = message;
    let result: VerificationResult | undefined;
    if (policy !== "off" && (policy !== "if-present" || message.signatures.length > 0)) {
      // Loaded on demand: code that never verifies does not carry jose.
      const { verifyExtendedCard, callLimits } = await import("./extended-card.js");
      // The call's timeout holds for its verification too, whose key sets
      // the agent names and may never answer.
      const limits = callLimits(options, deadline, LIMITS_KIT);
      try {
        const verifying = verifyExtendedCard(
          message,
          receivedJsonOf(message),
          policy,
          {
            ...this.options.verification,
            ...(limits.bounded ? { signal: limits.signal } : {}),
            // A card in hand came from no URL (""): no origin to trust key sets on by default.
            ...(this.cardUrl ? { cardUrl: this.cardUrl } : {}),
          },
          VERIFY_KIT,
        );
        ({ card, verification: result } = await unlessAborted(verifying, limits.signal));
      } catch (e) {
        throw limits.signal.aborted ? limits.signal.reason : e;
      } finally {
        limits.release();
      }
    }
    // Held to what its public card was: apps read the card in force (a skill's schemes for authInterceptors).
    checkCardLocalUrls(card, this.cardUrl ?? "", this.options.localUrls);
    // Only a card loaded with the session's own credentials becomes the card in force, which every
    // caller of the session reads: one loaded with a call's own headers or extensions is that call's.
    if (options.headers === undefined && !options.extensions?.length) {
      this.extendedResult = result;
      this.current = card;
    }
    return card;
  }
}
keepNames({ AgentSession });

/** Extended cards kept per session, for as many distinct sets of call headers and extensions. */
const MAX_EXTENDED_KEPT = 8;

/**
 * What a call's request for the extended card depends on beyond the
 * session: its headers (credentials among them) and extensions, by
 * content. Undefined for headers that cannot be read: the call fails on
 * its own, sharing nothing.
 */
function askedWith(options: CallOptions): string | undefined {
  try {
    return optionsKey({ headers: [...headersFrom(options.headers, "the call's headers")], extensions: options.extensions });
  } catch {
    return undefined;
  }
}
