/**
 * A `UniversalClientFn` on `node:http` / `node:https` with keep-alive
 * connection pools, for the JSON-RPC and HTTP+JSON bindings in Node. In Node
 * a `fetch` call costs several times the CPU of a `node:http` request, so
 * the Node entry's `connect()` uses this client; browsers keep `fetch`.
 *
 * A2A request bodies are small JSON documents: each request is written with
 * its headers in one go (connect-node's client sends the headers first and
 * the body after, two writes per call, which on loopback costs more CPU than
 * the rest of the call). The response body is a Node stream read as an async
 * iterable, or gathered whole (`concatBytes`) from its 'data' events; a
 * reader that stops early, or a body past the limit it is read under,
 * destroys it, which frees the socket. The response's headers are node:http's
 * own, read in place, and copied into the `Headers` only when changed or listed.
 * Errors are the ones `node:http` raises (ECONNREFUSED, ECONNRESET, ...); an
 * abort rejects with the signal's reason, as `fetch` does. Redirects are not
 * followed: a 3xx is returned as it is, and the bindings apply their
 * redirect rule to it (http/redirects.ts), as for the fetch client.
 * A `101 Switching Protocols` answer (A2A never asks to switch) fails the
 * request at once and destroys its socket; informational answers (100,
 * 103) are skipped, so the call's deadline bounds a server that sends only
 * those.
 *
 * A pooled connection may be closed by the server while idle just as a
 * request is written to it: both sides' keep-alive timers run out together
 * (Node servers say `Keep-Alive: timeout=5` and Node 20's agent keeps an
 * idle socket exactly that long). A request that fails that way, on a
 * reused connection, reset or closed before any byte of an answer, is sent
 * again on another connection, as browsers do: the server had closed the
 * connection without reading it. A new connection that fails is never sent
 * again here; whether to retry that is the retry policy's question.
 */
import type * as http from "node:http";
import type * as https from "node:https";
import type { UniversalClientFn, UniversalClientResponse } from "@connectrpc/connect/protocol";
import type { Duplex } from "node:stream";
import { ProtocolError } from "../errors/family.js";
import { abortError } from "../base/abort.js";
import { ByteSink, concatBytes, GATHER, type Gathering } from "../base/bytes.js";
import { singleValue } from "../base/iterables.js";
import { safeUrl } from "../base/urls.js";
import { takingCallAbort, type AbortLike, type CallAbortRequest } from "./call-abort.js";
import { noTrailer } from "./fetch-client.js";

/** Options of `createNodeHttpClient`. @category Transports */
export interface NodeHttpClientOptions {
  /** Agent for `http:` URLs. Default: a shared keep-alive agent. */
  httpAgent?: http.Agent | undefined;
  /** Agent for `https:` URLs (TLS options go here). Default: a shared keep-alive agent. */
  httpsAgent?: https.Agent | undefined;
}

let sharedHttp: http.Agent | undefined;
/** The class of responses' headers (`incomingHeadersClass`), made with the first client. */
let IncomingHeaders: ReturnType<typeof incomingHeadersClass> | undefined;
let sharedHttps: https.Agent | undefined;

/**
 * A keep-alive `node:http` client for the `httpClient` option of the
 * JSON-RPC and HTTP+JSON transports; the Node entry's `connect()` uses it by
 * default. Without agents of the caller's, all such clients share one pool
 * of connections per origin.
 * @category Transports
 */
