/**
 * The gRPC binding (spec section 10) over connect-node's HTTP/2 gRPC
 * transport. Node only: browsers cannot speak gRPC to a plain gRPC server.
 */
import type { DescMessage, DescMethodStreaming, MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, type ContextValues, type StreamResponse } from "@connectrpc/connect";
import { createGrpcTransport as createConnectGrpcTransport } from "@connectrpc/connect-node";
import { CallTimeoutError, ConnectionError } from "../errors.js";
import { withIdleTimeout } from "./idle.js";
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, mergeHeaders, serviceHeaders, timeoutOrNone, type TransportOptions } from "./options.js";
import type { A2ATransport } from "./transport.js";

export interface GrpcTransportOptions extends TransportOptions {
  /**
   * Use TLS. Default: true, except for an `http://` URL or a bare `host:port`
   * on a loopback address.
   */
  tls?: boolean | undefined;
  /** Largest message accepted from the server, in bytes. Default 16 MiB. */
  readMaxBytes?: number | undefined;
  /**
   * HTTP/2 PING interval while streams are open, in milliseconds. A
   * connection that stops answering pings is closed, so its calls fail and
   * new ones get a fresh connection instead of waiting on a dead one.
   * Default 15 000.
   */
  pingIntervalMs?: number | undefined;
  /** How long to wait for a PING's answer. Default 10 000. */
  pingTimeoutMs?: number | undefined;
}

export function createGrpcTransport(options: GrpcTransportOptions): A2ATransport {
  const inner = createConnectGrpcTransport({
    baseUrl: grpcBaseUrl(options.baseUrl, options.tls),
    interceptors: options.interceptors,
    readMaxBytes: options.readMaxBytes ?? 16 * 1024 * 1024,
    pingIntervalMs: options.pingIntervalMs ?? 15_000,
    pingTimeoutMs: options.pingTimeoutMs ?? 10_000,
  });
  const defaults = serviceHeaders(options);
  const idleMs = timeoutOrNone(options.idleTimeoutMs, DEFAULT_IDLE_TIMEOUT_MS);
  return {
    binding: "GRPC",
    unary(method, signal, timeoutMs, header, input, contextValues) {
      const timeout = timeoutOrNone(timeoutMs ?? options.timeoutMs, DEFAULT_TIMEOUT_MS) ?? 0;
      return inner.unary(method, signal, timeout, mergeHeaders(defaults, header), input, contextValues);
    },
    async stream<I extends DescMessage, O extends DescMessage>(
      method: DescMethodStreaming<I, O>,
      signal: AbortSignal | undefined,
      timeoutMs: number | undefined,
      header: HeadersInit | undefined,
      input: AsyncIterable<MessageInitShape<I>>,
      contextValues?: ContextValues,
    ): Promise<StreamResponse<I, O>> {
      // Our own controller under the caller's, so an idle stream can be cut.
      const controller = new AbortController();
      if (signal?.aborted) controller.abort(signal.reason);
      else signal?.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
      // No deadline for streams unless the caller sets one (0 = none for connect).
      const res = await inner.stream(method, controller.signal, timeoutMs ?? 0, mergeHeaders(defaults, header), input, contextValues);
      let idle: CallTimeoutError | undefined;
      const message = withIdleTimeout(
        res.message,
        idleMs,
        () => {
          idle = new CallTimeoutError(`no message on the stream for ${idleMs} ms`, { binding: "GRPC", kind: "idle" });
          controller.abort(idle);
        },
        controller.signal,
      );
      return { ...res, message: dropsAsConnectionErrors(message, () => idle ?? (signal?.aborted ? undefined : "drop")) };
    },
  };
}

/**
 * A stream cut below gRPC (connection closed or reset) surfaces from HTTP/2
 * as a canceled stream, the same code as an abort. What the caller did not
 * abort is a dropped connection, which a resumption can recover from.
 */
async function* dropsAsConnectionErrors<T>(
  source: AsyncIterable<T>,
  why: () => CallTimeoutError | "drop" | undefined,
): AsyncGenerator<T> {
  try {
    yield* source;
  } catch (e) {
    const reason = why();
    if (reason instanceof CallTimeoutError) throw reason;
    const cut = e instanceof ConnectError && !e.metadata.has("grpc-status") && [Code.Canceled, Code.Unavailable, Code.Internal].includes(e.code);
    if (reason === "drop" && cut) {
      throw new ConnectionError(`the gRPC stream was cut: ${(e as ConnectError).rawMessage}`, {
        binding: "GRPC",
        kind: "reset",
        grpcCode: (e as ConnectError).code,
        cause: e,
      });
    }
    throw e;
  }
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/;

/**
 * Agent Cards may give a gRPC interface as `host:port` without a scheme
 * (spec: AgentInterface.url). connect needs a base URL.
 */
export function grpcBaseUrl(url: string, tls: boolean | undefined): string {
  if (/^https?:\/\//i.test(url)) {
    if (tls === undefined) return url;
    return url.replace(/^https?:/i, tls ? "https:" : "http:");
  }
  const authority = url.replace(/^grpcs?:\/\//i, "").replace(/\/+$/, "");
  const secure = tls ?? !LOOPBACK.test(authority);
  return `${secure ? "https" : "http"}://${authority}`;
}
