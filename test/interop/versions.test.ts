/**
 * Protocol versions through connect(), against each real peer's 0.3
 * compatibility layer (the official @a2a-js/sdk server, current and
 * 1.0.0-beta.0): an agent that speaks only 0.3 is used with 1.0 types
 * on every binding; an agent that rejects the 1.0 its card claims falls back
 * only when asked.
 */
import { clone, create } from "@bufbuild/protobuf";
import { beforeAll, describe, expect, it } from "vitest";
import type { LocalAgent } from "../../demo/agent.js";
import {
  AgentCardSchema,
  AgentInterfaceSchema,
  ConnectionError,
  MemoryCardStore,
  Role,
  TaskState,
  UnsupportedOperationError,
  VersionNotSupportedError,
  textOf,
  userMessage,
  resolveAgentCard,
  type AgentSession,
  type ConnectOptions,
  type ResolvedAgentCard,
  type Task,
} from "../../src/index.js";
import { connect } from "../../src/node.js";
import { BINDINGS, collect } from "../support/bindings.js";
import { PEERS, agentsOfPeers, peerCases } from "../support/peers.js";
import { deadPort } from "../support/ports.js";

const only03Of = agentsOfPeers({ versions: ["0.3"] });
const rejects10Of = agentsOfPeers({ versions: ["0.3"], advertisedVersions: ["1.0", "0.3"] });
/** Speaks both versions; its card lists the 0.3 interfaces first. */
const lists03FirstOf = agentsOfPeers({ versions: ["1.0", "0.3"], advertisedVersions: ["0.3", "1.0"] });

const options = (agent: LocalAgent, extra: ConnectOptions = {}): ConnectOptions => ({
  cache: new MemoryCardStore(),
  verification: { keys: agent.jwks },
  ...extra,
});

const taskOf = (r: { payload: { case: string | undefined; value?: unknown } }) => r.payload.value as Task;

describe.each(peerCases(BINDINGS))("an agent with only 0.3 interfaces, over $label", ({ sdk, binding }) => {
  let session: AgentSession;
  beforeAll(async () => {
    const only03 = only03Of(sdk);
    session = await connect(only03.origin, options(only03, { preferredBindings: [binding] }));
  });

  it("is chosen at 0.3 and keeps 1.0 types", async () => {
    expect(session.interface).toMatchObject({ binding, version: "0.3" });
    const task = taskOf(await session.client.sendMessage({ message: userMessage("count 2") }));
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(textOf(task, ",")).toBe("chunk-1,chunk-2");
    const reply = await session.client.sendMessage({ message: userMessage("echo over 0.3") });
    expect(reply.payload.case).toBe("message");
    expect(reply.payload.case === "message" && reply.payload.value.role).toBe(Role.AGENT);
  });

  it("streams, reads, subscribes and cancels", async () => {
    const events = await collect(session.client.sendStreamingMessage({ message: userMessage("count 3") }));
    expect(events.flatMap((e) => (e.payload.case === "artifactUpdate" ? [textOf(e.payload.value.artifact!)] : []))).toEqual([
      "chunk-1",
      "chunk-2",
      "chunk-3",
    ]);
    const id = taskOf(events[0]!).id;
    const read = await session.client.getTask({ id, historyLength: 1 });
    expect(read.status?.state).toBe(TaskState.COMPLETED);
    expect(read.history).toHaveLength(1);

    const held = taskOf(await session.client.sendMessage({ message: userMessage("hold"), configuration: { returnImmediately: true } }));
    const watch = session.client.subscribeToTask({ id: held.id })[Symbol.asyncIterator]();
    expect((await watch.next()).value?.payload.case).toBe("task");
    expect((await session.client.cancelTask({ id: held.id })).status?.state).toBe(TaskState.CANCELED);
    const rest: TaskState[] = [];
    for (let r = await watch.next(); !r.done; r = await watch.next()) {
      if (r.value.payload.case === "statusUpdate") rest.push(r.value.payload.value.status!.state);
    }
    expect(rest.at(-1)).toBe(TaskState.CANCELED);
  });

  it("manages push notification configs", async () => {
    const held = taskOf(await session.client.sendMessage({ message: userMessage("hold"), configuration: { returnImmediately: true } }));
    try {
      const created = await session.client.createTaskPushNotificationConfig({
        taskId: held.id,
        url: "https://hooks.example.com/x",
        token: "t",
      });
      expect(created.taskId).toBe(held.id);
      expect((await session.client.getTaskPushNotificationConfig({ taskId: held.id, id: created.id })).url).toBe(
        "https://hooks.example.com/x",
      );
      expect((await session.client.listTaskPushNotificationConfigs({ taskId: held.id })).configs.map((c) => c.id)).toEqual([created.id]);
      await session.client.deleteTaskPushNotificationConfig({ taskId: held.id, id: created.id });
      expect((await session.client.listTaskPushNotificationConfigs({ taskId: held.id })).configs).toEqual([]);
    } finally {
      await session.client.cancelTask({ id: held.id });
    }
  });

  it("gets the extended card, and says plainly what 0.3 cannot do", async () => {
    expect((await session.client.getExtendedAgentCard()).skills.map((s) => s.id)).toContain("secret-skill");
    await expect(session.client.listTasks()).rejects.toBeInstanceOf(UnsupportedOperationError);
  });
});