export function createNodeHttpClient(options: NodeHttpClientOptions = {}): UniversalClientFn {
  // Loaded here, not imported: importing the Node entry need not load HTTP and TLS (a cold start that may never call).
  const http = process.getBuiltinModule("node:http");
  const https = process.getBuiltinModule("node:https");
  // Shared by every default client, so connections are pooled per origin.
  const httpAgent = options.httpAgent ?? (sharedHttp ??= new http.Agent({ keepAlive: true, scheduling: "lifo" }));
  const httpsAgent = options.httpsAgent ?? (sharedHttps ??= new https.Agent({ keepAlive: true, scheduling: "lifo" }));

  IncomingHeaders ??= incomingHeadersClass();
  const targets = new TargetCache();
  // Not async: the answer is exchange's own promise, without a turn more to pass it on.
  const send = (req: CallAbortRequest, body: Uint8Array | undefined): Promise<UniversalClientResponse> => {
    // The bindings give the call itself to watch where they can (call-abort.ts).
    const signal: AbortLike | undefined = req.callAbort ?? req.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const t = targets.of(req.url);
    const secure = t.protocol === "https:";
    const agent = secure ? httpsAgent : httpAgent;
    // Written out, not spread from the target: an object of one shape, made in one step.
    const options: http.RequestOptions = {
      protocol: t.protocol,
      hostname: t.hostname,
      port: t.port,
      path: t.path,
      auth: t.auth,
      method: req.method,
      headers: (body !== undefined && headerList(req, t, agent, body)) || recordOf(req.header, body),
      agent,
    };
    const module = secure ? https : http;
    return exchange(() => module.request(options).end(body), signal, req.url);
  };
  return takingCallAbort((req: CallAbortRequest): Promise<UniversalClientResponse> => {
    if (req.body === undefined) return send(req, undefined);
    // A body in one chunk (the bindings' JSON) is sent as it is, without reading it as a stream.
    const body = singleValue(req.body);
    return body === undefined ? concatBytes(req.body).then((b) => send(req, b)) : send(req, body);
  });
}

/**
 * The headers of a request with a body (every A2A call but a few HTTP+JSON
 * reads) as the flat list of names and values that node:http writes as it
 * is: given a header object, it sets and checks each header one by one,
 * which cost about 4 µs a call (a sixth of a bare node:http call's CPU).
 * Given a list, node:http adds no Host or Authorization of its own: they
 * are added here as it adds them, unless the headers have them. The body's
 * length is the client's to say, whatever the headers say. Undefined for
 * headers that name the host: node:http takes the TLS server name from the
 * Host of a header object, never from a list's, so those keep the object.
 */
function headerList(req: CallAbortRequest, t: Target, agent: http.Agent, body: Uint8Array): string[] | undefined {
  // Shared headers never change: read once (the first request), then copied.
  const given = req.sharedHeader ? (sharedLists.get(req.header) ?? keptList(req.header)) : givenHeaders(req.header);
  if (given.host) return undefined;
  const list = given.list.slice();
  list.push("Host", (t.host ??= hostHeader(t, agent)));
  if (!given.authorization && t.auth !== undefined) list.push("Authorization", `Basic ${Buffer.from(t.auth).toString("base64")}`);
  list.push("content-length", String(body.byteLength));
  return list;
}

/** A request's own headers, as a list, and whether they name the host or carry credentials. */
interface GivenHeaders {
  list: string[];
  host: boolean;
  authorization: boolean;
}

/** The lists of transports' shared headers (`sharedHeader`), made when first sent. */
const sharedLists = new WeakMap<Headers, GivenHeaders>();

/** The list of shared headers, kept for their next requests. */
function keptList(header: Headers): GivenHeaders {
  const given = givenHeaders(header);
  sharedLists.set(header, given);
  return given;
}

function givenHeaders(header: Headers): GivenHeaders {
  const given: GivenHeaders = { list: [], host: false, authorization: false };
  header.forEach((value, key) => {
    // The body's length is the client's own.
    if (key === "content-length") return;
    if (key === "host") given.host = true;
    else if (key === "authorization") given.authorization = true;
    given.list.push(key, value);
  });
  return given;
}

/**
 * The Host header node:http writes for a request to `t` through `agent`:
 * an IPv6 address in brackets, and the port unless it is the agent's default.
 */
function hostHeader(t: Target, agent: http.Agent): string {
  const name = t.hostname.includes(":") ? `[${t.hostname}]` : t.hostname;
  const defaultPort = (agent as { defaultPort?: number }).defaultPort;
  const port = t.port || defaultPort || 80;
  return +port !== defaultPort ? `${name}:${port}` : name;
}

/** Headers as an object, as `http.request` takes them too, with the length of the body if there is one. */
function recordOf(header: Headers, body: Uint8Array | undefined): Record<string, string> {
  const record: Record<string, string> = {};
  header.forEach((value, key) => (record[key] = value));
  if (body !== undefined) record["content-length"] = String(body.byteLength);
  return record;
}

/** A reset or close, not an abort, of a pooled connection before any answer. */
function closedWhileIdle(request: http.ClientRequest, e: Error, answered: boolean, signal: AbortLike | undefined): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return request.reusedSocket && !answered && !signal?.aborted && (code === "ECONNRESET" || code === "EPIPE");
}

