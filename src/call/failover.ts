/**
 * One transport over a ranked list of interfaces: calls go to the interface
 * in use; when it cannot be reached, or rejects the protocol version and
 * fallback is allowed, the next suitable candidate is tried and, if it
 * works, kept for later calls. The call's deadline bounds all the
 * candidates tried, not each one: a gateway that answers 502 just before
 * the deadline leaves the next interface only what is left.
 */
import type { DescMessage, DescMethod, DescMethodStreaming, DescMethodUnary, MessageInitShape } from "@bufbuild/protobuf";
import type { ContextValues, Transport } from "@connectrpc/connect";
import { type A2AError, VersionNotSupportedError } from "../errors/family.js";
import { isGatewayStatus } from "../errors/codes.js";
import { classified, foundA2AError } from "../errors/classification.js";
import type { Binding } from "../base/bindings.js";
import { compareVersions } from "../protocol/version.js";
import { traitsOf } from "./method-traits.js";
import { maySendAgain } from "./attempt-rules.js";
import { recordFor } from "./record.js";
import type { A2ATransport } from "./transport.js";
import { onlyValue, single } from "../base/iterables.js";
import { safeInterfaceUrl } from "../base/urls.js";
import type { Candidate } from "../base/bindings.js";

/**
 * What to do when an interface rejects its protocol version: `"off"` fails,
 * `"auto"` moves to an interface of an older version the card declares.
 * @category Connect and call
 */
export type VersionFallback = "off" | "auto";

/** What a `FailoverTransport` moves between, and how. */
export interface FailoverSettings {
  /** The usable interfaces, best first; calls start at the first. */
  candidates: readonly Candidate[];
  /** Builds the transport of one candidate (called at most once per candidate). */
  create(candidate: Candidate): A2ATransport;
  /** Whether a rejected protocol version moves to an older candidate. */
  versionFallback: VersionFallback;
  /** Interfaces tried per call, the first included. 1 turns failover off. */
  maxAttempts: number;
  /** Called when the interface in use changes. */
  onSwitch?: ((from: Candidate, to: Candidate, because: A2AError) => void) | undefined;
}

/**
 * A transport over several interfaces of one agent (see the module
 * comment). Each attempt's request carries the tenant of the interface it
 * goes to; the rest of what a request carries (its message id, given once
 * so that a message sent again is the same message) is the A2AClient's.
 * @category For tool authors
 */
export class FailoverTransport implements A2ATransport {
  private index = 0;
  private readonly transports = new Map<number, A2ATransport>();

  constructor(private readonly settings: FailoverSettings) {
    if (settings.candidates.length === 0) throw new TypeError("no interface to connect to");
  }

  /** The interface calls go to now. */
  get current(): Candidate {
    return this.settings.candidates[this.index]!;
  }

  /** The binding of the interface in use. */
  get binding(): Binding {
    return this.current.binding;
  }

  /**
   * Makes the call of `input` on the interface in use, then on the next
   * ones as the module comment says (a streaming call: `stream`). The
   * deadline of the call's record (record.ts) holds for all of them: the
   * first gets `timeoutMs` as the call gave it, each later one what is left,
   * and none is started once nothing is (the last failure stands).
   */
  private readonly run = async (
    method: DescMethod,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
    input: MessageInitShape<DescMessage>,
    contextValues: ContextValues | undefined,
  ): Promise<unknown> => {
    const { candidates, maxAttempts } = this.settings;
    const stream = method.methodKind !== "unary";
    // The call's record, which every attempt carries: the values an A2AClient
    // passes are the record it prepared; a call that comes without one has one made.
    const deadline = recordFor(stream ? "stream" : "unary", timeoutMs, contextValues).start();
    const values = contextValues ?? deadline;
    // The candidates tried, noted once one has failed: most calls succeed at the first.
    let tried: Set<number> | undefined;
    let i = this.index;
    let left = timeoutMs;
    for (;;) {
      const candidate = candidates[i]!;
      try {
        // Spec 8.3.2: a request carries the tenant of the interface it goes to, whatever the caller put there.
        const tenant = candidate.interface.tenant;
        const req = input.tenant === tenant ? input : { ...input, tenant };
        const t = this.transports.get(i) ?? this.made(i);
        const result = await (stream
          ? t.stream(method as DescMethodStreaming, signal, left, header, single(req), values)
          : t.unary(method as DescMethodUnary, signal, left, header, req, values));
        if (i !== this.index) this.index = i;
        return result;
      } catch (e) {
        // Whether to move on depends on what the failure is: it is named
        // here, against the interface that failed (the client passes an
        // A2AError on as it is); anything else once the classification has
        // loaded, within the call's signal and deadline.
        const error =
          foundA2AError(e) ??
          (await deadline.waitFor(classified(e, candidate.binding), "the failure was not classified", signal, candidate.binding));
        (tried ??= new Set()).add(i);
        // Nothing left: no other attempt starts; else the next one gets what is.
        const next =
          signal?.aborted || tried.size >= maxAttempts || deadline.passed() ? undefined : this.nextCandidate(i, error, method, tried);
        left = deadline.fix().timeoutMs();
        if (next === undefined) {
          // An interface that answered, even with an error, is one that works.
          if (answered(error)) this.index = i;
          throw this.explain(error, candidate);
        }
        this.settings.onSwitch?.(candidate, candidates[next]!, error);
        i = next;
      }
    }
  };

