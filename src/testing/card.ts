/**
 * The test agent's Agent Card: a valid 1.0 card whose interfaces are on
 * the origin it is served from (the loopback server's, or the in-memory
 * URL), JSON-RPC, HTTP+JSON and gRPC in the order asked, with the test's own
 * members laid over it.
 */
import type { AgentCardJson } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { INTERFACE_PATHS_V03, type TestVersion } from "./v0_3-card.js";

/**
 * The bindings the test agent serves. `GRPC` is served on the loopback
 * server, over HTTP/2 (Node), and as gRPC-web over HTTP/1.1 and in memory.
 * @category Testing
 */
export type TestBinding = "JSONRPC" | "HTTP+JSON" | "GRPC";

/** Where each binding is served, under the agent's origin (gRPC at the origin itself, as gRPC servers are). */
export const INTERFACE_PATHS: Readonly<Record<TestBinding, string>> = { JSONRPC: "/jsonrpc", "HTTP+JSON": "/rest", GRPC: "" };

/** Where the card is served. */
export const CARD_PATH = "/.well-known/agent-card.json";

/**
 * The card served at `origin`, with `overrides` laid over its members; `extended`: it says it has an extended card.
 * Its interfaces are each binding at each version of `versions`, in that order.
 */
export function cardJson(
  origin: string,
  bindings: readonly TestBinding[],
  overrides: Partial<AgentCardJson> | undefined,
  extended: boolean,
  versions: readonly TestVersion[] = ["1.0"],
): AgentCardJson {
  // The 0.3 wire is served on the HTTP bindings only.
  const served = (v: TestVersion) => (v === "0.3" ? bindings.filter((b) => b !== "GRPC") : bindings);
  const paths: Record<TestVersion, Readonly<Partial<Record<TestBinding, string>>>> = { "1.0": INTERFACE_PATHS, "0.3": INTERFACE_PATHS_V03 };
  return {
    name: "Test Agent",
    description: "A scripted A2A agent for tests (a2a-connect/testing)",
    version: "1.0.0",
    supportedInterfaces: versions.flatMap((v) =>
      served(v).map((b) => ({ url: origin + paths[v][b], protocolBinding: b, protocolVersion: v })),
    ),
    capabilities: { streaming: true, extendedAgentCard: extended },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "scripted", name: "Scripted", description: "Answers as its script says", tags: ["test"] }],
    ...overrides,
  };
}

/** The header and query parameter names the card's API key schemes put credentials under (lower case). */
export function apiKeyNames(card: AgentCardJson): Set<string> {
  const names = new Set<string>();
  for (const scheme of Object.values(card.securitySchemes ?? {})) {
    const name = scheme.apiKeySecurityScheme?.name;
    if (name) names.add(name.toLowerCase());
  }
  return names;
}
