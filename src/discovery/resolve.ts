/**
 * Agent Card resolution: where to look, what to accept, what to cache.
 *
 * URL rules, in order:
 * 1. A URL whose path ends in `.json` is the card itself.
 * 2. Otherwise `{url}/.well-known/agent-card.json`, keeping the URL's path
 *    (`https://h/agents/a` -> `https://h/agents/a/.well-known/agent-card.json`),
 * 3. then the origin's `/.well-known/agent-card.json`,
 * 4. then the 0.3 location `/.well-known/agent.json`,
 * 5. then, for a URL whose path ends in a segment, `/.well-known/{segment}/agent-card.json`
 *    (`https://h/agents/a` -> `https://h/.well-known/a/agent-card.json`), where
 *    servers that host several agents (VoltAgent, Mastra) serve each one's card.
 * Only 404 and 410 move on to the next location; any other failure is reported.
 */
import type { JsonValue } from "@bufbuild/protobuf";
import { AgentCardSchema, type AgentCard } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { A2AError, AbortedError, AgentCardNotFoundError, CallTimeoutError, InvalidAgentCardError } from "../errors/family.js";
import { classification } from "../errors/classification.js";
import { parseRetryAfter } from "../errors/retry-after.js";
import { rejectWithoutSent } from "../http/run-call.js";
import { headersFrom } from "../call/options.js";
import { unlessAborted } from "../base/abort.js";
import { isRecord } from "../base/is-record.js";
import { startTimer } from "../base/timers.js";
import { parsedUrl, safeUrl } from "../base/urls.js";
import { checkDuration } from "../call/option-checks.js";
import { MemoryCardStore, cardStoreKey, fresh, revalidated, revalidationHeaders, storable, storedCard, type StoredCard } from "./cache.js";
import { isV03Card } from "../v0_3/card-version.js";
import { onDemand } from "../base/on-demand.js";
import { checkDocumentFetch, checkRedirectChain, fetchJsonDocument } from "../trust/fetch-document.js";
import { findDuplicateKey } from "../base/duplicate-keys.js";
import { checkCardLocalUrls } from "../trust/local-urls.js";
import { identityOf, optionsKey } from "../base/options-key.js";
import { DESCRIPTIVE_CARD_FIELDS, missingRequired } from "../protocol/required.js";
import { resolveRelativeInterfaces } from "./relative-urls.js";
import { carriesSignatures } from "../trust/signed.js";
import { VERIFY_KIT } from "../trust/verify-kit.js";
import type { VerifyOptions, VerifyPolicy } from "../trust/options.js";
import type { VerificationResult } from "../errors/verification-result.js";
import { messageFromJson } from "../protocol/proto-json.js";
import type { Exchange, ResolveOptions } from "./resolve-options.js";

export type { ResolveOptions } from "./resolve-options.js";

/** A card as `resolveAgentCard` found it: where from, and how it verified. @category Discovery and trust */
export interface ResolvedAgentCard {
  /** The card in the 1.0 shape, frozen: it may be shared with other callers through the cache. */
  card: AgentCard;
  /** The URL the card came from, after redirects. */
  url: string;
  /** The shape the agent served: "0.3" cards are converted to the 1.0 shape. */
  shape: "1.0" | "0.3";
  /** "miss": fetched; "hit": fresh from the cache; "revalidated": 304; "stale": served stale after a failed revalidation. */
  cache: "miss" | "hit" | "revalidated" | "stale";
  /** Undefined when the policy is "off" or the card is unsigned under "if-present". */
  verification: VerificationResult | undefined;
  /** What was read leniently, in words: an interface URL given relative to the card's, resolved against it. */
  warnings: readonly string[];
}

/** The `A2A-Version` sent with card requests. */
export const PROTOCOL_HEADER_VERSION = "1.0";

const defaultStore = new MemoryCardStore();
const inflight = new Map<string, Promise<ResolvedAgentCard>>();

