/**
 * A session holds its client to the card's capabilities (spec 3.3.4), against
 * each real peer serving a card with `streaming: false` (the SDK then refuses
 * SendStreamingMessage and SubscribeToTask), on every binding.
 */
import { clone } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  AgentCardSchema,
  MemoryCardStore,
  TaskState,
  UnsupportedOperationError,
  resolveAgentCard,
  textOf,
  userMessage,
  type ConnectOptions,
  type Interceptor,
} from "../../src/index.js";
import { connect } from "../../src/node.js";
import { BINDINGS, clientFor, collect } from "../support/bindings.js";
import { SDK_1_0_BETA, agentsOfPeers, peerCases } from "../support/peers.js";
import { recordedSession } from "../support/recorded-session.js";

const agentOf = agentsOfPeers({ streaming: false });

describe.each(peerCases(BINDINGS))("an agent whose card says streaming: false, on $label", ({ sdk, binding }) => {
  /** A session on `binding` only, and the RPCs its client sent; the card it holds says streaming: false. */
  async function session(extra: ConnectOptions = {}) {
    const { s, sent } = await recordedSession(agentOf(sdk), binding, extra);
    expect(s.interface?.binding).toBe(binding);
    expect(s.card.capabilities?.streaming).toBe(false);
    return { s, sent };
  }

  it("the agent itself refuses SendStreamingMessage (what the fallback spares the caller)", async () => {
    const streamed = collect(clientFor(binding, agentOf(sdk)).sendStreamingMessage({ message: userMessage("count 1") }));
    // 1.0.0-beta.0's gRPC service does not check the capability, and streams.
    if (sdk === SDK_1_0_BETA && binding === "GRPC") expect((await streamed).at(-1)?.payload.case).toBe("statusUpdate");
    else await expect(streamed).rejects.toBeInstanceOf(UnsupportedOperationError);
  });

  it("sendStreamingMessage sends SendMessage and yields its task as the one event", async () => {
    const { s, sent } = await session();
    const events = await collect(s.client.sendStreamingMessage({ message: userMessage("count 2") }));
    expect(sent).toEqual(["SendMessage"]);
    expect(events.map((e) => e.payload.case)).toEqual(["task"]);
    const task = events[0]!.payload.value as { status?: { state: TaskState } };
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(textOf(events[0])).toBe("chunk-1chunk-2");
  });

  it("a direct reply comes as a message event", async () => {
    const { s, sent } = await session();
    const events = await collect(s.client.sendStreamingMessage({ message: userMessage("echo hello") }));
    expect(sent).toEqual(["SendMessage"]);
    expect(events.map((e) => e.payload.case)).toEqual(["message"]);
    expect(textOf(events[0])).toBe("hello");
  });

  it("subscribeToTask fails with UnsupportedOperationError naming the capability, before any request", async () => {
    const { s, sent } = await session();
    const res = await s.client.sendMessage({ message: userMessage("input") });
    const id = res.payload.case === "task" ? res.payload.value.id : "";
    sent.length = 0;
    const e = await collect(s.client.subscribeToTask({ id })).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(UnsupportedOperationError);
    expect((e as Error).message).toContain("capabilities.streaming");
    expect(sent).toEqual([]);
  });

  it("a card that leaves streaming out is taken as not streaming (spec: false or not present)", async () => {
    const agent = agentOf(sdk);
    const resolved = await resolveAgentCard(agent.origin, { cache: new MemoryCardStore(), verification: { keys: agent.jwks } });
    const card = clone(AgentCardSchema, resolved.card);
    card.capabilities!.streaming = undefined;
    card.signatures = [];
    const sent: string[] = [];
    const counter: Interceptor = (next) => (req) => (sent.push(req.method.name), next(req));
    const bare = await connect(card, { bindings: [binding], transport: { interceptors: [counter] } });
    const events = await collect(bare.client.sendStreamingMessage({ message: userMessage("count 1") }));
    expect(sent).toEqual(["SendMessage"]);
    expect(events.map((e) => e.payload.case)).toEqual(["task"]);
  });
});
