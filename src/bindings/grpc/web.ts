/**
 * gRPC-web: the gRPC binding for browsers, which cannot speak HTTP/2 gRPC.
 * Calls go through a gRPC-web (or Connect) proxy in front of the agent's
 * gRPC server, such as Envoy's grpc_web filter, on our gRPC-web transport
 * over fetch (web-transport.ts, binary only). What the binding adds to
 * connect's transport is shared with HTTP/2 gRPC (common.ts).
 */
import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { A2AError, ConnectionError, InvalidParamsError, ProtocolError, RedirectRefusedError } from "../../errors/family.js";
import { a2aGrpcTransport, namedFailure } from "./common.js";
import { createGrpcWebWire } from "./web-transport.js";
import { grpcBaseUrl, type GrpcTlsOptions } from "./url.js";
import { parseRetryAfter } from "../../errors/retry-after.js";
import { ENDED_INSIDE } from "./frames.js";
import { checkGrpcBaseUrl, checkTlsOption, checkTransportOptions } from "../../call/option-checks.js";
import { isRedirectStatus, redirectTarget } from "../../http/redirect-target.js";
import { rejectWithoutSent } from "../../http/run-call.js";
import { withoutUserInfo } from "../../http/url-credentials.js";
import type { TransportOptions } from "../../call/options.js";
import type { A2ATransport } from "../../call/transport.js";
import { safeUrl } from "../../base/urls.js";

/** Options of `createGrpcWebTransport`. @category Transports */
export interface GrpcWebTransportOptions extends TransportOptions {
  /**
   * The gRPC-web endpoint: the proxy's URL, under which methods are served
   * as `/{service}/{method}`. A bare `host:port` is accepted as for gRPC.
   */
  baseUrl: string;
  /**
   * Use TLS for a bare `host:port` or a `grpc://` URL. Default: true, except
   * on a loopback address. A URL that names TLS always uses it. TLS options
   * (`{ ca }`) are refused: what fetch trusts is the fetch's to decide.
   */
  tls?: boolean | GrpcTlsOptions | undefined;
  /** The fetch to use. Default: the global `fetch`. */
  fetch?: typeof fetch | undefined;
  /** Largest message (or trailers frame) accepted from the proxy, in bytes. Default 16 MiB. */
  readMaxBytes?: number | undefined;
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
  checkTlsOption(options.tls, "tls");
  if (typeof options.tls === "object") {
    throw new InvalidParamsError(
      "tls: TLS options (ca, cert, key, servername) are for gRPC over HTTP/2; gRPC-web trusts what its fetch trusts",
    );
  }
  const baseUrl = grpcBaseUrl(options.baseUrl, options.tls);
  const inner = createGrpcWebWire({
    baseUrl,
    // Innermost, so that it sees the request as sent.
    interceptors: [...(options.interceptors ?? []), withoutSentCredentials],
    // Looked up at call time, so a fetch replaced later is used.
    fetch: refusingRedirects(options.fetch ?? ((input, init) => globalThis.fetch(input, init))),
    readMaxBytes: options.readMaxBytes ?? 16 * 1024 * 1024,
  });
  // connect runs these calls, over a fetch that may ignore its signal: the binding races them.
  return a2aGrpcTransport(inner, options, cutConnection, { url: baseUrl, guarded: false });
}

/**
 * connect runs these calls and their interceptors, not our call runner
 * (run-call.ts): this names what the call and its stream fail with as the
 * binding does (the abort's error once aborted), so that the interceptors
 * above see the A2AError the caller gets, and masks the credentials of the
 * request as sent on it, as the runner does on the other bindings.
 */
const withoutSentCredentials: Interceptor = (next) => async (req) => {
  // The request message, which may hand the agent credentials (a push
  // config's): a stream's is noted as connect reads it.
  let message: unknown = req.stream ? undefined : req.message;
  const sent = req.stream ? { ...req, message: noting(req.message, (m) => (message = m)) } : req;
  // No method: gRPC puts none of the request's fields in the query, so every query value is masked.
  // Named with code loaded when a call first fails: the binding races the
  // call with its deadline and signal (common.ts), which bounds the wait.
  const clean = async (e: unknown) => {
    const failed = req.signal.aborted ? req.signal.reason : e;
    const named = await namedFailure(failed, (m) => m.grpcCallError(req.method, failed, cutConnection, req.url));
    return rejectWithoutSent(named, req.header, req.url, undefined, message);
  };
  const res = await next(sent).catch(clean);
  if (!res.stream) return res;
  return { ...res, message: cleanFailures(res.message, clean) };
};

async function* noting<T>(messages: AsyncIterable<T>, note: (m: T) => void): AsyncGenerator<T> {
  for await (const m of messages) {
    note(m);
    yield m;
  }
}

