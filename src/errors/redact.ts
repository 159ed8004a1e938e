/**
 * Secrets never travel in what this package reports. An error that leaves
 * a context holding credentials (an auth interceptor, a token provider) has
 * every secret of that context masked, in every form a server may echo it
 * in, on every surface of the error and of its causes, before anyone else
 * sees it: `message`, `stack`, `details`, `challenge`, `rawMessage`, gRPC
 * `metadata` and binary details, other own fields (URL objects, Maps and
 * Sets among them; a fetch Request or Response, as a fetch wrapper's
 * error may hold, replaced by a clean copy), nested causes and
 * `AggregateError.errors`. So `String(err)`, `JSON.stringify(err)`,
 * `util.inspect(err)` and `console.error(err)` show none either.
 *
 * Only errors pay for this: nothing is computed for a call that succeeds.
 */
import { base64, binaryString } from "../base/base64.js";

const MASK = "***";
/** Shorter values are not treated as secrets: masking them would mask ordinary text. */
const MIN_SECRET_LENGTH = 3;
/** How deep errors and their data are searched; what lies deeper is dropped (masked whole), not kept unread. */
const MAX_DEPTH = 32;

/** `e`, with each of `secrets` masked wherever it shows (see the module comment); errors keep their identity. */
export function redactSecrets<E>(e: E, secrets: readonly (string | undefined)[]): E {
  const masker = Masker.of(secrets);
  return masker ? (masker.clean(e, 0) as E) : e;
}

/** A function masking `secrets` in text, in every form as `redactSecrets` does; built once, for text that keeps coming (log lines). */
export function secretMasker(secrets: readonly (string | undefined)[]): (text: string) => string {
  const masker = Masker.of(secrets);
  return masker ? (text) => masker.maskText(text) : (text) => text;
}

/** What an object holding secrets shows of itself in logs: its kind, never its values. */
export function opaque<T extends object>(target: T, description: string): T {
  const show = () => `[${description}]`;
  Object.defineProperties(target, {
    toString: { value: show, enumerable: false },
    toJSON: { value: () => show(), enumerable: false },
    [Symbol.for("nodejs.util.inspect.custom")]: { value: show, enumerable: false },
  });
  return target;
}

/**
 * The forms a secret takes in text a server may send back: as sent,
 * percent-encoded (as a URL component, as `encodeURI` or grpc-message
 * leave it; either hex case), form-encoded, inside a JSON string (also
 * ASCII-only JSON, as Python writes it; HTML-safe, as Go writes it; with
 * slashes escaped, as PHP writes it), with only its quotes escaped (as
 * protobuf-es quotes a value it cannot read), in HTML, and in base64 / base64url
 * at any alignment (so inside `Basic base64(id:secret)` or a base64 blob);
 * and, as a JSON body holds it, percent-encoded or in base64 once more.
 */
