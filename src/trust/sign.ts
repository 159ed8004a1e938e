/**
 * Signing an Agent Card (A2A 1.0, section 8.4): a flattened JWS over the
 * card's canonical form (public.ts's `canonicalCardBytes`), its payload
 * detached, added to the card's signatures. Signing is not loaded on demand
 * by the client, so it takes the start's code it needs (verify-kit.ts)
 * itself.
 */
import { clone, create, type JsonObject } from "@bufbuild/protobuf";
import type { JWK } from "jose";
import { FlattenedSign } from "jose/jws/flattened/sign";
import { AgentCardSchema, AgentCardSignatureSchema, type AgentCard } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { ALGORITHMS, DEFAULT_ALGORITHMS, servesAlgorithm, type KeyAlgorithm } from "./algorithms.js";
import { canonicalBytesWith } from "./canonical.js";
import { VERIFY_KIT } from "./verify-kit.js";
import type { SignOptions } from "./options.js";
import { isJsonObject } from "../base/is-record.js";
import { isCryptoKey } from "./values.js";

/**
 * Returns a copy of `card` with one more signature: a JWS over the card's
 * canonical form with protected header `{alg, typ: "JOSE", kid, jku?}`.
 * Signatures already on the card stay valid, since `signatures` is not
 * part of the signed content.
 * @example
 * ```ts
 * import { fromProtoJson, AgentCardSchema, toProtoJson } from "a2a-connect";
 * import { signAgentCard } from "a2a-connect/trust";
 *
 * const { privateKey } = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign", "verify"]);
 * const card = fromProtoJson(AgentCardSchema, { name: "My agent", description: "Answers questions", version: "1.0.0" });
 * const signed = await signAgentCard(card, privateKey, { kid: "agent-key-1", jku: "https://agent.example.com/jwks.json" });
 * console.log(JSON.stringify(toProtoJson(signed)));
 * ```
 * @category Discovery and trust
 */
export async function signAgentCard(card: AgentCard, key: CryptoKey | JWK, options: SignOptions): Promise<AgentCard> {
  if (typeof options.kid !== "string" || options.kid === "") throw new TypeError("signAgentCard needs a kid");
  const alg = options.alg ?? algorithmOf(key);
  const spec = ALGORITHMS[alg];
  if (spec === undefined) throw new TypeError(`cannot sign with "${alg}": use one of ${DEFAULT_ALGORITHMS.join(", ")}`);
  let signingKey: CryptoKey | JWK;
  if (isCryptoKey(key)) {
    if (key.type !== "private") throw new TypeError("signing needs a private key");
    signingKey = key;
  } else {
    if (!isJsonObject(key) || typeof key.d !== "string") throw new TypeError("signing needs a private JWK (with d)");
    if (key.kty !== spec.kty || (spec.crv !== undefined && key.crv !== spec.crv))
      throw new TypeError(`a ${String(key.kty)} key cannot sign ${alg}`);
    // jose freezes the JWK objects it is given; the caller's stays untouched.
    signingKey = { ...key };
  }
  const protectedHeader: Record<string, unknown> = { alg, typ: "JOSE", kid: options.kid };
  if (options.jku !== undefined) {
    try {
      protectedHeader.jku = new URL(options.jku).href;
    } catch {
      throw new TypeError(`jku "${options.jku}" is not an absolute URL`);
    }
  }
  const header = options.header;
  if (header !== undefined) {
    for (const name of Object.keys(header)) {
      if (Object.hasOwn(protectedHeader, name) || name === "crit" || name === "b64") {
        throw new TypeError(`"${name}" cannot be an unprotected header parameter`);
      }
    }
  }
  const signer = new FlattenedSign(canonicalBytesWith(VERIFY_KIT, card)).setProtectedHeader(protectedHeader);
  if (header !== undefined && Object.keys(header).length > 0) signer.setUnprotectedHeader(header);
  const jws = await signer.sign(signingKey);
  const signed = clone(AgentCardSchema, card);
  signed.signatures.push(
    create(AgentCardSignatureSchema, {
      protected: jws.protected!,
      signature: jws.signature,
      ...(jws.header === undefined ? {} : { header: JSON.parse(JSON.stringify(jws.header)) as JsonObject }),
    }),
  );
  return signed;
}

function algorithmOf(key: CryptoKey | JWK): string {
  if (isCryptoKey(key)) {
    const a = key.algorithm as KeyAlgorithm;
    const found = Object.entries(ALGORITHMS).find(([name, s]) => name !== "Ed25519" && servesAlgorithm(s, a));
    if (found) return found[0];
    throw new TypeError(`no JWS algorithm for a ${a.name} key; pass alg`);
  }
  if (typeof key.alg === "string") return key.alg;
  if (key.kty === "EC") {
    const found = Object.entries(ALGORITHMS).find(([, s]) => s.kty === "EC" && s.crv === key.crv);
    if (found) return found[0];
  }
  if (key.kty === "OKP" && key.crv === "Ed25519") return "EdDSA";
  if (key.kty === "RSA") return "RS256";
  throw new TypeError(`no JWS algorithm for this ${String(key.kty)} key; pass alg`);
}