/**
 * The URLs where the card of the agent at `url` may be, in the order they are
 * tried: a `.json` URL as is; otherwise the well-known path under the URL's
 * path, then at the origin, then the older `agent.json` name, then (for a
 * path that ends in a segment) `/.well-known/{segment}/agent-card.json`.
 * All on the URL's origin.
 * @category For tool authors
 */
export function cardUrlCandidates(url: string): string[] {
  const u = new URL(url);
  if (/\.json$/i.test(u.pathname)) return [u.href];
  const path = u.pathname.replace(/\/+$/, "");
  const segment = path.slice(path.lastIndexOf("/") + 1);
  return [
    ...new Set([
      `${u.origin}${path}/.well-known/agent-card.json`,
      `${u.origin}/.well-known/agent-card.json`,
      `${u.origin}/.well-known/agent.json`,
      ...(segment ? [`${u.origin}/.well-known/${segment}/agent-card.json`] : []),
    ]),
  ];
}

/**
 * Finds, fetches (or takes from the cache), validates and verifies an Agent Card.
 * @example
 * ```ts
 * import { resolveAgentCard, connect } from "a2a-connect";
 *
 * const resolved = await resolveAgentCard("https://agent.example.com", { verify: "required" });
 * console.log(resolved.url, resolved.card.name, resolved.verification?.kid);
 * const session = await connect(resolved); // no second fetch
 * ```
 * @category Discovery and trust
 */
export function resolveAgentCard(url: string, options: ResolveOptions = {}): Promise<ResolvedAgentCard> {
  let headers: Headers;
  try {
    headers = requestHeaders(options.headers);
  } catch (e) {
    // A rejection, as for every other bad option.
    return Promise.reject(e);
  }
  const headerKey = [...headers].join("\n");
  // Callers asking for the same card at once share one request, and only
  // when nothing that decides the outcome differs between them: the key
  // holds every option's content (functions, stores and signals by identity).
  const key = `${url}\n${headerKey}\n${optionsKey({ ...options, headers: undefined })}`;
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  return coalesced(key, deadline, () => resolveUncoalesced(url, headers, headerKey, options, deadline));
}

/** Default of `timeoutMs`: discovery (and what connect() loads on demand) ends within 10 s. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * The exchange under `key` that is under way, else `run()`, shared with the
 * callers that come while it runs. One that started earlier has an earlier
 * deadline: when it runs out of time, a caller with time left runs its own.
 */
function coalesced(key: string, deadline: number, run: () => Promise<ResolvedAgentCard>): Promise<ResolvedAgentCard> {
  const pending = inflight.get(key);
  if (pending) {
    return pending.catch((e: unknown) => {
      if (e instanceof CallTimeoutError && Date.now() < deadline) return coalesced(key, deadline, run);
      throw e;
    });
  }
  const p = run().finally(() => {
    if (inflight.get(key) === p) inflight.delete(key);
  });
  inflight.set(key, p);
  return p;
}

