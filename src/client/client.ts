/**
 * The everyday client: the eleven A2A operations over any binding's
 * transport, with plain request objects in, generated types out, and every
 * failure as an `A2AError`.
 */
import type { DescMessage, DescMethod, DescMethodStreaming, DescMethodUnary, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import {
  A2AService,
  type AgentCard,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksResponse,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
} from "../../gen/lf/a2a/v1/a2a_pb.js";
import { createContextValues } from "@connectrpc/connect";
import { toA2AError } from "../errors/classify.js";
import type { A2AError } from "../errors/family.js";
import type { Binding } from "../protocol/bindings.js";
import { LAST_EVENT_ID } from "../protocol/headers.js";
import { streamStateKey, type StreamState } from "../call/stream-state.js";
import { LazyStream, type StreamWatch } from "./lazy-stream.js";
import { single } from "../util.js";
import type { SentMessage } from "./find-sent.js";
import { EndWatch } from "./end-watch.js";
import { resumable } from "./resume.js";
import type { ResumeOptions } from "./resume-policy.js";
import { withExtensions } from "../call/options.js";
import { activatedExtensions, outgoingRequest, readRequest } from "../call/request.js";
import type { A2ATransport } from "../call/transport.js";

/** Options of a single call, given as the last argument of every operation. */
export interface CallOptions {
  /** Cancels the call; a stream stops and releases its connection. */
  signal?: AbortSignal | undefined;
  /** Timeout of a unary call, overriding the transport's. Streams use the idle timeout. */
  timeoutMs?: number | undefined;
  /** Headers for this call only. */
  headers?: HeadersInit | undefined;
  /** Extensions to activate for this call, on top of the transport's. */
  extensions?: readonly string[] | undefined;
}

/** Options of the two streaming calls. */
export interface StreamCallOptions extends CallOptions {
  /**
   * Resume after a drop (default: on, with the defaults of ResumeOptions).
   * `false` reports a drop as an error instead: the network's error, or a
   * StreamResumeError for a stream that ended before its task reached a
   * final or interrupted state.
   */
  resume?: false | ResumeOptions | undefined;
}

/** Settings of an `A2AClient` that apply to every call. */
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
}

type M = typeof A2AService.method;
type Req<K extends keyof M> = MessageInitShape<M[K]["input"]>;

/**
 * One operation per RPC of a service's `method` table, named as the table
 * names it and taking its request. `A2AClient` implements this for
 * `A2AService`, so an RPC added to the proto fails to compile until the
 * client has an operation for it.
 */
export type ServiceOperations<Methods extends Record<string, { readonly input: DescMessage }>> = {
  [K in keyof Methods]: (request: MessageInitShape<Methods[K]["input"]>, options?: never) => unknown;
};

