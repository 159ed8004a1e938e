/** Minimal, valid Agent Card JSON documents for tests. */
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
