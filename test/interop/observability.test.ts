/**
 * Trace context and logging against each real peer (the official
 * @a2a-js/sdk server, current and 1.0.0-beta.0) on every binding. The server exposes no request headers to its executor, so
 * a recording proxy in front of it (HTTP/1.1 for JSON-RPC and HTTP+JSON,
 * HTTP/2 for gRPC) checks what arrived, while the server's answers show the
 * calls went through.
 */
import { createServer as createHttpServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import {
  connect as h2connect,
  constants as h2,
  createServer as createH2Server,
  type ClientHttp2Session,
  type Http2Server,
  type OutgoingHttpHeaders,
  type ServerHttp2Session,
} from "node:http2";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalAgent } from "../../demo/agent.js";
import {
  TaskState,
  loggingInterceptor,
  newTraceparent,
  traceparentInterceptor,
  userMessage,
  type CallLogEntry,
  type Task,
} from "../../src/index.js";
import { BINDINGS, clientFor } from "../support/bindings.js";
import { agentsOfPeers, peerCases } from "../support/peers.js";

const agentOf = agentsOfPeers();
/** The peer the proxies forward to. */
let agent: LocalAgent;
const seen: IncomingHttpHeaders[] = [];
let httpProxy: Server;
let h2Proxy: Http2Server;
/** One HTTP/2 session to each peer's gRPC port. */
const upstreams = new Map<string, ClientHttp2Session>();
const h2Sessions = new Set<ServerHttp2Session>();
let httpPort = 0;
let h2Port = 0;

/** Copies the string-keyed headers, leaving out the ones a hop owns. */
function forwardable(headers: IncomingHttpHeaders, drop: readonly string[]): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !drop.includes(k)) out[k] = v;
  return out;
}

beforeAll(async () => {
  httpProxy = createHttpServer((req, res) => {
    seen.push(req.headers);
    const target = new URL(agent.origin);
    const out = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on("error", () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => httpProxy.listen(0, "127.0.0.1", resolve));
  httpPort = (httpProxy.address() as AddressInfo).port;

  h2Proxy = createH2Server();
  h2Proxy.on("session", (s) => {
    h2Sessions.add(s);
    s.on("close", () => h2Sessions.delete(s));
  });
  h2Proxy.on("stream", (stream, headers) => {
    seen.push(headers);
    let upstream = upstreams.get(agent.grpcAddress);
    if (!upstream) upstreams.set(agent.grpcAddress, (upstream = h2connect(`http://${agent.grpcAddress}`)));
    const out = upstream.request(forwardable(headers, [":authority", ":scheme"]));
    let trailers: OutgoingHttpHeaders = {};
    out.on("response", (res) => {
      if (res["grpc-status"] !== undefined) {
        stream.respond(forwardable(res, []), { endStream: true });
        return;
      }
      stream.respond(forwardable(res, []), { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers(trailers));
      out.pipe(stream);
    });
    out.on("trailers", (t) => {
      trailers = forwardable(t, []);
    });
    out.on("error", () => stream.close(h2.NGHTTP2_INTERNAL_ERROR));
    stream.pipe(out);
  });
  await new Promise<void>((resolve) => h2Proxy.listen(0, "127.0.0.1", resolve));
  h2Port = (h2Proxy.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const s of h2Sessions) s.destroy();
  for (const u of upstreams.values()) u.destroy();
  await Promise.all([
    new Promise<void>((resolve) => h2Proxy.close(() => resolve())),
    new Promise<void>((resolve) => {
      httpProxy.closeAllConnections();
      httpProxy.close(() => resolve());
    }),
  ]);
});

/** The local agent, as reached through the recording proxies. */
function proxied(): LocalAgent {
  const origin = `http://127.0.0.1:${httpPort}`;
  return {
    ...agent,
    origin,
    jsonRpcUrl: agent.jsonRpcUrl.replace(agent.origin, origin),
    restUrl: agent.restUrl.replace(agent.origin, origin),
    grpcAddress: `127.0.0.1:${h2Port}`,
  };
}

function taskOf(res: { payload: { case: string | undefined; value?: unknown } }): Task {
  if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
  return res.payload.value as Task;
}

describe.each(peerCases(BINDINGS))("$label", ({ sdk, binding }) => {
  beforeAll(() => {
    agent = agentOf(sdk);
  });

  it("traceparent and tracestate reach the server on unary and streaming calls; the log has each call", async () => {
    seen.length = 0;
    const parents: string[] = [];
    const entries: CallLogEntry[] = [];
    const client = clientFor(binding, proxied(), {
      headers: { Authorization: "Bearer top-secret-value" },
      interceptors: [
        loggingInterceptor((e) => entries.push(e), { binding }),
        traceparentInterceptor(() => {
          parents.push(newTraceparent());
          return { traceparent: parents.at(-1)!, tracestate: "a2a=1" };
        }),
      ],
    });

    const task = taskOf(await client.sendMessage({ message: userMessage("count 2") }));
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    const events = [];
    for await (const e of client.sendStreamingMessage({ message: userMessage("count 2") })) events.push(e);
    expect((await client.getTask({ id: task.id })).id).toBe(task.id);

    expect(parents).toHaveLength(3);
    expect(seen.map((h) => h.traceparent)).toEqual(parents);
    expect(seen.every((h) => h.tracestate === "a2a=1")).toBe(true);

    expect(entries.map((e) => [e.method, e.binding, e.outcome])).toEqual([
      ["SendMessage", binding, "ok"],
      ["SendStreamingMessage", binding, "ok"],
      ["GetTask", binding, "ok"],
    ]);
    expect(entries[1]!.events).toBe(events.length);
    expect(JSON.stringify(entries)).not.toContain("top-secret");
  });
});
