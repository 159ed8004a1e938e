/**
 * Small builders for the messages people write by hand. Each returns a real
 * generated type, so it goes anywhere the protocol's types go.
 */
import { create, isMessage, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "../../gen/google/protobuf/struct_pb.js";
import { messageFromJson } from "./proto-json.js";
import {
  MessageSchema,
  PartSchema,
  Role,
  TaskState,
  type Artifact,
  type Message,
  type Part,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskStatus,
  type TaskStatusUpdateEvent,
} from "../../gen/lf/a2a/v1/a2a_pb.js";
import { InvalidParamsError } from "../errors/family.js";
import { isRecord } from "../base/is-record.js";
import { uuid } from "../base/uuid.js";

/** Optional metadata of a part. @category Messages and results */
export interface PartOptions {
  /** The content's media type, e.g. `application/pdf`. */
  mediaType?: string;
  /** A file name for the content. */
  filename?: string;
}

/** A text part. @category Messages and results */
export function text(value: string, options: PartOptions = {}): Part {
  return create(PartSchema, { content: { case: "text", value }, ...options });
}

/** A structured-data part holding any JSON value. @category Messages and results */
export function data(value: JsonValue, options: PartOptions = {}): Part {
  return create(PartSchema, { content: { case: "data", value: messageFromJson(ValueSchema, value) }, ...options });
}

/** A file part that points at a URL. @category Messages and results */
export function fileUrl(url: string, options: PartOptions = {}): Part {
  return create(PartSchema, { content: { case: "url", value: url }, ...options });
}

/** A file part carrying its bytes inline (base64 on JSON bindings). @category Messages and results */
export function fileBytes(bytes: Uint8Array, options: PartOptions = {}): Part {
  return create(PartSchema, { content: { case: "raw", value: bytes }, ...options });
}

/** Optional fields of a message built by `userMessage`. @category Messages and results */
export interface MessageOptions {
  /** Continue this task (e.g. answer an INPUT_REQUIRED question). */
  taskId?: string;
  /** The conversation the message belongs to. */
  contextId?: string;
  /** Default: a fresh UUID. Resending a message with the same id marks a retry. */
  messageId?: string;
  /** Extension URIs that apply to this message. */
  extensions?: string[];
  /** Earlier tasks this message refers to, for the agent's context. */
  referenceTaskIds?: string[];
}

/**
 * A user message; strings become text parts, and parts are those `text()`,
 * `data()`, `fileUrl()` and `fileBytes()` make. Anything else (a part in the
 * spec's JSON shape, `{ text }`, included) throws `InvalidParamsError`
 * naming its place (`content[1]`); that shape goes in a request's message.
 * @example
 * ```ts
 * import { userMessage, text, data, fileUrl } from "a2a-connect";
 *
 * const simple = userMessage("hello");
 * const rich = userMessage([text("describe this"), fileUrl("https://example.com/cat.png", { mediaType: "image/png" }), data({ size: "small" })]);
 * ```
 * @category Messages and results
 */
export function userMessage(content: string | Part | ReadonlyArray<string | Part>, options: MessageOptions = {}): Message {
  const one = typeof content === "string" || !Array.isArray(content);
  const list = one ? [content as string | Part] : content;
  return create(MessageSchema, {
    ...options,
    messageId: options.messageId ?? uuid(),
    role: Role.USER,
    parts: list.map((p, i) => (typeof p === "string" ? text(p) : checkedPart(p, one ? "content" : `content[${i}]`))),
  });
}

/**
 * `part`, when `create()` reads all of it: a made part, or one in the init
 * shape. A part in the spec's JSON shape (`{ text }`), as untyped code may
 * pass, would lose its content without a word: the reader of that shape is
 * the request's, which loads on demand, and these builders return at once.
 *
 * @throws InvalidParamsError naming `at`, never the part's value.
 */
function checkedPart(part: Part, at: string): Part {
  if (isMessage(part, PartSchema) || (isRecord(part) && Object.keys(part).every(isPartInitKey))) return part;
  throw new InvalidParamsError(
    `${at} is not a Part: make parts with text(), data(), fileUrl() or fileBytes() (a part in the spec's JSON shape, such as { text }, is read in a request's message, not by userMessage, replyTo or followUp)`,
  );
}

/** A key of a part in the init shape: a field outside the content oneof, or the oneof itself (`content`). */
function isPartInitKey(key: string): boolean {
  const field = PartSchema.fields.find((f) => f.localName === key);
  return field ? field.oneof === undefined : PartSchema.oneofs.some((o) => o.localName === key);
}

const TERMINAL: ReadonlySet<TaskState> = new Set([TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED]);
const INTERRUPTED: ReadonlySet<TaskState> = new Set([TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED]);

/** The task has ended for good: completed, failed, canceled or rejected. @category Messages and results */
export function isTerminal(state: TaskState): boolean {
  return TERMINAL.has(state);
}

/** The task waits on the caller: input or authentication required. @category Messages and results */
export function isInterrupted(state: TaskState): boolean {
  return INTERRUPTED.has(state);
}

/** Anything `textOf` reads text from. @category Messages and results */
export type TextSource = Message | Artifact | Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent | SendMessageResponse | StreamResponse;

/**
 * The text parts of a result or event, joined by `separator`:
 * - a message or an artifact: its text parts;
 * - a task: its artifacts' text parts, in order; when they have none, the
 *   text of its status message (an agent that answers a question, asks for
 *   input or explains a failure often says it there);
 * - a status update: its status message's text; an artifact update: its artifact's;
 * - a `SendMessageResponse` or a `StreamResponse`: the text of what it carries.
 *
 * Total: an empty or partial object (a field missing, an unknown payload)
 * gives `""`, never an error.
 * @example
 * ```ts
 * import { connect, userMessage, textOf } from "a2a-connect";
 *
 * const { client } = await connect("https://agent.example.com");
 * const res = await client.sendMessage({ message: userMessage("what is 6 x 7?") });
 * console.log(textOf(res)); // a task's artifacts, else its status message; or a direct message's text
 * ```
 * @category Messages and results
 */
export function textOf(source: TextSource | undefined, separator = ""): string {
  const out: string[] = [];
  collect(source, out);
  return out.join(separator);
}

function collect(source: unknown, out: string[]): void {
  // A response or an artifact update wraps what holds the text: unwrap it first.
  let at: unknown = source;
  if (isRecord(at) && "payload" in at) at = (at.payload as { value?: unknown } | undefined)?.value;
  if (isRecord(at) && "artifact" in at) at = at.artifact;
  if (!isRecord(at)) return;
  if ("artifacts" in at || "status" in at) {
    // A task, or a status update (which has no artifacts).
    if (Array.isArray(at.artifacts)) for (const a of at.artifacts) textParts((a as Partial<Artifact> | undefined)?.parts, out);
    if (out.length === 0) textParts((at.status as Partial<TaskStatus> | undefined)?.message?.parts, out);
  } else {
    textParts(at.parts, out);
  }
}

function textParts(parts: unknown, out: string[]): void {
  if (!Array.isArray(parts)) return;
  for (const p of parts as Array<Partial<Part> | undefined>) {
    const c = p?.content;
    if (c?.case === "text" && typeof c.value === "string") out.push(c.value);
  }
}
