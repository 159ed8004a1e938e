/**
 * SubscribeToTask against each real peer, request by request: the verb
 * HTTP+JSON uses first and keeps, how each peer answers the other verb,
 * and a stream cut on the wire resumed with GetTask and SubscribeToTask on
 * every binding.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { startChaosProxy } from "../../demo/chaos-proxy.js";
import type { LocalAgent } from "../../demo/agent.js";
import {
  A2AClient,
  TaskNotFoundError,
  TaskState,
  createFetchHttpClient,
  isResumeSnapshot,
  textOf,
  userMessage,
  type Binding,
  type StreamResponse,
  type Task,
} from "../../src/index.js";
import { createRestTransport } from "../../src/node.js";
import { createRestTransportWithRoutes } from "../../src/bindings/http-json/transport.js";
import { GENERATED_JSON } from "../../src/node-runtime.js";
import { routesOf } from "../../src/bindings/http-json/routes.js";
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import type { Interceptor } from "@connectrpc/connect";
import { BINDINGS, clientFor, collect, type TransportOverrides } from "../support/bindings.js";
import { PEERS, SDK_1_0_BETA, agentsOfPeers } from "../support/peers.js";

/** The fetch client, recording each request's verb and path. */
function recording(): { httpClient: UniversalClientFn; seen: string[] } {
  const inner = createFetchHttpClient();
  const seen: string[] = [];
  return {
    seen,
    httpClient: (req) => {
      seen.push(`${req.method} ${new URL(req.url).pathname.replace(/^\/a2a\/rest/, "")}`);
      return inner(req);
    },
  };
}

function stateOf(e: StreamResponse | undefined): TaskState | undefined {
  if (e?.payload.case === "statusUpdate") return e.payload.value.status?.state;
  if (e?.payload.case === "task") return e.payload.value.status?.state;
  return undefined;
}

const agentOf = agentsOfPeers();

