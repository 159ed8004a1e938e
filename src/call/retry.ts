/**
 * Retries of unary calls, off unless asked: the policy and its checks,
 * which failures of which operations are tried again, the waits between
 * attempts, and the loop. The client loads this module the first time a
 * call runs under a policy; streams are not retried here (they resume:
 * client/resume.ts).
 *
 * The rule (call/attempt-rules.ts's `maySendAgain`, which failover and
 * stream resumption read too):
 * - Reads (the methods call/method-traits.ts marks `readsOnly`: GetTask,
 *   ListTasks, GetExtendedAgentCard and the push config get and list) are
 *   tried again after any failure the policy retries: running them twice
 *   changes nothing.
 * - Every other operation (SendMessage, CancelTask, the push config create
 *   and delete) is a write. By default a write is tried again only where
 *   the earlier attempt cannot have been processed: the connection was
 *   refused or the host not found (nothing was sent), or the server
 *   answered 429 or 503 (it refused the request before handling it). A
 *   timeout, a reset, a 502 or 504 may come after the agent acted on the
 *   request, so they end the call unless `retryWrites` is "transient".
 *   CancelTask is a write although cancelling twice cancels once (see
 *   method-traits.ts).
 * - A message sent again is the same message, with the same messageId (the
 *   client prepares the request once), so an agent that de-duplicates by id
 *   recognises it.
 *
 * A retried call ends by its deadline and its signal: each attempt gets
 * what is left of the call's timeout, the deadline's signal holds it over
 * all of them (call/deadline.ts), a wait that would end past it is not started (the last
 * failure is reported at once), and the caller's signal cuts a wait short. Nothing is shared between calls: the policy is read,
 * never written, and the state of the backoff lives in one call.
 */
