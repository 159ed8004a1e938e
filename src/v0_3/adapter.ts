/**
 * Turns a transport for the 0.3 service (`a2a.v1.A2AService`) into one for
 * the 1.0 service (`lf.a2a.v1.A2AService`): each call is translated by
 * translate.ts on the way out and on the way back, event by event for streams.
 * The gRPC and HTTP+JSON 0.3 transports are both built this way.
 *
 * The caller's connect interceptors run here, on the 1.0 side: they see the
 * 1.0 method and the 1.0 request and response messages, the same as on a
 * 1.0 transport, and what they change (headers, the request message) is what
 * gets translated and sent (activated extensions also as 0.3's
 * `X-A2A-Extensions`). The 0.3 transport underneath runs without them.
 */
import {
  create,
  type DescMessage,
  type DescMethod,
  type DescMethodStreaming,
  type DescMethodUnary,
  type MessageShape,
} from "@bufbuild/protobuf";
import type { ContextValues, Interceptor, StreamRequest, UnaryRequest } from "@connectrpc/connect";
import type { A2ATransport } from "../call/transport.js";
import { v03OperationFor } from "./translate.js";
import { UnsupportedOperationError } from "../errors/family.js";
import type { V03RunnerKit } from "./runner-kit.js";

/** How the 1.0 side of a 0.3 transport looks to interceptors. */
export interface V03AdapterOptions {
  /** Run on the 1.0 side of every call. */
  interceptors?: Interceptor[] | undefined;
  /**
   * Headers every call starts from (the transport's A2A-Version, extensions
   * and user headers), so that interceptors see them as on 1.0 transports.
   */
  defaults: Headers;
  /** What interceptors see as the request's URL and HTTP method, for a 0.3 method. */
  describe(method: DescMethod): {
    /** The request URL. */
    url: string;
    /** The HTTP method, e.g. `POST`. */
    requestMethod: string;
  };
}

/**
 * `inner` speaks the 0.3 service; the result accepts calls for the 1.0
 * service. `kit` is the code of the start it runs on (runner-kit.ts).
 */
export function adaptV03Transport(kit: V03RunnerKit, inner: A2ATransport, options: V03AdapterOptions): A2ATransport {
  const { mergeHeaders, runStreaming, runUnary, callRequest, mapAsync, mapRequests, onlyValue, single } = kit;
  const { checkedResponse, keepReceivedJson, receivedJsonOf, addV03ExtensionsHeader, noteUrlFromAbove } = kit;
  const binding = inner.binding;

  /**
   * The request interceptors see: the 1.0 method and message, at the URL
   * and HTTP method of the 0.3 method that carries it.
   */
  function outerRequest<R extends UnaryRequest | StreamRequest>(
    stream: R["stream"],
    method: R["method"],
    target: { url: string; requestMethod: string },
    header: HeadersInit | undefined,
    contextValues: ContextValues | undefined,
    message: R["message"],
  ): Omit<R, "signal"> {
    return callRequest<R>(stream, method, target.requestMethod, target.url, mergeHeaders(options.defaults, header), contextValues, message);
  }

  /** What the interceptors did to the URL they were shown, noted for the transport below (call/target.ts). */
  const noteUrl = options.interceptors?.length ? noteUrlFromAbove : undefined;

  return {
    binding,

    async unary(method, signal, timeoutMs, header, input, contextValues) {
      // Before anything else: an operation 0.3 lacks makes no request at all.
      const op = v03OperationFor(method, binding);
      const target = options.describe(op.method);
      return runUnary({
        binding,
        interceptors: options.interceptors,
        signal,
        // The 0.3 transport applies the timeout (and its default) itself.
        timeoutMs: undefined,
        req: outerRequest(false, method, target, header, contextValues, create(method.input, input)),
        next: async (req) => {
          const request = req.message as MessageShape<DescMessage>;
          addV03ExtensionsHeader(req.header);
          noteUrl?.(req, target.url);
          const res = await inner.unary(
            op.method as DescMethodUnary,
            req.signal,
            timeoutMs,
            req.header,
            inV03(binding, () => op.request(request, kit)),
            req.contextValues,
          );
          const translate = (m: MessageShape<DescMessage>) =>
            checkedResponse(method, op.response(m, request, kit) as MessageShape<typeof method.output>, { binding });
          const message = translate(res.message);
          // The JSON a 0.3 card was read from stays with the 1.0 card, read again the same way.
          const received = receivedJsonOf(res.message);
          if (received) keepReceivedJson(message, { ...received, reparse: () => translate(received.reparse()) });
          return { stream: false, service: method.parent, method, header: res.header, trailer: res.trailer, message };
        },
      });
    },

    async stream(method, signal, timeoutMs, header, input, contextValues) {
      const op = v03OperationFor(method, binding);
      const target = options.describe(op.method);
      return runStreaming({
        binding,
        interceptors: options.interceptors,
        signal,
        timeoutMs: undefined,
        req: outerRequest(
          true,
          method,
          target,
          header,
          contextValues,
          mapRequests(input, (m) => create(method.input, m)),
        ),
        next: async (req) => {
          // A2A's streaming methods are server-streaming: one request.
          const request = (await onlyValue(req.message)) as MessageShape<DescMessage> | undefined;
          if (request === undefined) throw new TypeError(`${method.name}: no request message`);
          addV03ExtensionsHeader(req.header);
          noteUrl?.(req, target.url);
          const res = await inner.stream(
            op.method as DescMethodStreaming,
            req.signal,
            timeoutMs,
            req.header,
            single(inV03(binding, () => op.request(request, kit))),
            req.contextValues,
          );
          const message = mapAsync(res.message, (e) =>
            checkedResponse(method, op.response(e, request, kit) as MessageShape<typeof method.output>, { binding }),
          );
          return { stream: true, service: method.parent, method, header: res.header, trailer: res.trailer, message };
        },
      });
    },
  } satisfies A2ATransport;
}

/**
 * The 0.3 request of `translate`: what 0.3 cannot express (a data part
 * holding a list, a task id with "/") is refused there, without knowing the
 * binding; the error names the call's, as every error of a call does.
 */
function inV03<T>(binding: A2ATransport["binding"], translate: () => T): T {
  try {
    return translate();
  } catch (e) {
    if (e instanceof UnsupportedOperationError && e.binding === undefined) {
      throw new UnsupportedOperationError(e.message, { binding, cause: e.cause });
    }
    throw e;
  }
}
