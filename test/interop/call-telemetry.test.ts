/**
 * What the logging and tracing interceptors report of calls made through
 * connect(), against each real peer (the official @a2a-js/sdk server,
 * current and 1.0.0-beta.0) on every binding, on its A2A 1.0 and its 0.3
 * interfaces, and after a failover from a dead interface to a live one.
 */
import { clone, create } from "@bufbuild/protobuf";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { beforeEach, describe, expect, it } from "vitest";
import type { LocalAgent } from "../../demo/agent.js";
import {
  AgentCardSchema,
  AgentInterfaceSchema,
  MemoryCardStore,
  TaskNotFoundError,
  loggingInterceptor,
  resolveAgentCard,
  taskIdOf,
  tracingInterceptor,
  userMessage,
  type Binding,
  type CallLogEntry,
  type ConnectOptions,
  type Interceptor,
} from "../../src/index.js";
import { connect } from "../../src/node.js";
import { BINDINGS, collect } from "../support/bindings.js";
import { deadPort } from "../support/ports.js";
import { PEERS, agentsOfPeers, peerCases } from "../support/peers.js";

const agentOf = agentsOfPeers();
const agent03Of = agentsOfPeers({ versions: ["0.3"] });

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("a2a-connect-tests");
let entries: CallLogEntry[];
let interceptors: Interceptor[];
beforeEach(() => {
  exporter.reset();
  entries = [];
  interceptors = [loggingInterceptor((e) => entries.push(e)), tracingInterceptor({ tracer })];
});

const options = (agent: LocalAgent, extra: ConnectOptions = {}): ConnectOptions => ({
  cache: new MemoryCardStore(),
  verification: { keys: agent.jwks },
  transport: { interceptors },
  ...extra,
});

const SERVICE = "lf.a2a.v1.A2AService";

/** The URL a call of `method` goes to on the agent's interface of `binding` and `version`, as the log names it. */
function urlOf(agent: LocalAgent, binding: Binding, version: string, method: string, taskId?: string): string {
  switch (binding) {
    case "JSONRPC":
      return agent.jsonRpcUrl;
    case "HTTP+JSON": {
      const route = method === "SendMessage" ? "/message:send" : method === "SendStreamingMessage" ? "/message:stream" : `/tasks/${taskId}`;
      // 0.3's routes live under /v1 of the same base URL.
      return `${agent.restUrl}${version === "0.3" ? "/v1" : ""}${route}`;
    }
    case "GRPC":
      return `http://${agent.grpcAddress}/${version === "0.3" ? "a2a.v1.A2AService" : SERVICE}/${method}`;
  }
}

const cases = peerCases(BINDINGS).flatMap((c) => (["1.0", "0.3"] as const).map((version) => ({ ...c, version })));

describe.each(cases)("$label on A2A $version", ({ sdk, binding, version }) => {
  it("each call is logged and traced with its operation, binding, version and URL; a TaskNotFound carries its code", async () => {
    const agent = version === "1.0" ? agentOf(sdk) : agent03Of(sdk);
    const session = await connect(agent.origin, options(agent, { preferredBindings: [binding] }));
    expect(session.interface).toMatchObject({ binding, version });

    const sent = await session.client.sendMessage({ message: userMessage("count 2") });
    const events = await collect(session.client.sendStreamingMessage({ message: userMessage("count 2") }));
    await expect(session.client.getTask({ id: "no-such-task" })).rejects.toBeInstanceOf(TaskNotFoundError);

    const methods = ["SendMessage", "SendStreamingMessage", "GetTask"];
    expect(entries.map((e) => [e.method, e.binding, e.version, e.outcome, e.errorCode])).toEqual([
      ["SendMessage", binding, version, "ok", undefined],
      ["SendStreamingMessage", binding, version, "ok", undefined],
      ["GetTask", binding, version, "error", "TASK_NOT_FOUND"],
    ]);
    expect(entries.map((e) => e.url)).toEqual(methods.map((m) => urlOf(agent, binding, version, m, "no-such-task")));
    expect(entries[1]!.events).toBe(events.length);

    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(methods.map((m) => `${SERVICE}/${m}`));
    const port = Number(new URL(entries[0]!.url).port);
    spans.forEach((span, i) => {
      expect(span.kind).toBe(SpanKind.CLIENT);
      expect(span.attributes).toMatchObject({
        "rpc.system": { GRPC: "grpc", JSONRPC: "jsonrpc", "HTTP+JSON": "a2a" }[binding],
        "rpc.service": SERVICE,
        "rpc.method": methods[i],
        "server.address": "127.0.0.1",
        "server.port": port,
        "url.full": entries[i]!.url,
        "a2a.binding": binding,
        "a2a.version": version,
      });
    });
    const [send, stream, get] = spans as [ReadableSpan, ReadableSpan, ReadableSpan];
    expect(send.attributes["a2a.task.id"]).toBe(taskIdOf(sent));
    expect(send.status.code).toBe(SpanStatusCode.UNSET);

    // The stream's span lasts until its last event, which each rpc.message event records.
    expect(stream.attributes["a2a.task.id"]).toBe(taskIdOf(events[0]));
    expect(stream.events.map((e) => [e.name, e.attributes?.["a2a.event"]])).toEqual(events.map((e) => ["rpc.message", e.payload.case]));
    expect(stream.attributes["a2a.stream.events"]).toBe(events.length);
    expect(stream.status.code).toBe(SpanStatusCode.UNSET);

    expect(get.status).toMatchObject({ code: SpanStatusCode.ERROR, message: "TaskNotFoundError (TASK_NOT_FOUND)" });
    expect(get.attributes).toMatchObject({
      "error.type": "TASK_NOT_FOUND",
      "a2a.error.code": "TASK_NOT_FOUND",
      "a2a.task.id": "no-such-task",
    });
  });
});

