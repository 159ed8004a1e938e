/**
 * The test agent's push notifications (specification sections 3.1.7 to
 * 3.1.10, 4.3.3 and 13.2): the configs registered for each task, and the
 * deliveries they cause. Every event a task logs after a config was
 * registered (for a config sent with the message that made the task, from
 * the task's first event on) is POSTed to the config's URL as a
 * `StreamResponse` in JSON, with the config's token in
 * `X-A2A-Notification-Token` and its authentication in `Authorization`.
 * Deliveries go out one at a time per task, in the order the task logged
 * its events, so a receiver sees them as a stream would have shown them;
 * each attempt is noted, credentials masked, in the agent's deliveries.
 */
import { clone, toJson } from "@bufbuild/protobuf";
import {
  StreamResponseSchema,
  TaskPushNotificationConfigSchema,
  type Message,
  type StreamResponseJson,
  type TaskPushNotificationConfig,
} from "../../gen/lf/a2a/v1/a2a_pb.js";
import { awaitWithin } from "../base/abort.js";
import { uuid } from "../base/uuid.js";
import { maskedHeaders, maskedPath } from "./request-log.js";
import type { LoggedEvent, StoreObserver, TaskRecord } from "./store.js";

/** How a test agent delivers push notifications. @category Testing */
export interface TestPushOptions {
  /**
   * Sends one delivery: a function of a `Request`, as the global `fetch` is
   * and as a push receiver's `handle` is, so deliveries can go in memory
   * straight into `createPushReceiver(...).handle`, whatever the config's
   * URL. Default: the global `fetch` (a receiver on a loopback server).
   */
  fetch?: ((request: Request) => Promise<Response>) | undefined;
  /**
   * Attempts per delivery: one that fails (no answer, or a status that is
   * not 2xx) is tried again at once, up to this many times in all; then the
   * agent goes on with the task's next event. Default 1 (no retry).
   */
  attempts?: number | undefined;
  /** How long one attempt may take, in milliseconds, before it counts as failed. Default 10 000. */
  timeoutMs?: number | undefined;
}

/** One attempt at a push delivery, as `agent.deliveries` lists it. @category Testing */
export interface PushDelivery {
  /** The task whose event it carries. */
  readonly taskId: string;
  /** The config it was made for. */
  readonly configId: string;
  /** Where it was sent: origin and path, credentials in the query masked. */
  readonly url: string;
  /** The headers sent, by lower-case name, credentials masked (`X-A2A-Notification-Token: ***`, `Authorization: Bearer ***`). */
  readonly headers: Readonly<Record<string, string>>;
  /** What was delivered: the `StreamResponse` as the specification's JSON. */
  readonly event: StreamResponseJson;
  /** Which attempt this was, from 1. */
  readonly attempt: number;
  /** The receiver's HTTP status; undefined when no answer came. */
  readonly status: number | undefined;
  /** Why no answer came (a network error, the attempt's timeout); undefined when one came. */
  readonly error: string | undefined;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const CONTENT_TYPE = "application/a2a+json";

/** The push configs of the agent's tasks, and their deliveries: the store tells it each task made and each event logged. */
export class PushNotifier implements StoreObserver {
  /** Every attempt, in the order they were made. */
  readonly deliveries: PushDelivery[] = [];
  /** Configs by task id, then by config id, in the order they were made. */
  readonly #configs = new Map<string, Map<string, TaskPushNotificationConfig>>();
  /** Configs sent with a message whose task is not made yet: registered when the store makes it. */
  readonly #awaiting = new WeakMap<Message, TaskPushNotificationConfig>();
  /** Per task, the end of its queue of deliveries. */
  readonly #queues = new Map<string, Promise<void>>();
  readonly #send: (request: Request) => Promise<Response>;
  readonly #attempts: number;
  readonly #timeoutMs: number;
  readonly #closing: AbortSignal;

  constructor(options: TestPushOptions, closing: AbortSignal) {
    this.#send = options.fetch ?? ((request) => fetch(request));
    this.#attempts = positive(options.attempts, 1, "attempts");
    this.#timeoutMs = positive(options.timeoutMs, DEFAULT_TIMEOUT_MS, "timeoutMs");
    this.#closing = closing;
  }

