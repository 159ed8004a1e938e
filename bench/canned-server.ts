/**
 * A canned A2A 1.0 server for the benchmarks, run in its own process so its
 * CPU is not counted as the client's. Every answer is fixed: SendMessage
 * returns one task; SendStreamingMessage streams `n` events (status updates
 * and ~1 KB artifact updates, ending with a completed status).
 *
 * HTTP routes (the event count, and for slow streams the pace, are part of
 * the interface URL):
 *   POST /n/{n}/jsonrpc                       JSON-RPC: SendMessage, SendStreamingMessage
 *   POST /n/{n}/rest/message:send             HTTP+JSON
 *   POST /n/{n}/rest/message:stream           HTTP+JSON SSE
 *   POST /n/{n}/every/{ms}/jsonrpc            the same, a stream sending one event every {ms}
 *   POST /n/{n}/every/{ms}/rest/message:...   (and the HTTP+JSON ones likewise)
 *   GET  /card.json                           an Agent Card (max-age 60, ETag; If-None-Match answers 304)
 *   GET  /revalidate/card.json                the same card with no-cache: every use revalidates
 *
 * gRPC (canned-grpc.ts, on a port of its own): lf.a2a.v1.A2AService's
 * SendMessage and SendStreamingMessage, with the same answers encoded once
 * in advance; a gRPC request has no URL, so the stream length is set when
 * the server starts (first argument, or GRPC_EVENTS; default 1000).
 *
 * Prints `listening <port> grpc <port>` on stdout (or sends both to a fork parent).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { fromJson, toBinary, type JsonValue } from "@bufbuild/protobuf";
import { SendMessageResponseSchema, StreamResponseSchema } from "../gen/lf/a2a/v1/a2a_pb.js";
import { startCannedGrpc } from "./canned-grpc.js";

const TASK = {
  id: "task-1",
  contextId: "ctx-1",
  status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-01-01T00:00:00Z" },
  artifacts: [{ artifactId: "art-1", name: "answer", parts: [{ text: "x".repeat(200) }] }],
  history: [{ messageId: "m-1", role: "ROLE_USER", parts: [{ text: "hello" }] }],
};

const STATUS = {
  statusUpdate: { taskId: "task-1", contextId: "ctx-1", status: { state: "TASK_STATE_WORKING", timestamp: "2026-01-01T00:00:00Z" } },
};
const ARTIFACT = {
  artifactUpdate: {
    taskId: "task-1",
    contextId: "ctx-1",
    artifact: { artifactId: "art-1", parts: [{ text: "y".repeat(1000) }] },
    append: false,
    lastChunk: false,
  },
};
const DONE = {
  statusUpdate: { taskId: "task-1", contextId: "ctx-1", status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-01-01T00:00:00Z" } },
};

export const CARD = {
  name: "canned",
  description: "canned benchmark agent",
  version: "1.0.0",
  supportedInterfaces: [] as unknown[],
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "echo", description: "echo", tags: ["echo"] }],
};

const BLOCK = 1000;
/** Event `i` of every stream: status and artifact updates in turn. */
const eventAt = (i: number) => (i % 2 === 0 ? STATUS : ARTIFACT);

function frames(events: unknown[], wrap: (e: unknown) => unknown): Buffer {
  return Buffer.from(events.map((e) => `data: ${JSON.stringify(wrap(e))}\n\n`).join(""));
}

/**
 * The whole body of a stream of `n` events, byte for byte what `stream`
 * writes (its blocks hold an even number of events, so they repeat the same
 * turns): for measuring a client on these bytes without a server.
 */
export function streamBody(n: number, wrap: (e: unknown) => unknown): Buffer {
  return frames([...Array.from({ length: n - 1 }, (_, i) => eventAt(i)), DONE], wrap);
}

/** Writes `n` events in blocks, respecting back-pressure; the last one is DONE. */
function stream(res: ServerResponse, n: number, wrap: (e: unknown) => unknown): void {
  res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
  const body = n - 1;
  const block = frames(
    Array.from({ length: BLOCK }, (_, i) => eventAt(i)),
    wrap,
  );
  let left = body;
  const pump = () => {
    while (left > 0) {
      let ok: boolean;
      if (left >= BLOCK) {
        ok = res.write(block);
        left -= BLOCK;
      } else {
        ok = res.write(
          frames(
            Array.from({ length: left }, (_, i) => eventAt(i)),
            wrap,
          ),
        );
        left = 0;
      }
      if (!ok) {
        res.once("drain", pump);
        return;
      }
    }
    res.end(frames([DONE], wrap));
  };
  res.on("close", () => (left = 0));
  pump();
}

/**
 * A slow stream, the kind an agent at work sends: `n` events, one every
 * `everyMs` (the wait is the point: what is measured is the memory of many
 * such streams open at once). The headers go out at once, so the client
 * holds an open stream before the first event.
 */