describe.each(PEERS)("after a failover ($label)", (sdk) => {
  /** A session whose card lists a dead interface (JSON-RPC 1.0 unless told) before the agent's live one (HTTP+JSON unless told). */
  async function failingOver(agent: LocalAgent, deadOne = { binding: "JSONRPC", version: "1.0" }, liveBinding: Binding = "HTTP+JSON") {
    const resolved = await resolveAgentCard(agent.origin, { cache: new MemoryCardStore(), verification: { keys: agent.jwks } });
    const card = clone(AgentCardSchema, resolved.card);
    const dead = `http://127.0.0.1:${await deadPort()}/a2a`;
    const live = card.supportedInterfaces.find((i) => i.protocolBinding === liveBinding)!;
    const deadInterface = create(AgentInterfaceSchema, { url: dead, protocolBinding: deadOne.binding, protocolVersion: deadOne.version });
    card.supportedInterfaces = [deadInterface, live];
    card.signatures = [];
    return { session: await connect({ ...resolved, card }, options(agent)), dead };
  }

  it("the log names the dead interface's failure, then the live one", async () => {
    const agent = agentOf(sdk);
    const { session, dead } = await failingOver(agent);
    await session.client.sendMessage({ message: userMessage("count 1") });
    await session.client.sendMessage({ message: userMessage("count 1") });
    expect(entries.map((e) => [e.method, e.binding, e.version, e.url, e.outcome, e.errorCode])).toEqual([
      ["SendMessage", "JSONRPC", "1.0", dead, "error", "CONNECTION_FAILED"],
      ["SendMessage", "HTTP+JSON", "1.0", `${agent.restUrl}/message:send`, "ok", undefined],
      // Later calls stay on the live interface.
      ["SendMessage", "HTTP+JSON", "1.0", `${agent.restUrl}/message:send`, "ok", undefined],
    ]);
    const [failed, ok] = exporter.getFinishedSpans();
    expect(failed!.attributes).toMatchObject({ "a2a.binding": "JSONRPC", "url.full": dead, "error.type": "CONNECTION_FAILED" });
    expect(ok!.attributes).toMatchObject({ "a2a.binding": "HTTP+JSON", "url.full": `${agent.restUrl}/message:send` });
  });

  it("what a dead 0.3 HTTP+JSON attempt sent to is not taken for where the live attempt went", async () => {
    const agent = agentOf(sdk);
    const { session, dead } = await failingOver(agent, { binding: "HTTP+JSON", version: "0.3" }, "JSONRPC");
    // A stream's attempts share its context values (its resumption state travels in them).
    await collect(session.client.sendStreamingMessage({ message: userMessage("count 1") }));
    expect(entries.map((e) => [e.binding, e.version, e.url, e.outcome])).toEqual([
      ["HTTP+JSON", "0.3", `${dead}/v1/message:stream`, "error"],
      ["JSONRPC", "1.0", agent.jsonRpcUrl, "ok"],
    ]);
    expect(exporter.getFinishedSpans()[0]!.attributes["url.full"]).toBe(agent.jsonRpcUrl);
  });

  it("a stream's one span names the interface it ended up on", async () => {
    const agent = agentOf(sdk);
    const { session, dead } = await failingOver(agent);
    const events = await collect(session.client.sendStreamingMessage({ message: userMessage("count 2") }));
    expect(entries.map((e) => [e.binding, e.url, e.outcome])).toEqual([
      ["JSONRPC", dead, "error"],
      ["HTTP+JSON", `${agent.restUrl}/message:stream`, "ok"],
    ]);
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    expect(spans[0]!.attributes).toMatchObject({
      "a2a.binding": "HTTP+JSON",
      "url.full": `${agent.restUrl}/message:stream`,
      "a2a.stream.events": events.length,
    });
    expect(spans[0]!.status.code).toBe(SpanStatusCode.UNSET);
  });
});
