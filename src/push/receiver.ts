/**
 * A webhook receiver for A2A push notifications, as a fetch-style handler
 * `(Request) => Promise<Response>` (Node 18+, Deno, Bun, edge runtimes; in
 * Node's `http` server through `createNodePushHandler` of
 * `a2a-connect/node`). It checks the notification token in constant time
 * and the configured authentication, parses the body as a ProtoJSON
 * `StreamResponse`, and folds every valid event into a view per sender and
 * task that redeliveries and late events cannot corrupt. Browser-safe: no `node:`
 * module, no `Buffer`.
 */
import { clone, toBinary, type JsonValue } from "@bufbuild/protobuf";
import { StreamResponseSchema, TaskSchema, type StreamResponse, type Task } from "../../gen/lf/a2a/v1/a2a_pb.js";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { missingFromResponse } from "../protocol/response-shape.js";
import { TaskTracker } from "../client/tracker.js";
import { InvalidParamsError } from "../errors/family.js";
import { shownValue } from "../call/option-checks.js";
import { taskIdOf } from "../protocol/events.js";
import { messageFromJson } from "../protocol/proto-json.js";
import { readerIterable } from "../http/fetch-client.js";
import { concatBytes, sha256Hex } from "../base/bytes.js";
import { mediaTypeOf } from "../base/media-type.js";
import { startTimer } from "../base/timers.js";

/**
 * How a push receiver authenticates deliveries, what it accepts, and what it
 * calls. Each limit is a finite number of at least 1 and `token` a non-empty
 * string: anything else fails `createPushReceiver` with `InvalidParamsError`.
 * @category Push
 */
export interface PushReceiverOptions {
  /**
   * The `token` given in the push notification config. When set, every
   * delivery must carry it in `X-A2A-Notification-Token` or
   * `A2A-Notification-Token` (a2a-go's name for it; compared in
   * constant time), else it is answered 401.
   */
  token?: string | undefined;
  /**
   * Checks the `authentication` given in the config: called with the
   * request's `Authorization` header (null when absent). It returns the
   * sender's identity, a non-empty string (e.g. the agent or tenant the
   * credentials belong to), whose deliveries then have task views of their
   * own: one sender cannot overwrite, or read, another's view of a task of
   * the same id. `true` accepts the delivery under the shared identity
   * (as every delivery is without `authenticate`); `false` or `""` answers
   * 401. `constantTimeEqual` compares credentials without leaking their
   * length or content through timing.
   */
  authenticate?: ((authorization: string | null, request: Request) => PushSender | Promise<PushSender>) | undefined;
  /** Largest body accepted, in bytes; larger ones are answered 413. Default 1 MiB. */
  maxBytes?: number | undefined;
  /**
   * How long the body may take to arrive whole once the credentials have
   * passed, in milliseconds; a sender that stalls is answered 408 and its
   * body let go, rather than holding the handler until the server's own
   * timeout (five minutes in Node, none on some runtimes). Default 10 000;
   * 0 for no limit.
   */
  bodyTimeoutMs?: number | undefined;
  /**
   * Called for each valid delivery that is not a redelivery of one already
   * applied, after it was folded in, with the sender's task view afterwards
   * (a copy; undefined for a message that belongs to no task) and the
   * sender's identity (undefined for the shared one). Answering waits for
   * it; an error it throws is answered 500, the event staying in the view.
   */
  onEvent?: ((event: StreamResponse, task: Task | undefined, sender: string | undefined) => void | Promise<void>) | undefined;
  /** Task views kept; the least recently updated is dropped beyond this. Default 1000. */
  maxTasks?: number | undefined;
  /**
   * Largest view of one task, in bytes of its binary encoding (status,
   * artifacts, history). A delivery that would take a view past it is
   * refused with 413 and not applied (nor passed to `onEvent`); a snapshot
   * of the task (a `task` event) within the limit replaces the view and
   * so starts it afresh. Default 2 MiB.
   */
  maxTaskBytes?: number | undefined;
  /**
   * Most artifacts, history messages and parts (counted together) in one
   * task's view; past it, deliveries are refused as past `maxTaskBytes`.
   * Bounds what many tiny parts cost in memory beyond their bytes.
   * Default 10 000.
   */
  maxTaskItems?: number | undefined;
  /**
   * All views together, in bytes (as `maxTaskBytes` counts them, an upper
   * bound), with the digests kept to recognise redeliveries (128 bytes
   * each, up to 512 per task): past it, the least recently updated views
   * are dropped. Default 64 MiB.
   */
  maxTotalBytes?: number | undefined;
}