function textForms(secret: string): string[] {
  const uri = encodeURIComponent(secret);
  // What URL paths keep unescaped (& = + / and more).
  const uriLoose = encodeURI(secret);
  const bytes = new TextEncoder().encode(secret);
  // grpc-message: only bytes outside printable ASCII, and %, are escaped.
  let grpcMessage = "";
  for (const b of bytes) {
    grpcMessage += b < 0x20 || b > 0x7e || b === 0x25 ? `%${b.toString(16).toUpperCase().padStart(2, "0")}` : String.fromCharCode(b);
  }
  const json = JSON.stringify(secret).slice(1, -1);
  const asciiJson = json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  // Go's encoding/json, HTML-safe by default: < > & and U+2028/2029 as \u escapes.
  const goJson = json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  // PHP's json_encode escapes slashes, and (by default) everything outside ASCII.
  const slashes = (s: string) => s.replace(/\//g, "\\/");
  // Quotes escaped, backslashes not: how protobuf-es quotes a value in its errors.
  const quoted = secret.replace(/"/g, '\\"');
  const html = secret.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const htmlNamed = secret.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  return [
    secret,
    uri,
    lowerHex(uri),
    uriLoose,
    lowerHex(uriLoose),
    grpcMessage,
    lowerHex(grpcMessage),
    new URLSearchParams({ s: secret }).toString().slice(2),
    json,
    asciiJson,
    asciiJson.replace(/\\u([0-9a-f]{4})/g, (_m, h: string) => `\\u${h.toUpperCase()}`),
    goJson,
    slashes(json),
    slashes(asciiJson),
    quoted,
    html,
    htmlNamed,
    ...base64Forms(bytes),
    // A JSON body quoted back whole, percent-encoded or in base64: the secret as JSON wrote it, encoded again.
    ...[json, asciiJson]
      .filter((t) => t !== secret)
      .flatMap((t) => [encodeURIComponent(t), lowerHex(encodeURIComponent(t)), ...base64Forms(new TextEncoder().encode(t))]),
  ];
}

function lowerHex(percentEncoded: string): string {
  return percentEncoded.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase());
}

/**
 * The base64 and base64url text that `bytes` becomes wherever they start in
 * a longer encoded value: for each of the three alignments, the characters
 * that depend on these bytes only.
 */
function base64Forms(bytes: Uint8Array): string[] {
  // The value alone, as it is sent (`Basic ...`, a base64 API key).
  const whole = base64(bytes);
  const out = [whole, whole.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")];
  for (let shift = 0; shift < 3; shift++) {
    const padded = new Uint8Array(shift + bytes.length);
    padded.set(bytes, shift);
    let text = base64(padded).replace(/=+$/, "");
    // Characters shared with the bytes around: the first group's when
    // shifted, the last group's when it is not full.
    const start = shift === 0 ? 0 : 4;
    const end = padded.length % 3 === 0 ? text.length : Math.floor(padded.length / 3) * 4;
    text = text.slice(start, Math.max(start, end));
    if (text.length >= 4) out.push(text, text.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return out;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Masks one set of secrets in strings, bytes, errors and the data they hold. */
class Masker {
  /** What each object seen became (itself, or its clean copy): shared and cyclic data are cleaned once. */
  private readonly done = new WeakMap<object, unknown>();

  private constructor(
    private readonly text: RegExp,
    private readonly binary: RegExp,
  ) {}

  static of(secrets: readonly (string | undefined)[]): Masker | undefined {
    const forms = new Set<string>();
    for (const s of secrets) {
      if (typeof s === "string" && s.length >= MIN_SECRET_LENGTH) for (const f of textForms(s)) forms.add(f);
    }
    if (forms.size === 0) return undefined;
    // Longest first, so that a form containing another is masked whole.
    const sorted = [...forms].sort((a, b) => b.length - a.length);
    const encoder = new TextEncoder();
    return new Masker(
      new RegExp(sorted.map(escapeRegExp).join("|"), "g"),
      new RegExp(sorted.map((f) => escapeRegExp(binaryString(encoder.encode(f)))).join("|"), "g"),
    );
  }

  /** `v` without the secrets: strings and bytes as new values, errors and mutable data cleaned in place. */
  clean(v: unknown, depth: number): unknown {
    if (typeof v === "string") return this.maskText(v);
    if (typeof v !== "object" || v === null) return v;
    if (depth > MAX_DEPTH) return MASK;
    if (v instanceof Uint8Array) return this.maskBytes(v);
    const done = this.done.get(v);
    if (done !== undefined) return done;
    this.done.set(v, v);
    let clean: unknown = v;
    if (typeof Headers !== "undefined" && v instanceof Headers) clean = this.cleanHeaders(v);
    else if (v instanceof Error || Array.isArray(v) || isPlainObject(v)) clean = this.cleanFields(v, depth);
    else if (typeof URL !== "undefined" && v instanceof URL) clean = this.cleanUrl(v);
    else if (v instanceof Map || v instanceof Set) this.cleanCollection(v, depth);
    else if (typeof Request !== "undefined" && v instanceof Request) clean = this.cleanRequest(v);
    else if (typeof Response !== "undefined" && v instanceof Response) clean = this.cleanResponse(v);
    this.done.set(v, clean);
    return clean;
  }

  maskText(s: string): string {
    this.text.lastIndex = 0;
    return this.text.test(s) ? s.replace(this.text, MASK) : s;
  }

  /** Same length, so that binary framing (protobuf lengths) stays valid; a copy, never the original buffer. */
  private maskBytes(bytes: Uint8Array): Uint8Array {
    const text = binaryString(bytes);
    this.binary.lastIndex = 0;
    if (!this.binary.test(text)) return bytes;
    const masked = text.replace(this.binary, (m) => "*".repeat(m.length));
    return Uint8Array.from(masked, (c) => c.charCodeAt(0));
  }

  /** A URL object (an error's `url`, as some clients set it) whose text holds a secret: a clean copy. */
  private cleanUrl(u: URL): URL | string {
    const href = this.maskText(u.href);
    if (href === u.href) return u;
    try {
      return new URL(href);
    } catch {
      return href;
    }
  }

  /**
   * A fetch Request (what a fetch wrapper's error may hold), whose URL and
   * headers cannot be changed in place: a copy without the secrets, its
   * body left out.
   */
  private cleanRequest(r: Request): Request | string {
    const headers = this.cleanHeaderCopy(r.headers);
    const url = this.maskText(r.url);
    if (headers === undefined && url === r.url) return r;
    try {
      return new Request(url, { method: r.method, headers: headers ?? r.headers });
    } catch {
      return `[Request ${r.method}]`;
    }
  }

  /** A fetch Response, as a Request: a copy without the secrets in its URL or headers, its body and URL left out. */
  private cleanResponse(r: Response): Response | string {
    const headers = this.cleanHeaderCopy(r.headers);
    if (headers === undefined && this.maskText(r.url) === r.url) return r;
    try {
      return new Response(null, { status: r.status, statusText: this.maskText(r.statusText), headers: headers ?? r.headers });
    } catch {
      return `[Response ${r.status}]`;
    }
  }

  /** `h` copied without the secrets, or undefined when it holds none. */
  private cleanHeaderCopy(h: Headers): Headers | undefined {
    const entries: Array<[string, string]> = [];
    let changed = false;
    h.forEach((value, key) => {
      const clean: [string, string] = [this.maskText(key), this.maskText(value)];
      changed ||= clean[0] !== key || clean[1] !== value;
      entries.push(clean);
    });
    return changed ? new Headers(entries) : undefined;
  }

  /** A Map's keys and values, a Set's values, in place. */
  private cleanCollection(c: Map<unknown, unknown> | Set<unknown>, depth: number): void {
    const entries = c instanceof Map ? [...c] : [...c].map((v) => [v, v] as const);
    c.clear();
    for (const [key, value] of entries) {
      if (c instanceof Map) c.set(this.clean(key, depth + 1), this.clean(value, depth + 1));
      else c.add(this.clean(value, depth + 1));
    }
  }

  private cleanHeaders(h: Headers): Headers {
    const clean = this.cleanHeaderCopy(h);
    if (clean === undefined) return h;
    try {
      for (const name of new Set(h.keys())) h.delete(name);
      clean.forEach((value, key) => h.append(key, value));
      return h;
    } catch {
      // Immutable headers (a fetch Response's): the clean copy instead.
      return clean;
    }
  }

  /**
   * Every own data field (errors: message, stack, cause and the rest too),
   * in place; a frozen object is replaced by a clean copy. Field names are
   * cleaned on plain data (a server may key an object by what it was sent).
   */
  private cleanFields(o: object, depth: number): object {
    const record = o as Record<PropertyKey, unknown>;
    const plain = !(o instanceof Error) && !Array.isArray(o);
    const frozen = Object.isFrozen(o);
    const copy = frozen ? ((Array.isArray(o) ? [] : {}) as Record<PropertyKey, unknown>) : undefined;
    for (const key of Reflect.ownKeys(o)) {
      const desc = Object.getOwnPropertyDescriptor(o, key);
      if (desc && key === "stack" && !("value" in desc) && o instanceof Error) {
        this.cleanStack(o, desc);
        continue;
      }
      if (!desc || !("value" in desc)) continue;
      const value = this.clean(desc.value, depth + 1);
      const name = plain && typeof key === "string" ? this.maskText(key) : key;
      if (copy) {
        copy[name] = value;
        continue;
      }
      if (name !== key) {
        delete record[key];
        record[name] = value;
      } else if (value !== desc.value) {
        try {
          Object.defineProperty(o, key, { ...desc, value });
        } catch {
          // A field that cannot be redefined: set it if it can be set.
          if (desc.writable) record[key] = value;
        }
      }
    }
    return copy ?? o;
  }

  /**
   * A `stack` that is an accessor, as newer V8 makes it (Node 21 and later,
   * Chromium): it holds the message as it was when the error was made, so
   * it is read through its getter and written back masked, through its
   * setter or, failing that, as a plain value.
   */
  private cleanStack(e: Error, desc: PropertyDescriptor): void {
    const read = (): unknown => {
      try {
        return desc.get?.call(e);
      } catch {
        return undefined;
      }
    };
    const stack = read();
    if (typeof stack !== "string") return;
    const clean = this.maskText(stack);
    if (clean === stack) return;
    try {
      desc.set?.call(e, clean);
      if (read() === clean) return;
    } catch {
      // Replaced below.
    }
    try {
      Object.defineProperty(e, "stack", { value: clean, writable: true, enumerable: false, configurable: true });
    } catch {
      // Not configurable: nothing else can be done with it.
    }
  }
}