/**
 * The response to the request `sent` sends. A function of its own so that
 * the listeners it leaves for the life of a response (on the signal and the
 * response) hold the request and the signal only, not the call's request
 * object, headers and body: a thousand open streams would keep those too.
 * A request on a pooled connection the server had closed (`closedWhileIdle`)
 * is sent again; each failed pooled connection is destroyed, so this ends:
 * at the latest on a new connection, whose failure is final.
 */
function exchange(sent: () => http.ClientRequest, signal: AbortLike | undefined, url: string): Promise<UniversalClientResponse> {
  return new Promise((resolve, reject) => {
    const request = sent();
    // What sends the request again, given up once answered: an open stream holds neither its headers nor its body.
    let again: (() => http.ClientRequest) | undefined = sent;
    let response: http.IncomingMessage | undefined;
    // An abort after the whole body has arrived has nothing left to stop.
    const onAbort = () => {
      if (!response?.complete) request.destroy(signal?.reason instanceof Error ? signal.reason : abortError(signal?.reason));
    };
    const unlink = () => signal?.removeEventListener("abort", onAbort);
    // 'response' and 'close' come once: plain listeners, without `once`'s wrappers.
    request.on("response", (res: http.IncomingMessage) => {
      response = res;
      again = undefined;
      // After its end too: a response closes once read (or given up).
      res.on("close", unlink);
      // An error after the body was read or given up (an abort that
      // comes late) has nobody to go to; the reader sees one before.
      res.on("error", ignore);
      resolve({
        status: res.statusCode ?? 0,
        // Made by the client that sent the request.
        header: new IncomingHeaders!(res.headers),
        body: new IncomingBody(res),
        trailer: noTrailer(),
      });
    });
    signal?.addEventListener("abort", onAbort, { once: true });
    const fail = (e: Error) => {
      unlink();
      // After the headers, a parser failure (a broken chunked encoding)
      // reaches the request only; the body would report a bare "aborted".
      // The reader hears what went wrong instead.
      if (response !== undefined && !response.destroyed) response.destroy(e);
      if (again !== undefined && closedWhileIdle(request, e, response !== undefined, signal)) return resolve(exchange(again, signal, url));
      reject(signal?.aborted ? (signal.reason ?? e) : e);
    };
    request.on("error", fail);
    // Node hands over the socket of a 101 to an 'upgrade' listener; without
    // one it destroys the socket and the request never settles.
    request.on("upgrade", (_res: http.IncomingMessage, socket: Duplex) => {
      socket.destroy();
      fail(
        new ProtocolError(`${safeUrl(url)} answered 101 Switching Protocols; an A2A call does not switch protocols`, { httpStatus: 101 }),
      );
    });
  });
}

function ignore(): void {}

/**
 * A response's body: the IncomingMessage, read as a stream (its async
 * iterator), or gathered whole from its 'data' events, without an iterator's
 * objects and turns per chunk (a unary call's, `concatBytes`).
 */
class IncomingBody implements AsyncIterable<Uint8Array>, Gathering {
  constructor(private readonly res: http.IncomingMessage) {}

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return this.res[Symbol.asyncIterator]();
  }

  [GATHER](maxBytes: number, tooLarge: () => Error): Promise<Uint8Array<ArrayBuffer>> {
    const res = this.res;
    return new Promise((resolve, reject) => {
      // Failed already (the request's failure destroys it, exchange's `fail`): its events have gone.
      if (res.destroyed) return reject(res.errored ?? prematureClose());
      const sink = new ByteSink(maxBytes);
      const onData = (chunk: Buffer) => {
        if (sink.add(chunk)) return;
        // Read no further: destroying it frees the socket (it is not reused).
        res.off("data", onData);
        res.destroy();
        reject(tooLarge());
      };
      res.on("data", onData);
      // A response closes after its end, or when something cut it (a
      // reset's "aborted", a parser's error, an abort: rejected with that,
      // as its iterator would throw it), or once given up.
      res.once("close", () => {
        if (res.readableEnded) resolve(sink.bytes());
        else reject(res.errored ?? prematureClose());
      });
    });
  }
}

