/**
 * A canned A2A 1.0 server for the benchmarks, run in its own process so its
 * CPU is not counted as the client's. Every answer is fixed: SendMessage
 * returns one task; SendStreamingMessage streams `n` events (status updates
 * and ~1 KB artifact updates, ending with a completed status).
 *
 * Routes (the event count is part of the interface URL):
 *   POST /n/{n}/jsonrpc                JSON-RPC: SendMessage, SendStreamingMessage
 *   POST /n/{n}/rest/message:send      HTTP+JSON
 *   POST /n/{n}/rest/message:stream    HTTP+JSON SSE
 *   GET  /card.json                    an Agent Card (max-age 60, ETag; If-None-Match answers 304)
 *   GET  /revalidate/card.json         the same card with no-cache: every use revalidates
 *
 * Prints `listening <port>` on stdout (or sends it to a fork parent).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

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

function frames(events: unknown[], wrap: (e: unknown) => unknown): Buffer {
  return Buffer.from(events.map((e) => `data: ${JSON.stringify(wrap(e))}\n\n`).join(""));
}

/** Writes `n` events in blocks, respecting back-pressure; the last one is DONE. */
function stream(res: ServerResponse, n: number, wrap: (e: unknown) => unknown): void {
  res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
  const body = n - 1;
  const block = frames(
    Array.from({ length: BLOCK }, (_, i) => (i % 2 === 0 ? STATUS : ARTIFACT)),
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
        ok = res.write(frames(Array.from({ length: left }, (_, i) => (i % 2 === 0 ? STATUS : ARTIFACT)), wrap));
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

export function startCannedServer(port = 0): Promise<{ port: number; close: () => void }> {
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
      const m = /^\/n\/(\d+)\/(jsonrpc|rest\/message:send|rest\/message:stream)$/.exec(url);
      if (!m || req.method !== "POST") return json(res, 404, '{"error":{"code":404,"message":"not found"}}');
      const n = Math.max(1, Number(m[1]));
      const body = await readBody(req);
      if (m[2] === "jsonrpc") {
        const rpc = JSON.parse(body) as { id: number | string; method: string };
        if (rpc.method === "SendMessage") return json(res, 200, `{"jsonrpc":"2.0","id":${JSON.stringify(rpc.id)},"result":${restSend}}`);
        if (rpc.method === "SendStreamingMessage") return stream(res, n, (e) => ({ jsonrpc: "2.0", id: rpc.id, result: e }));
        return json(res, 200, JSON.stringify({ jsonrpc: "2.0", id: rpc.id, error: { code: -32601, message: "no such method" } }));
      }
      if (m[2] === "rest/message:send") return json(res, 200, restSend);
      return stream(res, n, (e) => e);
    } catch (e) {
      if (!res.headersSent) json(res, 500, JSON.stringify({ error: { code: 500, message: String(e) } }));
      else res.destroy();
    }
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => {
    server.listen(port, "127.0.0.1", () => {
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
        close: () => {
          server.closeAllConnections();
          server.close();
        },
      });
    });
  });
}

// Run as a process of its own (forked by bench/run.ts, or by hand).
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { port } = await startCannedServer(Number(process.env.PORT ?? 0));
  if (process.send) process.send({ port });
  else console.log(`listening ${port}`);
  // The parent going away ends this process too.
  process.on("disconnect", () => process.exit(0));
}
