/**
 * Finding the keys a signature may be checked with: in the caller's key
 * store first, then in the key set its `jku` names (when the rules allow);
 * and whether a key found is fit for the signature (public, for verifying,
 * of the signature's algorithm, not expired).
 */
import type { JWK } from "jose";
import { ALGORITHMS, servesAlgorithm, type KeyAlgorithm } from "./algorithms.js";
import type { Context } from "./context.js";
import { keySetAt } from "./jku.js";
import type { KeyStore } from "./options.js";
import { clip, errorMessage, Rejection } from "./rejection.js";
import { isJsonObject } from "../base/is-record.js";
import { isCryptoKey } from "./values.js";

/** The keys that may have made a signature, and what vouches for them. */
export interface Found {
  candidates: readonly unknown[];
  source: "store" | "jku";
  jku?: string;
  /** Epoch ms until which the source vouches for the keys: a key set's freshness. */
  validUntil: number;
}

/** When a JWK's own `exp` ends its use, in epoch ms; Infinity without one. */
export function keyExpiry(key: unknown): number {
  return isJsonObject(key) && typeof key.exp === "number" ? key.exp * 1000 : Infinity;
}

/** The keys under `kid`: from the store, else from the key set at the header's `jku`; a Rejection when there are none. */
export async function findKeys(kid: string, header: Record<string, unknown>, ctx: Context): Promise<Found> {
  if (ctx.keys !== undefined) {
    const candidates = await fromStore(ctx.keys, kid, header);
    if (candidates.length > 0) return { candidates, source: "store", validUntil: Infinity };
  }
  const jku = header.jku;
  if (jku === undefined) {
    throw new Rejection(
      "key_not_found",
      `no trusted key for kid "${clip(kid)}"${ctx.keys === undefined ? " (no key store given)" : ""} and no jku`,
    );
  }
  if (typeof jku !== "string") throw new Rejection("malformed_header", "jku is not a string");
  if (ctx.jku === false) {
    throw new Rejection(
      "jku_not_allowed",
      ctx.keys === undefined
        ? "fetching keys from jku is turned off"
        : `no trusted key for kid "${clip(kid)}", and jku is not consulted when keys are given (pass jku to allow it)`,
    );
  }
  const set = await keySetAt(jku, kid, ctx.jku, ctx);
  const candidates = set.keys.filter((k) => k.kid === kid);
  if (candidates.length === 0) throw new Rejection("key_not_found", `no key with kid "${clip(kid)}" in the key set at ${set.url}`);
  return { candidates, source: "jku", jku: set.url, validUntil: set.validUntil };
}

async function fromStore(store: KeyStore, kid: string, header: Record<string, unknown>): Promise<readonly unknown[]> {
  if (typeof store === "function") {
    let key: unknown;
    try {
      key = await store(kid, header);
    } catch (e) {
      throw new Rejection("key_lookup_failed", `the key lookup for kid "${clip(kid)}" failed: ${errorMessage(e)}`);
    }
    return key === undefined || key === null ? [] : [key];
  }
  const keys = (store as { keys?: unknown }).keys;
  if (Array.isArray(keys)) return keys.filter((k) => isJsonObject(k) && k.kid === kid);
  return Object.hasOwn(store, kid) ? [(store as Record<string, unknown>)[kid]] : [];
}

/** Checks a candidate key against the signature and returns what to verify with. */
export function usableKey(candidate: unknown, kid: string, alg: string, now: number): CryptoKey | JWK {
  const spec = ALGORITHMS[alg]!;
  if (isCryptoKey(candidate)) {
    if (candidate.type !== "public") throw new Rejection("key_invalid", `the CryptoKey for kid "${clip(kid)}" is not a public key`);
    if (!candidate.usages.includes("verify"))
      throw new Rejection("key_ops_no_verify", `the CryptoKey for kid "${clip(kid)}" is not usable to verify`);
    const a = candidate.algorithm as KeyAlgorithm;
    if (!servesAlgorithm(spec, a))
      throw new Rejection("key_alg_mismatch", `the CryptoKey for kid "${clip(kid)}" is a ${a.name} key, not one for ${alg}`);
    return candidate;
  }
  if (!isJsonObject(candidate) || typeof candidate.kty !== "string") {
    throw new Rejection("key_invalid", `the key for kid "${clip(kid)}" is neither a JWK nor a CryptoKey`);
  }
  const jwk = candidate as JWK & { exp?: unknown; nbf?: unknown };
  if (jwk.kid !== undefined && jwk.kid !== kid)
    throw new Rejection("kid_mismatch", `the key stored under kid "${clip(kid)}" has kid "${clip(String(jwk.kid))}"`);
  if (jwk.use !== undefined && jwk.use !== "sig")
    throw new Rejection("key_use_not_sig", `the key "${clip(kid)}" has use "${clip(String(jwk.use))}", not "sig"`);
  if (jwk.key_ops !== undefined && !(Array.isArray(jwk.key_ops) && jwk.key_ops.includes("verify"))) {
    throw new Rejection("key_ops_no_verify", `the key_ops of key "${clip(kid)}" do not include "verify"`);
  }
  if (jwk.alg !== undefined && jwk.alg !== alg)
    throw new Rejection("key_alg_mismatch", `the key "${clip(kid)}" is for alg "${clip(String(jwk.alg))}", the signature uses "${alg}"`);
  if (jwk.kty !== spec.kty || (spec.crv !== undefined && jwk.crv !== spec.crv)) {
    throw new Rejection(
      "key_alg_mismatch",
      `the key "${clip(kid)}" (${clip(String(jwk.kty))}${jwk.crv ? ` ${clip(String(jwk.crv))}` : ""}) cannot verify ${alg}`,
    );
  }
  // JWKs have no standard validity period; keys that state one are held to
  // it, since an expired key must not be used (section 8.4.3).
  if (typeof jwk.exp === "number" && jwk.exp * 1000 <= now) throw new Rejection("key_expired", `the key "${clip(kid)}" expired`);
  if (typeof jwk.nbf === "number" && jwk.nbf * 1000 > now) throw new Rejection("key_expired", `the key "${clip(kid)}" is not valid yet`);
  return publicPart(jwk);
}

/** Only the public parameters: verification never needs more, and Web Crypto rejects a private JWK imported to verify. */
function publicPart(jwk: JWK): JWK {
  switch (jwk.kty) {
    case "EC":
      return { kty: "EC", crv: jwk.crv, x: jwk.x, y: jwk.y } as JWK;
    case "OKP":
      return { kty: "OKP", crv: jwk.crv, x: jwk.x } as JWK;
    default:
      return { kty: "RSA", n: jwk.n, e: jwk.e } as JWK;
  }
}
