/**
 * Agent Card resolution: where to look, what to accept, what to cache.
 *
 * URL rules, in order:
 * 1. A URL whose path ends in `.json` is the card itself.
 * 2. Otherwise `{url}/.well-known/agent-card.json`, keeping the URL's path
 *    (`https://h/agents/a` -> `https://h/agents/a/.well-known/agent-card.json`),
 * 3. then the origin's `/.well-known/agent-card.json`,
 * 4. then the 0.3 location `/.well-known/agent.json`.
 * Only 404 and 410 move on to the next location; any other failure is reported.
 */
import type { JsonValue } from "@bufbuild/protobuf";
import { AgentCardSchema, type AgentCard } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { A2AError, AgentCardNotFoundError, InvalidAgentCardError, isRecord } from "../errors.js";
import {
  MemoryCardStore,
  fresh,
  revalidated,
  revalidationHeaders,
  storable,
  storedCard,
  type CardStore,
  type StoredCard,
} from "./cache.js";
import { cardV03ToV1, isV03Card } from "./card-v03.js";
import { fetchJsonDocument, type DocumentFetchOptions } from "./fetch-document.js";
import { findDuplicateKey } from "./json.js";
import { missingRequired } from "./required.js";
import type { VerificationResult, VerifyOptions, VerifyPolicy } from "./verify.js";
import { messageFromJson } from "../proto-json.js";

/** How `resolveAgentCard` fetches, caches and verifies a card. */
export interface ResolveOptions extends DocumentFetchOptions {
  /**
   * The card cache. Default: one in-memory cache shared by every resolve in
   * this process. `false` fetches every time.
   */
  cache?: CardStore | false | undefined;
  /** Serve a stale cached card when revalidating it fails (network error or 5xx). Default false. */
  staleIfError?: boolean | undefined;
  /**
   * Signature policy. "if-present" (default): a card that carries signatures
   * must verify; "required": a card must carry a verifying signature; "off".
   */
  verify?: VerifyPolicy | undefined;
  /** Keys and rules for verification. */
  verification?: Omit<VerifyOptions, "cardUrl"> | undefined;
}

/** A card as `resolveAgentCard` found it: where from, and how it verified. */
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
}

/** The `A2A-Version` sent with card requests. */
export const PROTOCOL_HEADER_VERSION = "1.0";

const defaultStore = new MemoryCardStore();
const inflight = new Map<string, Promise<ResolvedAgentCard>>();

/**
 * The URLs where the card of the agent at `url` may be, in the order they are
 * tried: a `.json` URL as is; otherwise the well-known path under the URL's
 * path, then at the origin, then the older `agent.json` name.
 */
export function cardUrlCandidates(url: string): string[] {
  const u = new URL(url);
  if (/\.json$/i.test(u.pathname)) return [u.href];
  const path = u.pathname.replace(/\/+$/, "");
  return [
    ...new Set([
      `${u.origin}${path}/.well-known/agent-card.json`,
      `${u.origin}/.well-known/agent-card.json`,
      `${u.origin}/.well-known/agent.json`,
    ]),
  ];
}

/** Finds, fetches (or takes from the cache), validates and verifies an Agent Card. */
export function resolveAgentCard(url: string, options: ResolveOptions = {}): Promise<ResolvedAgentCard> {
  const headers = requestHeaders(options.headers);
  const headerKey = [...headers].join("\n");
  // Callers asking for the same card at once share one request.
  const key = `${url}\n${headerKey}\n${options.verify ?? ""}`;
  const pending = inflight.get(key);
  if (pending) return pending;
  const p = resolveUncoalesced(url, headers, headerKey, options).finally(() => inflight.delete(key));
  inflight.set(key, p);
  return p;
}

async function resolveUncoalesced(url: string, headers: Headers, headerKey: string, options: ResolveOptions): Promise<ResolvedAgentCard> {
  const tried: string[] = [];
  for (const candidate of cardUrlCandidates(url)) {
    tried.push(candidate);
    const found = await resolveAt(candidate, headers, headerKey, options);
    if (found) return found;
  }
  throw new AgentCardNotFoundError(`no Agent Card found; tried ${tried.join(", ")}`, { tried, httpStatus: 404 });
}

function requestHeaders(init: HeadersInit | undefined): Headers {
  const h = new Headers(init);
  h.set("A2A-Version", PROTOCOL_HEADER_VERSION);
  if (!h.has("Accept")) h.set("Accept", "application/json");
  return h;
}

