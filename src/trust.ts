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
export {
  verifyAgentCard,
  signAgentCard,
  applyVerifyPolicy,
  assertVerified,
  JwksCache,
  DEFAULT_ALGORITHMS,
  type VerifyOptions,
  type VerifyPolicy,
  type VerificationResult,
  type ReceivedAgentCard,
  type VerificationFailure,
  type VerificationFailureCode,
  type VerificationKey,
  type KeyStore,
  type KeyLookup,
  type JkuOptions,
  type JwksCacheOptions,
  type SignOptions,
} from "./trust/verify.js";
export { canonicalCardBytes, canonicalCardJson } from "./trust/canonical.js";
