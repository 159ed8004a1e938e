/**
 * The test agent on a loopback `node:http` server (127.0.0.1, a free port),
 * so that `connect(url)` runs over real sockets: discovery, the bindings'
 * HTTP clients, resets. `node:http` is taken with
 * `process.getBuiltinModule` when a server is started, as the Node HTTP
 * client does (http/node-client.ts), and only the few members used are
 * typed here: the entry stays browser-safe (its in-memory part runs
 * anywhere; a browser that calls `listen()` is told it cannot). A cut
 * connection destroys the socket; `close()` ends every connection and
 * every call waiting on the agent, so a test leaves no handle behind.
 */
import { concatBytes } from "../base/bytes.js";
import { ConnectionCut, headersFrom, type AgentHandler } from "./exchange.js";
import type { GrpcHandler } from "./grpc-handler.js";
import { sharedPort } from "./grpc-h2.js";

/** A loopback server running the test agent. @category Testing */
export interface LoopbackServer {
  /** `http://127.0.0.1:PORT`: the card is at `/.well-known/agent-card.json`. */
  readonly url: string;
  /** Stops the server and ends its connections. */
  close(): Promise<void>;
}

// The members of node:http this file uses (typed here: the browser typecheck has no Node types).
interface Socket {
  destroy(): void;
  resetAndDestroy(): void;
}
interface IncomingMessage extends AsyncIterable<Uint8Array> {
  method?: string;
  url?: string;
  headers: Record<string, string | string[] | undefined>;
  socket: Socket;
}
interface ServerResponse {
  writeHead(status: number, headers: Record<string, string>): void;
  flushHeaders(): void;
  write(chunk: Uint8Array, callback: (e?: Error | null) => void): boolean;
  end(): void;
  destroy(): void;
  once(event: "close", listener: () => void): void;
  readonly writableFinished: boolean;
}
interface Server {
  emit(event: "connection", socket: unknown): boolean;
  listen(port: number, host: string, callback: () => void): void;
  once(event: "error", listener: (e: Error) => void): void;
  address(): { port: number } | string | null;
  close(callback: () => void): void;
  closeAllConnections(): void;
}
interface NodeHttp {
  createServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Server;
}

/** What the loopback server looks for in the global scope. */
type Scope = { process?: { getBuiltinModule?: (id: string) => unknown } };

function nodeHttp(): NodeHttp {
  // A feature test: a browser has no `process`, and a bundler that met the bare global would reach for a polyfill.
  const runtime = typeof (globalThis as Scope).process === "object" ? (globalThis as Scope).process : undefined;
  const http = runtime?.getBuiltinModule?.("node:http") as NodeHttp | undefined;
  if (!http) throw new Error("the test agent's loopback server needs Node (node:http); use its in-memory httpClient elsewhere");
  return http;
}

/**
 * Starts a loopback server for `handle`; `closing` ends the calls that wait
 * on the agent when it closes. With `grpc`, the same port serves gRPC over
 * HTTP/2 too (grpc-h2.ts).
 */
export async function listenLoopback(handle: AgentHandler, closing: AbortSignal, grpc?: GrpcHandler): Promise<LoopbackServer> {
  const http = nodeHttp();
  const calls = new Set<AbortController>();
  const server = http.createServer((req, res) => {
    const gone = new AbortController();
    calls.add(gone);
    // The caller went away (or the agent closed): what waits on it ends.
    res.once("close", () => {
      calls.delete(gone);
      if (!res.writableFinished) gone.abort(new Error("the caller went away"));
    });
    serve(req, res, gone.signal).catch(() => res.destroy());
  });
  async function serve(req: IncomingMessage, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const body = await concatBytes(req);
    const url = new URL(req.url ?? "/", origin);
    try {
      const answer = await handle({ method: req.method ?? "GET", url, headers: headersFrom(req.headers), body, signal });
      const headers: Record<string, string> = {};
      answer.headers.forEach((value, name) => (headers[name] = value));
      res.writeHead(answer.status, headers);
      res.flushHeaders();
      // Each chunk is handed to the socket before the next step runs: a drop that follows cuts after it, not before.
      for await (const chunk of answer.body)
        await new Promise<void>((resolve, reject) => res.write(chunk, (e) => (e ? reject(e) : resolve())));
      res.end();
    } catch (e) {
      // A reset aborts the socket (RST); a close ends it as a server closing its side does (FIN).
      if (!(e instanceof ConnectionCut)) res.destroy();
      else if (e.how === "reset") req.socket.resetAndDestroy();
      else req.socket.destroy();
    }
  }
  const port: Pick<Server, "listen" | "once" | "address" | "close" | "closeAllConnections"> = grpc
    ? sharedPort(server, grpc, () => origin, calls)
    : server;
  await new Promise<void>((resolve, reject) => {
    port.once("error", reject);
    port.listen(0, "127.0.0.1", resolve);
  });
  const address = port.address();
  const origin = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= new Promise<void>((resolve) => {
      for (const call of calls) call.abort(new Error("the test agent closed"));
      port.closeAllConnections();
      port.close(() => resolve());
    }));
  closing.addEventListener("abort", () => void close(), { once: true });
  return { url: origin, close };
}
