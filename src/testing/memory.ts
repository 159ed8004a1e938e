/**
 * The test agent in memory: an HTTP client (connect's `UniversalClientFn`,
 * the `httpClient` of the JSON-RPC and HTTP+JSON transports) and a `fetch`
 * (for discovery) that hand each request to the agent's handler, with no
 * socket, in any runtime. A cut connection fails as `fetch` reports one,
 * a TypeError whose cause has the code `ECONNRESET`: before the answer the
 * request rejects, mid-stream the body does. A caller's signal ends what
 * waits on the agent.
 */
import type { UniversalClientFn, UniversalClientRequest, UniversalClientResponse } from "@connectrpc/connect/protocol";
import { concatBytes } from "../base/bytes.js";
import { ConnectionCut, untilAborted, type AgentHandler, type AgentRequest, type AgentResponse } from "./exchange.js";

/**
 * What a cut connection fails with, as `fetch` reports a socket the server
 * reset, or one it closed: before the response ("fetch failed") or in the
 * middle of its body ("terminated").
 */
function cutError(e: ConnectionCut, inBody: boolean): TypeError {
  if (e.how === "reset") {
    const reset = Object.assign(new Error("read ECONNRESET", { cause: e }), { code: "ECONNRESET" });
    return new TypeError("network error: the connection was reset", { cause: reset });
  }
  const closed = Object.assign(new Error("other side closed", { cause: e }), { code: "UND_ERR_SOCKET" });
  return new TypeError(inBody ? "terminated" : "fetch failed", { cause: closed });
}

/** `e` as the caller sees it, before the response or in its body. */
const seen = (e: unknown, inBody: boolean) => (e instanceof ConnectionCut ? cutError(e, inBody) : e);

/**
 * The body of an answer, as the caller reads it: a cut connection fails
 * it, the caller's signal fails a read that waits (as `fetch` does, whatever
 * the agent is doing), and a caller that stops reading ends the exchange.
 */
function bodyAsRead(body: AsyncIterable<Uint8Array>, stop: AbortController, aborted: Promise<never>): AsyncIterable<Uint8Array> {
  const it = body[Symbol.asyncIterator]();
  const iterator: AsyncIterator<Uint8Array> = {
    async next() {
      try {
        const next = await Promise.race([it.next(), aborted]);
        if (next.done) stop.abort();
        return next;
      } catch (e) {
        stop.abort();
        throw seen(e, true);
      }
    },
    async return() {
      stop.abort();
      // Not waited for: the body may be waiting on the agent, which the abort above ends.
      void it.return?.();
      return { done: true, value: undefined };
    },
  };
  return { [Symbol.asyncIterator]: () => iterator };
}

/** One exchange with the agent: the request, and its answer whose body stops the exchange when it ends or is left. */
async function exchange(
  handle: AgentHandler,
  url: string,
  method: string,
  headers: Headers,
  body: AsyncIterable<Uint8Array> | Uint8Array | undefined,
  signal: AbortSignal | undefined,
): Promise<{ response: AgentResponse; body: AsyncIterable<Uint8Array> }> {
  // Aborted by the caller's signal, and once the caller is done with the answer: what waits on it ends.
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal?.reason);
  if (signal?.aborted) throw signal.reason;
  signal?.addEventListener("abort", onAbort, { once: true });
  stop.signal.addEventListener("abort", () => signal?.removeEventListener("abort", onAbort), { once: true });
  const bytes = body === undefined ? new Uint8Array() : body instanceof Uint8Array ? body : await concatBytes(body);
  // What a wait on the agent is raced against; the exchange's own end aborts it too, which nobody need hear.
  const aborted = untilAborted(stop.signal);
  aborted.catch(() => {});
  const request: AgentRequest = { method, url: new URL(url), headers: new Headers(headers), body: bytes, signal: stop.signal };
  try {
    // Raced against the signal: the handler may wait on a script's step that knows nothing of the caller.
    const response = await Promise.race([handle(request), aborted]);
    return { response, body: bodyAsRead(response.body, stop, aborted) };
  } catch (e) {
    stop.abort();
    throw seen(e, false);
  }
}

/** An HTTP client for the transports that calls the agent's handler directly. */
export function memoryHttpClient(handle: AgentHandler): UniversalClientFn {
  return async (req: UniversalClientRequest): Promise<UniversalClientResponse> => {
    const { response, body } = await exchange(handle, req.url, req.method, req.header, req.body, req.signal);
    return { status: response.status, header: response.headers, body, trailer: new Headers() };
  };
}

/** A `fetch` that calls the agent's handler directly (discovery's card requests). */
export function memoryFetch(handle: AgentHandler): typeof fetch {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const payload = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    const { response, body } = await exchange(
      handle,
      request.url,
      request.method,
      request.headers,
      payload,
      init?.signal ?? request.signal,
    );
    const iterator = body[Symbol.asyncIterator]();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await iterator.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (e) {
          controller.error(e);
        }
      },
      async cancel() {
        await iterator.return?.();
      },
    });
    const noBody = response.status === 204 || response.status === 304 || request.method === "HEAD";
    return new Response(noBody ? null : stream, { status: response.status, headers: response.headers });
  };
}
