/**
 * gRPC-web, for real: a gRPC-web proxy built from connect pieces
 * (connect-node's router serving lf.a2a.v1.A2AService, and the 0.3
 * a2a.v1.A2AService, over gRPC-web on 127.0.0.1) forwards every call, unary
 * and server-streaming, to each real peer's gRPC port (the official
 * @a2a-js/sdk server, current and 1.0.0-beta.0) with our Node gRPC
 * transport. The client under test is the browser-safe entry's gRPC-web
 * transport on fetch.
 */
import {
  clone,
  type DescMessage,
  type DescMethodStreaming,
  type DescMethodUnary,
  type DescService,
  type MessageShape,
} from "@bufbuild/protobuf";
import { Code, ConnectError, type HandlerContext, type Interceptor, type ServiceImpl } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CURRENT_SDK, type LocalAgent, type ServerSdk } from "../../demo/agent.js";
import { A2AService as A2AServiceV03 } from "../../gen/a2a/v1/a2a_pb.js";
import { A2AService } from "../../gen/lf/a2a/v1/a2a_pb.js";
import {
  A2AClient,
  AgentCardSchema,
  CallTimeoutError,
  ConnectionError,
  MemoryCardStore,
  TaskNotFoundError,
  TaskState,
  VersionNotSupportedError,
  createGrpcWebTransport,
  isResumeSnapshot,
  isTerminal,
  resolveAgentCard,
  textOf,
  userMessage,
  type A2ATransport,
  type GrpcWebTransportOptions,
  type ResolvedAgentCard,
  type StreamResponse,
  type Task,
} from "../../src/index.js";
import { connect as connectNode, createGrpcTransport, connect } from "../../src/node.js";
import { collect } from "../support/bindings.js";
import { PEERS, agentsOfPeers } from "../support/peers.js";
import { startChaosProxy, type ChaosProxy } from "../../demo/chaos-proxy.js";

/** Headers the proxy passes on to the agent, as a real gRPC-web proxy would. */
const FORWARDED = ["a2a-version", "a2a-extensions", "authorization"];

interface GrpcWebProxy {
  url: string;
  port: number;
  /** The request headers of every call, in order, with the method's name. */
  calls: Array<{ method: string; headers: Headers }>;
  close(): Promise<void>;
}

/**
 * A status error of the agent, as the proxy's client saw it, passed back
 * unchanged (code, message, details); anything else is the proxy's own
 * failure to reach the agent.
 */
function upstreamStatus(e: unknown): ConnectError {
  for (let cur = e; cur instanceof Error; cur = cur.cause) {
    if (cur instanceof ConnectError) {
      const status = new ConnectError(cur.rawMessage, cur.code);
      status.details = cur.details;
      return status;
    }
  }
  return new ConnectError(`the agent could not be reached: ${String(e)}`, Code.Unavailable);
}

async function* single<T>(value: T): AsyncGenerator<T> {
  yield value;
}

async function startGrpcWebProxy(upstream: A2ATransport, services: readonly DescService[]): Promise<GrpcWebProxy> {
  const calls: GrpcWebProxy["calls"] = [];
  const forward = (method: string, ctx: HandlerContext) => {
    calls.push({ method, headers: new Headers(ctx.requestHeader) });
    const h = new Headers();
    for (const name of FORWARDED) {
      const v = ctx.requestHeader.get(name);
      if (v !== null) h.set(name, v);
    }
    return h;
  };
  /** Each method of a service, forwarded as it is. */
  const serve = (service: DescService) => {
    const impl: Record<string, unknown> = {};
    for (const method of service.methods) {
      if (method.methodKind === "unary") {
        impl[method.localName] = async (req: MessageShape<DescMessage>, ctx: HandlerContext) => {
          const headers = forward(method.name, ctx);
          // A test hook: a call that only ends when its deadline or the caller does.
          if (method.name === "GetTask" && (req as { id?: string }).id === "slow") {
            await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
          }
          try {
            const res = await upstream.unary(method as DescMethodUnary, ctx.signal, ctx.timeoutMs(), headers, req);
            return res.message;
          } catch (e) {
            throw upstreamStatus(e);
          }
        };
      } else {
        impl[method.localName] = async function* (req: MessageShape<DescMessage>, ctx: HandlerContext) {
          const headers = forward(method.name, ctx);
          try {
            const res = await upstream.stream(method as DescMethodStreaming, ctx.signal, undefined, headers, single(req));
            yield* res.message;
          } catch (e) {
            throw upstreamStatus(e);
          }
        };
      }
    }
    return impl as ServiceImpl<DescService>;
  };
  const handler = connectNodeAdapter({
    grpcWeb: true,
    grpc: false,
    connect: false,
    routes: (router) => {
      for (const service of services) router.service(service, serve(service));
    },
  });
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const agentOf = agentsOfPeers({ versions: ["1.0", "0.3"] });
/** One gRPC-web proxy per peer, started by the first describe that uses it. */
const proxies = new Map<ServerSdk, GrpcWebProxy>();
let agent: LocalAgent;
let proxy: GrpcWebProxy;
let resolved: ResolvedAgentCard;

/** Points the tests of the enclosing describe at the peer, through its proxy. */
function usePeer(sdk: ServerSdk): void {
  beforeAll(async () => {
    agent = agentOf(sdk);
    let started = proxies.get(sdk);
    if (!started) {
      started = await startGrpcWebProxy(createGrpcTransport({ baseUrl: agent.grpcAddress }), [A2AService, A2AServiceV03]);
      proxies.set(sdk, started);
    }
    proxy = started;
    resolved = await resolveAgentCard(agent.origin, { cache: new MemoryCardStore(), verification: { keys: agent.jwks } });
  });
}
afterAll(async () => {
  await Promise.all([...proxies.values()].map((p) => p.close()));
});

const clientVia = (options: Partial<GrpcWebTransportOptions> = {}) =>
  new A2AClient(createGrpcWebTransport({ baseUrl: proxy.url, ...options }));

function taskOf(res: { payload: { case: string | undefined; value?: unknown } }): Task {
  if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
  return res.payload.value as Task;
}

function lastState(events: readonly StreamResponse[]): TaskState | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const p = events[i]!.payload;
    if (p.case === "task") return p.value.status?.state;
    if (p.case === "statusUpdate") return p.value.status?.state;
  }
  return undefined;
}

