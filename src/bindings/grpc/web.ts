/**
 * gRPC-web: the gRPC binding for browsers, which cannot speak HTTP/2 gRPC.
 * Calls go through a gRPC-web (or Connect) proxy in front of the agent's
 * gRPC server, such as Envoy's grpc_web filter, on connect-web's gRPC-web
 * transport over fetch. What the binding adds to connect's transport is
 * shared with HTTP/2 gRPC (common.ts).
 */
import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { createGrpcWebTransport as createConnectGrpcWebTransport } from "@connectrpc/connect-web";
import { ConnectionError, RedirectRefusedError, type A2AError } from "../../errors/family.js";
import { a2aGrpcTransport, connectionFailure } from "./common.js";
import { grpcBaseUrl } from "./url.js";
import { checkGrpcBaseUrl, checkTransportOptions } from "../../call/option-checks.js";
import { isRedirectStatus, redirectTarget } from "../../http/redirect-target.js";
import { rejectWithoutSent } from "../../http/run-call.js";
import type { TransportOptions } from "../../call/options.js";
import type { A2ATransport } from "../../call/transport.js";

/** Options of `createGrpcWebTransport`. @category Transports */
export interface GrpcWebTransportOptions extends TransportOptions {
  /**
   * The gRPC-web endpoint: the proxy's URL, under which methods are served
   * as `/{service}/{method}`. A bare `host:port` is accepted as for gRPC.
   */
  baseUrl: string;
  /** Use TLS for a bare `host:port`. Default: true, except on a loopback address. */
  tls?: boolean | undefined;
  /** The fetch to use. Default: the global `fetch`. */
  fetch?: typeof fetch | undefined;
}

/**
 * A transport for the gRPC binding over gRPC-web. Calls carry
 * `A2A-Version`, extensions and headers as on every binding; the proxy must
 * pass them on and, across origins, allow them in CORS. gRPC-web has unary
 * and server-streaming calls, which is all A2A uses.
 * @example
 * ```ts
 * import { A2AClient, connect, createGrpcWebTransport } from "a2a-connect";
 *
 * // A gRPC agent from a browser, through a gRPC-web proxy:
 * const client = new A2AClient(createGrpcWebTransport({ baseUrl: "https://agent.example.com/grpc-web" }));
 * // or let connect() use the card's GRPC interfaces over gRPC-web:
 * const session = await connect("https://agent.example.com", { grpcWeb: createGrpcWebTransport });
 * ```
 * @category Transports
 */
export function createGrpcWebTransport(options: GrpcWebTransportOptions): A2ATransport {
  checkTransportOptions(options, checkGrpcBaseUrl);
  const baseUrl = grpcBaseUrl(options.baseUrl, options.tls);
  const inner = createConnectGrpcWebTransport({
    baseUrl,
    // Innermost, so that it sees the request as sent.
    interceptors: [...(options.interceptors ?? []), withoutSentCredentials],
    // Looked up at call time, so a fetch replaced later is used.
    fetch: refusingRedirects(options.fetch ?? ((input, init) => globalThis.fetch(input, init))),
  });
  // connect runs these calls, over a fetch that may ignore its signal: the binding races them.
  return a2aGrpcTransport(inner, options, cutConnection, { url: baseUrl, guarded: false });
}

/**
 * connect runs these calls and their interceptors, not our call runner
 * (run-call.ts): this masks the credentials of the request as sent on what
 * the call and its stream fail with, as the runner does on the other
 * bindings.
 */
const withoutSentCredentials: Interceptor = (next) => async (req) => {
  const res = await next(req).catch((e: unknown) => rejectWithoutSent(e, req.header, req.url));
  if (!res.stream) return res;
  return { ...res, message: cleanFailures(res.message, req.header, req.url) };
};

async function* cleanFailures<T>(messages: AsyncIterable<T>, header: Headers, url: string): AsyncGenerator<T> {
  try {
    yield* messages;
  } catch (e) {
    return await rejectWithoutSent(e, header, url);
  }
}

/**
 * connect-web asks fetch for `redirect: "error"`, which fails as a bare
 * TypeError ("fetch failed"). Asked for "manual", a redirect is refused by
 * name, as on the other HTTP bindings; none is followed, since a gRPC-web
 * call goes to its proxy's URL only.
 */
function refusingRedirects(fetchFn: typeof fetch): typeof fetch {
  return async (input, init) => {
    const res = await fetchFn(input, { ...init, redirect: "manual" });
    if (res.type !== "opaqueredirect" && !isRedirectStatus(res.status)) return res;
    await res.body?.cancel().catch(() => {});
    const from = new URL(input instanceof Request ? input.url : String(input));
    const location = res.headers.get("Location");
    const to = location === null ? "a location the browser does not reveal" : redirectTarget(location, from).origin;
    throw new RedirectRefusedError(`${from.origin} answered a gRPC-web call with a redirect to ${to}; gRPC-web calls follow no redirect`, {
      binding: "GRPC",
      httpStatus: res.status || undefined,
    });
  };
}

/**
 * fetch reports a connection that failed or broke as a TypeError, which
 * connect passes on as the cause of an error without a gRPC status; a body
 * that ends before the trailers that carry the status was cut short too.
 */
function cutConnection(e: unknown, url: string): A2AError | undefined {
  if (!(e instanceof ConnectError) || e.metadata.has("grpc-status")) return undefined;
  if (e.cause instanceof RedirectRefusedError) return e.cause;
  if (e.cause instanceof TypeError) return connectionFailure(e.cause, url);
  if (e.rawMessage === "missing trailer") {
    return new ConnectionError("the gRPC-web response ended before its status", {
      binding: "GRPC",
      kind: "reset",
      grpcCode: e.code,
      cause: e,
    });
  }
  return undefined;
}