/**
 * What `authenticate` answers: a sender's identity (a non-empty string),
 * `true` for the shared identity, or `false` (or `""`) to refuse.
 * @category Push
 */
export type PushSender = string | boolean;

/**
 * Receives an agent's push notifications and keeps a view of each task
 * they describe, one per sender (see `authenticate`). Each method reads
 * one sender's views: `sender` is the identity `authenticate` returned,
 * left out for the shared identity (every delivery without `authenticate`,
 * or accepted with `true`).
 * @category Push
 */
export interface PushReceiver {
  /** The fetch-style handler: `Deno.serve(receiver.handle)`, `export default { fetch: receiver.handle }`... */
  readonly handle: (request: Request) => Promise<Response>;
  /** The task as the sender's deliveries so far describe it (a copy), if it is still kept. */
  task(id: string, sender?: string): Task | undefined;
  /** Ids of the sender's tasks kept, least recently updated first. */
  taskIds(sender?: string): string[];
  /** Drops the sender's view of a task. */
  forget(id: string, sender?: string): void;
}

const DEFAULT_MAX_BYTES = 1024 * 1024;
const DEFAULT_BODY_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_TASKS = 1000;
const DEFAULT_MAX_TASK_BYTES = 2 * 1024 * 1024;
const DEFAULT_MAX_TASK_ITEMS = 10_000;
const DEFAULT_MAX_TOTAL_BYTES = 64 * 1024 * 1024;
/** Events remembered per task (by digest), to recognise redeliveries. */
const SEEN_PER_TASK = 512;
const CONTENT_TYPES = new Set(["application/json", "application/a2a+json"]);

/** What is kept for one task of one sender. */
interface TaskEntry {
  /** The identity `authenticate` returned; undefined for the shared one. */
  sender: string | undefined;
  taskId: string;
  tracker: TaskTracker;
  /** Digests of the events received, oldest first. */
  seen: Set<string>;
  /**
   * Bytes of the view, at most: an event adds at most its own size (a
   * replacing one adds it too, so this may overstate until `measure`d).
   */
  bytes: number;
  /** Artifacts, messages and parts of the view, at most (as `bytes`). */
  items: number;
  /** Something was replaced since the view was last measured: `bytes` and `items` may overstate. */
  overstated: boolean;
}

/** The limits of one task's view and of all of them. */
interface ViewLimits {
  taskBytes: number;
  taskItems: number;
  totalBytes: number;
}

/**
 * A webhook for push notifications: checks the token and `authenticate`,
 * parses each delivery as a ProtoJSON `StreamResponse` (its payload and
 * REQUIRED fields present, as in a stream), folds it into its
 * task's view (duplicates and stale events do not corrupt it) and calls
 * `onEvent`. Answers 204 for a valid delivery and 4xx for one that is not.
 * @example
 * ```ts
 * import { createPushReceiver } from "a2a-connect";
 *
 * const receiver = createPushReceiver({
 *   token: "a-token-the-receiver-checks", // the token given in the push config
 *   onEvent: (event, task) => console.log(task?.id, task?.status?.state),
 * });
 * // A fetch-style handler: serve it at the config's url, e.g. as a Worker's
 * // (Deno.serve(receiver.handle); in Node, createNodePushHandler(receiver)):
 * export default { fetch: receiver.handle };
 * ```
 * @category Push
 */
