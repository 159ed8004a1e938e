/**
 * The JWS side of a card signature: the shape of a signature entry, the
 * checks of its headers (RFC 7515: disjoint headers, allowed `alg`, `crit`,
 * `typ`, `kid`), and the signature check itself over one payload.
 *
 * A signature is a flattened JWS whose payload is detached: the payloads it
 * may cover are computed by the verifier (signed-content.ts), never taken
 * from the wire.
 */
import type { JsonObject } from "@bufbuild/protobuf";
// JOSE by the parts used: its root module loads all of it (JWE, JWT, key generation), twice the start-up time.
import type { JWK } from "jose";
import * as base64url from "jose/base64url";
import * as joseErrors from "jose/errors";
import { flattenedVerify } from "jose/jws/flattened/verify";
import type { AgentCardSignature } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { clip, errorMessage, Rejection } from "./rejection.js";
import { isJsonObject } from "../base/is-record.js";

/** A signature as it appears in a card: flattened JWS members without payload. */
export interface SignatureMembers {
  protected: string;
  signature: string;
  header?: JsonObject | undefined;
}

/** The members of one entry of a received `signatures` array, checked for shape. */
export function signatureOf(raw: unknown): SignatureMembers {
  if (!isJsonObject(raw)) throw new Rejection("malformed_header", "the signature is not a JSON object");
  if (typeof raw.protected !== "string") throw new Rejection("malformed_header", "the signature has no protected header string");
  if (typeof raw.signature !== "string") throw new Rejection("malformed_signature", "the signature member is not a string");
  if (raw.header !== undefined && !isJsonObject(raw.header))
    throw new Rejection("malformed_header", "the unprotected header is not an object");
  return { protected: raw.protected, signature: raw.signature, header: raw.header as JsonObject | undefined };
}

/** What the headers of a signature say, once checked. */
export interface SignatureHeader {
  /** The protected header. */
  header: Record<string, unknown>;
  alg: string;
  kid: string;
}

/**
 * Checks the headers of a signature (and that its signature is base64url)
 * against the allowed algorithms; `onKid` learns the `kid` as soon as it is
 * read, so that a failure can name it.
 */
export function checkHeaders(
  sig: SignatureMembers | AgentCardSignature,
  algorithms: ReadonlySet<string>,
  onKid: (kid: string) => void,
): SignatureHeader {
  const header = decodeProtectedHeader(sig.protected);
  const unprotected: JsonObject = sig.header ?? {};
  if (typeof header.kid === "string") onKid(header.kid);

  // RFC 7515 section 7.2.1: the two header objects must be disjoint, so a
  // parameter cannot say one thing protected and another unprotected.
  for (const name of Object.keys(unprotected)) {
    if (Object.hasOwn(header, name))
      throw new Rejection("header_conflict", `"${name}" is in both the protected and the unprotected header`);
  }

  const alg = header.alg;
  if (typeof alg !== "string" || alg === "") throw new Rejection("missing_alg", "the protected header has no alg");
  if (!algorithms.has(alg)) throw new Rejection("alg_not_allowed", `alg "${clip(alg)}" is not allowed`);

  checkCritical(header, unprotected);

  if (header.typ !== undefined && (typeof header.typ !== "string" || !/^(application\/)?jose$/i.test(header.typ))) {
    throw new Rejection("typ_invalid", `typ "${clip(String(header.typ))}" is not JOSE`);
  }

  const kid = header.kid;
  if (typeof kid !== "string" || kid === "") throw new Rejection("missing_kid", "the protected header has no kid");

  if (!isBase64url(sig.signature) || sig.signature === "")
    throw new Rejection("malformed_signature", "the signature is empty or not base64url");
  return { header, alg, kid };
}

/** Verifies `sig` over one base64url payload with `key`; throws what jose throws (see {@link joseRejection}). */
export async function verifyJws(
  sig: SignatureMembers | AgentCardSignature,
  payload: string,
  key: CryptoKey | JWK,
  alg: string,
): Promise<void> {
  const jws = { protected: sig.protected, payload, signature: sig.signature, ...(sig.header === undefined ? {} : { header: sig.header }) };
  await flattenedVerify(jws, key, { algorithms: [alg] });
}

/** What jose threw, as the Rejection it means. */
export function joseRejection(e: unknown): Rejection {
  if (e instanceof Rejection) return e;
  if (e instanceof joseErrors.JOSEAlgNotAllowed) return new Rejection("alg_not_allowed", errorMessage(e));
  if (e instanceof joseErrors.JWSInvalid) return new Rejection("malformed_header", errorMessage(e));
  // A page served over http (not localhost) has `crypto` but no `crypto.subtle`: no key can be used
  // there, whatever the key, and jose reads a check that could not run as a signature that does not match.
  if (globalThis.crypto?.subtle === undefined) return new Rejection("key_invalid", `the key cannot be used: ${NO_WEB_CRYPTO}`);
  if (e instanceof joseErrors.JWSSignatureVerificationFailed)
    return new Rejection("signature_invalid", "the signature does not match the card");
  return new Rejection("key_invalid", `the key cannot be used: ${errorMessage(e)}`);
}

const NO_WEB_CRYPTO =
  "this runtime has no Web Crypto (crypto.subtle), which browsers give only to a secure context (https, or http on localhost)";

function decodeProtectedHeader(encoded: string): Record<string, unknown> {
  if (encoded === "" || !isBase64url(encoded)) throw new Rejection("malformed_header", "the protected header is not base64url");
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(base64url.decode(encoded)));
  } catch {
    throw new Rejection("malformed_header", "the protected header is not UTF-8 JSON");
  }
  if (!isJsonObject(parsed)) throw new Rejection("malformed_header", "the protected header is not a JSON object");
  return parsed;
}

function checkCritical(header: Record<string, unknown>, unprotected: JsonObject): void {
  // The payload is always the base64url-encoded canonical card; an unencoded
  // payload (RFC 7797) would sign different bytes.
  if (header.b64 === false || unprotected.b64 === false)
    throw new Rejection("unencoded_payload", "unencoded payload (b64: false) is not allowed");
  if (unprotected.crit !== undefined) throw new Rejection("crit_unsupported", "crit must be in the protected header");
  const crit = header.crit;
  if (crit === undefined) return;
  if (
    !Array.isArray(crit) ||
    crit.length === 0 ||
    crit.some((c) => typeof c !== "string" || c === "") ||
    new Set(crit).size !== crit.length
  ) {
    throw new Rejection("crit_unsupported", "crit must be a non-empty list of distinct parameter names");
  }
  for (const name of crit as string[]) {
    // b64: true is the ordinary encoding, the one case understood.
    if (name === "b64" && header.b64 === true) continue;
    throw new Rejection("crit_unsupported", `critical header parameter "${clip(name)}" is not supported`);
  }
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function isBase64url(s: string): boolean {
  return BASE64URL.test(s) && s.length % 4 !== 1;
}