async function* cleanFailures<T>(messages: AsyncIterable<T>, clean: (e: unknown) => Promise<never>): AsyncGenerator<T> {
  try {
    yield* messages;
  } catch (e) {
    return await clean(e);
  }
}

/** What a gRPC-web response's content type is (the transport does not look: it reads any body as frames). */
const GRPC_WEB_CONTENT_TYPE = /^application\/grpc-web(\+proto)?\s*(;|$)/i;

/**
 * The transport asks fetch for `redirect: "error"`, which fails as a bare
 * TypeError ("fetch failed"). Asked for "manual", a redirect is refused by
 * name, as on the other HTTP bindings; none is followed, since a gRPC-web
 * call goes to its proxy's URL only. A successful answer that is not
 * gRPC-web (a proxy's HTML page) is refused by its content type before
 * the transport reads its bytes as frames (within `readMaxBytes`, in
 * web-transport.ts). Any other status but 2xx, without a gRPC status, is what
 * the proxy, or something in front of it, said (http-answer.ts), and fails
 * the call as that.
 */
function refusingRedirects(fetchFn: typeof fetch): typeof fetch {
  return async (input, init) => {
    // The transport passes the URL as a string; one with user info cannot be a Request.
    const given = input instanceof Request ? input.url : String(input);
    const { url, header } = given.includes("@")
      ? withoutUserInfo(given, new Headers(init?.headers))
      : { url: given, header: init?.headers };
    let res: Response;
    try {
      res = await fetchFn(url === given ? input : url, { ...init, headers: header, redirect: "manual" });
    } catch (e) {
      // fetch's network failures are TypeErrors, told apart here, where fetch
      // is called, from what an interceptor throws (cutConnection).
      throw e instanceof TypeError ? await namedFailure(e, (m) => m.connectionFailure(e, url) || e) : e;
    }
    const redirect = res.type === "opaqueredirect" || isRedirectStatus(res.status);
    // A status in the headers is the server's answer, whatever the HTTP status or content type (as over HTTP/2).
    const stated = res.headers.has("grpc-status");
    const ok = res.status === 0 || (res.status >= 200 && res.status < 300);
    if (!redirect && (ok || stated)) {
      const type = res.headers.get("Content-Type");
      if (res.status !== 0 && !stated && !GRPC_WEB_CONTENT_TYPE.test(type ?? "")) {
        await res.body?.cancel().catch(() => {});
        throw new ProtocolError(`expected a gRPC-web response from ${safeUrl(url)}, got content type "${type ?? "none"}"`, {
          binding: "GRPC",
          httpStatus: res.status,
        });
      }
      if (res.body === null) return res;
      return new Response(networkFailuresNamed(res.body, url), { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    await res.body?.cancel().catch(() => {});
    if (!redirect) {
      const retryAfterMs = parseRetryAfter(res.headers.get("retry-after"));
      throw await namedFailure(undefined, (m) => m.httpAnswerError(res.status, res.headers, url, retryAfterMs));
    }
    const from = new URL(url);
    const location = res.headers.get("Location");
    const to = location === null ? "a location the browser does not reveal" : redirectTarget(location, from).origin;
    throw new RedirectRefusedError(`${from.origin} answered a gRPC-web call with a redirect to ${to}; gRPC-web calls follow no redirect`, {
      binding: "GRPC",
      httpStatus: res.status || undefined,
    });
  };
}

/**
 * `body`, its read failures (fetch's TypeErrors: the connection cut
 * mid-body) turned into ConnectionErrors here, where they are known to be
 * the network's: connect's runner passes them on as the cause of its
 * error, as it does what an interceptor throws.
 */
function networkFailuresNamed(body: ReadableStream<Uint8Array>, url: string): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const r = await reader.read();
        if (r.done) controller.close();
        else controller.enqueue(r.value);
      } catch (e) {
        controller.error(e instanceof TypeError ? await namedFailure(e, (m) => m.connectionFailure(e, url) || e) : e);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/**
 * A connection that failed or broke, as the fetch wrapper and the body
 * reader named it (connect passes it on as the cause of an error without a
 * gRPC status), or a body that ended before the trailers that carry the
 * status: the call was cut short.
 */
function cutConnection(e: unknown): A2AError | undefined {
  if (!(e instanceof ConnectError) || e.metadata.has("grpc-status")) return undefined;
  // What the fetch wrapper refused (a redirect, a content type) is reported as it said.
  if (e.cause instanceof A2AError) return e.cause;
  // The frame reader's error for a body cut inside a frame (frames.ts), named as the gRPC-web answer's.
  if (e.rawMessage === ENDED_INSIDE) {
    return new ProtocolError("malformed gRPC response: the gRPC-web response ended inside a message frame", {
      binding: "GRPC",
      grpcCode: e.code,
      cause: e,
    });
  }
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