describe.each(PEERS)("gRPC-web through a proxy to $label", (sdk) => {
  usePeer(sdk);

  it("sends a message", async () => {
    const res = await clientVia().sendMessage({ message: userMessage("echo hello over gRPC-web") });
    expect(res.payload.case).toBe("message");
    expect(textOf(res.payload.value as never)).toBe("hello over gRPC-web");
  });

  it("streams a task's events, then gets the task", async () => {
    const client = clientVia();
    const events = await collect(client.sendStreamingMessage({ message: userMessage("count 3") }, { resume: false }));
    expect(lastState(events)).toBe(TaskState.COMPLETED);
    const chunks = events.flatMap((e) => (e.payload.case === "artifactUpdate" ? [textOf(e.payload.value.artifact!)] : []));
    expect(chunks).toEqual(["chunk-1", "chunk-2", "chunk-3"]);

    const first = events[0]!.payload;
    const taskId = first.case === "task" ? first.value.id : first.case === "statusUpdate" ? first.value.taskId : "";
    const task = await client.getTask({ id: taskId });
    expect(task.id).toBe(taskId);
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(textOf(task)).toBe("chunk-1chunk-2chunk-3");
  });

  it("cancels a running task", async () => {
    const client = clientVia();
    const held = taskOf(await client.sendMessage({ message: userMessage("hold"), configuration: { returnImmediately: true } }));
    expect(isTerminal(held.status!.state)).toBe(false);
    const canceled = await client.cancelTask({ id: held.id });
    expect(canceled.status?.state).toBe(TaskState.CANCELED);
  });

  it("an unknown task fails with TaskNotFoundError, classified by the ErrorInfo in the gRPC-web trailer", async () => {
    const e = await clientVia()
      .getTask({ id: "no-such-task" })
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(TaskNotFoundError);
    expect(e).toMatchObject({ binding: "GRPC", grpcCode: Code.NotFound, reason: "TASK_NOT_FOUND" });
  });

  it("carries A2A-Version: the agent rejects a version it does not speak", async () => {
    const e = await clientVia({ protocolVersion: "9.9" })
      .getTask({ id: "x" })
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(VersionNotSupportedError);
    expect(proxy.calls.at(-1)!.headers.get("a2a-version")).toBe("9.9");
  });

  it("carries extensions and runs interceptors", async () => {
    const seen: string[] = [];
    const interceptor: Interceptor = (next) => async (req) => {
      seen.push(`${req.method.name} ${req.url}`);
      req.header.set("x-intercepted", "yes");
      return next(req);
    };
    const client = new A2AClient(
      createGrpcWebTransport({ baseUrl: proxy.url, interceptors: [interceptor], extensions: ["https://ext.example/a"] }),
    );
    await client.sendMessage({ message: userMessage("echo x") }, { extensions: ["https://ext.example/b"] });
    const call = proxy.calls.at(-1)!;
    expect(call.headers.get("a2a-extensions")).toBe("https://ext.example/a,https://ext.example/b");
    expect(call.headers.get("x-intercepted")).toBe("yes");
    expect(seen).toEqual([`SendMessage ${proxy.url}/lf.a2a.v1.A2AService/SendMessage`]);
  });

  it("a unary call outliving its timeout fails with CallTimeoutError (deadline)", async () => {
    const started = Date.now();
    const e = await clientVia({ timeoutMs: 200 })
      .getTask({ id: "slow" })
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(CallTimeoutError);
    expect((e as CallTimeoutError).kind).toBe("deadline");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("a stream without messages for its idle timeout fails with CallTimeoutError (idle)", async () => {
    const client = clientVia({ idleTimeoutMs: 300 });
    const events: StreamResponse[] = [];
    const e = await (async () => {
      for await (const event of client.sendStreamingMessage({ message: userMessage("hold") }, { resume: false })) events.push(event);
    })().catch((err: unknown) => err);
    expect(e).toBeInstanceOf(CallTimeoutError);
    expect((e as CallTimeoutError).kind).toBe("idle");
    const task = taskOf(events[0]!);
    await clientVia().cancelTask({ id: task.id });
  });

  it("a stream cut below gRPC-web is a ConnectionError, and the client resumes it", async () => {
    // The first connection through the chaos proxy is reset mid-stream.
    const chaos: ChaosProxy = await startChaosProxy(proxy.port, (i) => (i === 0 ? { cutAfter: 600, fault: "reset" } : {}));
    try {
      const cutClient = new A2AClient(createGrpcWebTransport({ baseUrl: `http://127.0.0.1:${chaos.port}` }));
      const dropped = await collect(cutClient.sendStreamingMessage({ message: userMessage("count 4 every 100") }, { resume: false })).catch(
        (err: unknown) => err,
      );
      expect(dropped).toBeInstanceOf(ConnectionError);
      expect(dropped).toMatchObject({ binding: "GRPC" });

      chaos.plan = (i) => (i === 1 ? { cutAfter: 600, fault: "reset" } : {});
      const events = await collect(cutClient.sendStreamingMessage({ message: userMessage("count 4 every 100") }));
      expect(chaos.faults).toBe(2);
      expect(events.some(isResumeSnapshot)).toBe(true);
      expect(lastState(events)).toBe(TaskState.COMPLETED);
    } finally {
      await chaos.close();
    }
  });
});

describe("connect() with gRPC-web", () => {
  usePeer(CURRENT_SDK);

  /** The agent's card with its GRPC interfaces moved to the proxy's URL. */
  function cardBehindProxy() {
    const card = clone(AgentCardSchema, resolved.card);
    card.supportedInterfaces = card.supportedInterfaces.map((i) => (i.protocolBinding === "GRPC" ? { ...i, url: proxy.url } : i));
    card.signatures = [];
    return card;
  }

  it("chooses the GRPC interface through the proxy when given createGrpcWebTransport", async () => {
    const session = await connect(cardBehindProxy(), { grpcWeb: createGrpcWebTransport, preferredBindings: ["GRPC"] });
    expect(session.interface).toMatchObject({ binding: "GRPC", interface: { url: proxy.url } });
    const before = proxy.calls.length;
    const events = await collect(session.client.sendStreamingMessage({ message: userMessage("count 2") }));
    expect(lastState(events)).toBe(TaskState.COMPLETED);
    expect(proxy.calls.length).toBe(before + 1);
    expect(proxy.calls.at(-1)!.headers.get("a2a-version")).toBe("1.0");
  });

  it("reaches a GRPC interface on A2A 0.3 the same way, the 0.3 translation loaded on first use", async () => {
    const session = await connect(cardBehindProxy(), {
      grpcWeb: createGrpcWebTransport,
      preferredBindings: ["GRPC"],
      protocolVersions: ["0.3"],
    });
    expect(session.interface).toMatchObject({ binding: "GRPC", version: "0.3", interface: { url: proxy.url } });
    const res = await session.client.sendMessage({ message: userMessage("echo over 0.3") });
    expect(textOf(res.payload.value as never)).toBe("over 0.3");
    const call = proxy.calls.at(-1)!;
    expect(call.method).toBe("SendMessage");
    expect(call.headers.get("a2a-version")).toBe("0.3");
    const e = await session.client.getTask({ id: "no-such-task" }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(TaskNotFoundError);
  });

  it("makes the Node entry's connect use gRPC-web instead of HTTP/2", async () => {
    const before = proxy.calls.length;
    const session = await connectNode(cardBehindProxy(), { grpcWeb: createGrpcWebTransport, preferredBindings: ["GRPC"] });
    await session.client.sendMessage({ message: userMessage("echo node") });
    expect(session.interface?.interface.url).toBe(proxy.url);
    expect(proxy.calls.length).toBe(before + 1);
  });
  // Without it, the browser-safe entry passes GRPC interfaces over: connect-browser-safe.test.ts.
});
