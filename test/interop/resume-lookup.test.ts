/**
 * A stream cut before its first event, on every binding, against each real
 * peer (neither de-duplicates messages by messageId): the client asks the
 * agent (ListTasks, messageId in each task's history) before sending
 * anything again, so the task runs exactly once and the stream still ends
 * with it. @a2a-js/sdk 1.0.0-beta.0 lists nothing without a status filter:
 * there the task is found state by state.
 */
import type { Interceptor } from "@connectrpc/connect";
import { beforeAll, describe, expect, it } from "vitest";
import type { LocalAgent } from "../../demo/agent.js";
import { startChaosProxy, type ChaosProxy } from "../../demo/chaos-proxy.js";
import { A2AClient, TaskState, TaskTracker, userMessage, type Binding, type Message, type ResumeOptions } from "../../src/index.js";
import { createGrpcTransport, createJsonRpcTransport, createRestTransport } from "../../src/node.js";
import { LOOKUP_STATES } from "../../src/client/find-sent.js";
import { BINDINGS } from "../support/bindings.js";
import { SDK_1_0_BETA, agentsOfPeers, peerCases } from "../support/peers.js";
const RESUME: ResumeOptions = { backoff: { initialMs: 20, maxMs: 100 }, maxElapsedMs: 5_000 };

const agentOf = agentsOfPeers();
let agent: LocalAgent;

const portOf = (url: string) => Number(new URL(url).port);
/** The port the binding is served on: HTTP for both HTTP bindings, or gRPC's. */
const targetOf = (binding: Binding) => (binding === "GRPC" ? Number(agent.grpcAddress.split(":").at(-1)) : portOf(agent.origin));

function clientVia(binding: Binding, port: number | undefined, interceptors: Interceptor[] = []): A2AClient {
  const common = { interceptors, timeoutMs: 5_000, idleTimeoutMs: 5_000 };
  if (binding === "GRPC") {
    return new A2AClient(createGrpcTransport({ baseUrl: port === undefined ? agent.grpcAddress : `127.0.0.1:${port}`, ...common }));
  }
  const base = binding === "JSONRPC" ? agent.jsonRpcUrl : agent.restUrl;
  const baseUrl = port === undefined ? base : base.replace(`:${portOf(agent.origin)}/`, `:${port}/`);
  return new A2AClient(
    binding === "JSONRPC" ? createJsonRpcTransport({ baseUrl, ...common }) : createRestTransport({ baseUrl, ...common }),
  );
}

/**
 * Tasks on the agent whose history holds the message: how many times it was
 * run. Listed state by state, which both peers honour.
 */
async function runsOf(binding: Binding, message: Message): Promise<number> {
  const direct = clientVia(binding, undefined);
  let runs = 0;
  for (const status of LOOKUP_STATES) {
    let pageToken = "";
    do {
      const page = await direct.listTasks({ status, pageSize: 100, pageToken, historyLength: 100 });
      runs += page.tasks.filter((t) => t.history.some((m) => m.messageId === message.messageId)).length;
      pageToken = page.nextPageToken;
    } while (pageToken);
  }
  return runs;
}

/**
 * How many bytes the agent sends on a stream's connection before its first
 * event: the HTTP response head, or for gRPC every HTTP/2 frame before the
 * first DATA frame (settings, headers).
 */
async function headLength(binding: Binding): Promise<number> {
  const proxy = await startChaosProxy(targetOf(binding));
  const seen: Buffer[] = [];
  proxy.tap = (i, chunk) => {
    if (i === 0) seen.push(Buffer.from(chunk));
  };
  try {
    for await (const _ of clientVia(binding, proxy.port).sendStreamingMessage({ message: userMessage("count 1") }, { resume: false })) {
      // Read to the end.
    }
  } finally {
    await proxy.close();
  }
  const bytes = Buffer.concat(seen);
  if (binding !== "GRPC") return bytes.indexOf("\r\n\r\n") + 4;
  // HTTP/2 frames: 3 bytes length, 1 type (0 is DATA), 1 flags, 4 stream id.
  for (let pos = 0; pos + 9 <= bytes.length; pos += 9 + bytes.readUIntBE(pos, 3)) {
    if (bytes[pos + 3] === 0 && bytes.readUIntBE(pos, 3) > 0) return pos;
  }
  throw new Error("no DATA frame in the sample stream");
}

describe.each(peerCases(BINDINGS))("a stream cut before its first event ($label)", ({ sdk, binding }) => {
  let head: number;
  let proxy: ChaosProxy;
  let sends: number;
  let lookups: number;
  const counting: Interceptor = (next) => (req) => {
    if (req.method.name === "SendStreamingMessage") sends++;
    if (req.method.name === "ListTasks") lookups++;
    return next(req);
  };
  beforeAll(async () => {
    agent = agentOf(sdk);
    head = await headLength(binding);
    expect(head).toBeGreaterThan(4);
  });

  /** Runs one streamed task through a proxy that cuts its first connection after the response head. */
  async function cutOnce(message: Message, resume: ResumeOptions) {
    sends = 0;
    lookups = 0;
    proxy = await startChaosProxy(targetOf(binding), (i) => (i === 0 ? { cutAfter: head, fault: "reset" } : {}));
    const tracker = new TaskTracker();
    try {
      for await (const e of clientVia(binding, proxy.port, [counting]).sendStreamingMessage({ message }, { resume })) tracker.apply(e);
    } finally {
      await proxy.close();
    }
    expect(proxy.faults).toBe(1);
    return tracker;
  }

  const beta = sdk === SDK_1_0_BETA;
  const foundBy = beta
    ? "ListTasks without a status filter lists nothing here: the task is found state by state and resumed, it runs once"
    : "the task is found by ListTasks and resumed: it runs once, and the stream ends with its result";
  it(foundBy, async () => {
    const message = userMessage("count 3 every 20");
    const tracker = await cutOnce(message, RESUME);
    expect(tracker.task?.status?.state).toBe(TaskState.COMPLETED);
    expect(tracker.task?.artifacts.flatMap((a) => a.parts)).toHaveLength(3);
    expect(sends).toBe(1);
    expect(await runsOf(binding, message)).toBe(1);
    // The cut came before the task id was known: the agent was asked, once,
    // or on the beta once unfiltered (empty) and then per state until found.
    if (beta) expect(lookups).toBeGreaterThan(1);
    else expect(lookups).toBe(1);
  });

  it("with resendBeforeTask too, and with a contextId: still once", async () => {
    // A conversation that already has a task, so the filter has something to leave out.
    const earlier = await clientVia(binding, undefined).sendMessage({ message: userMessage("count 1") });
    const contextId = earlier.payload.case === "task" ? earlier.payload.value.contextId : "";
    expect(contextId).not.toBe("");
    const message = userMessage("count 2 every 20", { contextId });
    const tracker = await cutOnce(message, { ...RESUME, resendBeforeTask: true });
    expect(tracker.task?.status?.state).toBe(TaskState.COMPLETED);
    expect(sends).toBe(1);
    expect(await runsOf(binding, message)).toBe(1);
    // The cut came before the task id was known: the agent was asked.
    expect(lookups).toBeGreaterThanOrEqual(1);
  });
});
