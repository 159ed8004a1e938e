/**
 * The JWS algorithms a card signature may use, and what each asks of a key.
 *
 * Only asymmetric algorithms are listed. A verifier that allowed `HS256`
 * could be fooled by a signature keyed with the agent's public key, and
 * `none` is no signature at all.
 */

/** What an algorithm asks of a key: its JWK type and curve, and its Web Crypto parameters. */
export interface AlgSpec {
  kty: "EC" | "OKP" | "RSA";
  crv?: string;
  subtle: { name: string; namedCurve?: string; hash?: string };
}

/** Every algorithm accepted, by its JWS name. */
export const ALGORITHMS: Readonly<Record<string, AlgSpec>> = {
  ES256: { kty: "EC", crv: "P-256", subtle: { name: "ECDSA", namedCurve: "P-256" } },
  ES384: { kty: "EC", crv: "P-384", subtle: { name: "ECDSA", namedCurve: "P-384" } },
  ES512: { kty: "EC", crv: "P-521", subtle: { name: "ECDSA", namedCurve: "P-521" } },
  EdDSA: { kty: "OKP", crv: "Ed25519", subtle: { name: "Ed25519" } },
  Ed25519: { kty: "OKP", crv: "Ed25519", subtle: { name: "Ed25519" } },
  RS256: { kty: "RSA", subtle: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } },
  RS384: { kty: "RSA", subtle: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-384" } },
  RS512: { kty: "RSA", subtle: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-512" } },
  PS256: { kty: "RSA", subtle: { name: "RSA-PSS", hash: "SHA-256" } },
  PS384: { kty: "RSA", subtle: { name: "RSA-PSS", hash: "SHA-384" } },
  PS512: { kty: "RSA", subtle: { name: "RSA-PSS", hash: "SHA-512" } },
};

/** The algorithms accepted by default: every asymmetric JWS algorithm Web Crypto implements. @category Discovery and trust */
export const DEFAULT_ALGORITHMS: readonly string[] = Object.freeze(Object.keys(ALGORITHMS));

/** The members of a CryptoKey's `algorithm` that tell which JWS algorithm it serves. */
export interface KeyAlgorithm {
  name: string;
  namedCurve?: string;
  hash?: { name: string };
}

/** Whether a CryptoKey of algorithm `a` is one Web Crypto uses for `spec`. */
export function servesAlgorithm(spec: AlgSpec, a: KeyAlgorithm): boolean {
  return (
    a.name === spec.subtle.name &&
    (spec.subtle.namedCurve === undefined || a.namedCurve === spec.subtle.namedCurve) &&
    (spec.subtle.hash === undefined || a.hash?.name === spec.subtle.hash)
  );
}
