/**
 * A random UUID (v4). `crypto.randomUUID` exists only in secure contexts in
 * browsers; `getRandomValues` exists everywhere.
 */
export function uuid(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The media type of a `Content-Type`, without parameters, in lower case (media types are read in any case); "" for none. */
export function mediaTypeOf(type: string | null): string {
  return (type ?? "").split(";")[0]!.trim().toLowerCase();
}

/** application/json or any `+json` media type, with or without parameters. */
export function isJsonContentType(type: string | null): boolean {
  const t = mediaTypeOf(type);
  return t === "application/json" || t.endsWith("+json");
}

/**
 * An AbortController of our own that follows `outer`: it aborts when `outer`
 * does (with `outer`'s reason, or `reason()` when given), and can be aborted
 * alone, e.g. to cut an idle stream. `unlink()` stops following.
 */
export function followSignal(
  outer: AbortSignal | undefined,
  reason?: () => unknown,
): {
  /** Aborts when `outer` does, or when aborted itself. */
  controller: AbortController;
  /** Stops following `outer`. */
  unlink: () => void;
} {
  const controller = new AbortController();
  const forward = () => controller.abort(reason ? reason() : outer?.reason);
  if (outer?.aborted) forward();
  else outer?.addEventListener("abort", forward, { once: true });
  return { controller, unlink: () => outer?.removeEventListener("abort", forward) };
}

/**
 * Settles as `work` does, or rejects with the signal's reason as soon as it
 * aborts, whatever `work` still waits for: what a misbehaving peer or
 * client never settles cannot outlive the signal.
 */
export function unlessAborted<T>(work: T | Promise<T>, signal: AbortSignal): T | Promise<T> {
  if (!(work instanceof Promise)) return work;
  // Settled later or never, `work` is nobody's unhandled rejection.
  if (signal.aborted) {
    work.catch(ignore);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

function ignore(): void {}

/** Where `single` keeps its value, for `singleValue`. */
const SINGLE_VALUE = Symbol("single value");

/**
 * The value of an iterable that `single` made, taken without iterating (an
 * HTTP client sending a request body of one chunk need not wait the turns
 * a read takes); undefined for any other iterable.
 */
export function singleValue<T>(source: AsyncIterable<T>): T | undefined {
  return (source as { [SINGLE_VALUE]?: T })[SINGLE_VALUE];
}

/**
 * An async iterable of one value: a request stream of one message, or a
 * request body. Not a generator: every call makes one or two, and a
 * generator costs several times as much to make and read.
 */
export function single<T>(value: T): AsyncIterable<T> {
  const source: AsyncIterable<T> & { [SINGLE_VALUE]: T } = {
    [SINGLE_VALUE]: value,
    [Symbol.asyncIterator]() {
      let given = false;
      return {
        next(): Promise<IteratorResult<T>> {
          if (given) return Promise.resolve({ done: true, value: undefined });
          given = true;
          return Promise.resolve({ done: false, value });
        },
        return(): Promise<IteratorResult<T>> {
          given = true;
          return Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
  return source;
}

/** A stream that fails with `error` when first read, having sent nothing. */
export async function* failing(error: Error): AsyncGenerator<never> {
  throw error;
}

/** `source` with `fn` applied to each value. */
export async function* mapAsync<T, U>(source: AsyncIterable<T>, fn: (t: T) => U): AsyncGenerator<U> {
  for await (const t of source) yield fn(t);
}

/** The longest delay a timer holds (2^31 - 1 ms, about 24.8 days): `setTimeout` fires a longer one at once. */
export const MAX_TIMER_MS = 0x7fffffff;

/**
 * `source` with `fn` applied to each value, as `mapAsync`, but a `single`
 * stays one (`fn` applied at once): the call runner reads a stream's one
 * request message from it without reading the stream (run-call.ts).
 */
export function mapRequests<T, U>(source: AsyncIterable<T>, fn: (t: T) => U): AsyncIterable<U> {
  const only = singleValue(source);
  return only === undefined ? mapAsync(source, fn) : single(fn(only));
}

/** `setTimeout(fn, ms)`, a delay past what a timer keeps waiting as long as one can (MAX_TIMER_MS, about 24.8 days). */
export function startTimer(fn: () => void, ms: number): ReturnType<typeof setTimeout> {
  return setTimeout(fn, Math.min(ms, MAX_TIMER_MS));
}

/**
 * Waits `ms` (at most MAX_TIMER_MS: a longer wait would otherwise end at
 * once); the signal cuts the wait short, rejecting with what `aborted()`
 * makes. The timer is cleared on abort, so an aborted wait holds nothing.
 */
export function sleep(ms: number, signal: AbortSignal | undefined, aborted: () => Error): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(aborted());
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = startTimer(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The error an abort without a reason (or with one that is not an Error) is reported as, as fetch does. */
export function abortError(reason?: unknown): Error {
  const e = new Error(reason === undefined ? "This operation was aborted" : String(reason));
  e.name = "AbortError";
  return e;
}

/**
 * All chunks of a body in one buffer; past `maxBytes`, the error `tooLarge()`
 * makes. A body of one chunk is that chunk; a body of more is copied into
 * one buffer as its chunks arrive, grown by doubling (never past
 * `maxBytes`): kept as a list until the end, a body sent a byte per chunk
 * held an object of some 200 bytes per byte, gigabytes within a 16 MiB limit.
 */
export async function concatBytes(
  chunks: AsyncIterable<Uint8Array>,
  maxBytes = Infinity,
  tooLarge?: () => Error,
): Promise<Uint8Array<ArrayBuffer>> {
  // The first chunk, kept as it is until a second one comes.
  let only: Uint8Array | undefined;
  let buffer: Uint8Array<ArrayBuffer> | undefined;
  let size = 0;
  for await (const c of chunks) {
    // Leaving the loop early cancels the source (and frees its connection).
    if (size + c.byteLength > maxBytes) throw tooLarge?.() ?? new RangeError(`more than ${maxBytes} bytes`);
    if (buffer === undefined && only === undefined && size === 0) {
      only = c;
      size = c.byteLength;
      continue;
    }
    const need = size + c.byteLength;
    if (buffer === undefined || need > buffer.byteLength) {
      const grown = new Uint8Array(Math.min(Math.max(need, (buffer?.byteLength ?? size) * 2, 16 * 1024), maxBytes));
      if (buffer !== undefined) grown.set(buffer.subarray(0, size));
      else if (only !== undefined) grown.set(only);
      buffer = grown;
      only = undefined;
    }
    buffer.set(c, size);
    size = need;
  }
  if (buffer !== undefined) return buffer.subarray(0, size);
  if (only !== undefined && only.buffer instanceof ArrayBuffer) return only as Uint8Array<ArrayBuffer>;
  return only === undefined ? new Uint8Array(0) : new Uint8Array(only);
}

/** One character per byte (the "binary string" that `btoa` takes, and a way to search bytes as text). */
export function binaryString(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return text;
}

/** Standard base64 of `bytes`, without `Buffer` (browsers have none). */
export function base64(bytes: Uint8Array): string {
  return btoa(binaryString(bytes));
}

/** The SHA-256 digest of `bytes` (text: of its UTF-8), in lowercase hex, by Web Crypto. */
export async function sha256Hex(bytes: Uint8Array<ArrayBuffer> | string): Promise<string> {
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  let hex = "";
  for (const b of digest) hex += b.toString(16).padStart(2, "0");
  return hex;
}

/** A URL as error messages name it: origin and path only, since its query and user info may carry credentials (an API key). */
export function safeUrl(url: string): string {
  const u = parsedUrl(url);
  return u ? maskedHref(u) : "(not a URL)";
}

/**
 * An interface's URL as `safeUrl` shows one, also when it is not http(s)
 * (a gRPC interface's `host:port`, which would parse as a scheme and a
 * path, or `grpc://`): without user info, query or fragment.
 */
export function safeInterfaceUrl(url: string): string {
  if (/^https?:\/\//i.test(url)) return safeUrl(url);
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/?#]*@/i, "$1").replace(/[?#][\s\S]*$/, "");
}

/** What `safeUrl` keeps of a parsed URL: origin and path, without user info, query or fragment. */
export function maskedHref(u: URL): string {
  return `${u.origin}${u.pathname}`;
}

/** `url` parsed, or undefined when it is not an absolute URL. */
export function parsedUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = { "http:": "80", "https:": "443" };

/**
 * Where a connection to `url` goes, as `host:port`, the port named even
 * when it is the scheme's default (`agent.example:443`): what a refused,
 * reset or unresolvable connection is reported with. Never the user info.
 */
export function hostPort(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || DEFAULT_PORTS[u.protocol] || "?"}`;
  } catch {
    return "(not a URL)";
  }
}

/** A non-null object (arrays included): something whose fields can be read. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}

/**
 * Code loaded on demand, the one way this package does it: the public
 * function lives in a small module and calls the returned function, which
 * starts `load` (a dynamic `import()`) on its first call and gives the same
 * promise after. A failed load (a chunk that could not be fetched) is tried
 * again on the next call.
 */
export function onDemand<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((e: unknown) => {
      loading = undefined;
      throw e;
    }));
}