/** What a stream's iterator throws for a stream closed before its end without an error (Node's ERR_STREAM_PREMATURE_CLOSE). */
function prematureClose(): Error {
  return Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" });
}

/** Where a request goes, as `http.request` takes it. */
interface Target {
  protocol: string;
  hostname: string;
  port: string;
  path: string;
  auth?: string | undefined;
  /** The Host header of a request to it (`hostHeader`), worked out when first needed. */
  host?: string | undefined;
}

/**
 * Request URLs already taken apart. A client calls the same few URLs over
 * and over (a JSON-RPC endpoint is one URL), and parsing one for every call
 * cost a few percent of a call's CPU in profiles.
 */
class TargetCache {
  private readonly parsed = new Map<string, Target>();

  of(url: string): Target {
    let target = this.parsed.get(url);
    if (target === undefined) {
      target = parseTarget(url);
      // Bounded: URLs with task ids in them would otherwise pile up.
      if (this.parsed.size >= 64) this.parsed.clear();
      this.parsed.set(url, target);
    }
    return target;
  }
}

function parseTarget(url: string): Target {
  const u = new URL(url);
  // As node:http's own urlToHttpOptions: IPv6 hosts lose their brackets.
  const hostname = u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname;
  const auth = u.username || u.password ? `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}` : undefined;
  return { protocol: u.protocol, hostname, port: u.port, path: u.pathname + u.search, ...(auth === undefined ? {} : { auth }) };
}

const INSPECT = Symbol.for("nodejs.util.inspect.custom");

/**
 * A response's headers: node:http's parsed ones, read in place by `get` and
 * `has` (what a call does with them), and copied into the `Headers` only
 * when they are changed or listed. Copying them all made a Headers entry
 * per header for every call, where a call reads three or four. node:http
 * has joined repeated values with ", " (set-cookie's stay a list), as
 * `Headers.get` does. Made with the first client (`IncomingHeaders`):
 * extending Headers on import would load undici, which no import does.
 */
function incomingHeadersClass() {
  return class IncomingHeaders extends Headers {
    /** node:http's headers, until copied in. */
    #incoming: http.IncomingHttpHeaders | undefined;

    constructor(incoming: http.IncomingHttpHeaders) {
      super();
      this.#incoming = incoming;
    }

    override get(name: string): string | null {
      const incoming = this.#incoming;
      if (incoming === undefined) return super.get(name);
      const value = incoming[name.toLowerCase()];
      return value === undefined ? null : typeof value === "string" ? value : value.join(", ");
    }

    override has(name: string): boolean {
      const incoming = this.#incoming;
      return incoming === undefined ? super.has(name) : incoming[name.toLowerCase()] !== undefined;
    }

    override set(name: string, value: string): void {
      this.#copy();
      super.set(name, value);
    }

    override append(name: string, value: string): void {
      this.#copy();
      super.append(name, value);
    }

    override delete(name: string): void {
      this.#copy();
      super.delete(name);
    }

    override getSetCookie(): string[] {
      this.#copy();
      return super.getSetCookie();
    }

    override forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
      this.#copy();
      super.forEach(callback, thisArg);
    }

    override entries(): HeadersIterator<[string, string]> {
      this.#copy();
      return super.entries();
    }

    override keys(): HeadersIterator<string> {
      this.#copy();
      return super.keys();
    }

    override values(): HeadersIterator<string> {
      this.#copy();
      return super.values();
    }

    override [Symbol.iterator](): HeadersIterator<[string, string]> {
      this.#copy();
      return super[Symbol.iterator]();
    }

    /** What Node's `util.inspect` (console.log) shows: the headers, copied in first. */
    [INSPECT](...args: unknown[]): unknown {
      this.#copy();
      const shown = (Headers.prototype as unknown as Record<symbol, ((...a: unknown[]) => unknown) | undefined>)[INSPECT];
      return shown === undefined ? Object.fromEntries(super.entries()) : shown.apply(this, args);
    }

    /** Copies node:http's headers in (once), for every use but `get` and `has`. */
    #copy(): void {
      const incoming = this.#incoming;
      if (incoming === undefined) return;
      this.#incoming = undefined;
      for (const key in incoming) {
        const value = incoming[key];
        if (typeof value === "string") super.append(key, value);
        else if (Array.isArray(value)) for (const v of value) super.append(key, v);
      }
    }
  };
}