function slowStream(res: ServerResponse, n: number, everyMs: number, wrap: (e: unknown) => unknown): void {
  res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
  res.flushHeaders();
  const status = frames([STATUS], wrap);
  const artifact = frames([ARTIFACT], wrap);
  let sent = 0;
  const timer = setInterval(() => {
    sent++;
    if (sent < n) {
      res.write(sent % 2 === 1 ? status : artifact);
      return;
    }
    clearInterval(timer);
    res.end(frames([DONE], wrap));
  }, everyMs);
  res.on("close", () => clearInterval(timer));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}

const json = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), ...headers });
  res.end(body);
};

const restSend = JSON.stringify({ task: TASK });

/** The same answers for the gRPC endpoint, in protobuf binary. */
function grpcAnswers(streamLength: number) {
  const encode = (e: object) => Buffer.from(toBinary(StreamResponseSchema, fromJson(StreamResponseSchema, e as JsonValue)));
  return {
    send: Buffer.from(toBinary(SendMessageResponseSchema, fromJson(SendMessageResponseSchema, { task: TASK } as JsonValue))),
    events: [encode(STATUS), encode(ARTIFACT)],
    done: encode(DONE),
    streamLength,
  };
}

export interface CannedServer {
  port: number;
  grpcPort: number;
  close: () => void;
}

/** `grpcEvents`: the length of every gRPC stream. */
export async function startCannedServer(port = 0, grpcEvents = 1000): Promise<CannedServer> {
  const grpc = await startCannedGrpc(grpcAnswers(grpcEvents));
  let cardBody = "";
  const server = createServer(async (req, res) => {
    const url = req.url ?? "/";
    try {
      if (url === "/card.json" || url === "/revalidate/card.json") {
        // The second is never fresh: every use revalidates it (304).
        const cache = url === "/card.json" ? "max-age=60" : "no-cache";
        if (req.headers["if-none-match"] === '"c1"') {
          res.writeHead(304, { ETag: '"c1"', "Cache-Control": cache });
          res.end();
          return;
        }
        json(res, 200, cardBody, { ETag: '"c1"', "Cache-Control": cache });
        return;
      }
      const m = /^\/n\/(\d+)(?:\/every\/(\d+))?\/(jsonrpc|rest\/message:send|rest\/message:stream)$/.exec(url);
      if (!m || req.method !== "POST") return json(res, 404, '{"error":{"code":404,"message":"not found"}}');
      const n = Math.max(1, Number(m[1]));
      const everyMs = Number(m[2] ?? 0);
      const send = (wrap: (e: unknown) => unknown) => (everyMs > 0 ? slowStream(res, n, everyMs, wrap) : stream(res, n, wrap));
      const body = await readBody(req);
      if (m[3] === "jsonrpc") {
        const rpc = JSON.parse(body) as { id: number | string; method: string };
        if (rpc.method === "SendMessage") return json(res, 200, `{"jsonrpc":"2.0","id":${JSON.stringify(rpc.id)},"result":${restSend}}`);
        if (rpc.method === "SendStreamingMessage") return send((e) => ({ jsonrpc: "2.0", id: rpc.id, result: e }));
        return json(res, 200, JSON.stringify({ jsonrpc: "2.0", id: rpc.id, error: { code: -32601, message: "no such method" } }));
      }
      if (m[3] === "rest/message:send") return json(res, 200, restSend);
      return send((e) => e);
    } catch (e) {
      if (!res.headersSent) json(res, 500, JSON.stringify({ error: { code: 500, message: String(e) } }));
      else res.destroy();
    }
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => {
    // B4 opens 1000 connections at once: a backlog of Node's default 511
    // would leave some waiting a second for a SYN retry.
    server.listen({ port, host: "127.0.0.1", backlog: 2048 }, () => {
      const p = (server.address() as { port: number }).port;
      const base = `http://127.0.0.1:${p}/n/1`;
      cardBody = JSON.stringify({
        ...CARD,
        supportedInterfaces: [
          { url: `${base}/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
          { url: `${base}/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
        ],
      });
      resolve({
        port: p,
        grpcPort: grpc.port,
        close: () => {
          server.closeAllConnections();
          server.close();
          grpc.close();
        },
      });
    });
  });
}

// Run as a process of its own (forked by bench/run.ts, or by hand).
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const grpcEvents = Number(process.argv[2] ?? process.env.GRPC_EVENTS ?? 1000);
  const { port, grpcPort } = await startCannedServer(Number(process.env.PORT ?? 0), grpcEvents);
  if (process.send) process.send({ port, grpcPort });
  else console.log(`listening ${port} grpc ${grpcPort}`);
  // The parent going away ends this process too.
  process.on("disconnect", () => process.exit(0));
}