describe.each(PEERS)("$label", (sdk) => {
  let agent: LocalAgent;
  beforeAll(() => {
    agent = agentOf(sdk);
  });

  /** A task in WORKING until canceled. */
  async function held(): Promise<Task> {
    const res = await clientFor("JSONRPC", agent).sendMessage({ message: userMessage("hold"), configuration: { returnImmediately: true } });
    if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
    return res.payload.value;
  }

  /** Subscribes, takes the snapshot, cancels the task, reads to the end. */
  async function followToCancel(client: A2AClient, task: Task): Promise<StreamResponse[]> {
    const stream = client.subscribeToTask({ id: task.id })[Symbol.asyncIterator]();
    const first = await stream.next();
    await clientFor("JSONRPC", agent).cancelTask({ id: task.id });
    const rest: StreamResponse[] = [];
    for (let r = await stream.next(); !r.done; r = await stream.next()) rest.push(r.value);
    return [first.value as StreamResponse, ...rest];
  }

  it("HTTP+JSON: one request per subscribe from the first on (POST)", async () => {
    const { httpClient, seen } = recording();
    const client = new A2AClient(createRestTransport({ baseUrl: agent.restUrl, httpClient }));
    const [a, b] = [await held(), await held()];
    for (const task of [a, b]) {
      const events = await followToCancel(client, task);
      expect(events[0]!.payload.case).toBe("task");
      expect(stateOf(events.at(-1))).toBe(TaskState.CANCELED);
    }
    expect(seen).toEqual([`POST /tasks/${a.id}:subscribe`, `POST /tasks/${b.id}:subscribe`]);
  });

  it("HTTP+JSON: a task that does not exist is TaskNotFoundError after one subscribe, and GetTask to tell it from an ended one", async () => {
    const { httpClient, seen } = recording();
    const client = new A2AClient(createRestTransport({ baseUrl: agent.restUrl, httpClient }));
    const e = await collect(client.subscribeToTask({ id: "no-such-task" })).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(TaskNotFoundError);
    expect(seen).toEqual(["POST /tasks/no-such-task:subscribe", "GET /tasks/no-such-task"]);
  });

  it("HTTP+JSON: how the peer answers GET /tasks/{id}:subscribe", async () => {
    const task = await held();
    const ctl = new AbortController();
    try {
      const res = await fetch(`${agent.restUrl}/tasks/${task.id}:subscribe`, {
        headers: { Accept: "text/event-stream", "A2A-Version": "1.0" },
        signal: ctl.signal,
      });
      if (sdk === SDK_1_0_BETA) {
        // No GET route: `GET /tasks/{id}` looks up a task called "<id>:subscribe".
        expect(res.status).toBe(404);
        const body = (await res.json()) as { error: { message: string; details: Array<{ reason?: string }> } };
        expect(body.error.message).toBe(`Task not found: ${task.id}:subscribe`);
        expect(body.error.details.map((d) => d.reason)).toContain("TASK_NOT_FOUND");
      } else {
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      }
    } finally {
      ctl.abort();
      await clientFor("JSONRPC", agent).cancelTask({ id: task.id });
    }
  });

  it("HTTP+JSON: a client trying GET first (the proto's verb) needs at most one more request, once", async () => {
    const { httpClient, seen } = recording();
    const client = new A2AClient(createRestTransportWithRoutes({ baseUrl: agent.restUrl, httpClient }, routesOf, "GET", GENERATED_JSON));
    const [a, b] = [await held(), await held()];
    for (const task of [a, b]) expect((await followToCancel(client, task))[0]!.payload.case).toBe("task");
    const verb = sdk === SDK_1_0_BETA ? "POST" : "GET";
    expect(seen).toEqual([
      ...(sdk === SDK_1_0_BETA ? [`GET /tasks/${a.id}:subscribe`] : []),
      `${verb} /tasks/${a.id}:subscribe`,
      `${verb} /tasks/${b.id}:subscribe`,
    ]);
  });

  describe.each(BINDINGS)("%s", (binding: Binding) => {
    it("a stream cut on the wire is resumed with GetTask and SubscribeToTask to the end", async () => {
      const grpc = binding === "GRPC";
      const port = Number(new URL(grpc ? `http://${agent.grpcAddress}` : agent.origin).port);
      // First an uncut run without pauses, to find where the first chunk's
      // bytes start: its message has the same length, so its bytes before
      // the chunk (the task echoes the message) have too.
      const seen: Buffer[] = [];
      const probe = await startChaosProxy(port);
      probe.tap = (i, chunk) => void (i === 0 && seen.push(Buffer.from(chunk)));
      const through = (proxyPort: number, overrides: TransportOverrides = {}) =>
        clientFor(
          binding,
          {
            ...agent,
            jsonRpcUrl: agent.jsonRpcUrl.replace(`:${port}/`, `:${proxyPort}/`),
            restUrl: agent.restUrl.replace(`:${port}/`, `:${proxyPort}/`),
            grpcAddress: `127.0.0.1:${proxyPort}`,
          },
          overrides,
        );
      try {
        await collect(through(probe.port).sendStreamingMessage({ message: userMessage("count 3 every 000") }, { resume: false }));
      } finally {
        await probe.close();
      }
      const cutAt = Buffer.concat(seen).indexOf("chunk-1");
      expect(cutAt).toBeGreaterThan(0);

      // Then the paced stream, cut there once: the task is known, chunk 1 is
      // on its way, and the task runs 300 ms longer, time for GetTask and
      // SubscribeToTask to find it live.
      const proxy = await startChaosProxy(port, (i) => (i === 0 ? { cutAfter: cutAt, fault: "end" } : {}));
      const methods: string[] = [];
      try {
        const counting: Interceptor = (next) => (req) => {
          methods.push(req.method.name);
          return next(req);
        };
        const client = through(proxy.port, { interceptors: [counting] });
        const events = await collect(
          client.sendStreamingMessage({ message: userMessage("count 3 every 150") }, { resume: { backoff: { initialMs: 1, maxMs: 5 } } }),
        );
        expect(proxy.faults).toBe(1);
        expect(methods).toEqual(["SendStreamingMessage", "GetTask", "SubscribeToTask"]);
        const resumed = events.findIndex(isResumeSnapshot);
        expect(resumed).toBeGreaterThan(0);
        expect(stateOf(events.at(-1))).toBe(TaskState.COMPLETED);
        const server = await clientFor(binding, agent).getTask({ id: (events[0]!.payload.value as Task).id });
        expect(textOf(server, ",")).toBe("chunk-1,chunk-2,chunk-3");
      } finally {
        await proxy.close();
      }
    });
  });
});