export function createPushReceiver(options: PushReceiverOptions = {}): PushReceiver {
  checkCredentialOptions(options);
  const maxBytes = limitOption(options, "maxBytes", DEFAULT_MAX_BYTES);
  const bodyTimeoutMs = bodyTimeoutOption(options.bodyTimeoutMs);
  const maxTasks = limitOption(options, "maxTasks", DEFAULT_MAX_TASKS);
  const limits: ViewLimits = {
    taskBytes: limitOption(options, "maxTaskBytes", DEFAULT_MAX_TASK_BYTES),
    taskItems: limitOption(options, "maxTaskItems", DEFAULT_MAX_TASK_ITEMS),
    totalBytes: limitOption(options, "maxTotalBytes", DEFAULT_MAX_TOTAL_BYTES),
  };
  // By viewKey; insertion order is recency: an entry is moved to the end when updated.
  const tasks = new Map<string, TaskEntry>();
  // The sum of every entry's cost.
  let totalBytes = 0;
  const drop = (key: string) => {
    const entry = tasks.get(key);
    if (entry === undefined) return;
    totalBytes -= costOf(entry);
    tasks.delete(key);
  };

  const entryFor = (sender: string | undefined, taskId: string): TaskEntry => {
    const key = viewKey(sender, taskId);
    let entry = tasks.get(key);
    if (entry) tasks.delete(key);
    else entry = { sender, taskId, tracker: new TaskTracker(), seen: new Set(), bytes: 0, items: 0, overstated: false };
    tasks.set(key, entry);
    while (tasks.size > maxTasks) drop(tasks.keys().next().value!);
    return entry;
  };

  /** After `entry` grew by `added` bytes: the oldest other views go while all are over the budget. */
  const grown = (entry: TaskEntry, added: number) => {
    totalBytes += added;
    for (const [id, other] of tasks) {
      if (totalBytes <= limits.totalBytes) break;
      if (other !== entry) drop(id);
    }
  };

  const handle = async (request: Request): Promise<Response> => {
    if (request.method !== "POST") return answer(405, "method not allowed", { Allow: "POST" });

    const sender = await senderOf(request, options);
    if (sender === REFUSED) return answer(401, "unauthorized");

    const type = mediaTypeOf(request.headers.get("content-type"));
    if (!CONTENT_TYPES.has(type)) return answer(415, "expected application/json or application/a2a+json");

    const body = await readBody(request, maxBytes, bodyTimeoutMs);
    if (body === "too large") return answer(413, "payload too large");
    if (body === "too slow") return answer(408, `the request body did not arrive within ${bodyTimeoutMs} ms`);

    let event: StreamResponse;
    try {
      let json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body)) as JsonValue;
      if (json === null || typeof json !== "object" || Array.isArray(json)) return answer(400, "not a StreamResponse");
      // An A2A 0.3 agent delivers its task (or event) in 0.3's shape, named by `kind`
      // (0.3 section 9.5; @a2a-js/sdk 0.3.x does): read as 0.3 JSON-RPC results are.
      if ("kind" in json) json = (await import("../bindings/v0_3-transports.js")).streamResponseV1(json) as JsonValue;
      event = messageFromJson(StreamResponseSchema, json);
    } catch {
      // Neither the payload nor the parser's message (which may quote it) is echoed.
      return answer(400, "malformed JSON or not a StreamResponse");
    }
    if (event.payload.case === undefined) return answer(400, "not a StreamResponse: no payload");
    // As a stream event is held to it: a status update without its task, a snapshot without its status...
    const missing = missingFromResponse(StreamResponseSchema, event);
    if (missing !== undefined) return answer(400, `not a StreamResponse: it lacks the REQUIRED field "${missing.path}"`);

    const id = taskIdOf(event);
    let task: Task | undefined;
    if (id) {
      // The one await comes before the view is touched: from taking the entry to
      // counting its bytes, nothing else runs, so a concurrent delivery (or
      // `forget`) cannot drop the entry midway and leave its bytes counted for ever.
      const encoded = toBinary(StreamResponseSchema, event);
      const key = await fingerprint(encoded);
      const entry = entryFor(sender, id);
      const before = costOf(entry);
      const folded = fold(entry, event, encoded, key, limits);
      grown(entry, costOf(entry) - before);
      if (folded === "too large") {
        return answer(413, `the task's view would exceed its limit (maxTaskBytes ${limits.taskBytes}, maxTaskItems ${limits.taskItems})`);
      }
      if (folded === "again") return answer(204);
      const view = entry.tracker.task;
      if (options.onEvent && view) task = clone(TaskSchema, view);
    }
    try {
      await options.onEvent?.(event, task, sender);
    } catch {
      return answer(500, "the event handler failed");
    }
    return answer(204);
  };

  return {
    handle,
    task: (id, sender) => {
      const t = tasks.get(viewKey(sender, id))?.tracker.task;
      return t === undefined ? undefined : clone(TaskSchema, t);
    },
    taskIds: (sender) => [...tasks.values()].filter((e) => e.sender === sender).map((e) => e.taskId),
    forget: (id, sender) => drop(viewKey(sender, id)),
  };
}

/** The one key of a sender's view of a task: no pair of sender and task id can spell another's. */
function viewKey(sender: string | undefined, taskId: string): string {
  return JSON.stringify([sender ?? null, taskId]);
}

/**
 * Compares two strings in time that depends only on the longer one's
 * length: their UTF-8 bytes are XORed pairwise over that length and the
 * differences accumulated, with no early exit.
 * @category Push
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  const n = Math.max(x.length, y.length);
  let diff = x.length ^ y.length;
  for (let i = 0; i < n; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/** Refuses a token that any request with an empty header would match, and an `authenticate` that is not a check. */