/** The card at one URL, or undefined when there is none (404/410). */
async function resolveAt(url: string, headers: Headers, headerKey: string, options: ResolveOptions): Promise<ResolvedAgentCard | undefined> {
  const store = options.cache === false ? undefined : (options.cache ?? defaultStore);
  const key = `${url}\n${headerKey}`;
  const stored = store ? await store.get(key) : undefined;
  // A store may hold entries of another shape (an older version's): those are misses.
  const cached = stored && typeof stored.receivedAt === "number" && isRecord(stored.headers) ? stored : undefined;

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
    if (cached && options.staleIfError) return finish(cached, "stale", options);
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
    throw new A2AError(`fetching the Agent Card at ${url} failed with HTTP ${doc.status}`, { httpStatus: doc.status });
  }

  const entry = storedCard(doc.headers, doc.text, doc.url);
  // Parse before storing: an invalid card is never cached.
  parsedOf(entry);
  if (store && storable(headers, entry)) await store.set(key, entry);
  return finish(entry, "miss", options);
}

interface ParsedCard {
  card: AgentCard;
  shape: "1.0" | "0.3";
  verified?: { policy: VerifyPolicy; options: ResolveOptions["verification"]; result: VerificationResult | undefined };
}

// Parsing and verifying are done once per stored entry object, so a cache
// hit costs a lookup, not a parse.
const parsed = new WeakMap<StoredCard, ParsedCard>();

function parsedOf(entry: StoredCard): ParsedCard {
  let p = parsed.get(entry);
  if (!p) {
    p = parseCard(entry.body, entry.url);
    parsed.set(entry, p);
  }
  return p;
}

function reuseParsed(from: StoredCard, to: StoredCard): void {
  const p = parsed.get(from);
  if (p) parsed.set(to, p);
}

async function finish(entry: StoredCard, cache: ResolvedAgentCard["cache"], options: ResolveOptions): Promise<ResolvedAgentCard> {
  const p = parsedOf(entry);
  const policy = options.verify ?? "if-present";
  if (!p.verified || p.verified.policy !== policy || p.verified.options !== options.verification) {
    const result = await verifyWithPolicy(p.card, policy, { ...options.verification, cardUrl: entry.url });
    p.verified = { policy, options: options.verification, result };
  }
  return { card: p.card, url: entry.url, shape: p.shape, cache, verification: p.verified.result };
}

/** Verifies a card under a policy; undefined when the policy asks for nothing. */
export async function verifyWithPolicy(card: AgentCard, policy: VerifyPolicy, options: VerifyOptions): Promise<VerificationResult | undefined> {
  if (policy === "off" || (policy === "if-present" && card.signatures.length === 0)) return undefined;
  // Loaded on demand: code that never verifies does not carry jose.
  const { applyVerifyPolicy } = await import("./verify.js");
  return applyVerifyPolicy(card, policy, options);
}

/** Parses and validates card JSON text; throws InvalidAgentCardError naming what is wrong. */
export function parseCard(text: string, url: string): ParsedCard {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new InvalidAgentCardError(`the Agent Card at ${url} is not valid JSON: ${(e as Error).message}`, { problem: "malformed-json", cause: e });
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate) {
    throw new InvalidAgentCardError(`the Agent Card at ${url} repeats the key ${duplicate}`, { problem: "duplicate-key" });
  }
  if (!isRecord(json) || Array.isArray(json)) {
    throw new InvalidAgentCardError(`the Agent Card at ${url} is not a JSON object`, { problem: "not-an-object" });
  }
  const shape = isV03Card(json) ? "0.3" : "1.0";
  const v1 = shape === "0.3" ? cardV03ToV1(json) : json;
  const missing = missingRequired(AgentCardSchema, v1);
  if (missing.length > 0) {
    throw new InvalidAgentCardError(`the Agent Card at ${url} lacks required fields: ${missing.join(", ")}`, {
      problem: "missing-fields",
      missingFields: missing,
    });
  }
  let card: AgentCard;
  try {
    card = messageFromJson(AgentCardSchema, v1 as JsonValue);
  } catch (e) {
    throw new InvalidAgentCardError(`the Agent Card at ${url} does not match the schema: ${(e as Error).message}`, {
      problem: "wrong-shape",
      cause: e,
    });
  }
  return { card: deepFreeze(card), shape };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value) && !ArrayBuffer.isView(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
