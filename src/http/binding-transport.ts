/**
 * The machinery the JSON-RPC and HTTP+JSON bindings share: a connect
 * Transport over a `UniversalClientFn`, so connect's interceptors, deadlines
 * and abort handling apply, with each binding reduced to a small codec that
 * says how a call looks on the wire.
 */
import { create, type DescMessage, type DescMethod, type DescMethodStreaming, type JsonValue, type MessageShape } from "@bufbuild/protobuf";
import type { UniversalClientFn, UniversalClientResponse } from "@connectrpc/connect/protocol";
import { A2AError, type CallTimeoutError, InvalidParamsError, ProtocolError } from "../errors/family.js";
import { isRecord } from "../base/is-record.js";
import { parseRetryAfter } from "../errors/retry-after.js";
import { createFetchHttpClient } from "./fetch-client.js";
import { cutIdle, idleBeforeResponse, withIdleTimeout } from "./idle.js";
import { withRedirectRule } from "./redirects.js";
import type { BindingCodec, HttpPlan, ResponseFacts } from "./codec.js";
import {
  DEFAULT_MAX_EVENT_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  mergeHeaders,
  serviceHeaders,
  type HttpTransportOptions,
} from "../call/options.js";
import { timeoutFor } from "../call/timeouts.js";
import { CallSignal, runStreaming, runUnary } from "./run-call.js";
import { takesCallAbort, type CallAbortRequest } from "./call-abort.js";
import { sseDecoder, type SseEvent } from "./sse.js";
import { readFailure, UnreadError } from "./failure-reading.js";
import { foundA2AError } from "../errors/classification.js";
import { unlessAborted } from "../base/abort.js";
import { callRecordKey, CallRecord, recordFor } from "../call/record.js";
import { failedField, unreadablePath, type GeneratedJson } from "../protocol/proto-json.js";
import type { JsonReadError } from "../protocol/json-read.js";
import { onlyValue, single } from "../base/iterables.js";
import { concatBytes } from "../base/bytes.js";
import { isJsonContentType, mediaTypeOf } from "../base/media-type.js";
import { safeUrl } from "../base/urls.js";
import { responseFromJson } from "../protocol/response-shape.js";
import { keepReceivedJson, keepsReceivedJson } from "./received-json.js";
import type { A2ATransport } from "../call/transport.js";
import { discard, looksLikeJson, readTextWithin, tryParse, utf8 } from "./body.js";
import { DecodedEvents } from "./decoded-events.js";

const encoder = new TextEncoder();

/** The `kind` of 0.3's tasks, messages and stream events. */
const V03_KINDS: ReadonlySet<string> = new Set(["task", "message", "status-update", "artifact-update"]);

/**
 * A connect Transport for an HTTP binding, from its codec and the transport
 * options; results are read with the `generated` readers where given.
 */