async function resolveUncoalesced(
  url: string,
  headers: Headers,
  headerKey: string,
  options: ResolveOptions,
  deadline: number,
): Promise<ResolvedAgentCard> {
  // Before the timer: a NaN timeout would fire at once; a URL that is not
  // one is named without its text, which may hold credentials.
  checkDocumentFetch(url, options);
  // One deadline and one signal for the whole exchange: every location
  // tried and every key set fetched to verify the card.
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timedOut = () => new CallTimeoutError(`no verified Agent Card from ${safeUrl(url)} within ${timeoutMs} ms`);
  const exchange = exchangeSignal(
    [options.signal, options.verification?.signal],
    "resolving the Agent Card",
    Math.max(0, deadline - Date.now()),
    timedOut,
  );
  const signal = exchange.signal;
  const call: Exchange = { ...options, signal, deadline };
  const search = async (): Promise<ResolvedAgentCard> => {
    const tried: string[] = [];
    for (const candidate of cardUrlCandidates(url)) {
      // Named without query or user info, which may carry a key.
      tried.push(safeUrl(candidate));
      const found = await resolveAt(candidate, headers, headerKey, call);
      if (found) return found;
    }
    throw new AgentCardNotFoundError(`no Agent Card found; tried ${tried.join(", ")}`, { tried, httpStatus: 404 });
  };
  try {
    // Aborted before it starts: nothing is asked of the network or the cache.
    if (signal.aborted) throw signal.reason;
    // Raced against the exchange's signal: a card store, a `fetch` or a key
    // set shared with another resolve that never settles cannot hold this
    // one past its deadline or its signal.
    return await unlessAborted(search(), signal);
  } catch (e) {
    // Whatever a step reports once the exchange was cut short, the reason is the deadline or the abort;
    // also when the deadline has passed but a step's own timer, set to the time that was left (a key
    // set's), fired a moment before the exchange's: which timer runs first is the machine's business.
    // What the caller sent (its headers, the URL's user info and query) is masked as on a call's
    // error: the agent may echo it, and fetch names a URL with user info in full.
    const reason = signal.aborted ? signal.reason : Date.now() >= deadline ? timedOut() : e;
    return await rejectWithoutSent(reason, headers, url);
  } finally {
    exchange.release();
  }
}

/**
 * One signal for a whole exchange (a resolve, a verification): aborted
 * with AbortedError naming `what` when one of `signals` is (its reason as
 * the cause), or with `timedOut()` after `ms`. `release` clears the timer
 * and the listeners.
 */
function exchangeSignal(
  signals: readonly (AbortSignal | undefined)[],
  what: string,
  ms: number,
  timedOut: () => Error,
): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const stop = () => controller.abort(new AbortedError(`${what} was aborted`, { cause: signals.find((s) => s?.aborted)?.reason }));
  for (const s of signals) {
    if (s?.aborted) stop();
    else s?.addEventListener("abort", stop, { once: true });
  }
  const timer = startTimer(() => controller.abort(timedOut()), ms);
  return {
    signal: controller.signal,
    release: () => {
      clearTimeout(timer);
      for (const s of signals) s?.removeEventListener("abort", stop);
    },
  };
}

function requestHeaders(init: HeadersInit | undefined): Headers {
  // A value the Headers class refuses is named, not quoted: it may be a credential.
  const h = headersFrom(init, "the card request's headers");
  h.set("A2A-Version", PROTOCOL_HEADER_VERSION);
  if (!h.has("Accept")) h.set("Accept", "application/json");
  return h;
}

