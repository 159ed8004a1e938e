/**
 * The two ways a test agent runs (in memory, on a loopback server) and the
 * three bindings it serves, as the tests drive them: a `connect()` session
 * held to one binding, so that no call fails over to another. gRPC is
 * HTTP/2 on loopback (the Node entry's `connect`), gRPC-web in memory.
 */
import { connect, type AgentSession, type ConnectOptions } from "../../../src/index.js";
import { connect as connectNode } from "../../../src/node.js";
import { createTestAgent, type TestAgent, type TestAgentOptions, type TestBinding } from "../../../src/testing.js";

export type Way = "memory" | "loopback";
export const WAYS: readonly Way[] = ["memory", "loopback"];
export const BINDINGS: readonly TestBinding[] = ["JSONRPC", "HTTP+JSON", "GRPC"];

/** Every way with every binding, for `describe.each`. */
export const CASES: ReadonlyArray<[Way, TestBinding]> = WAYS.flatMap((way) => BINDINGS.map((b): [Way, TestBinding] => [way, b]));

/** The cases whose streams are SSE (JSON-RPC, HTTP+JSON), and those on gRPC, for what differs between them. */
export const SSE_CASES = CASES.filter(([, b]) => b !== "GRPC");
export const GRPC_CASES = CASES.filter(([, b]) => b === "GRPC");

/** A test agent serving every binding. */
export const agentOnAll = (options: TestAgentOptions = {}): TestAgent => createTestAgent({ bindings: BINDINGS, ...options });

/** A session with `agent` on `binding`, run the `way` given; `options` are the test's own. */
export async function sessionWith(agent: TestAgent, way: Way, binding: TestBinding, options: ConnectOptions = {}): Promise<AgentSession> {
  const held = { ...options, bindings: [binding] };
  if (way === "loopback") return (binding === "GRPC" ? connectNode : connect)((await agent.listen()).url, held);
  const inMemory = agent.connectOptions();
  return connect(agent.url, {
    ...held,
    fetch: inMemory.fetch,
    transport: { ...options.transport, ...inMemory.transport },
    grpcWeb: inMemory.grpcWeb,
  });
}
