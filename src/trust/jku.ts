/**
 * Key sets named by a signature's `jku`: which URLs may be fetched (https,
 * or http on loopback for a card from loopback; on an allowed origin,
 * redirects included), fetching one and checking that
 * it is a JWKS, through the caller's key set cache.
 */
import type { JWK } from "jose";
import { fetchJsonDocument } from "./fetch-document.js";
import { AbortedError, CallTimeoutError, RedirectRefusedError } from "../errors/family.js";
import type { Context, JkuRules } from "./context.js";
import { isLoopbackUrl } from "./loopback.js";
import { areLoopbackAliases } from "./loopback-names.js";
import type { FetchedKeySet, KeySetRequest } from "./jwks-cache.js";
import { clip, errorMessage, Rejection } from "./rejection.js";
import { isJsonObject } from "../base/is-record.js";
import { followSignal } from "../base/abort.js";
import { startTimer } from "../base/timers.js";

/** Redirects followed on the way to a key set, at most. */
const MAX_REDIRECTS = 3;

/** The key set at a signature's `jku`, cached or fetched under `rules`: its URL as checked, its keys, and until when (epoch ms) they may be used. */
export async function keySetAt(
  jku: string,
  kid: string,
  rules: JkuRules,
  ctx: Context,
): Promise<{ url: string; keys: readonly JWK[]; validUntil: number }> {
  const url = checkJkuUrl(jku, rules, "jku_not_allowed");
  // This caller's own end, its abort or its timeout: it bounds its wait for
  // a fetch another caller started as much as a fetch of its own, and it
  // ends nobody else's.
  const { controller, unlink } = followSignal(
    ctx.signal,
    () => new AbortedError("agent card verification was aborted", { cause: ctx.signal?.reason }),
  );
  const timer = startTimer(() => controller.abort(new CallTimeoutError(`no key set within ${ctx.timeoutMs} ms`)), ctx.timeoutMs);
  const own: Context = { ...ctx, signal: controller.signal };
  try {
    const set = await rules.cache.keysFor(url, kid, keySetRequest(rules, own, controller.signal), () => fetchJwks(url, rules, own));
    return { url, keys: set.keys, validUntil: set.validUntil };
  } catch (e) {
    // Whatever a step reports once this caller's time ran out or it aborted, the reason is that.
    const reason: unknown = controller.signal.aborted ? controller.signal.reason : e;
    if (reason instanceof CallTimeoutError) {
      throw new Rejection("jku_fetch_failed", `fetching the key set timed out after ${ctx.timeoutMs} ms`);
    }
    throw reason;
  } finally {
    clearTimeout(timer);
    unlink();
  }
}

function checkJkuUrl(raw: string, rules: JkuRules, code: "jku_not_allowed" | "jku_redirect"): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Rejection(code, `jku "${clip(raw)}" is not an absolute URL`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && httpAllowed(url, rules))) {
    throw new Rejection(
      code === "jku_redirect" ? code : "jku_insecure",
      `${clip(url.origin === "null" ? url.protocol : url.origin)} is not https${url.protocol === "http:" ? httpHint(rules) : ""}`,
    );
  }
  if (url.username !== "" || url.password !== "") throw new Rejection(code, "a jku must not carry credentials");
  if (!rules.allowedOrigins.has(url.origin)) throw new Rejection(code, notAllowed(url, rules));
  url.hash = "";
  return url.href;
}

/** Why a key set's origin is refused, and what would allow it: where the card came from, or the origins to allow. */
function notAllowed(url: URL, rules: JkuRules): string {
  const origin = clip(url.origin);
  const allowed = [...rules.allowedOrigins];
  const allow =
    `pass verification: { jku: { allowedOrigins: ${JSON.stringify([...allowed, origin])} } } to connect() or resolveAgentCard() ` +
    "(jku: { allowedOrigins } to verifyAgentCard())";
  if (!rules.cardKnown && allowed.length === 0) return `${origin} is not an allowed key origin: ${UNKNOWN_CARD}, or ${allow}`;
  const refused = `${origin} is not an allowed key origin (allowed: ${allowed.join(", ") || "none"})`;
  const alias = allowed.find((a) => areLoopbackAliases(new URL(a), url));
  if (alias === undefined) return `${refused}; to trust key sets there, ${allow}`;
  return (
    `${refused}; it differs from ${alias} only as another loopback name for the same port, and only a card fetched as ` +
    "localhost may name its keys at 127.0.0.1 or [::1] on its port (the addresses that name reaches; an address names one " +
    `socket, and a name could reach another): fetch the card from ${origin}, or ${allow}`
  );
}

