/** Minimal, valid Agent Card JSON documents for tests, and signing them. */
import canonicalize from "canonicalize";
import { exportJWK, FlattenedSign, generateKeyPair, type JWK } from "jose";

export function cardJson(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: "Test Agent",
    description: "An agent for tests",
    supportedInterfaces: [{ url: "https://agent.example.com/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    version: "1.2.3",
    capabilities: { streaming: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "s1", name: "Skill", description: "Does things", tags: ["t"] }],
    ...overrides,
  };
}

/** The same agent as a 0.3 card. */
export function cardJsonV03(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    protocolVersion: "0.3.0",
    name: "Old Agent",
    description: "An agent on protocol 0.3",
    url: "https://agent.example.com/a2a/jsonrpc",
    preferredTransport: "JSONRPC",
    additionalInterfaces: [
      { url: "https://agent.example.com/a2a/jsonrpc", transport: "JSONRPC" },
      { url: "https://agent.example.com/a2a/rest", transport: "HTTP+JSON" },
      { url: "agent.example.com:443", transport: "GRPC" },
    ],
    version: "0.9.0",
    capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: true },
    supportsAuthenticatedExtendedCard: true,
    securitySchemes: {
      bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
      key: { type: "apiKey", in: "header", name: "X-API-Key" },
      oauth: {
        type: "oauth2",
        flows: {
          clientCredentials: { tokenUrl: "https://auth.example.com/token", scopes: { read: "Read" } },
          implicit: { authorizationUrl: "https://auth.example.com/authorize", scopes: {} },
        },
      },
    },
    security: [{ bearer: [] }, { oauth: ["read"] }],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "s1", name: "Skill", description: "Does things", tags: ["t"], security: [{ key: [] }] }],
    ...overrides,
  };
}

/** A signing key for tests: the private key, and the public one as a CryptoKey and as a JWK with kid. */
export interface TestKeyPair {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** The public JWK, with kid. */
  jwk: JWK;
}

export async function keyPair(alg: string, kid: string): Promise<TestKeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid } };
}

/**
 * Card JSON with one more signature, over the members as they are (RFC 8785,
 * without `signatures`), as an agent on a newer schema or on 0.3 signs.
 */
export async function signJson(
  json: Record<string, unknown>,
  key: TestKeyPair,
  alg = "ES256",
  extra: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const { signatures, ...members } = json;
  const jws = await new FlattenedSign(new TextEncoder().encode(canonicalize(members)!))
    .setProtectedHeader({ alg, typ: "JOSE", kid: key.kid, ...extra })
    .sign(key.privateKey);
  const before = Array.isArray(signatures) ? signatures : [];
  return { ...json, signatures: [...before, { protected: jws.protected, signature: jws.signature }] };
}