function checkCredentialOptions(options: PushReceiverOptions): void {
  if (options.token !== undefined && (typeof options.token !== "string" || options.token === "")) {
    throw new InvalidParamsError("createPushReceiver: token must be a non-empty string (leave it out to check no token)");
  }
  if (options.authenticate !== undefined && typeof options.authenticate !== "function") {
    throw new InvalidParamsError("createPushReceiver: authenticate must be a function");
  }
}

type LimitOption = "maxBytes" | "maxTasks" | "maxTaskBytes" | "maxTaskItems" | "maxTotalBytes";

/**
 * A limit, or its default when absent. Anything but a finite number of at
 * least 1 is refused: NaN (`Number(process.env.UNSET)`) compares false with
 * everything, so it would lift the limit instead of setting one.
 */
function limitOption(options: PushReceiverOptions, name: LimitOption, fallback: number): number {
  const value: unknown = options[name];
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 1) {
    throw new InvalidParamsError(`createPushReceiver: ${name} must be a finite number of at least 1, got ${shownValue(value)}`);
  }
  return value;
}

/** `bodyTimeoutMs`: 0 (or Infinity) for no limit, else a positive number of milliseconds. */
function bodyTimeoutOption(value: unknown): number {
  if (value === undefined) return DEFAULT_BODY_TIMEOUT_MS;
  if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
    throw new InvalidParamsError(
      `createPushReceiver: bodyTimeoutMs must be 0 (no limit) or a positive number of milliseconds, got ${shownValue(value)}`,
    );
  }
  return value;
}

/**
 * The token a delivery carries: in `X-A2A-Notification-Token` (the 0.3
 * specification's name, which the TypeScript and Python SDKs send) or
 * `A2A-Notification-Token` (a2a-go's, in the style of the 1.0 headers; the
 * 1.0 specification names none). Both, with different values, is no token:
 * which one was meant cannot be told.
 */
function sentToken(headers: Headers): string | undefined {
  const legacy = headers.get("x-a2a-notification-token");
  const plain = headers.get("a2a-notification-token");
  if (legacy !== null && plain !== null && legacy !== plain) return undefined;
  return legacy ?? plain ?? undefined;
}

/** A delivery whose token or credentials did not pass. */
const REFUSED = Symbol("refused");

/**
 * Who sent the delivery: the identity `authenticate` returned, undefined
 * for the shared one, REFUSED when the token or `authenticate` refuses it.
 */
async function senderOf(request: Request, options: PushReceiverOptions): Promise<string | undefined | typeof REFUSED> {
  if (options.token !== undefined) {
    const sent = sentToken(request.headers);
    // Compared even when absent, so a missing header takes as long as a wrong one.
    const ok = constantTimeEqual(sent ?? "", options.token);
    if (sent === undefined || !ok) return REFUSED;
  }
  if (!options.authenticate) return undefined;
  const said: unknown = await options.authenticate(request.headers.get("authorization"), request);
  if (typeof said === "string") return said === "" ? REFUSED : said;
  // Any other truthy answer, as when authenticate returned a boolean only: accepted, under the shared identity.
  return said ? undefined : REFUSED;
}

/**
 * The body; "too large" when it is larger than `maxBytes` (read no further
 * than that), "too slow" when it is not whole within `timeoutMs` (0: no
 * limit). Either way the body is cancelled.
 */
