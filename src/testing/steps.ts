/**
 * The steps of a test agent's script, and the functions that make them.
 * A script is what the agent does for one incoming message, in order: its
 * answers (a message, a task's states and artifacts) and its faults (a wait,
 * silence, a cut connection, an HTTP status, an error, bytes that are not
 * A2A). Steps are plain data, so a script can be written once and reused,
 * by several agents too; a step wrapped in `once` acts on its first run by
 * each agent only (the agent keeps which have run), which is how a test
 * makes a retry or a resumption succeed.
 */
import { TaskState, type Part } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { text } from "../protocol/messages.js";
import type { TestErrorKind } from "./errors.js";

/** Content of a message or an artifact: text, parts, or a mix. @category Testing */
export type StepContent = string | Part | ReadonlyArray<string | Part>;

/** A direct message reply: no task is made. @category Testing */
export interface ReplyStep {
  /** What the step is. */
  readonly kind: "reply";
  /** The reply's parts. */
  readonly parts: readonly Part[];
}

/** The task moves to `state`, with an agent message when `parts` is not empty. @category Testing */
export interface StatusStep {
  /** What the step is. */
  readonly kind: "status";
  /** The task's new state. */
  readonly state: TaskState;
  /** The parts of the agent's status message; none, no message. */
  readonly parts: readonly Part[];
}

/** Options of an artifact step. @category Testing */
export interface ArtifactOptions {
  /** Default "artifact-1". Chunks of one artifact share it. */
  artifactId?: string;
  /** The artifact's name. */
  name?: string;
  /** Append these parts to the artifact with this id, rather than replacing it. */
  append?: boolean;
  /** This is the artifact's last chunk. */
  lastChunk?: boolean;
}

/** An artifact, or a chunk of one. @category Testing */
export interface ArtifactStep {
  /** What the step is. */
  readonly kind: "artifact";
  /** The artifact's parts, or the chunk's. */
  readonly parts: readonly Part[];
  /** Its id and name, and whether it is appended or the last chunk. */
  readonly options: Readonly<ArtifactOptions>;
}

/** The task stays WORKING until a CancelTask cancels it (or the agent closes). @category Testing */
export interface UntilCancelledStep {
  /** What the step is. */
  readonly kind: "untilCancelled";
}

/**
 * The task stays as it is until a SubscribeToTask begins following it (a
 * client resuming after a drop), then the script goes on: what follows
 * reaches the client by its subscription, however long it took to resume.
 * @category Testing
 */
export interface UntilSubscribedStep {
  /** What the step is. */
  readonly kind: "untilSubscribed";
}

/** Waits `ms` before the next step. @category Testing */
export interface WaitStep {
  /** What the step is. */
  readonly kind: "wait";
  /** How long, in milliseconds. */
  readonly ms: number;
}

/** Never answers this call again: only the caller's deadline or signal ends it. @category Testing */
export interface HangStep {
  /** What the step is. */
  readonly kind: "hang";
}

/**
 * Cuts the connection: before the response when none has started, else in
 * the middle of the stream. The task goes on with the steps that follow,
 * so a client that resumes finds them. On gRPC over HTTP/2 the call's
 * stream is reset (RST_STREAM), the connection's other calls left be,
 * whichever way the step cuts.
 * @category Testing
 */
export interface DropStep {
  /** What the step is. */
  readonly kind: "drop";
  /**
   * How the connection ends: `"close"` (the default) as a server that
   * closes its socket (a TCP FIN: the client reads the end of the
   * connection), `"reset"` as one that aborts it (a TCP RST: the client's
   * read fails with ECONNRESET). In memory, the client's HTTP client fails
   * as `fetch` does for each (`terminated`, other side closed; or
   * ECONNRESET).
   */
  readonly how?: "close" | "reset" | undefined;
}

/**
 * Answers with an HTTP status, headers and body of the test's choosing (a
 * 503 with Retry-After, a 401 with a challenge). On gRPC too it is the
 * answer's HTTP status (`:status`) and headers, without a gRPC status, as
 * a proxy in front of a gRPC server answers; inside a gRPC stream, where no
 * HTTP status can be sent, the call fails with the status INTERNAL saying
 * so (the other bindings end the stream there).
 * @category Testing
 */
export interface HttpStatusStep {
  /** What the step is. */
  readonly kind: "httpStatus";
  /** The HTTP status. */
  readonly status: number;
  /** The answer's headers (`Retry-After`, `WWW-Authenticate`, ...). */
  readonly headers: Readonly<Record<string, string>>;
  /** The answer's body; empty by default. */
  readonly body: string;
}

/**
 * Answers with an A2A error, in the shape of the binding the call came on;
 * inside a stream, as an error event. On gRPC: the specification's gRPC
 * status code, with a `google.rpc.Status` holding the ErrorInfo in
 * `grpc-status-details-bin` (in the trailers after a stream's messages).
 * @category Testing
 */
export interface ErrorStep {
  /** What the step is. */
  readonly kind: "error";
  /** The error, by the code the client reports it with. */
  readonly error: TestErrorKind;
  /** The error's message. */
  readonly message: string;
}

/**
 * Sends these bytes as they are: as the body (status 200 unless given), or
 * into a stream that has started. On gRPC the body is not gRPC (no frames,
 * no status: what a proxy's page is); in a stream the bytes go between its
 * message frames, unframed.
 * @category Testing
 */
export interface RawStep {
  /** What the step is. */
  readonly kind: "raw";
  /** The bytes. */
  readonly body: Uint8Array;
  /** The HTTP status, where the bytes are the answer. */
  readonly status: number;
  /** The `Content-Type`, where the bytes are the answer. */
  readonly contentType: string;
}

