/**
 * The everyday client: the eleven A2A operations over any binding's
 * transport, with plain request objects in, generated types out, and every
 * failure as an `A2AError`.
 */
import type { DescMessage, DescMethodStreaming, DescMethodUnary, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import {
  A2AService,
  type AgentCard,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksResponse,
  type SendMessageResponse,
  type StreamResponse,
  type StreamResponseSchema,
  type Task,
  type TaskPushNotificationConfig,
} from "../../gen/lf/a2a/v1/a2a_pb.js";
import { classified, foundA2AError } from "../errors/classification.js";
import type { A2AError } from "../errors/family.js";
import type { Binding } from "../base/bindings.js";
import { LAST_EVENT_ID } from "../protocol/headers.js";
import type { CallRecord } from "../call/record.js";
import { CallDeadline } from "../call/deadline.js";
import { type PreparedCall, prepareCall } from "../call/prepare.js";
import { LazyStream, type StreamWatch } from "./lazy-stream.js";
import { failing, single } from "../base/iterables.js";
import { onDemand } from "../base/on-demand.js";
import type { SentMessage } from "./find-sent.js";
import { EndWatch } from "./end-watch.js";
import { refusedIfEnded } from "./ended-refusal.js";
import { resumableWith } from "./resume-start.js";
import type { ResumeOptions } from "./resume-policy.js";
import type { RequestInput } from "../call/request.js";
import type { A2ATransport } from "../call/transport.js";
import type { RetryPolicy } from "../call/retry.js";
import { RETRY_KIT } from "../call/retry-kit.js";
import { keepNames } from "../base/keep-names.js";

/** The retry loop, loaded when a call first runs under a policy. */
const loadRetry = onDemand(() => import("../call/retry.js"));

/** The resumption loop, loaded when a stream first drops. */
const loadResume = onDemand(async () => (await import("./resume.js")).carryOn);

/** Options of a single call, given as the last argument of every operation. @category Connect and call */
export interface CallOptions {
  /** Cancels the call; a stream stops and releases its connection. */
  signal?: AbortSignal | undefined;
  /**
   * Timeout of a unary call, overriding the transport's. A stream has none
   * unless given here (its silence is bounded by the idle timeout); given,
   * it bounds the whole stream, every resumption and wait included.
   */
  timeoutMs?: number | undefined;
  /** Headers for this call only. */
  headers?: HeadersInit | undefined;
  /** Extensions to activate for this call, on top of the transport's. */
  extensions?: readonly string[] | undefined;
  /**
   * Unary calls: this call's retry policy instead of the client's
   * (`ClientOptions.retry`), or `false` for no retries. Streams resume instead.
   */
  retry?: RetryPolicy | false | undefined;
}

/**
 * Options of the two streaming calls.
 * @example
 * ```ts
 * import { connect, userMessage } from "a2a-connect";
 *
 * const { client } = await connect("https://agent.example.com");
 * const events = client.sendStreamingMessage(
 *   { message: userMessage("a long job") },
 *   { resume: { maxElapsedMs: 300_000, backoff: { initialMs: 500, maxMs: 10_000 } } }, // or resume: false
 * );
 * for await (const event of events) console.log(event.payload.case);
 * ```
 * @category Streams and tracking
 */
export interface StreamCallOptions extends CallOptions {
  /**
   * Resume after a drop (default: on, with the defaults of ResumeOptions).
   * `false` reports a drop as an error instead: the network's error, or a
   * StreamResumeError for a stream that ended before its task reached a
   * final or interrupted state.
   */
  resume?: false | ResumeOptions | undefined;
}

/** Settings of an `A2AClient` that apply to every call. @category Connect and call */
export interface ClientOptions {
  /**
   * Sent as the `tenant` of every request (HTTP+JSON puts it in the path),
   * replacing whatever a request carries. Agent Cards give it per interface.
   */
  tenant?: string | undefined;
  /**
   * Extensions activated for every call: sent in `A2A-Extensions` and added
   * to the `extensions` of every message sent.
   */
  extensions?: readonly string[] | undefined;
  /**
   * Retries of unary calls (see `RetryPolicy` and the retries guide, docs/retries.md).
   * Default: none. Reads are retried after transient failures; SendMessage
   * and the other writes only where the agent cannot have processed the
   * request. Checked by each call before its request (`connect()` checks it up front):
   * a bad field fails it with InvalidParamsError.
   */
  retry?: RetryPolicy | undefined;
  /**
   * Timeout of a unary call that sets none, in milliseconds, all attempts
   * and waits of a retried call included; 0 for none. Default: the
   * transport's own (`connect()` passes `transport.timeoutMs` here, else
   * its own `timeoutMs`). With
   * retries and neither this nor the call's `timeoutMs`, a call has one
   * minute in all, which each attempt's timeout is cut to.
   */
  timeoutMs?: number | undefined;
}

type M = typeof A2AService.method;
type Req<K extends keyof M> = RequestInput<M[K]["input"]>;

/**
 * One operation per RPC of a service's `method` table, named as the table
 * names it and taking its request in either shape (`RequestInput`).
 * `A2AClient` implements this for `A2AService`, so an RPC added to the
 * proto fails to compile until the client has an operation for it.
 */
export type ServiceOperations<Methods extends Record<string, { readonly input: DescMessage }>> = {
  [K in keyof Methods]: (request: RequestInput<Methods[K]["input"]>, options?: never) => unknown;
};

/**
 * The eleven A2A operations over one transport. Requests are plain objects
 * (optional fields may be left out) in the generated init shape or the
 * spec's JSON shape (`RequestInput`), responses are the generated types, and
 * every failure is thrown as an `A2AError` subclass, whatever the binding.
 * `connect()` builds one from an Agent Card; `new A2AClient(transport)`
 * talks to one known interface.
 * @example
 * ```ts
 * import { A2AClient, createJsonRpcTransport, userMessage } from "a2a-connect";
 *
 * // One known interface, without a card (`connect()` builds the client from one):
 * const client = new A2AClient(createJsonRpcTransport({ baseUrl: "https://agent.example.com/a2a/jsonrpc" }));
 * const res = await client.sendMessage({ message: userMessage("hello") });
 * ```
 * @category Connect and call
 */
export class A2AClient implements ServiceOperations<M> {
  constructor(
    /** The transport calls go through (a `FailoverTransport` when built by `connect()`). */
    readonly transport: A2ATransport,
    private readonly options: ClientOptions = {},
  ) {}

  /** The binding calls go over (after a failover, the new one). */
  get binding(): Binding {
    return this.transport.binding;
  }

  /**
   * Sends a message; the agent answers with a task or a direct message.
   * @example
   * ```ts
   * import { connect, userMessage, textOf } from "a2a-connect";
   *
   * const { client } = await connect("https://agent.example.com");
   * const res = await client.sendMessage({ message: userMessage("summarise this") });
   * if (res.payload.case === "task") console.log(res.payload.value.id, res.payload.value.status?.state);
   * console.log(textOf(res)); // the answer's text, from a task or a direct message
   * ```
   */
  sendMessage(request: Req<"sendMessage">, options?: CallOptions): Promise<SendMessageResponse> {
    return this.unary(A2AService.method.sendMessage, request, options);
  }

  /**
   * Sends a message and streams the task's events until it ends or waits on
   * the caller, resuming after drops (see StreamCallOptions.resume).
   * @example
   * ```ts
   * import { connect, userMessage, textOf, taskIdOf } from "a2a-connect";
   *
   * const { client } = await connect("https://agent.example.com");
   * const stop = new AbortController();
   * for await (const event of client.sendStreamingMessage({ message: userMessage("write a report") }, { signal: stop.signal })) {
   *   console.log(taskIdOf(event), event.payload.case, textOf(event));
   * }
   * ```
   */
  sendStreamingMessage(request: Req<"sendStreamingMessage">, options: StreamCallOptions = {}): AsyncIterable<StreamResponse> {
    // Prepared once: every attempt sends the same message, with the same id.
    return this.streamOf(A2AService.method.sendStreamingMessage, request, options, (open, req, record, timeoutMs) => {
      if (options.resume === false) return open(options.signal, timeoutMs, new EndWatch(undefined, () => this.binding));
      // A message there has its id now (prepare gives one).
      const sent = req.message as SentMessage | undefined;
      return this.resuming(undefined, record, options, (signal) => open(signal ?? options.signal, record.timeoutMs()), sent);
    });
  }

  /**
   * Gets a task's current state, with up to `historyLength` messages of its history.
   * @example
   * ```ts
   * import { connect, taskStateName, TaskState } from "a2a-connect";
   *
   * const { client } = await connect("https://agent.example.com");
   * const task = await client.getTask({ id: "task-123", historyLength: 10 });
   * console.log(taskStateName(task.status?.state ?? TaskState.UNSPECIFIED), task.history.length);
   * ```
   */
  getTask(request: Req<"getTask">, options?: CallOptions): Promise<Task> {
    return this.unary(A2AService.method.getTask, request, options);
  }

  /**
   * One page of the caller's tasks, filtered as asked; `listAllTasks` walks every page.
   * @example
   * ```ts
   * import { connect, listAllTasks, TaskState } from "a2a-connect";
   *
   * const { client } = await connect("https://agent.example.com");
   * // One page at a time: the next one starts at nextPageToken ("" after the last).
   * const page = await client.listTasks({ status: TaskState.WORKING, pageSize: 50 });
   * if (page.nextPageToken) await client.listTasks({ status: TaskState.WORKING, pageSize: 50, pageToken: page.nextPageToken });
   * // Or every task, across pages:
   * for await (const task of listAllTasks(client, { status: TaskState.WORKING })) console.log(task.id);
   * ```
   */
  listTasks(request: Req<"listTasks"> = {}, options?: CallOptions): Promise<ListTasksResponse> {
    return this.unary(A2AService.method.listTasks, request, options);
  }

  /** Asks the agent to cancel a task; returns the task as it stands afterwards. */
  cancelTask(request: Req<"cancelTask">, options?: CallOptions): Promise<Task> {
    return this.unary(A2AService.method.cancelTask, request, options);
  }

  /**
   * Streams a running task's events; the first event is a snapshot of the
   * task. Resumes after drops (see StreamCallOptions.resume).
   * @example
   * ```ts
   * import { connect, TaskTracker } from "a2a-connect";
   *
   * const { client } = await connect("https://agent.example.com");
   * const tracker = new TaskTracker();
   * // The first event is the task as it stands; a dropped stream is resumed.
   * for await (const event of client.subscribeToTask({ id: "task-123" }, { resume: { maxElapsedMs: 120_000 } })) {
   *   tracker.apply(event);
   * }
   * console.log(tracker.task?.status?.state);
   * ```
   */
  subscribeToTask(request: Req<"subscribeToTask">, options: StreamCallOptions = {}): AsyncIterable<StreamResponse> {
    return this.streamOf(A2AService.method.subscribeToTask, request, options, (open, req, record, timeoutMs) => {
      const id = req.id;
      if (!id) return open(options.signal, timeoutMs);
      // An agent that says "not found" of a task that has ended: GetTask tells (ended-refusal.ts),
      // within the stream's signal and what is left of its timeout.
      const getTask = (signal: AbortSignal | undefined, timeoutMs: number | undefined) => () =>
        this.unary(A2AService.method.getTask, { id }, { signal, headers: options.headers, timeoutMs, retry: false });
      if (options.resume === false) {
        return refusedIfEnded(
          open(options.signal, timeoutMs, new EndWatch(id, () => this.binding)),
          id,
          getTask(options.signal, options.timeoutMs),
        );
      }
      return this.resuming(id, record, options, (given) => {
        const signal = given ?? options.signal;
        const left = record.timeoutMs();
        return refusedIfEnded(open(signal, left), id, getTask(signal, left));
      });
    });
  }

  /**
   * Registers a webhook that the agent sends the task's updates to.
   * @example
   * ```ts
   * import { connect } from "a2a-connect";
   *
   * const { client } = await connect("https://agent.example.com");
   * const config = await client.createTaskPushNotificationConfig({
   *   taskId: "task-123",
   *   url: "https://hooks.example.com/a2a", // where a push receiver answers (createPushReceiver)
   *   token: "a-token-the-receiver-checks",
   * });
   * await client.deleteTaskPushNotificationConfig({ taskId: "task-123", id: config.id });
   * ```
   */
  createTaskPushNotificationConfig(
    request: Req<"createTaskPushNotificationConfig">,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    return this.unary(A2AService.method.createTaskPushNotificationConfig, request, options);
  }

  /** Gets one of a task's webhook configs by id. */
  getTaskPushNotificationConfig(request: Req<"getTaskPushNotificationConfig">, options?: CallOptions): Promise<TaskPushNotificationConfig> {
    return this.unary(A2AService.method.getTaskPushNotificationConfig, request, options);
  }

  /** One page of a task's webhook configs; `listAllTaskPushNotificationConfigs` walks every page. */
  listTaskPushNotificationConfigs(
    request: Req<"listTaskPushNotificationConfigs">,
    options?: CallOptions,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.unary(A2AService.method.listTaskPushNotificationConfigs, request, options);
  }

  /** Removes one of a task's webhook configs. */
  async deleteTaskPushNotificationConfig(request: Req<"deleteTaskPushNotificationConfig">, options?: CallOptions): Promise<void> {
    await this.unary(A2AService.method.deleteTaskPushNotificationConfig, request, options);
  }

  /** The card an authenticated caller may see; needs `capabilities.extendedAgentCard`. */
  getExtendedAgentCard(request: Req<"getExtendedAgentCard"> = {}, options?: CallOptions): Promise<AgentCard> {
    return this.unary(A2AService.method.getExtendedAgentCard, request, options);
  }

  /**
   * The stream `body` gives for the call prepared once (call/prepare.ts),
   * given what opens a stream of it (with a signal and timeout of its
   * own, as a resumption's calls have), its request once read, its record
   * and the timeout its first request gets: the one the call gave, or what
   * is left of it after the read.
   */
  private streamOf<I extends DescMessage>(
    method: DescMethodStreaming<I, typeof StreamResponseSchema>,
    request: RequestInput<I>,
    options: StreamCallOptions,
    body: (open: OpenStream, req: MessageInitShape<I>, record: CallRecord, timeoutMs: number | undefined) => AsyncIterable<StreamResponse>,
  ): AsyncIterable<StreamResponse> {
    let record: PreparedCall<I>;
    try {
      record = prepareCall(method, request, options, this.options);
    } catch (e) {
      // A stream reports its failures to its reader.
      return failing(this.failed(e));
    }
    // Taken now: a resumable stream's record holds those of its latest call.
    const { request: prepared, headers } = record;
    const take = (req: MessageInitShape<I>, timeoutMs: number | undefined) =>
      body((signal, ms, watch) => this.stream(method, headers, record, req, signal, ms, watch), req, record, timeoutMs);
    if (!(prepared instanceof Promise)) return take(prepared, record.givenMs);
    // Code to load first (the plain-JSON reader): within the call's signal and deadline.
    const ready = (signal: AbortSignal) => record.waitFor(prepared, "the stream's request was not ready to send", signal, this.binding);
    return new LazyStream(
      async (signal) => take(await ready(signal), record.timeoutMs()),
      (e) => this.failed(e, record),
      undefined,
      options.signal,
    );
  }

  /**
   * Where every failure leaves the client, the one place it becomes an
   * A2AError: transports raise the A2AErrors they can name better (with the
   * URL, the server's reason) and pass the rest on as they are, which the
   * classification (loaded then) names, within the call's signal and deadline
   * where the call has them.
   */
  private readonly failed = (e: unknown, record?: CallRecord): A2AError | Promise<A2AError> => {
    const found = foundA2AError(e);
    if (found) return found;
    const named = classified(e, this.binding);
    return record ? record.waitFor(named, "the call's failure was not classified", record.signal, this.binding) : named;
  };

  /**
   * A unary call, its record made by the prepare step (call/prepare.ts), or
   * `stream`'s: a read a resumption makes is a call of its stream, and is
   * not retried.
   */
  private async unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    request: RequestInput<I>,
    options: CallOptions = {},
    stream?: CallRecord,
  ): Promise<MessageShape<O>> {
    // The failure's classification waits within the call's signal and deadline, once the call has them.
    let bounds: CallRecord | undefined;
    try {
      // Prepared once: a retried message is the same message, with the same id.
      const record = prepareCall(method, request, options, this.options, stream);
      bounds = record;
      const { request: prepared, signal, headers } = record;
      const policy = options.retry ?? this.options.retry;
      if (!policy && !(prepared instanceof Promise)) {
        return (await this.transport.unary(method, signal, record.givenMs, headers, prepared, record)).message;
      }
      // Code to load first (the plain-JSON reader, the retry loop): within the call's signal and deadline.
      const [req, retry] = await record.waitFor(
        Promise.all([prepared, policy ? loadRetry() : undefined]),
        `${method.name} was not ready to send`,
        signal,
        this.binding,
      );
      if (!policy || !retry) return (await this.transport.unary(method, signal, record.timeoutMs(), headers, req, record)).message;
      return await retry.retryUnary(policy, this.transport, RETRY_KIT, record, req);
    } catch (e) {
      throw await this.failed(e, bounds);
    }
  }

  /**
   * The stream `open` gives (with the resumption's signal for the calls
   * after a drop, else none: the caller's), resumed after drops. Its `record` is the whole stream's: its calls share its
   * position, and its timeoutMs bounds all of them, each getting what is
   * left (call/deadline.ts).
   */
  private resuming(
    taskId: string | undefined,
    record: CallRecord,
    options: StreamCallOptions,
    open: (signal: AbortSignal | undefined) => AsyncIterable<StreamResponse>,
    sent?: SentMessage,
  ): AsyncIterable<StreamResponse> {
    // Followed across its calls (tracing adds itself here).
    record.watchers = [];
    // The calls a resumption makes go with the caller's headers and what is
    // left of its timeout, and with the resumption's own signal (the
    // caller's, and the reader's return), else the caller's. Reads are not
    // retried on their own: resumption has its own attempts and budget.
    const reads = (signal: AbortSignal | undefined): CallOptions => ({
      signal: signal ?? options.signal,
      headers: options.headers,
      timeoutMs: record.timeoutMs(),
      retry: false,
    });
    return resumableWith(
      {
        binding: () => this.binding,
        signal: options.signal,
        taskId,
        state: record,
        open,
        traits: record.traits!,
        subscribe: (id, signal) => {
          // Servers that number their events can continue after the last one seen.
          const headers = new Headers(options.headers);
          if (record.lastEventId !== undefined) headers.set(LAST_EVENT_ID, record.lastEventId);
          const call = { ...options, signal: signal ?? options.signal, headers, timeoutMs: record.timeoutMs() };
          const method = A2AService.method.subscribeToTask;
          const again = prepareCall(method, { id }, call, this.options, record);
          return this.stream(
            method,
            again.headers,
            record,
            again.request as MessageInitShape<typeof method.input>,
            again.signal,
            again.givenMs,
          );
        },
        getTask: (id, signal) => this.unary(A2AService.method.getTask, { id }, reads(signal), record),
        // Loaded on the first drop before a task id: most streams never need it.
        findSent:
          sent &&
          (async (signal) => {
            // Its code, loaded within the resumption's signal and what is left of the stream's timeout.
            const code = import("./find-sent.js");
            const lookup = new CallDeadline("unary", record.timeoutMs());
            const { findSentTask } = await lookup.waitFor(code, "the lookup of the message sent did not load", signal, this.binding);
            return findSentTask(sent, {
              listTasks: (req) => this.unary(A2AService.method.listTasks, req, reads(signal), record),
              getTask: (req) => this.unary(A2AService.method.getTask, req, reads(signal), record),
            });
          }),
      },
      options.resume || {},
      loadResume,
    );
  }

  /** Opens a stream of `method`'s `request` and `headers` as prepared (call/prepare.ts), a call of `record`'s operation. */
  private stream<I extends DescMessage>(
    method: DescMethodStreaming<I, typeof StreamResponseSchema>,
    headers: HeadersInit | undefined,
    record: CallRecord,
    request: MessageInitShape<I>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
    watch?: StreamWatch<StreamResponse>,
  ): AsyncIterable<StreamResponse> {
    // A stream that does not resume: logged and traced as failing when its reader is told it failed.
    if (watch) record.endCheck = () => watch.ended();
    // A reader that stops early returns this stream, and the return
    // reaches the transport's stream, which lets its connection go.
    // The stream's own signal, which follows the caller's (LazyStream).
    const open = async (own: AbortSignal) =>
      (await this.transport.stream(method, own, timeoutMs, headers, single(request), record)).message;
    return new LazyStream(open, (e) => this.failed(e, record), watch, signal);
  }
}
keepNames({ A2AClient });

/** Opens a stream of a prepared call, with the signal and timeout of this call of it. */
type OpenStream = (
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
  watch?: StreamWatch<StreamResponse>,
) => AsyncIterable<StreamResponse>;