async function readBody(request: Request, maxBytes: number, timeoutMs: number): Promise<Uint8Array | "too large" | "too slow"> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) {
    await request.body?.cancel().catch(() => {});
    return "too large";
  }
  const reads = readerIterable(request.body)[Symbol.asyncIterator]();
  let late = false;
  // Closing the reader ends a read that waits on the sender (it reports
  // the end): the reading below then learns that the time is up.
  const giveUp = () => {
    late = true;
    void reads.return?.();
  };
  const timer = timeoutMs > 0 ? startTimer(giveUp, timeoutMs) : undefined;
  try {
    // Past maxBytes the reading stops there, and the body is cancelled.
    const bytes = await concatBytes({ [Symbol.asyncIterator]: () => reads }, maxBytes, () => TOO_LARGE);
    return late ? "too slow" : bytes;
  } catch (e) {
    if (late) return "too slow";
    if (e === TOO_LARGE) return "too large";
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

const TOO_LARGE = new RangeError("the body is larger than allowed");

/**
 * Folds one delivery (its binary encoding and its fingerprint given) into
 * the task's view, synchronously: "again" when it is a redelivery
 * of one already received (a replayed chunk would be appended twice, a
 * replayed replacing chunk would drop what came after it), "too large"
 * when it would take the view past its limits (nothing is applied). Status
 * updates and snapshots whose status is older than the view's are not
 * applied (a late WORKING after INPUT_REQUIRED, a first snapshot after the
 * task moved on); TaskTracker keeps a final state final.
 */
function fold(
  entry: TaskEntry,
  event: StreamResponse,
  encoded: Uint8Array,
  key: string,
  limits: ViewLimits,
): "applied" | "again" | "too large" {
  const p = event.payload;
  if (entry.seen.has(key)) return "again";
  const view = entry.tracker.task;
  if (p.case === "task" || p.case === "statusUpdate") {
    if (older(p.value.status?.timestamp, view?.status?.timestamp)) {
      remember(entry, key);
      return "applied";
    }
  }
  // A snapshot replaces the view; anything else adds at most itself.
  const replaces = p.case === "task";
  const items = itemsOf(event);
  const fits = () =>
    (replaces ? 0 : entry.bytes) + encoded.length <= limits.taskBytes && (replaces ? 0 : entry.items) + items <= limits.taskItems;
  if (!fits()) {
    // Replaced artifacts and statuses still count: measure the view, once
    // per replacement (a sender cannot make every delivery re-encode it).
    if (entry.overstated) measure(entry);
    if (!fits()) return "too large";
  }
  remember(entry, key);
  entry.tracker.apply(event);
  // The tracker keeps a final state final: a snapshot it passes over
  // replaces nothing, and the view's count goes on from where it was.
  const replaced = replaces && entry.tracker.task !== view;
  entry.bytes = (replaced ? 0 : entry.bytes) + encoded.length;
  entry.items = (replaced ? 0 : entry.items) + items;
  if (replaced) entry.overstated = false;
  else if (replaces || p.case === "statusUpdate" || (p.case === "artifactUpdate" && !p.value.append)) entry.overstated = true;
  return "applied";
}

/**
 * What memory counts against `maxTotalBytes` for an entry: its view, and
 * the digests kept to recognise redeliveries (a 64-character string and its
 * place in a Set, about 128 bytes each; up to 512 per task), which a sender
 * of many tiny distinct events would otherwise grow beside the views.
 */
function costOf(entry: TaskEntry): number {
  return entry.bytes + entry.seen.size * SEEN_DIGEST_BYTES;
}

const SEEN_DIGEST_BYTES = 128;

function remember(entry: TaskEntry, key: string): void {
  entry.seen.add(key);
  if (entry.seen.size > SEEN_PER_TASK) entry.seen.delete(entry.seen.values().next().value!);
}

/** Artifacts, messages and parts an event brings. */
function itemsOf(event: StreamResponse): number {
  const p = event.payload;
  switch (p.case) {
    case "task":
      return countItems(p.value);
    case "message":
      return 1 + p.value.parts.length;
    case "artifactUpdate":
      return 1 + (p.value.artifact?.parts.length ?? 0);
    default:
      return 1 + (p.value?.status?.message?.parts.length ?? 0);
  }
}

function countItems(task: Task): number {
  let n = 1 + (task.status?.message?.parts.length ?? 0);
  for (const a of task.artifacts) n += 1 + a.parts.length;
  for (const m of task.history) n += 1 + m.parts.length;
  return n;
}

/** Replaces the entry's bounds with the view's actual size and count. */
function measure(entry: TaskEntry): void {
  const view = entry.tracker.task;
  entry.bytes = view === undefined ? 0 : toBinary(TaskSchema, view).length;
  entry.items = view === undefined ? 0 : countItems(view);
  entry.overstated = false;
}

/** `a` is strictly before `b`; unknown times are never older. */
function older(a: Timestamp | undefined, b: Timestamp | undefined): boolean {
  if (!a || !b) return false;
  return a.seconds < b.seconds || (a.seconds === b.seconds && a.nanos < b.nanos);
}

/**
 * Identifies an event by its content (SHA-256 of its binary encoding): the
 * same event delivered twice has the same bytes. An event whose every byte,
 * metadata included, repeats one the task already received (among its last
 * 512) counts as a redelivery.
 */
function fingerprint(encoded: Uint8Array<ArrayBuffer>): Promise<string> {
  return sha256Hex(encoded);
}

function answer(status: number, text?: string, headers: Record<string, string> = {}): Response {
  if (status === 204 || text === undefined) return new Response(null, { status, headers });
  return new Response(text, { status, headers: { ...headers, "Content-Type": "text/plain; charset=utf-8" } });
}
