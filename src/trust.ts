/**
 * a2a-connect/trust: Agent Card signatures (spec 8.4). Verifying and signing
 * need JOSE and JSON canonicalization, which code that never verifies should
 * not carry, so they live in their own entry. `resolveAgentCard`, `connect`
 * and `AgentSession` load this code on demand when their `verify` policy
 * asks for a check; import it directly to verify or sign cards yourself.
 * Runs in browsers and in Node.
 *
 * @module a2a-connect/trust
 */
export { verifyAgentCard, applyVerifyPolicy, canonicalCardBytes, canonicalCardJson } from "./trust/public.js";
export { assertVerified } from "./trust/verify.js";
export { signAgentCard } from "./trust/sign.js";
export { JwksCache, type JwksCacheOptions } from "./trust/jwks-cache.js";
export { DEFAULT_ALGORITHMS } from "./trust/algorithms.js";
export type {
  VerifyOptions,
  VerifyPolicy,
  ReceivedAgentCard,
  VerificationKey,
  KeyStore,
  KeyLookup,
  JkuOptions,
  SignOptions,
} from "./trust/options.js";
export type { VerificationResult, VerificationFailure, VerificationFailureCode } from "./errors/verification-result.js";
