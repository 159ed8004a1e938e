// A session of connect() (the Node entry, so gRPC too) on one binding of a
// local agent, trusting its keys, with the RPCs its client sent recorded.
import type { LocalAgent } from "../../demo/agent.js";
import { MemoryCardStore, type AgentSession, type Binding, type ConnectOptions, type Interceptor } from "../../src/index.js";
import { connect } from "../../src/node.js";

/** A session on `binding` only, and the names of the RPCs its client sent, in order. */
export async function recordedSession(
  agent: LocalAgent,
  binding: Binding,
  extra: ConnectOptions = {},
): Promise<{ s: AgentSession; sent: string[] }> {
  const sent: string[] = [];
  const counter: Interceptor = (next) => (req) => (sent.push(req.method.name), next(req));
  const s = await connect(agent.origin, {
    cache: new MemoryCardStore(),
    verification: { keys: agent.jwks },
    bindings: [binding],
    transport: { interceptors: [counter] },
    ...extra,
  });
  return { s, sent };
}