import type { DescMessage, DescMethodUnary, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import type { A2AErrorCode } from "../errors/codes.js";
import { toA2AError } from "../errors/classify.js";
import { type A2AError, AbortedError, CallTimeoutError, InvalidParamsError } from "../errors/family.js";
import type { Binding } from "../base/bindings.js";
import type { MethodTraits } from "./method-traits.js";
import type { ResendWrites } from "./attempt-rules.js";
import type { RetryKit } from "./retry-kit.js";
import type { A2ATransport } from "./transport.js";
import type { CallDeadline } from "./deadline.js";
import type { CallRecord } from "./record.js";

/**
 * When and how a unary call is tried again (see the retries guide, docs/retries.md).
 * Every field may be left out. Streams are not retried by it: they resume.
 *
 * @example
 * ```ts
 * import { connect } from "a2a-connect";
 *
 * const session = await connect("https://agent.example.com", { retry: { attempts: 4, maxDelayMs: 2_000 } });
 * // Per call: another policy, or none.
 * const task = await session.client.getTask({ id: "task-123" }, { retry: { attempts: 2 } });
 * await session.client.cancelTask({ id: "task-123" }, { retry: false });
 * ```
 * @category Connect and call
 */
export interface RetryPolicy {
  /** Attempts per call, the first included: a whole number of at least 1. Default 3; 1 turns retries off. */
  attempts?: number | undefined;
  /**
   * The first wait's ceiling (full jitter) or every wait's floor
   * (decorrelated jitter), in milliseconds. Default 200.
   */
  initialDelayMs?: number | undefined;
  /**
   * The longest wait between attempts, in milliseconds, at least
   * `initialDelayMs`. A server's `Retry-After` is waited out up to this;
   * one asking for longer ends the call with its error. Default 5 000.
   */
  maxDelayMs?: number | undefined;
  /**
   * How waits are drawn. `"full"` (default): a random wait up to a ceiling
   * that doubles per attempt. `"decorrelated"`: between `initialDelayMs` and
   * three times the previous wait. Both spread clients that failed together.
   */
  jitter?: "full" | "decorrelated" | undefined;
  /**
   * The error codes worth another attempt. Default: every error whose
   * `transient` is true (a failed connection, a timeout, 429, 502, 503, 504,
   * gRPC RESOURCE_EXHAUSTED, a `Retry-After`). `"ABORTED"` cannot be listed:
   * an abort is the caller's decision.
   */
  retryOn?: readonly A2AErrorCode[] | undefined;
  /**
   * When writes (SendMessage, CancelTask, push config create and delete) are
   * tried again. `"unprocessed"` (default): only after a failure that means
   * the agent did not process the request (refused connection, unknown host,
   * 429, 503). `"transient"`: after every failure the policy retries, a
   * timeout or reset included, so a message may be processed twice (an
   * agent that de-duplicates by messageId can tell). `"never"`.
   */
  retryWrites?: "unprocessed" | "transient" | "never" | undefined;
}

/** A policy with every field given (`retryOn` undefined: the errors that are `transient`), checked and frozen. */
export interface CheckedRetryPolicy {
  readonly attempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly jitter: "full" | "decorrelated";
  readonly retryOn: readonly A2AErrorCode[] | undefined;
  readonly retryWrites: ResendWrites;
}

/** The defaults of RetryPolicy, in one place. */
const RETRY_DEFAULTS = { attempts: 3, initialDelayMs: 200, maxDelayMs: 5_000, jitter: "full", retryWrites: "unprocessed" } as const;

const JITTERS = ["full", "decorrelated"] as const;
const WRITES = ["unprocessed", "transient", "never"] as const;

/**
 * The policy with its defaults, or InvalidParamsError naming the field
 * (`retry.attempts`) that would make the loop spin, stall or retry an abort;
 * `kit`: retry-kit.ts's `RETRY_KIT`, whose `shownValue` shows what was given.
 */
export function checkRetryPolicy(policy: RetryPolicy, { shownValue }: RetryKit): CheckedRetryPolicy {
  const where = "retry";
  if (typeof policy !== "object" || policy === null) throw new InvalidParamsError(`${where} must be an object, got ${shownValue(policy)}`);
  const bad = (field: string, rule: string, value: unknown, words = false) =>
    new InvalidParamsError(`${where}.${field} must be ${rule}, got ${shownValue(value, words)}`);
  const attempts = policy.attempts ?? RETRY_DEFAULTS.attempts;
  if (typeof attempts !== "number" || !Number.isSafeInteger(attempts) || attempts < 1) {
    throw bad("attempts", "a whole number of at least 1", attempts);
  }
  const initialDelayMs = policy.initialDelayMs ?? RETRY_DEFAULTS.initialDelayMs;
  if (typeof initialDelayMs !== "number" || !Number.isFinite(initialDelayMs) || initialDelayMs < 0) {
    throw bad("initialDelayMs", "a finite number of at least 0", initialDelayMs);
  }
  const maxDelayMs = policy.maxDelayMs ?? Math.max(RETRY_DEFAULTS.maxDelayMs, initialDelayMs);
  if (typeof maxDelayMs !== "number" || !Number.isFinite(maxDelayMs) || maxDelayMs < initialDelayMs) {
    throw bad("maxDelayMs", `a finite number of at least initialDelayMs (${initialDelayMs})`, maxDelayMs);
  }
  const jitter = policy.jitter ?? RETRY_DEFAULTS.jitter;
  if (!JITTERS.includes(jitter)) throw bad("jitter", `one of ${JITTERS.join(", ")}`, jitter, true);
  const retryWrites = policy.retryWrites ?? RETRY_DEFAULTS.retryWrites;
  if (!WRITES.includes(retryWrites)) throw bad("retryWrites", `one of ${WRITES.join(", ")}`, retryWrites, true);
  let retryOn: readonly A2AErrorCode[] | undefined;
  if (policy.retryOn !== undefined) {
    if (!Array.isArray(policy.retryOn)) throw bad("retryOn", "an array of error codes", policy.retryOn);
    for (const code of policy.retryOn as unknown[]) {
      if (typeof code !== "string" || !/^[A-Z][A-Z_]*$/.test(code)) throw bad("retryOn", "an array of error codes", code, true);
      if (code === "ABORTED") throw bad("retryOn", "without ABORTED (an abort is the caller's decision)", code, true);
    }
    retryOn = Object.freeze([...policy.retryOn]);
  }
  return Object.freeze({ attempts, initialDelayMs, maxDelayMs, jitter, retryOn, retryWrites });
}

/** Whether a failure of `call` is worth another attempt under `policy` (the module comment's rule). */
function isRetried(call: RetriedCall<unknown>, error: A2AError, policy: CheckedRetryPolicy): boolean {
  if (!(policy.retryOn ? policy.retryOn.includes(error.code) : error.transient)) return false;
  return call.kit.maySendAgain(error, call.traits, policy.retryWrites);
}

/** The wait before attempt `n + 1`, given the previous wait (decorrelated jitter reads it). */
function backoff(n: number, previousMs: number, policy: CheckedRetryPolicy): number {
  const { initialDelayMs, maxDelayMs } = policy;
  if (policy.jitter === "decorrelated") {
    const upper = Math.max(initialDelayMs, previousMs * 3);
    return Math.min(maxDelayMs, initialDelayMs + Math.random() * (upper - initialDelayMs));
  }
  return Math.random() * Math.min(maxDelayMs, initialDelayMs * 2 ** (n - 1));
}

/**
 * A unary call of `transport` under `policy`: the call prepared in `record`
 * (prepare.ts: its method, what it does, its signal, its headers, and its
 * deadline, which every attempt carries), with `request`, its request
 * read; `kit`: retry-kit.ts's `RETRY_KIT`.
 */
export function retryUnary<I extends DescMessage, O extends DescMessage>(
  policy: RetryPolicy,
  transport: A2ATransport,
  kit: RetryKit,
  record: CallRecord & { method: DescMethodUnary<I, O> },
  request: MessageInitShape<I>,
): Promise<MessageShape<O>> {
  const { method, headers } = record;
  return withRetries(policy, {
    method: method.name,
    traits: record.traits!,
    kit,
    signal: record.signal,
    deadline: record,
    binding: () => transport.binding,
    attempt: async (left, cut) => (await transport.unary(method, cut, left, headers, request, record)).message,
  });
}

/** One call to retry. */
export interface RetriedCall<R> {
  /** The operation's name as the service names it (`GetTask`). */
  method: string;
  /** What the operation does (call/method-traits.ts): a read is tried again where a write may not be. */
  traits: MethodTraits;
  /**
   * The code of the start the loop uses (retry-kit.ts's `RETRY_KIT`): the
   * rules of another attempt (attempt-rules.ts), and the helpers of values,
   * signals and timers.
   */
  kit: RetryKit;
  /** The caller's signal: it ends the attempt under way, or the wait. */
  signal: AbortSignal | undefined;
  /**
   * The whole call's deadline, attempts and waits included (call/deadline.ts;
   * a call that gave no timeout is held to the default).
   */
  deadline: CallDeadline;
  /** The binding in use, for the errors raised here. */
  binding: () => Binding;
  /** Makes one attempt with `timeoutMs` left for it (0: no limit) and the call's `signal`, which the deadline also aborts. */
  attempt(timeoutMs: number, signal: AbortSignal | undefined): Promise<R>;
}

/**
 * Runs `call` under `given`, checked first (checking is cheap beside a
 * call, and a check per call leaves nothing cached between callers).
 *
 * An attempt gets what is left of the call's deadline as its own timeout,
 * but one attempt may be several requests (failover tries further
 * interfaces within it) and a transport may overrun its timeout, so what
 * ends the call at its deadline is the deadline's timer aborting the
 * attempts' signal.
 */
export async function withRetries<R>(given: RetryPolicy, call: RetriedCall<R>): Promise<R> {
  const { kit } = call;
  const policy = checkRetryPolicy(given, kit);
  const deadline = call.deadline.fix();
  const limitMs = deadline.limitMs;
  let made = 0;
  let expired: CallTimeoutError | undefined;
  const expire = () =>
    (expired = new CallTimeoutError(
      `${call.method} did not succeed within its ${limitMs} ms timeout (${made} attempt${made === 1 ? "" : "s"})`,
      { binding: call.binding() },
    ));
  // The attempts' signal: the caller's, and the deadline's cut (a request may overrun its own timeout).
  const guard = limitMs === undefined ? undefined : kit.followSignal(call.signal);
  const timer = guard && deadline.abortAt(guard.controller, expire);
  const signal = guard?.controller.signal ?? call.signal;
  try {
    let previousMs = policy.initialDelayMs;
    for (;;) {
      // A call without a limit gives 0: none, to the transport too.
      const left = limitMs === undefined ? 0 : deadline.timeoutMs()!;
      try {
        made++;
        return await call.attempt(left, signal);
      } catch (e) {
        const error = toA2AError(e, call.binding());
        // Aborted while the attempt's failure was on its way: the abort is what ends the call.
        if (signal?.aborted && error.code !== "ABORTED") {
          throw new AbortedError("the call was aborted", { binding: call.binding(), cause: signal.reason });
        }
        if (made >= policy.attempts || signal?.aborted || !isRetried(call, error, policy)) throw error;
        // A server that asks for more patience than the policy has is not called early.
        if (kit.asksLongerThan(error.retryAfterMs, policy.maxDelayMs)) throw error;
        previousMs = Math.max(backoff(made, previousMs, policy), error.retryAfterMs ?? 0);
        // A wait that would outlast the deadline only delays the same failure.
        if (deadline.leftMs() <= previousMs) throw error;
        await kit.sleep(
          previousMs,
          signal,
          () => new AbortedError("the call was aborted while waiting to retry", { binding: call.binding(), cause: signal?.reason }),
        );
      }
    }
  } catch (e) {
    // Cut by the deadline: that is the failure, unless the attempt named its own timeout.
    throw expired && (e as A2AError).code !== "CALL_TIMEOUT" ? expired : e;
  } finally {
    clearTimeout(timer);
    guard?.unlink();
  }
}
