/**
 * A tiny node:http server on 127.0.0.1 for tests that need a peer which
 * misbehaves on purpose: wrong content types, broken JSON, silence, resets.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  /** Path and query, as the request line had them. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Called once the request body has been read completely. */
export type FakeHandler = (req: IncomingMessage, res: ServerResponse, body: string) => unknown;

export interface FakeServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  port: number;
  server: Server;
  requests: RecordedRequest[];
  /** Replaces the handler for the requests that follow. */
  handle(handler: FakeHandler): void;
  close(): Promise<void>;
}

export async function startFakeServer(handler: FakeHandler = (_req, res) => res.end()): Promise<FakeServer> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      Promise.resolve(current(req, res, body)).catch((e: unknown) => {
        res.destroy(e instanceof Error ? e : new Error(String(e)));
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    requests,
    handle(h) {
      current = h;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return closed;
    },
  };
}

/** Answers with a JSON document. */
export function sendJson(res: ServerResponse, status: number, json: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(json);
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** Starts an event stream; write frames with `sseFrame`. */
export function startSse(res: ServerResponse): void {
  res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
  res.flushHeaders();
}

/** One SSE event; `data` is JSON-encoded unless it is a string already. */
export function sseFrame(data: unknown, event?: string): string {
  const text = typeof data === "string" ? data : JSON.stringify(data);
  const lines = text.split("\n").map((l) => `data: ${l}\n`);
  return (event === undefined ? "" : `event: ${event}\n`) + lines.join("") + "\n";
}

/** Resolves when the response's connection closes (the client went away or the server ended it). */
export function closed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed || res.socket?.destroyed) resolve();
    else res.once("close", () => resolve());
  });
}

/** Rejects after `ms`, so that a wait on the peer is bounded. */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([p, guard]).finally(() => clearTimeout(timer));
}
