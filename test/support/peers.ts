/**
 * The real peers the interop tests run against: the installed official
 * @a2a-js/sdk server, and @a2a-js/sdk 1.0.0-beta.0 (installed under the npm
 * alias `a2a-sdk-1-0-beta`), the release the official interop kit runs as
 * its TypeScript 1.0 agent. Both serve the same scripted agent (demo/agent.ts).
 */
import {
  DefaultExecutionEventBusManager,
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  UnauthenticatedUser,
} from "a2a-sdk-1-0-beta/server";
import { agentCardHandler, jsonRpcHandler, restHandler } from "a2a-sdk-1-0-beta/server/express";
import { A2AService, grpcService } from "a2a-sdk-1-0-beta/server/grpc";
import { LegacyA2AService, legacyGrpcService } from "a2a-sdk-1-0-beta/compat/v0_3/server/grpc";
import { afterAll, beforeAll } from "vitest";
import { CURRENT_SDK, startLocalAgent, type LocalAgent, type LocalAgentOptions, type ServerSdk } from "../../demo/agent.js";

/**
 * @a2a-js/sdk 1.0.0-beta.0's server. Its pieces are only ever combined with
 * each other; their declared types differ from the installed release's in
 * private members (ServerCallContext's state), not in what the agent calls,
 * hence the cast.
 */
export const SDK_1_0_BETA = {
  label: "@a2a-js/sdk 1.0.0-beta.0",
  DefaultExecutionEventBusManager,
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  UnauthenticatedUser,
  agentCardHandler,
  jsonRpcHandler,
  restHandler,
  A2AService,
  grpcService,
  LegacyA2AService,
  legacyGrpcService,
} as unknown as ServerSdk;

/** Every real peer, the installed release first. */
export const PEERS: readonly ServerSdk[] = [CURRENT_SDK, SDK_1_0_BETA];

/**
 * One agent per peer for a test file: started before its tests, closed
 * after them. Returns the agent of a peer.
 */
export function agentsOfPeers(options: Omit<LocalAgentOptions, "sdk"> = {}): (sdk: ServerSdk) => LocalAgent {
  const agents = new Map<ServerSdk, LocalAgent>();
  beforeAll(async () => {
    for (const sdk of PEERS) agents.set(sdk, await startLocalAgent({ ...options, sdk }));
  });
  afterAll(async () => {
    await Promise.all([...agents.values()].map((a) => a.close()));
  });
  return (sdk) => {
    const agent = agents.get(sdk);
    if (!agent) throw new Error(`no agent of ${sdk.label} is running`);
    return agent;
  };
}

/** Each peer with each of `bindings`, for `describe.each`: "$label" names the case. */
export function peerCases<B extends string>(bindings: readonly B[]): Array<{ sdk: ServerSdk; binding: B; label: string }> {
  return PEERS.flatMap((sdk) => bindings.map((binding) => ({ sdk, binding, label: `${binding} (${sdk.label})` })));
}