/** The card at one URL, or undefined when there is none (404/410). */
async function resolveAt(url: string, headers: Headers, headerKey: string, options: Exchange): Promise<ResolvedAgentCard | undefined> {
  const wanted = options.cache === false ? undefined : (options.cache ?? defaultStore);
  // Cards fetched through a function of the caller's own are kept apart from the rest.
  const distinct = `${url}\n${headerKey}${options.fetch === undefined ? "" : `\nfetch#${identityOf(options.fetch)}`}`;
  // Where no key can be made (no Web Crypto), no store is used.
  const key = (wanted && (await cardStoreKey(url, distinct))) ?? "";
  const store = key ? wanted : undefined;
  const stored = store ? await store.get(key) : undefined;
  // A store may hold entries of another shape (an older version's), and
  // entries fetched in a way this caller's rules would not have allowed:
  // those are misses.
  const cached =
    stored && typeof stored.receivedAt === "number" && isRecord(stored.headers) && obtainable(stored, url, options) ? stored : undefined;

  if (cached && fresh(cached, headers)) {
    return finish(cached, "hit", options);
  }

  let fetchHeaders = headers;
  if (cached) {
    fetchHeaders = new Headers(headers);
    for (const [k, v] of Object.entries(revalidationHeaders(cached))) fetchHeaders.set(k, v);
    // fetch adds `Cache-Control: no-cache` to conditional requests, and some
    // servers (Express among them) then answer 200 instead of 304.
    fetchHeaders.set("Cache-Control", "max-age=0");
  }

  let doc;
  try {
    doc = await fetchJsonDocument(url, { ...options, headers: fetchHeaders });
  } catch (e) {
    if (cached && options.staleIfError && !options.signal.aborted) return finish(cached, "stale", options);
    throw e;
  }
  if (cached && options.staleIfError && doc.status >= 500) return finish(cached, "stale", options);

  if (cached && doc.status === 304) {
    const refreshed = revalidated(cached, doc.headers);
    reuseParsed(cached, refreshed);
    await store!.set(key, refreshed);
    return finish(refreshed, "revalidated", options);
  }
  if (doc.status === 404 || doc.status === 410) return undefined;
  if (doc.status !== 200) {
    // Classified as a call's answer of that status is: a 401 is an
    // AuthenticationError with its challenge, a 429 or 503 a transient
    // ServerError with its Retry-After, whatever was asked for. The
    // classification loads then (the search is raced against its signal).
    const facts = {
      message: `fetching the Agent Card at ${safeUrl(url)} failed with HTTP ${doc.status}`,
      httpStatus: doc.status,
      challenge: doc.headers.get("WWW-Authenticate") ?? undefined,
      retryAfterMs: parseRetryAfter(doc.headers.get("Retry-After")),
      url,
    };
    throw await classification().then(
      (m) => m.errorFromServer(facts),
      (loadError: unknown) =>
        new A2AError(`${facts.message}; the code that classifies it did not load`, { httpStatus: doc.status, cause: loadError }),
    );
  }

  const entry = storedCard(doc.headers, doc.text, doc.url);
  if (doc.redirects.length > 0) entry.redirects = doc.redirects;
  // Parse before storing: an invalid card is never cached.
  await parsedOf(entry);
  if (store && storable(headers, entry)) await store.set(key, entry);
  return finish(entry, "miss", options);
}

/** Whether this caller could have fetched the stored card itself: its redirect rules and size limit. */
function obtainable(entry: StoredCard, url: string, options: ResolveOptions): boolean {
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  // A UTF-8 string takes at most three bytes per UTF-16 unit: only a large card needs counting.
  if (entry.body.length * 3 > maxBytes && new TextEncoder().encode(entry.body).byteLength > maxBytes) return false;
  // An entry of an older version has no chain: a different URL means at least one redirect.
  const chain = Array.isArray(entry.redirects) ? entry.redirects : entry.url === url ? [] : [entry.url];
  try {
    checkRedirectChain(url, chain, options);
    return true;
  } catch {
    return false;
  }
}

/** An Agent Card document as `parseCard` read and validated it. @category For tool authors */
export interface ParsedAgentCard {
  /** The card in the 1.0 shape, frozen. */
  card: AgentCard;
  /** The shape the agent served: "0.3" cards are converted to the 1.0 shape. */
  shape: "1.0" | "0.3";
  /** The document as received, frozen: what signatures are verified over, and what `card` is parsed from. */
  json: Readonly<Record<string, unknown>>;
  /** What was read leniently, in words (see `ResolvedAgentCard.warnings`). */
  warnings: readonly string[];
}

interface ParsedCard extends ParsedAgentCard {
  /** Whether the received JSON carries signatures (a 0.3 card's are not in `card`). */
  signed: boolean;
}

// Set once a card verified in this process: until then no origin can have
// served signed cards, and an unsigned card needs no verifier to pass.
let verifiedBefore = false;

// Parsing and verifying are done once per stored entry object, so a cache
// hit costs a lookup, not a parse.
const parsed = new WeakMap<StoredCard, ParsedCard>();

