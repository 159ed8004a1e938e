/**
 * The two ways a test agent runs (in memory, on a loopback server) and the
 * two bindings it serves, as the tests drive them: a `connect()` session
 * held to one binding, so that no call fails over to the other.
 */
import { connect, type AgentSession, type ConnectOptions } from "../../../src/index.js";
import type { TestAgent, TestBinding } from "../../../src/testing.js";

export type Way = "memory" | "loopback";
export const WAYS: readonly Way[] = ["memory", "loopback"];
export const BINDINGS: readonly TestBinding[] = ["JSONRPC", "HTTP+JSON"];

/** Every way with every binding, for `describe.each`. */
export const CASES: ReadonlyArray<[Way, TestBinding]> = WAYS.flatMap((way) => BINDINGS.map((b): [Way, TestBinding] => [way, b]));

/** A session with `agent` on `binding`, run the `way` given; `options` are the test's own. */
export async function sessionWith(agent: TestAgent, way: Way, binding: TestBinding, options: ConnectOptions = {}): Promise<AgentSession> {
  const held = { ...options, bindings: [binding] };
  if (way === "loopback") return connect((await agent.listen()).url, held);
  const inMemory = agent.connectOptions();
  return connect(agent.url, { ...held, fetch: inMemory.fetch, transport: { ...options.transport, ...inMemory.transport } });
}