  /** Registers `config` for `taskId` (replacing one of the same id); returns it as kept, its id given when it had none. */
  register(taskId: string, config: TaskPushNotificationConfig): TaskPushNotificationConfig {
    const kept = clone(TaskPushNotificationConfigSchema, config);
    kept.taskId = taskId;
    kept.id ||= uuid();
    let configs = this.#configs.get(taskId);
    if (!configs) this.#configs.set(taskId, (configs = new Map()));
    configs.set(kept.id, kept);
    return clone(TaskPushNotificationConfigSchema, kept);
  }

  /** Registers `config` for the task `message` makes, when the store makes it (before its first event). */
  registerForNewTask(message: Message, config: TaskPushNotificationConfig): void {
    this.#awaiting.set(message, config);
  }

  /** The task's configs, in the order they were made (copies). */
  configsOf(taskId: string): TaskPushNotificationConfig[] {
    return [...(this.#configs.get(taskId)?.values() ?? [])].map((c) => clone(TaskPushNotificationConfigSchema, c));
  }

  /** Removes a config; whether there was one. */
  remove(taskId: string, id: string): boolean {
    return this.#configs.get(taskId)?.delete(id) ?? false;
  }

  created(record: TaskRecord, message: Message): void {
    const config = this.#awaiting.get(message);
    if (config) this.register(record.task.id, config);
  }

  logged(record: TaskRecord, logged: LoggedEvent): void {
    const taskId = record.task.id;
    const configs = this.configsOf(taskId);
    if (configs.length === 0) return;
    const body = JSON.stringify(toJson(StreamResponseSchema, logged.event));
    const before = this.#queues.get(taskId) ?? Promise.resolve();
    const after = before.then(async () => {
      for (const config of configs) await this.#deliver(taskId, config, body);
    });
    this.#queues.set(taskId, after);
  }

  /** Resolves once every delivery queued so far has been made, answered or failed. */
  async settled(): Promise<void> {
    // A delivery under way may queue none, but the queues may grow while waiting: wait until they stop.
    for (let queues = [...this.#queues.values()]; ; ) {
      await Promise.all(queues);
      const now = [...this.#queues.values()];
      if (now.length === queues.length && now.every((q, i) => q === queues[i])) return;
      queues = now;
    }
  }

  /** Sends one event to one config, trying again as many times as `attempts` allows. */
  async #deliver(taskId: string, config: TaskPushNotificationConfig, body: string): Promise<void> {
    const headers = new Headers({ "content-type": CONTENT_TYPE });
    if (config.token) headers.set("x-a2a-notification-token", config.token);
    const auth = config.authentication;
    if (auth?.scheme) headers.set("authorization", auth.credentials ? `${auth.scheme} ${auth.credentials}` : auth.scheme);
    const url = new URL(config.url);
    const noted = {
      taskId,
      configId: config.id,
      url: url.origin + maskedPath(url, new Set()),
      headers: maskedHeaders(headers, new Set()),
      event: JSON.parse(body) as StreamResponseJson,
    };
    for (let attempt = 1; attempt <= this.#attempts && !this.#closing.aborted; attempt++) {
      const { status, error } = await this.#attempt(url, headers, body);
      this.deliveries.push({ ...noted, attempt, status, error });
      if (status !== undefined && status >= 200 && status < 300) return;
    }
  }

  /** One POST, within the attempt's time and the agent's life; its answer's body is let go. */
  async #attempt(url: URL, headers: Headers, body: string): Promise<{ status: number | undefined; error: string | undefined }> {
    const stop = new AbortController();
    try {
      const request = new Request(url, { method: "POST", headers, body, signal: stop.signal });
      const response = await awaitWithin(this.#send(request), this.#closing, this.#timeoutMs, {
        aborted: () => new Error("the agent closed"),
        timedOut: () => new Error(`no answer within ${this.#timeoutMs} ms`),
      });
      await response.body?.cancel().catch(() => {});
      return { status: response.status, error: undefined };
    } catch (e) {
      // The message only: a network error's cause may quote the request.
      return { status: undefined, error: e instanceof Error ? e.message : String(e) };
    } finally {
      stop.abort();
    }
  }
}

/** What is wrong with a config, if anything: its URL must be an absolute http(s) URL without user info. */
export function checkedConfig(config: TaskPushNotificationConfig | undefined): string | undefined {
  if (!config) return "the request has no push notification config";
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    return "the push notification config's url is not an absolute URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "the push notification config's url is not http or https";
  // A Request refuses such a URL, quoting it, credentials and all.
  if (url.username || url.password) return "the push notification config's url carries user info: give credentials in its authentication";
  return undefined;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 1) throw new TypeError(`createTestAgent: push.${name} must be a number of at least 1`);
  return value;
}