/**
 * The eleven A2A operations over one transport. Requests are plain objects
 * (optional fields may be left out), responses are the generated types, and
 * every failure is thrown as an `A2AError` subclass, whatever the binding.
 * `connect()` builds one from an Agent Card; `new A2AClient(transport)`
 * talks to one known interface.
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

  /** Sends a message; the agent answers with a task or a direct message. */
  sendMessage(request: Req<"sendMessage">, options?: CallOptions): Promise<SendMessageResponse> {
    return this.unary(A2AService.method.sendMessage, request, options);
  }

  /**
   * Sends a message and streams the task's events until it ends or waits on
   * the caller, resuming after drops (see StreamCallOptions.resume).
   */
  sendStreamingMessage(request: Req<"sendStreamingMessage">, options: StreamCallOptions = {}): AsyncIterable<StreamResponse> {
    const method = A2AService.method.sendStreamingMessage;
    // Prepared once: every attempt sends the same message, with the same id.
    return this.streamOf(this.prepare(method, request, options), (req) => {
      if (options.resume === false) return this.stream(method, req, options, undefined, new EndWatch(undefined, () => this.binding));
      // A message there has its id now (prepare gives one).
      const sent = req.message as SentMessage | undefined;
      return this.resuming(undefined, options, options.resume ?? {}, (state) => this.stream(method, req, options, state), sent);
    });
  }

  /** Gets a task's current state, with up to `historyLength` messages of its history. */
  getTask(request: Req<"getTask">, options?: CallOptions): Promise<Task> {
    return this.unary(A2AService.method.getTask, request, options);
  }

  /** One page of the caller's tasks, filtered as asked; `listAllTasks` walks every page. */
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
   */
  subscribeToTask(request: Req<"subscribeToTask">, options: StreamCallOptions = {}): AsyncIterable<StreamResponse> {
    const method = A2AService.method.subscribeToTask;
    return this.streamOf(this.prepare(method, request, options), (req) => {
      if (!req.id) return this.stream(method, req, options);
      if (options.resume === false) return this.stream(method, req, options, undefined, new EndWatch(req.id, () => this.binding));
      return this.resuming(req.id, options, options.resume ?? {}, (state) => this.stream(method, req, options, state));
    });
  }

  /** Registers a webhook that the agent sends the task's updates to. */
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
   * The request as sent (call/request.ts): read into the init shape when
   * it is plain JavaScript of another shape (then a promise: the reader
   * loads on demand), with the client's tenant, the activated extensions
   * on a message, a message id on a message sent.
   */
  private prepare<I extends DescMessage>(
    method: DescMethod & { readonly input: I },
    request: MessageInitShape<I>,
    options: CallOptions,
  ): MessageInitShape<I> | Promise<MessageInitShape<I>> {
    const read = readRequest(method.input, request);
    return read instanceof Promise ? read.then((r) => this.rules(method, r, options)) : this.rules(method, read, options);
  }

  /** The stream `open` gives for the prepared request, opened once it is read when it must be. */
  private streamOf<R>(req: R | Promise<R>, open: (req: R) => AsyncIterable<StreamResponse>): AsyncIterable<StreamResponse> {
    return req instanceof Promise ? new LazyStream(async () => open(await req), this.failed) : open(req);
  }

  /** The call rules on a request already in the init shape. */
  private rules<I extends DescMessage>(method: DescMethod, request: MessageInitShape<I>, options: CallOptions): MessageInitShape<I> {
    return outgoingRequest(method, request, this.options.tenant, activatedExtensions(this.options.extensions, options.extensions));
  }

  /** The call's headers with the activated extensions. */
  private headers(options: CallOptions): HeadersInit | undefined {
    return withExtensions(options.headers, activatedExtensions(this.options.extensions, options.extensions));
  }

  /**
   * Where every failure leaves the client, the one place it becomes an
   * A2AError: transports raise the A2AErrors they can name better (with the
   * URL, the server's reason) and pass the rest on as they are.
   */
  private readonly failed = (e: unknown): A2AError => toA2AError(e, this.binding);

  private async unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    request: MessageInitShape<I>,
    options: CallOptions = {},
  ): Promise<MessageShape<O>> {
    try {
      const prepared = this.prepare(method, request, options);
      const res = await this.transport.unary(
        method,
        options.signal,
        options.timeoutMs,
        this.headers(options),
        prepared instanceof Promise ? await prepared : prepared,
      );
      return res.message;
    } catch (e) {
      throw this.failed(e);
    }
  }

  private resuming(
    taskId: string | undefined,
    options: StreamCallOptions,
    resume: ResumeOptions,
    open: (state: StreamState) => AsyncIterable<StreamResponse>,
    sent?: SentMessage,
  ): AsyncIterable<StreamResponse> {
    // The reads a resumption makes go with the caller's signal, headers and timeout.
    const reads: CallOptions = { signal: options.signal, headers: options.headers, timeoutMs: options.timeoutMs };
    return resumable(
      {
        binding: () => this.binding,
        signal: options.signal,
        taskId,
        open,
        subscribe: (id, state) => {
          // Servers that number their events can continue after the last one seen.
          const headers = new Headers(options.headers);
          if (state.lastEventId !== undefined) headers.set(LAST_EVENT_ID, state.lastEventId);
          const method = A2AService.method.subscribeToTask;
          return this.stream(method, this.rules(method, { id }, options), { ...options, headers }, state);
        },
        getTask: (id) => this.getTask({ id }, reads),
        // Loaded on the first drop before a task id: most streams never need it.
        findSent:
          sent &&
          (async () =>
            (await import("./find-sent.js")).findSentTask(sent, {
              listTasks: (req) => this.listTasks(req, reads),
              getTask: (req) => this.getTask(req, reads),
            })),
      },
      resume,
    );
  }

  /** Opens a stream of `request`, already prepared (see `prepare`). */
  private stream<I extends DescMessage, O extends DescMessage>(
    method: DescMethodStreaming<I, O>,
    request: MessageInitShape<I>,
    options: CallOptions = {},
    state?: StreamState,
    watch?: StreamWatch<MessageShape<O>>,
  ): AsyncIterable<MessageShape<O>> {
    // A reader that stops early returns this stream, and the return
    // reaches the transport's stream, which lets its connection go.
    const open = async () => {
      const res = await this.transport.stream(
        method,
        options.signal,
        options.timeoutMs,
        this.headers(options),
        single(request),
        state === undefined ? undefined : createContextValues().set(streamStateKey, state),
      );
      return res.message;
    };
    return new LazyStream(open, this.failed, watch);
  }
}