/** What a card of unknown origin lacks, for the messages that refuse its key set. */
const UNKNOWN_CARD =
  "where the card came from is not known: pass cardUrl, the URL it was fetched from (connect(card, { cardUrl }), verifyAgentCard(card, { cardUrl }))";

function httpAllowed(url: URL, rules: JkuRules): boolean {
  return rules.http === "any" || (rules.http === "loopback" && isLoopbackUrl(url));
}

/** What would let an http key set be used, for the message that refuses one. */
function httpHint(rules: JkuRules): string {
  if (rules.http === "refused") return " (jku.allowHttp is false)";
  if (!rules.cardKnown) return `; http key sets are used only for a card fetched from loopback, and ${UNKNOWN_CARD}`;
  return (
    "; http key sets are used only when both the card and the keys are on loopback (127.0.0.0/8, ::1, localhost): " +
    "serve the keys over https, pin them with `keys`, or pass `jku: { allowHttp: true }` (under `verification` for connect " +
    "and resolveAgentCard; development only)"
  );
}

async function fetchJwks(url: string, rules: JkuRules, ctx: Context): Promise<FetchedKeySet> {
  let doc;
  try {
    doc = await fetchJsonDocument(url, {
      fetch: ctx.fetch,
      signal: ctx.signal,
      timeoutMs: ctx.timeoutMs,
      maxBytes: rules.maxBytes,
      maxRedirects: MAX_REDIRECTS,
      headers: { Accept: "application/jwk-set+json, application/json" },
      // Every hop is held to the same origin rules as the jku itself.
      checkRedirect: (target) => void checkJkuUrl(target.href, rules, "jku_redirect"),
      invalid: (_problem, message) => new Rejection("jku_invalid_response", message),
    });
  } catch (e) {
    // An abort or a timeout is the caller's own end, not the key set's
    // answer: keySetAt reports it, and the cache keeps it from anyone else.
    if (e instanceof Rejection || e instanceof AbortedError || e instanceof CallTimeoutError) throw e;
    if (e instanceof RedirectRefusedError) throw new Rejection("jku_redirect", e.message);
    throw new Rejection("jku_fetch_failed", `fetching the key set failed: ${errorMessage(e)}`);
  }
  if (doc.status !== 200) throw new Rejection("jku_fetch_failed", `the key set URL answered HTTP ${doc.status}`);
  let json: unknown;
  try {
    json = JSON.parse(doc.text);
  } catch {
    throw new Rejection("jku_invalid_response", "the key set is not valid JSON");
  }
  if (!isJsonObject(json) || !Array.isArray(json.keys)) throw new Rejection("jku_invalid_response", "the key set has no keys array");
  return {
    keys: json.keys.filter((k): k is JWK => isJsonObject(k) && typeof k.kty === "string"),
    redirects: doc.redirects,
    bytes: new TextEncoder().encode(doc.text).byteLength,
  };
}

/** What the key set cache needs to know of a caller: its clock, its fetch, its own end, and whether its rules allow a cached fetch. */
function keySetRequest(rules: JkuRules, ctx: Context, signal: AbortSignal): KeySetRequest {
  return {
    now: ctx.now,
    fetchId: ctx.fetchId,
    clockId: ctx.clockId,
    signal,
    rulesKey: ctx.kit.optionsKey({ origins: [...rules.allowedOrigins].sort(), http: rules.http, maxBytes: rules.maxBytes }),
    allows: (fetched) => {
      if (fetched.bytes > rules.maxBytes || fetched.redirects.length > MAX_REDIRECTS) return false;
      try {
        for (const hop of fetched.redirects) checkJkuUrl(hop, rules, "jku_redirect");
      } catch (e) {
        if (e instanceof Rejection) return false;
        throw e;
      }
      return true;
    },
  };
}