async function parsedOf(entry: StoredCard): Promise<ParsedCard> {
  let p = parsed.get(entry);
  if (!p) {
    const c = await readCard(entry.body, entry.url);
    p = { ...c, signed: c.shape === "0.3" ? carriesSignatures(c.json) : c.card.signatures.length > 0 };
    parsed.set(entry, p);
  }
  return p;
}

function reuseParsed(from: StoredCard, to: StoredCard): void {
  const p = parsed.get(from);
  if (p) parsed.set(to, p);
}

async function finish(entry: StoredCard, cache: ResolvedAgentCard["cache"], options: Exchange): Promise<ResolvedAgentCard> {
  const p = await parsedOf(entry);
  // Before the key sets it names are fetched, and whether it came from the cache or not.
  checkCardLocalUrls(p.card, entry.url, options.localUrls);
  const policy = options.verify ?? "if-present";
  let verification: VerificationResult | undefined;
  if (policy !== "off" && (p.signed || policy !== "if-present" || verifiedBefore)) {
    // Loaded on demand: code that never verifies does not carry jose.
    const { verifyResolved } = await import("./resolve-verify.js");
    verification = await verifyResolved(p, entry.url, policy, options, VERIFY_KIT);
    if (verification?.verified) verifiedBefore = true;
  }
  return { card: p.card, url: entry.url, shape: p.shape, cache, verification, warnings: p.warnings };
}

/**
 * A card the caller holds (`connect(card)`, a card file), held to `options.verify` within
 * the caller's `signal` and `timeoutMs` (default 10 s), as a fetched card's
 * verification is: key set requests count against them, and neither a key
 * set that never answers nor a `fetch` that ignores its signal holds the
 * caller past them (AbortedError, CallTimeoutError). `verification.cardUrl`
 * says where the card came from, when known.
 */
export async function verifyCardInHand(
  card: AgentCard,
  options: ResolveOptions,
  verification: VerifyOptions | undefined,
  json?: Readonly<Record<string, unknown>>,
): Promise<VerificationResult | undefined> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Before the timer: a NaN would fire it at once.
  checkDuration(options.timeoutMs, "timeoutMs");
  const { signal, release } = exchangeSignal(
    [options.signal, verification?.signal],
    "verifying the Agent Card",
    timeoutMs,
    () => new CallTimeoutError(`the Agent Card given was not verified within ${timeoutMs} ms`),
  );
  try {
    if (signal.aborted) throw signal.reason;
    // Key set requests keep their own timeout; this one's timer ends the whole of it.
    const verifying = verifyWithPolicy(card, options.verify ?? "if-present", { ...verification, signal }, json);
    return await unlessAborted(verifying, signal);
  } catch (e) {
    throw signal.aborted ? signal.reason : e;
  } finally {
    release();
  }
}

/**
 * Verifies a card under a policy; undefined when the policy asks for
 * nothing. Over `json`, the JSON the card was read from, when given: its
 * signatures cover members the card may not hold (a 0.3 card's, a newer
 * agent's fields).
 */
export async function verifyWithPolicy(
  card: AgentCard,
  policy: VerifyPolicy,
  options: VerifyOptions,
  json?: Readonly<Record<string, unknown>>,
): Promise<VerificationResult | undefined> {
  const signed = json ? carriesSignatures(json) : card.signatures.length > 0;
  if (policy === "off" || (policy === "if-present" && !signed)) return undefined;
  // Loaded on demand: code that never verifies does not carry jose.
  const { applyPolicyWith } = await import("../trust/verify.js");
  return applyPolicyWith(VERIFY_KIT, json && signed ? json : card, policy, options);
}

/**
 * `parseCard` (parse-card.ts), reading a 0.3 card with code loaded on demand (v0_3/card.ts):
 * how discovery and `connect()` read cards, so that an app whose agents serve
 * 1.0 cards never loads it. The load is awaited through `held`, which holds
 * it to the caller's deadline and signal; discovery races its whole exchange
 * against them instead.
 */
