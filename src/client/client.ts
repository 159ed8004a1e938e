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
  type Task,
  type TaskPushNotificationConfig,
} from "../../gen/lf/a2a/v1/a2a_pb.js";
import { toA2AError, type Binding } from "../errors.js";
import { joinExtensions } from "../transport/options.js";
import type { A2ATransport } from "../transport/transport.js";

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

export class A2AClient {
  constructor(
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

  /** Sends a message and streams the task's events until it ends or waits on the caller. */
  sendStreamingMessage(request: Req<"sendStreamingMessage">, options?: CallOptions): AsyncIterable<StreamResponse> {
    return this.stream(A2AService.method.sendStreamingMessage, request, options);
  }

  getTask(request: Req<"getTask">, options?: CallOptions): Promise<Task> {
    return this.unary(A2AService.method.getTask, request, options);
  }

  listTasks(request: Req<"listTasks"> = {}, options?: CallOptions): Promise<ListTasksResponse> {
    return this.unary(A2AService.method.listTasks, request, options);
  }

  cancelTask(request: Req<"cancelTask">, options?: CallOptions): Promise<Task> {
    return this.unary(A2AService.method.cancelTask, request, options);
  }

  /** Streams a running task's events; the first event is a snapshot of the task. */
  subscribeToTask(request: Req<"subscribeToTask">, options?: CallOptions): AsyncIterable<StreamResponse> {
    return this.stream(A2AService.method.subscribeToTask, request, options);
  }

  createTaskPushNotificationConfig(
    request: Req<"createTaskPushNotificationConfig">,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    return this.unary(A2AService.method.createTaskPushNotificationConfig, request, options);
  }

  getTaskPushNotificationConfig(
    request: Req<"getTaskPushNotificationConfig">,
    options?: CallOptions,
  ): Promise<TaskPushNotificationConfig> {
    return this.unary(A2AService.method.getTaskPushNotificationConfig, request, options);
  }

  listTaskPushNotificationConfigs(
    request: Req<"listTaskPushNotificationConfigs">,
    options?: CallOptions,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.unary(A2AService.method.listTaskPushNotificationConfigs, request, options);
  }

  async deleteTaskPushNotificationConfig(request: Req<"deleteTaskPushNotificationConfig">, options?: CallOptions): Promise<void> {
    await this.unary(A2AService.method.deleteTaskPushNotificationConfig, request, options);
  }

  /** The card an authenticated caller may see; needs `capabilities.extendedAgentCard`. */
  getExtendedAgentCard(request: Req<"getExtendedAgentCard"> = {}, options?: CallOptions): Promise<AgentCard> {
    return this.unary(A2AService.method.getExtendedAgentCard, request, options);
  }

  /** The request as sent: the client's tenant, and activated extensions on a message. */
  private prepare<I extends DescMessage>(request: MessageInitShape<I>, options: CallOptions): MessageInitShape<I> {
    const { tenant } = this.options;
    let out = tenant === undefined ? request : ({ ...request, tenant } as MessageInitShape<I>);
    const extensions = [...(this.options.extensions ?? []), ...(options.extensions ?? [])];
    const message = (out as { message?: { extensions?: string[] } }).message;
    if (message && extensions.length > 0) {
      const merged = [...new Set([...(message.extensions ?? []), ...extensions])];
      out = { ...out, message: { ...message, extensions: merged } } as MessageInitShape<I>;
    }
    return out;
  }

  private headers(options: CallOptions): HeadersInit | undefined {
    const extensions = [...(this.options.extensions ?? []), ...(options.extensions ?? [])];
    if (extensions.length === 0) return options.headers;
    const h = new Headers(options.headers);
    h.set("A2A-Extensions", joinExtensions(extensions, (h.get("A2A-Extensions") ?? "").split(",")));
    return h;
  }

  private async unary<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    request: MessageInitShape<I>,
    options: CallOptions = {},
  ): Promise<MessageShape<O>> {
    try {
      const res = await this.transport.unary(
        method,
        options.signal,
        options.timeoutMs,
        this.headers(options),
        this.prepare(request, options),
      );
      return res.message;
    } catch (e) {
      throw toA2AError(e, this.binding);
    }
  }

  private async *stream<I extends DescMessage, O extends DescMessage>(
    method: DescMethodStreaming<I, O>,
    request: MessageInitShape<I>,
    options: CallOptions = {},
  ): AsyncGenerator<MessageShape<O>> {
    // connect's stream iterables cannot be closed early; aborting is how a
    // consumer that stops reading releases the connection.
    const controller = new AbortController();
    const outer = options.signal;
    const forward = () => controller.abort(outer?.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener("abort", forward, { once: true });
    try {
      const res = await this.transport.stream(
        method,
        controller.signal,
        options.timeoutMs,
        this.headers(options),
        once(this.prepare(request, options)),
      );
      yield* res.message;
    } catch (e) {
      throw toA2AError(e, this.binding);
    } finally {
      outer?.removeEventListener("abort", forward);
      controller.abort();
    }
  }
}

async function* once<T>(value: T): AsyncGenerator<T> {
  yield value;
}