/** An answer, or a stream event, whose JSON is cut short; on gRPC, a message frame whose bytes are not the message. @category Testing */
export interface MalformedStep {
  /** What the step is. */
  readonly kind: "malformed";
}

/** A step that acts on its first run by an agent only; later runs of the script pass over it. @category Testing */
export interface OnceStep {
  /** What the step is. */
  readonly kind: "once";
  /** The step it runs the first time. */
  readonly step: Step;
}

/** One step of a script. @category Testing */
export type Step =
  | ReplyStep
  | StatusStep
  | ArtifactStep
  | UntilCancelledStep
  | UntilSubscribedStep
  | WaitStep
  | HangStep
  | DropStep
  | HttpStatusStep
  | ErrorStep
  | RawStep
  | MalformedStep
  | OnceStep;

/** What the agent does for one message: its steps, in order. @category Testing */
export type Script = readonly Step[];

/** Parts from text, parts, or a mix. */
export function partsOf(content: StepContent | undefined): Part[] {
  if (content === undefined) return [];
  const list = typeof content === "string" || !Array.isArray(content) ? [content as string | Part] : content;
  return list.map((p) => (typeof p === "string" ? text(p) : p));
}

const status =
  (state: TaskState) =>
  (message?: StepContent): StatusStep => ({ kind: "status", state, parts: partsOf(message) });

/**
 * The steps a script is made of.
 * @example
 * ```ts
 * import { createTestAgent, steps } from "a2a-connect/testing";
 *
 * const agent = createTestAgent({
 *   script: [steps.working("on it"), steps.artifact("part one"), steps.artifact(" and two", { append: true, lastChunk: true }), steps.complete()],
 * });
 * ```
 * @category Testing
 */
export const steps = {
  /** A direct message reply, without a task. */
  reply: (content: StepContent): ReplyStep => ({ kind: "reply", parts: partsOf(content) }),
  /** The task moves to any state, with an optional agent message. */
  status: (state: TaskState, message?: StepContent): StatusStep => ({ kind: "status", state, parts: partsOf(message) }),
  /** The task is SUBMITTED. */
  submitted: status(TaskState.SUBMITTED),
  /** The task is WORKING. */
  working: status(TaskState.WORKING),
  /** The task is COMPLETED: the script's end. */
  complete: status(TaskState.COMPLETED),
  /** The task FAILED: the script's end. */
  fail: status(TaskState.FAILED),
  /** The task is REJECTED: the script's end. */
  reject: status(TaskState.REJECTED),
  /** The task asks for input: the script pauses, and the next message to the task runs the steps that follow. */
  inputRequired: status(TaskState.INPUT_REQUIRED),
  /** The task asks for authentication: the script pauses, and the next message to the task runs the steps that follow. */
  authRequired: status(TaskState.AUTH_REQUIRED),
  /** An artifact, or a chunk of one (`append`, `lastChunk`). */
  artifact: (content: StepContent, options: ArtifactOptions = {}): ArtifactStep => ({ kind: "artifact", parts: partsOf(content), options }),
  /** The task stays WORKING until it is cancelled. */
  untilCancelled: (): UntilCancelledStep => ({ kind: "untilCancelled" }),
  /** The script goes on once a SubscribeToTask follows the task, e.g. after `steps.once(steps.drop())`. */
  untilSubscribed: (): UntilSubscribedStep => ({ kind: "untilSubscribed" }),
  /** A pause of `ms` milliseconds. */
  wait: (ms: number): WaitStep => ({ kind: "wait", ms }),
  /** No answer, ever: the call's deadline must end it. */
  hang: (): HangStep => ({ kind: "hang" }),
  /** The connection is cut (before the response, or mid-stream): closed (FIN) by default, or `"reset"` (RST). */
  drop: (how: "close" | "reset" = "close"): DropStep => ({ kind: "drop", how }),
  /** An HTTP status with headers, e.g. `steps.httpStatus(503, { "Retry-After": "1" })`. */
  httpStatus: (code: number, headers: Record<string, string> = {}, body = ""): HttpStatusStep => ({
    kind: "httpStatus",
    status: code,
    headers,
    body,
  }),
  /** An A2A error, e.g. `steps.error("TASK_NOT_FOUND")`. */
  error: (error: TestErrorKind, message = `${error} (test agent)`): ErrorStep => ({ kind: "error", error, message }),
  /** Bytes as they are, e.g. `steps.raw("<html>busy</html>", { contentType: "text/html" })`. */
  raw: (body: string | Uint8Array, options: { status?: number; contentType?: string } = {}): RawStep => ({
    kind: "raw",
    body: typeof body === "string" ? new TextEncoder().encode(body) : body,
    status: options.status ?? 200,
    contentType: options.contentType ?? "application/json",
  }),
  /** JSON cut short, as an answer or as a stream event. */
  malformed: (): MalformedStep => ({ kind: "malformed" }),
  /** `step` on the script's first run only, e.g. `steps.once(steps.drop())`. */
  once: (step: Step): OnceStep => ({ kind: "once", step }),
} as const;

/**
 * The step a script runs for `s`: itself, or for a `once` step its inner
 * step the first time and undefined after, `ran` holding the `once` steps
 * that have run (the agent's).
 */
export function stepToRun(s: Step, ran: WeakSet<OnceStep>): Exclude<Step, OnceStep> | undefined {
  while (s.kind === "once") {
    if (ran.has(s)) return undefined;
    ran.add(s);
    s = s.step;
  }
  return s;
}