  /** A unary call on the interface in use, moving on as the module comment says (`run`). */
  readonly unary: Transport["unary"] = this.run as never;

  /** A streaming call on the interface in use, moving on as the module comment says. */
  readonly stream: Transport["stream"] = async (method, signal, timeoutMs, header, input, contextValues) =>
    // A2A streams are server-streaming: one request, which may be sent again.
    this.run(method, signal, timeoutMs, header, (await onlyValue(input)) ?? {}, contextValues) as never;

  /** The transport of candidate `i`, made the first time it is tried. */
  private made(i: number): A2ATransport {
    const t = this.settings.create(this.settings.candidates[i]!);
    this.transports.set(i, t);
    return t;
  }

  /**
   * Where to go after candidate `i` failed with `error`, if anywhere. An
   * older version only with `versionFallback: "auto"`: an interface that
   * cannot be reached does not take the session down to a version that
   * silently does less (spec 3.6.3), and the one that works is kept.
   */
  private nextCandidate(i: number, error: A2AError, method: DescMethod, tried: Set<number>): number | undefined {
    const { candidates } = this.settings;
    const older = (k: number) => compareVersions(candidates[k]!.version, candidates[i]!.version) < 0;
    const order = candidates.map((_, k) => (i + 1 + k) % candidates.length).filter((k) => !tried.has(k));
    if (error instanceof VersionNotSupportedError) {
      return this.settings.versionFallback === "auto" ? order.find(older) : undefined;
    }
    if (!interfaceAway(error) || !maySendAgain(error, traitsOf(method))) return undefined;
    return this.settings.versionFallback === "auto" ? order[0] : order.find((k) => !older(k));
  }

  /** A rejected version says what else the card offers. */
  private explain(error: A2AError, candidate: Candidate): A2AError {
    if (!(error instanceof VersionNotSupportedError) || this.settings.versionFallback === "auto") return error;
    const offered = [...new Set(this.settings.candidates.map((c) => c.version))];
    const older = offered.filter((v) => compareVersions(v, candidate.version) < 0);
    const hint = older.length > 0 ? `; connect with versionFallback: "auto" to use ${older.join(" or ")}` : "";
    return new VersionNotSupportedError(
      `the agent rejected A2A ${candidate.version} at ${safeInterfaceUrl(candidate.interface.url)} (${error.message}); its card offers ${offered.join(", ")}${hint}`,
      { ...error, details: error.details, cause: error },
    );
  }
}

/**
 * Whether a failure says the interface is away, so another may be tried:
 * a failed connection, or a 502/503/504 naming no A2A error (a gateway
 * answered for an agent that did not). Both are transient
 * (`A2AError.transient`); a slow interface (a timeout) is not away.
 * Whether the request may go to another is call/attempt-rules.ts's.
 */
function interfaceAway(error: A2AError): boolean {
  if (error.code === "CONNECTION_FAILED") return true;
  return error.code === "SERVER_ERROR" && error.reason === undefined && isGatewayStatus(error.httpStatus);
}

/** The interface was reached and spoke the version asked for. */
function answered(error: A2AError): boolean {
  switch (error.code) {
    // No answer at all, or an answer in another version.
    case "CONNECTION_FAILED":
    case "CALL_TIMEOUT":
    case "ABORTED":
    case "VERSION_NOT_SUPPORTED":
      return false;
  }
  return !interfaceAway(error);
}
