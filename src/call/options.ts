import type { Interceptor } from "@connectrpc/connect";
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import { A2A_EXTENSIONS, A2A_VERSION } from "../protocol/headers.js";
import { majorMinor } from "../protocol/version.js";
import { InvalidParamsError } from "../errors/family.js";

/** Options shared by every binding's transport. @category Transports */
export interface TransportOptions {
  /**
   * The interface URL from the Agent Card (`supportedInterfaces[].url`).
   * For gRPC a bare `host:port` is accepted too.
   */
  baseUrl: string;
  /** connect interceptors, run for every call in order. */
  interceptors?: Interceptor[] | undefined;
  /** The A2A protocol version to announce; Major.Minor only. Default "1.0". */
  protocolVersion?: string | undefined;
  /** Extension URIs to activate on every call (sent as `A2A-Extensions`). */
  extensions?: readonly string[] | undefined;
  /** Headers sent with every call; per-call headers override them. */
  headers?: HeadersInit | undefined;
  /**
   * Timeout of a unary call in milliseconds, unless the call sets its own.
   * Default 60 000; 0 disables it (the convention: call/timeouts.ts).
   */
  timeoutMs?: number | undefined;
  /**
   * A stream fails with `CallTimeoutError` (kind "idle") when no bytes arrive
   * for this long. Streams have no overall deadline: a task may run for
   * hours. Default 300 000; 0 disables it.
   */
  idleTimeoutMs?: number | undefined;
}

/** Options of the two bindings that run over plain HTTP. @category Transports */
export interface HttpTransportOptions extends TransportOptions {
  /**
   * The HTTP client. Default: `fetch`, which works in every runtime. The
   * Node entry offers a faster keep-alive client (`createNodeHttpClient`).
   */
  httpClient?: UniversalClientFn | undefined;
  /** Largest unary response body in bytes. Default 16 MiB. */
  maxResponseBytes?: number | undefined;
  /** Largest single stream event in characters. Default 4 MiB. */
  maxEventBytes?: number | undefined;
}

/** Default of `protocolVersion`. */
export const DEFAULT_PROTOCOL_VERSION = "1.0";
/** Default of `maxResponseBytes`: 16 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/** Default of `maxEventBytes`: 4 MiB. */
export const DEFAULT_MAX_EVENT_BYTES = 4 * 1024 * 1024;

/**
 * The headers every A2A request carries, under the per-call ones: user
 * defaults first, then the protocol's service parameters.
 */
export function serviceHeaders(options: TransportOptions): Headers {
  const h = headersFrom(options.headers, "the transport's headers");
  h.set(A2A_VERSION, majorMinor(options.protocolVersion ?? DEFAULT_PROTOCOL_VERSION));
  if (options.extensions && options.extensions.length > 0) h.set(A2A_EXTENSIONS, joinExtensions(options.extensions));
  return h;
}

/**
 * Merges per-call headers over a transport's defaults into a fresh object.
 * Extensions add up: a call activates its own on top of the transport's.
 */
export function mergeHeaders(defaults: Headers, perCall: HeadersInit | undefined): Headers {
  return addHeaders(new Headers(defaults), perCall);
}

/**
 * A call's own headers with `extensions` (the client's and the call's)
 * activated on top of the `A2A-Extensions` they carry. Unchanged, without
 * a copy, when nothing is activated.
 */
export function withExtensions(perCall: HeadersInit | undefined, extensions: readonly string[] | undefined): HeadersInit | undefined {
  return extensions?.length ? addHeaders(new Headers([[A2A_EXTENSIONS, joinExtensions(extensions)]]), perCall) : perCall;
}

/** `perCall` set over `h`, extensions added up; returns `h`. */
function addHeaders(h: Headers, perCall: HeadersInit | undefined): Headers {
  if (!perCall) return h;
  headersFrom(perCall, "the call's headers").forEach((value, key) => {
    if (key === A2A_EXTENSIONS && h.has(key)) h.set(key, joinExtensions(h.get(key)!.split(","), value.split(",")));
    else h.set(key, value);
  });
  return h;
}

/**
 * `new Headers(init)`, whose error names the header at fault but not its
 * value: the Headers class quotes a value it refuses, and it may be a
 * credential (a token read with a stray control character).
 */
export function headersFrom(init: HeadersInit | undefined, where: string): Headers {
  try {
    return new Headers(init);
  } catch {
    const entries = init instanceof Headers ? [] : Array.isArray(init) ? init : Object.entries(init ?? {});
    for (const [name, value] of entries as Iterable<[string, string]>) {
      try {
        new Headers([[name, value]]);
      } catch {
        const valid = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(String(name));
        throw new InvalidParamsError(
          `${where}: ${valid ? `the value of "${name}" is not a valid header value (not shown)` : "a header name is not valid (not shown)"}`,
        );
      }
    }
    throw new InvalidParamsError(`${where}: not valid headers`);
  }
}

/**
 * Comma-joined, trimmed, without duplicates or empties. An extension is a
 * URI: printable ASCII without spaces or commas (which would split it in
 * the list); anything else is refused here, by name, rather than failing
 * in the Headers class as a fault of the call.
 */
export function joinExtensions(...lists: ReadonlyArray<readonly string[]>): string {
  const uris = new Set<string>();
  for (const raw of lists.flat()) {
    const uri = String(raw).trim();
    if (!uri) continue;
    if (!/^[\x21-\x2b\x2d-\x7e]+$/.test(uri)) {
      const shown = uri.length > 80 ? `${uri.slice(0, 80)}…` : uri;
      throw new InvalidParamsError(`extensions: ${JSON.stringify(shown)} is not an extension URI (printable ASCII, no spaces or commas)`);
    }
    uris.add(uri);
  }
  return [...uris].join(",");
}