describe.each(PEERS)("a card that lists 0.3 before 1.0 (spec 8.3.2: the first supported entry), $label", (sdk) => {
  let lists03First: LocalAgent;
  beforeAll(() => {
    lists03First = lists03FirstOf(sdk);
  });

  it("is used at 0.3 by default, and works", async () => {
    const session = await connect(lists03First.origin, options(lists03First));
    expect(session.interface).toMatchObject({ binding: "JSONRPC", version: "0.3" });
    expect(session.candidates.map((c) => `${c.binding} ${c.version}`)).toEqual([
      "JSONRPC 0.3",
      "HTTP+JSON 0.3",
      "GRPC 0.3",
      "JSONRPC 1.0",
      "HTTP+JSON 1.0",
      "GRPC 1.0",
    ]);
    const task = taskOf(await session.client.sendMessage({ message: userMessage("count 1") }));
    expect(task.status?.state).toBe(TaskState.COMPLETED);
  });

  it("is used at 1.0 when 0.3 is not spoken, or when 1.0 is preferred", async () => {
    for (const extra of [{ protocolVersions: ["1.0"] }, { preferredVersions: ["1.0"] }]) {
      const session = await connect(lists03First.origin, options(lists03First, extra));
      expect(session.interface).toMatchObject({ binding: "JSONRPC", version: "1.0" });
      const task = taskOf(await session.client.sendMessage({ message: userMessage("count 1") }));
      expect(task.status?.state).toBe(TaskState.COMPLETED);
    }
  });
});

describe.each(peerCases(BINDINGS))("an agent that rejects the 1.0 its card claims, over $label", ({ sdk, binding }) => {
  let rejects10: LocalAgent;
  beforeAll(() => {
    rejects10 = rejects10Of(sdk);
  });

  it("fails by default, listing the versions the card offers", async () => {
    const session = await connect(rejects10.origin, options(rejects10, { preferredBindings: [binding] }));
    expect(session.interface?.version).toBe("1.0");
    const e = await session.client.sendMessage({ message: userMessage("count 1") }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(VersionNotSupportedError);
    expect((e as Error).message).toMatch(/its card offers 1\.0, 0\.3; connect with versionFallback: "auto" to use 0\.3/);
  });

  it('falls back to 0.3 with versionFallback: "auto", and stays there', async () => {
    const session = await connect(rejects10.origin, options(rejects10, { preferredBindings: [binding], versionFallback: "auto" }));
    const task = taskOf(await session.client.sendMessage({ message: userMessage("count 1") }));
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(session.interface).toMatchObject({ binding, version: "0.3" });
    expect((await session.client.getTask({ id: task.id })).id).toBe(task.id);
  });
});

describe.each(PEERS)("failover between interfaces of different versions, $label", (sdk) => {
  let both: LocalAgent;
  /** The agent's card with a dead JSON-RPC 1.0 interface first, then its own JSON-RPC 0.3 and 1.0 ones. */
  let card: ResolvedAgentCard;
  beforeAll(async () => {
    both = lists03FirstOf(sdk);
    const resolved = await resolveAgentCard(both.origin, options(both));
    const mine = (version: string) =>
      resolved.card.supportedInterfaces.find((i) => i.protocolBinding === "JSONRPC" && i.protocolVersion === version)!;
    const dead = create(AgentInterfaceSchema, {
      url: `http://127.0.0.1:${await deadPort()}/a2a/jsonrpc`,
      protocolBinding: "JSONRPC",
      protocolVersion: "1.0",
    });
    const c = clone(AgentCardSchema, resolved.card);
    c.supportedInterfaces = [dead, mine("0.3"), mine("1.0")];
    c.signatures = [];
    card = { ...resolved, card: c };
  });

  it("a 1.0 interface that cannot be reached moves to the next 1.0 one, passing over 0.3 unless versionFallback is auto", async () => {
    const session = await connect(card, options(both));
    const task = taskOf(await session.client.sendMessage({ message: userMessage("count 1") }));
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(session.interface).toMatchObject({ binding: "JSONRPC", version: "1.0" });
    expect(session.interface?.interface.url).toBe(both.jsonRpcUrl);
    // ListTasks, which 0.3 cannot do, still works: the session never went down to 0.3.
    const listed = await session.client.listTasks({ contextId: task.contextId, status: TaskState.COMPLETED });
    expect(listed.tasks.map((t) => t.id)).toEqual([task.id]);

    const auto = await connect(card, options(both, { versionFallback: "auto" }));
    await auto.client.getTask({ id: task.id });
    expect(auto.interface).toMatchObject({ binding: "JSONRPC", version: "0.3" });
  });

  it("with no other interface of the version, the call fails as unreachable rather than going down to 0.3", async () => {
    const only = { ...card, card: clone(AgentCardSchema, card.card) };
    only.card.supportedInterfaces = only.card.supportedInterfaces.slice(0, 2);
    const session = await connect(only, options(both));
    const e = await session.client.getTask({ id: "t1" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionError);
    expect(session.interface?.version).toBe("1.0");
  });
});
