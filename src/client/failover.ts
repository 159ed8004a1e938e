/**
 * One transport over a ranked list of interfaces: calls go to the interface
 * in use; when it cannot be reached, or rejects the protocol version and
 * fallback is allowed, the next suitable candidate is tried and, if it
 * works, kept for later calls.
 */
import type { DescMessage, DescMethodStreaming, DescMethodUnary, MessageInitShape } from "@bufbuild/protobuf";
import type { ContextValues, StreamResponse, UnaryResponse } from "@connectrpc/connect";
import { A2AError, AbortedError, CallTimeoutError, ConnectionError, ServerError, VersionNotSupportedError } from "../errors/family.js";
import { toA2AError } from "../errors/classify.js";
import { type Binding } from "../protocol/bindings.js";
import type { A2ATransport } from "../call/transport.js";
import { single, uuid } from "../util.js";
import type { Candidate } from "./select.js";

/**
 * What to do when an interface rejects its protocol version: `"off"` fails,
 * `"auto"` moves to an interface of an older version the card declares.
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

const SENDS = new Set(["SendMessage", "SendStreamingMessage"]);

/** The transport of a session from `connect()`: one interface in use, the next candidates for failover and version fallback. */
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

  unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
    input: MessageInitShape<I>,
    contextValues?: ContextValues,
  ): Promise<UnaryResponse<I, O>> {
    const request = withMessageId(method.name, input);
    return this.run(method.name, signal, (t, c) => t.unary(method, signal, timeoutMs, header, withTenant(request, c), contextValues));
  }

  async stream<I extends DescMessage, O extends DescMessage>(
    method: DescMethodStreaming<I, O>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    header: HeadersInit | undefined,
    input: AsyncIterable<MessageInitShape<I>>,
    contextValues?: ContextValues,
  ): Promise<StreamResponse<I, O>> {
    // A2A streams are server-streaming: one request, which may be sent again.
    let request: MessageInitShape<I> | undefined;
    for await (const m of input) request = m;
    const req = withMessageId(method.name, request ?? ({} as MessageInitShape<I>));
    return this.run(method.name, signal, (t, c) =>
      t.stream(method, signal, timeoutMs, header, single(withTenant(req, c)), contextValues),
    );
  }

  private transportOf(i: number): A2ATransport {
    let t = this.transports.get(i);
    if (!t) {
      t = this.settings.create(this.settings.candidates[i]!);
      this.transports.set(i, t);
    }
    return t;
  }

  private async run<R>(methodName: string, signal: AbortSignal | undefined, call: (t: A2ATransport, c: Candidate) => Promise<R>): Promise<R> {
    const { candidates, maxAttempts } = this.settings;
    const tried = new Set<number>();
    let i = this.index;
    for (;;) {
      tried.add(i);
      const candidate = candidates[i]!;
      try {
        const result = await call(this.transportOf(i), candidate);
        if (i !== this.index) this.index = i;
        return result;
      } catch (e) {
        const error = toA2AError(e, candidate.binding);
        const next = signal?.aborted || tried.size >= maxAttempts ? undefined : this.nextCandidate(i, error, methodName, tried);
        if (next === undefined) {
          // An interface that answered, even with an error, is one that works.
          if (answered(error)) this.index = i;
          throw this.explain(error, candidate);
        }
        this.settings.onSwitch?.(candidate, candidates[next]!, error);
        i = next;
      }
    }
  }

  /** Where to go after candidate `i` failed with `error`, if anywhere. */
  private nextCandidate(i: number, error: A2AError, methodName: string, tried: Set<number>): number | undefined {
    const { candidates } = this.settings;
    const order = candidates.map((_, k) => (i + 1 + k) % candidates.length).filter((k) => !tried.has(k));
    if (error instanceof VersionNotSupportedError) {
      if (this.settings.versionFallback !== "auto") return undefined;
      const older = (c: Candidate) => compareVersions(c.version, candidates[i]!.version) < 0;
      return order.find((k) => older(candidates[k]!));
    }
    return unreachable(error, SENDS.has(methodName)) ? order[0] : undefined;
  }

  /** A rejected version says what else the card offers. */
  private explain(error: A2AError, candidate: Candidate): A2AError {
    if (!(error instanceof VersionNotSupportedError) || this.settings.versionFallback === "auto") return error;
    const offered = [...new Set(this.settings.candidates.map((c) => c.version))];
    const older = offered.filter((v) => compareVersions(v, candidate.version) < 0);
    const hint = older.length > 0 ? `; connect with versionFallback: "auto" to use ${older.join(" or ")}` : "";
    return new VersionNotSupportedError(
      `the agent rejected A2A ${candidate.version} at ${candidate.interface.url} (${error.message}); its card offers ${offered.join(", ")}${hint}`,
      { ...error, details: error.details, cause: error },
    );
  }
}

/**
 * Whether a failure means the interface could not be reached, so another may
 * be tried. A message is only sent again where it cannot have arrived: the
 * connection was refused or the host not found.
 */
function unreachable(error: A2AError, isSend: boolean): boolean {
  if (error instanceof ConnectionError) return error.kind === "refused" || error.kind === "dns" || !isSend;
  const gateway = error.httpStatus === 502 || error.httpStatus === 503 || error.httpStatus === 504;
  return !isSend && gateway && error instanceof ServerError && error.reason === undefined;
}

/** The interface was reached and spoke the version asked for. */
function answered(error: A2AError): boolean {
  const noAnswer = error instanceof ConnectionError || error instanceof CallTimeoutError || error instanceof AbortedError;
  return !noAnswer && !(error instanceof VersionNotSupportedError) && !unreachable(error, false);
}

/** Orders Major.Minor versions: negative when `a` is older than `b`, 0 when equal. */
export function compareVersions(a: string, b: string): number {
  const [am = 0, an = 0] = a.split(".").map(Number);
  const [bm = 0, bn = 0] = b.split(".").map(Number);
  return am - bm || an - bn;
}

function withTenant<T>(request: T, candidate: Candidate): T {
  // Spec 8.3.2 rule 4: exactly the interface's tenant, or none.
  return { ...request, tenant: candidate.interface.tenant } as T;
}

/** A message sent twice must be recognisable as one: give it an id once. */
function withMessageId<T>(methodName: string, request: T): T {
  if (!SENDS.has(methodName)) return request;
  const message = (request as { message?: { messageId?: string } }).message;
  if (!message || message.messageId) return request;
  return { ...request, message: { ...message, messageId: uuid() } } as T;
}