export function createHttpBindingTransport(options: HttpTransportOptions, codec: BindingCodec, generated?: GeneratedJson): A2ATransport {
  // Whatever the client, no redirect takes the call to another origin.
  const client = options.httpClient ?? createFetchHttpClient();
  const httpClient: UniversalClientFn = withRedirectRule(client, codec.binding);
  // A client of this package is given the call itself to watch (call-abort.ts).
  const lean = takesCallAbort(client);
  const defaults = serviceHeaders(options);
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  const idleMs = timeoutFor("idle", undefined, options.idleTimeoutMs);
  // A unary request given no timeout is held to the transport's.
  const unaryMs = timeoutFor("unary", undefined, options.timeoutMs);
  const binding = codec.binding;
  const readers = generated?.readers;

  // The headers a unary request starts from, its Accept set: copied as they
  // are for a call that gives none of its own (most calls), else the call's
  // are merged over the transport's and the Accept set again (the
  // transport's, whatever the call's say), as a stream's are.
  const unaryHeaders = withAccept(new Headers(defaults), codec.accept);
  // A request with a body, of a call no interceptor sees (run-call.ts hands
  // it straight to `next`) on a client of this package, shows its headers to
  // that client only: such requests share these, Content-Type set, never
  // changed, and the node:http client reads them once (`sharedHeader`). The
  // headers of a caller's interceptors or client stay a copy: they may change them.
  const sharedHeaders = lean && !options.interceptors?.length ? new Headers(unaryHeaders) : undefined;
  sharedHeaders?.set("Content-Type", codec.contentType);

  /**
   * The call's HTTP request. What the request's values cannot be written as
   * (a timestamp out of range, a Struct holding a bigint) is the caller's
   * InvalidParamsError, not an unknown failure.
   */
  function planned(method: DescMethod, message: MessageShape<DescMessage>): HttpPlan {
    try {
      return codec.plan(method, message);
    } catch (e) {
      if (e instanceof A2AError) throw e;
      // Named by the field, never quoting its value (a metadata value may be a secret).
      throw new InvalidParamsError(`the request cannot be written as ${binding} (${failedField(e)})`, { binding });
    }
  }

  /** Sends the (possibly interceptor-modified) request; never leaks a raw network error. */
  async function send(
    method: DescMethod,
    firstMessage: unknown,
    firstPlan: HttpPlan,
    req: { url: string; header: Headers; message: unknown },
    abort: AbortSignal | CallSignal,
  ): Promise<{ res: UniversalClientResponse; plan: HttpPlan; url: string }> {
    // Interceptors may replace the message (e.g. to set a tenant): plan again then.
    const message = req.message as MessageShape<DescMessage>;
    const plan = message === firstMessage ? firstPlan : planned(method, message);
    const overridden = req.url !== firstPlan.url;
    // What interceptors added to the query (an API key) goes along to the other verb's URL.
    // Set by each exchange: the URL the failure names.
    let url = req.url;
    const exchange = (p: HttpPlan) => {
      url = !overridden ? p.url : p === plan ? req.url : withAddedQuery(p.url, firstPlan.url, req.url);
      const sharedHeader = req.header === sharedHeaders;
      if (!sharedHeader) {
        if (p.body !== undefined) req.header.set("Content-Type", codec.contentType);
        // A retry with the other verb has no body where the first had one.
        else if (p !== plan) req.header.delete("Content-Type");
      }
      const body = p.body === undefined ? undefined : single(encoder.encode(JSON.stringify(p.body)));
      const request: CallAbortRequest =
        abort instanceof CallSignal
          ? { url, method: p.method, header: req.header, sharedHeader, callAbort: abort, body }
          : { url, method: p.method, header: req.header, sharedHeader, signal: abort, body };
      return httpClient(request);
    };
    try {
      const res = await exchange(plan);
      // Only a stream's verb may be disputed (codec.ts): a unary call goes by its route's.
      const choice = method.methodKind === "unary" ? undefined : codec.verbChoice?.(method, message, plan);
      if (!choice) return { res, plan, url };
      if (res.status >= 200 && res.status < 300) {
        if (!choice.learned) choice.remember(plan.method);
        return { res, plan, url };
      }
      // The codec loads the fallback when first needed: most agents route the verb tried first.
      const settled = await (await codec.verbFallback!()).settleVerb(choice, plan, res, {
        send: exchange,
        rejection: (r) => rejection(r, facts(method, r, url)),
      });
      return { ...settled, url };
    } catch (e) {
      // Aborted: the abort's error (the call runner's, run-call.ts), whatever the HTTP client made of it.
      if (abort.aborted) throw abort.reason;
      throw await readFailure(e, binding, url);
    }
  }

  function facts(method: DescMethod, res: UniversalClientResponse, url: string): ResponseFacts {
    // Plain values, read at once: an object literal with getters (to read the
    // headers only for errors) made every call about a fifth slower in V8.
    const retryAfter = res.header.get("Retry-After");
    return {
      binding,
      httpStatus: res.status,
      challenge: res.header.get("WWW-Authenticate") ?? undefined,
      // Parsed only when there is one: most answers have none.
      retryAfterMs: retryAfter ? parseRetryAfter(retryAfter) : undefined,
      url,
      method: method.name,
    };
  }

  /** Reads an unsuccessful response's whole body: the error it describes. */
  async function rejection(res: UniversalClientResponse, f: ResponseFacts): Promise<A2AError> {
    // A page over the limit (a gateway's, of any size) is not read on: the
    // status and headers still make the error (a 503 is retried after its
    // Retry-After, a 401 carries its challenge), not a ProtocolError.
    const text = await readTextWithin(res.body, maxResponseBytes, binding, f.url);
    if (text === undefined) return readFailure(new UnreadError((m) => m.genericHttpError(undefined, f, maxResponseBytes)), binding, f.url);
    const json = isJsonContentType(res.header.get("Content-Type")) || looksLikeJson(text) ? tryParse(text) : undefined;
    return readFailure(new UnreadError((m) => codec.error(json, f, m)), binding, f.url);
  }

  /**
   * Reads a whole JSON body (failing with ProtocolError past the limit),
   * handing its text to `onText`; for unsuccessful statuses throws the error
   * it describes.
   */
  async function readJson(res: UniversalClientResponse, f: ResponseFacts, onText?: (text: string) => void): Promise<unknown> {
    if (res.status < 200 || res.status >= 300) throw await rejection(res, f);
    let text: string;
    try {
      const tooLarge = () => new ProtocolError(`response body from ${safeUrl(f.url)} larger than ${maxResponseBytes} bytes`, { binding });
      text = utf8.decode(await concatBytes(res.body, maxResponseBytes, tooLarge));
    } catch (e) {
      // A connection lost in the middle of the body is a ConnectionError, as
      // one lost before the response is.
      throw await readFailure(e, binding, f.url);
    }
    const type = res.header.get("Content-Type");
    const where = { binding, httpStatus: res.status };
    if (type !== null && !isJsonContentType(type)) {
      // An error object in JSON says what it says whatever its label (a2a-go
      // 2.3.1's 0.3 JSON-RPC surface sends its errors as text/plain); a
      // result under another content type is refused.
      const mislabelled = looksLikeJson(text) ? tryParse(text) : undefined;
      if (isRecord(mislabelled) && isRecord(mislabelled.error)) return mislabelled;
      throw new ProtocolError(`expected a JSON response from ${safeUrl(f.url)}, got content type "${type}"`, where);
    }
    // An RFC 9457 problem document describes a failure, whatever the status says.
    if (type !== null && mediaTypeOf(type) === "application/problem+json") {
      throw new ProtocolError(
        `HTTP ${res.status} from ${safeUrl(f.url)} with a problem document (${type.split(";")[0]}) as its result`,
        where,
      );
    }
    // No body (a 204, or an empty 200) parses as the defaults, which the
    // response's shape check then finds incomplete for anything but Empty.
    if (text.trim() === "") return {};
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      const unread = new UnreadError(
        (m) => new ProtocolError(`the response body from ${safeUrl(f.url)} is not valid JSON: ${m.describeJsonFault(text)}`, where),
      );
      throw await readFailure(unread, binding, f.url);
    }
    onText?.(text);
    return json;
  }

  /**
   * The message a successful answer's JSON (a body, or a stream event's
   * data) carries: its result, as the codec finds it (throwing the error the
   * answer carries instead, an `UnreadError`), read and checked against the
   * method's output.
   */
  function parse<O extends DescMessage>(
    method: DescMethod & { readonly output: O },
    answer: unknown,
    plan: HttpPlan,
    f: ResponseFacts,
  ): MessageShape<O> {
    const result = codec.result(answer, plan, f);
    const schema = method.output;
    const httpStatus = f.httpStatus;
    // A 1.0 result never has a `kind`; every 0.3 task, message and event
    // has one. Read as 1.0, such an answer would pass with its states,
    // roles and files lost: an agent whose card claims 1.0 but speaks 0.3.
    const kind = codec.toProtoJson || !isRecord(result) ? undefined : result.kind;
    if (typeof kind === "string" && V03_KINDS.has(kind)) {
      throw new ProtocolError(`the agent answered ${method.name} in A2A 0.3's shape (kind "${kind}"), not 1.0's`, { binding, httpStatus });
    }
    try {
      const json = codec.toProtoJson ? codec.toProtoJson(method, result) : result;
      // google.protobuf.Empty results may come as null.
      if (json === null && schema.typeName === "google.protobuf.Empty") return create(schema);
      return responseFromJson(method, json as JsonValue, readers, { binding, httpStatus });
    } catch (e) {
      if (e instanceof A2AError) throw e;
      // Where the ProtoJSON went wrong (its JSON path, from the reader), never the value.
      const at = unreadablePath(e);
      const problem = at === undefined ? (e as Error).message : (e as JsonReadError).problem;
      throw new ProtocolError(`the response is not a valid ${schema.typeName}${at === undefined ? "" : ` at ${at}`}: ${problem}`, {
        binding,
        httpStatus,
        cause: e,
      });
    }
  }

  function events<O extends DescMessage>(
    method: DescMethodStreaming<DescMessage, O>,
    res: UniversalClientResponse,
    plan: HttpPlan,
    signal: AbortSignal,
    controller: AbortController,
    state: CallRecord | undefined,
    f: ResponseFacts,
  ): AsyncIterable<MessageShape<O>> {
    let idle: CallTimeoutError | undefined;
    const cut = () => void (idle = cutIdle(controller, "no data on the stream", plan.url, idleMs, binding));
    const body = withIdleTimeout(res.body, idleMs, cut, signal);
    const decode = (e: SseEvent): MessageShape<O> => {
      // What a resumption sends back as Last-Event-ID; an empty id clears it.
      if (state && e.id !== undefined) state.lastEventId = e.id || undefined;
      // A JSON text sequence's record separator (U+001E, RFC 7464) before the JSON, as some servers send it, means nothing more.
      const data = e.data.charCodeAt(0) === 0x1e ? e.data.slice(1) : e.data;
      const json = tryParse(data);
      if (e.event === "error") throw new UnreadError((m) => codec.error(json, f, m));
      if (json === undefined) {
        throw new UnreadError(
          (m) =>
            new ProtocolError(`a stream event from ${safeUrl(f.url)} is not valid JSON: ${m.describeJsonFault(data)}`, {
              binding,
              httpStatus: res.status,
            }),
        );
      }
      return parse(method, json, plan, f);
    };
    const onRetry = state && ((ms: number) => void (state.retryMs = ms));
    const onId = state && ((id: string) => void (state.lastEventId = id || undefined));
    const sse = sseDecoder({ maxEventBytes, binding, url: f.url, onRetry, onId });
    // The code that reads a failure loads then, within the call's signal (its deadline's too).
    return new DecodedEvents(
      body[Symbol.asyncIterator](),
      sse,
      decode,
      (e) => idle ?? foundA2AError(e) ?? unlessAborted(readFailure(e, binding, f.url), signal),
    );
  }

  return {
    binding,
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      const firstMessage = create(method.input, input);
      const firstPlan = planned(method, firstMessage);
      // The call's record (call/record.ts): the values an A2AClient or the failover runner pass are
      // it; a call that comes without one has one made (recordFor).
      const record = contextValues instanceof CallRecord ? contextValues : recordFor("unary", timeoutMs, contextValues);
      // Awaited: an async function that returns a promise takes two turns more.
      return await runUnary({
        binding,
        interceptors: options.interceptors,
        signal,
        // A request given no timeout is held to the transport's.
        timeoutMs: timeoutMs === undefined ? unaryMs : record.requestMs(timeoutMs),
        lean,
        req: {
          stream: false,
          service: method.parent,
          method,
          requestMethod: firstPlan.method,
          url: firstPlan.url,
          header:
            header !== undefined
              ? withAccept(mergeHeaders(defaults, header), codec.accept)
              : (firstPlan.body !== undefined && sharedHeaders) || new Headers(unaryHeaders),
          contextValues: contextValues ?? record,
          message: firstMessage,
        },
        next: async (req, abort) => {
          const { res, plan, url } = await send(method, firstMessage, firstPlan, req, abort);
          const f = facts(method, res, url);
          let text: string | undefined;
          const json = await readJson(res, f, keepsReceivedJson(method) ? (t) => (text = t) : undefined);
          let message: MessageShape<typeof method.output>;
          try {
            message = parse(method, json, plan, f);
          } catch (e) {
            // The error the answer carries, read within the runner's race (its deadline and signal).
            throw e instanceof UnreadError ? await readFailure(e, binding, url) : e;
          }
          // A card's signatures cover the JSON as sent, which parsing does not keep whole.
          if (text !== undefined) {
            // The answer's result, found again (as `parse` found it): cards only.
            const result = codec.result(json, plan, f);
            if (isRecord(result) && !Array.isArray(result))
              keepReceivedJson(message, { json: result, text, reparse: () => parse(method, json, plan, f) });
          }
          return { stream: false, service: method.parent, method, header: res.header, trailer: res.trailer, message };
        },
      });
    },

    async stream(method, signal, timeoutMs, header, input, contextValues) {
      // A2A's streaming methods are server-streaming: exactly one request.
      const firstMessage = create(method.input, await onlyValue(input));
      const firstPlan = planned(method, firstMessage);
      const record = recordFor("stream", timeoutMs, contextValues);
      // The call's own controller, so that a stream gone idle can be cut.
      const controller = new AbortController();
      return runStreaming({
        binding,
        interceptors: options.interceptors,
        signal,
        controller,
        // The stream's deadline, if its call gave one: the idle timeout guards against a silent server instead.
        timeoutMs: record.requestMs(timeoutMs),
        req: {
          stream: true,
          service: method.parent,
          method,
          requestMethod: firstPlan.method,
          url: firstPlan.url,
          header: withAccept(mergeHeaders(defaults, header), "text/event-stream"),
          contextValues: contextValues ?? record,
          message: single(firstMessage),
        },
        next: async (req) => {
          const message: unknown = (await onlyValue(req.message)) ?? firstMessage;
          // Silence before the events start (no response yet, or a plain
          // body that stops) is bounded by the idle timeout too.
          let silent: CallTimeoutError | undefined;
          const stopWaiting = idleBeforeResponse(
            idleMs,
            () => void (silent = cutIdle(controller, "no response", req.url, idleMs, binding)),
          );
          try {
            const { res, plan, url } = await send(
              method,
              firstMessage,
              firstPlan,
              { url: req.url, header: req.header, message },
              req.signal,
            );
            const f = facts(method, res, url);
            const ok = res.status >= 200 && res.status < 300;
            const type = res.header.get("Content-Type");
            let out: AsyncIterable<MessageShape<typeof method.output>>;
            if (ok && mediaTypeOf(type) === "text/event-stream") {
              // Where the stream's position is kept: its record (an interceptor may have given other values).
              const state = req.contextValues.get(callRecordKey);
              // What the events keep for as long as the stream is open: not the
              // request body, nor (through a closure made here) the request.
              out = events(method, res, { ...plan, body: undefined }, req.signal, controller, state, f);
            } else if (!ok || isJsonContentType(type)) {
              // A plain JSON body where a stream was expected: an error, or
              // (leniently) a single result.
              const json = await readJson(res, f);
              out = single(parse(method, json, plan, f));
            } else {
              await discard(res.body);
              // Records an event stream would hold, under another type (text/plain), are not read as one.
              const got = type === null ? "no content type" : `content type "${type}"`;
              throw new ProtocolError(`expected an event stream (text/event-stream) from ${safeUrl(url)}, got ${got}`, {
                binding,
                httpStatus: res.status,
              });
            }
            return { stream: true, service: method.parent, method, header: res.header, trailer: res.trailer, message: out };
          } catch (e) {
            throw silent ?? (e instanceof UnreadError ? await readFailure(e, binding, req.url) : e);
          } finally {
            stopWaiting();
          }
        },
      });
    },
  } satisfies A2ATransport;
}

/** `h` with its Accept set to `accept`; returns `h`. */
function withAccept(h: Headers, accept: string): Headers {
  h.set("Accept", accept);
  return h;
}

/** `url` with the query parameters that `modified` has and `original` has not. */
function withAddedQuery(url: string, original: string, modified: string): string {
  try {
    const before = new URL(original).searchParams;
    const out = new URL(url);
    new URL(modified).searchParams.forEach((value, key) => {
      if (!before.has(key)) out.searchParams.set(key, value);
    });
    return out.href;
  } catch {
    return url;
  }
}