export async function readCard(
  document: string | Readonly<Record<string, unknown>>,
  url: string,
  held: <T>(load: Promise<T>) => Promise<T> = (load) => load,
): Promise<ParsedAgentCard> {
  const { json, named } = cardJson(document, url);
  return cardFrom(json, isV03Card(json) ? (await held(loadV03Card())).cardV03ToV1 : undefined, url, named);
}

const loadV03Card = onDemand(() => import("../v0_3/card.js"));

/** A card document as a JSON object, and how errors name it; InvalidAgentCardError for what is not one. */
export function cardJson(
  document: string | Readonly<Record<string, unknown>>,
  url: string,
): { json: Record<string, unknown>; named: string } {
  // A URL is named by origin and path (its query may hold a key); a local name, such as a file's path, as it is.
  const named = !url ? "the Agent Card given" : `the Agent Card at ${parsedUrl(url) ? safeUrl(url) : url}`;
  let text: string;
  let json: unknown;
  try {
    // A value given is copied through its JSON text: what is frozen and verified is the caller's data, not the caller's object.
    text = typeof document === "string" ? document : JSON.stringify(document);
    json = JSON.parse(text);
  } catch (e) {
    // The parser's message quotes the text around the fault, cut short: it
    // may hold part of a credential the server echoed, which no masking
    // could find. Only where the fault is, when the parser says.
    const at = /at position (\d+)/.exec((e as Error).message)?.[1];
    throw new InvalidAgentCardError(`${named} is not valid JSON${at === undefined ? "" : ` (at position ${at})`}`, {
      problem: "malformed-json",
    });
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate) {
    throw new InvalidAgentCardError(`${named} repeats the key ${duplicate}`, { problem: "duplicate-key" });
  }
  if (!isRecord(json) || Array.isArray(json)) {
    throw new InvalidAgentCardError(`${named} is not a JSON object`, { problem: "not-an-object" });
  }
  return { json, named };
}

/** The card of a document's JSON object, read in the 1.0 shape (`toV1`: a 0.3 card's conversion to it). */
export function cardFrom(
  json: Record<string, unknown>,
  toV1: ((json: Record<string, unknown>) => Record<string, unknown>) | undefined,
  url: string,
  named: string,
): ParsedAgentCard {
  const shape = toV1 ? "0.3" : "1.0";
  const v1 = toV1 ? toV1(json) : json;
  const missing = missingRequired(AgentCardSchema, v1);
  const needed = missing.filter((path) => !DESCRIPTIVE_CARD_FIELDS.has(path.replace(/\[\d+\]/g, "[]")));
  if (needed.length > 0) {
    throw new InvalidAgentCardError(`${named} lacks required fields: ${needed.join(", ")}`, {
      problem: "missing-fields",
      missingFields: needed,
    });
  }
  let card: AgentCard;
  try {
    card = messageFromJson(AgentCardSchema, v1 as JsonValue);
  } catch (e) {
    throw new InvalidAgentCardError(`${named} does not match the schema: ${(e as Error).message}`, {
      problem: "wrong-shape",
      cause: e,
    });
  }
  const warnings = resolveRelativeInterfaces(card, url, named);
  if (missing.length > 0) warnings.unshift(`the card lacks REQUIRED fields no call needs, read as empty: ${missing.join(", ")}`);
  return { card: deepFreeze(card), shape, json: deepFreeze(json), warnings };
}

/**
 * Freezes `value` and everything in it. With a stack of its own, not by
 * recursion: an agent's card may nest unknown members as deep as its size
 * allows (a megabyte of `[` is half a million levels), which would overflow
 * the call stack with a RangeError instead of giving the card back.
 */
function deepFreeze<T>(value: T): T {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v !== "object" || v === null || Object.isFrozen(v) || ArrayBuffer.isView(v)) continue;
    Object.freeze(v);
    for (const child of Object.values(v)) pending.push(child);
  }
  return value;
}
