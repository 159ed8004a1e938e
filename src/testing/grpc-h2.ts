/**
 * gRPC over HTTP/2 on the test agent's loopback server, on the same port
 * as its HTTP/1.1 side: a gRPC client speaks cleartext HTTP/2 with prior
 * knowledge (h2c), whose connection opens with the HTTP/2 preface, so the
 * first bytes of each connection say which server it is for. One URL then
 * serves the card, JSON-RPC, HTTP+JSON, gRPC and gRPC-web.
 *
 * `node:net` and `node:http2` are taken with `process.getBuiltinModule`
 * when the server starts (as loopback.ts takes node:http), and only the few
 * members used are typed here, so the entry stays browser-safe.
 *
 * Each call's HTTP/2 stream is answered as its GrpcAnswer says: a status
 * alone in one HEADERS frame, messages then trailers, or an answer that is
 * not gRPC. A cut (a `drop` step) resets the stream (RST_STREAM), leaving
 * the connection's other calls be; a caller that resets its stream (its
 * deadline, its signal) ends what waits on the agent for it.
 */
import { concatBytes } from "../base/bytes.js";
import { headersFrom, type AgentRequest } from "./exchange.js";
import type { GrpcHandler } from "./grpc-handler.js";

// The members of node:net and node:http2 this file uses (typed here: the browser typecheck has no Node types).
interface Socket {
  on(event: "data", listener: (chunk: Uint8Array) => void): void;
  on(event: "error", listener: () => void): void;
  off(event: "data", listener: (chunk: Uint8Array) => void): void;
  once(event: "close", listener: () => void): void;
  pause(): void;
  resume(): void;
  unshift(chunk: Uint8Array): void;
  destroy(): void;
}
interface NetServer {
  listen(port: number, host: string, callback: () => void): void;
  once(event: "error", listener: (e: Error) => void): void;
  address(): { port: number } | string | null;
  close(callback: () => void): void;
}
interface NodeNet {
  createServer(listener: (socket: Socket) => void): NetServer;
}
type H2Headers = Record<string, string | string[] | number | undefined>;
interface ServerStream extends AsyncIterable<Uint8Array> {
  respond(headers: H2Headers, options?: { endStream?: boolean; waitForTrailers?: boolean }): void;
  write(chunk: Uint8Array, callback: (e?: Error | null) => void): boolean;
  end(): void;
  sendTrailers(headers: H2Headers): void;
  close(code: number): void;
  on(event: "error", listener: () => void): void;
  once(event: "close" | "wantTrailers", listener: () => void): void;
  readonly closed: boolean;
  readonly headersSent: boolean;
}
interface Session {
  on(event: "error", listener: () => void): void;
}
interface H2Server {
  on(event: "stream", listener: (stream: ServerStream, headers: H2Headers) => void): void;
  on(event: "session", listener: (session: Session) => void): void;
  on(event: "sessionError", listener: () => void): void;
  emit(event: "connection", socket: Socket): boolean;
}
interface NodeHttp2 {
  createServer(): H2Server;
  constants: { NGHTTP2_INTERNAL_ERROR: number };
}
/** The HTTP/1.1 server the other connections go to. */
export interface Http1Server {
  emit(event: "connection", socket: Socket): boolean;
}

/** What loopback.ts listens with: a server whose connections it can end. */
export interface SharedPort {
  listen(port: number, host: string, callback: () => void): void;
  once(event: "error", listener: (e: Error) => void): void;
  address(): { port: number } | string | null;
  close(callback: () => void): void;
  closeAllConnections(): void;
}

type Scope = { process?: { getBuiltinModule?: (id: string) => unknown } };

function builtin<T>(id: string): T {
  const runtime = typeof (globalThis as Scope).process === "object" ? (globalThis as Scope).process : undefined;
  const found = runtime?.getBuiltinModule?.(id) as T | undefined;
  if (!found) throw new Error(`the test agent's gRPC server needs Node (${id}); in memory, its GRPC interface is served as gRPC-web`);
  return found;
}

/** What every HTTP/2 connection opens with (RFC 9113 3.4). */
const PREFACE = new TextEncoder().encode("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

/** Whether `bytes` begin as the preface does, as far as they go. */
function opensAsHttp2(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.byteLength, PREFACE.byteLength);
  for (let i = 0; i < n; i++) if (bytes[i] !== PREFACE[i]) return false;
  return true;
}

// Headers HTTP/2 forbids (RFC 9113 8.2.2): node:http2 throws on them, so a script's are left out.
const CONNECTION_HEADERS = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host"]);

function h2Headers(headers: Headers, into: H2Headers = {}): H2Headers {
  headers.forEach((value, name) => {
    if (!CONNECTION_HEADERS.has(name)) into[name] = value;
  });
  return into;
}

/** Writes `chunk`, resolving once it is handed to the connection (a drop that follows cuts after it). */
function write(stream: ServerStream, chunk: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => stream.write(chunk, (e) => (e ? reject(e) : resolve())));
}

/**
 * A port serving `http1` and gRPC over HTTP/2 (`grpc`), `origin` giving the
 * server's origin for the requests' URLs and `calls` the controllers that
 * `close()` of the loopback server aborts.
 */
export function sharedPort(http1: Http1Server, grpc: GrpcHandler, origin: () => string, calls: Set<AbortController>): SharedPort {
  const net = builtin<NodeNet>("node:net");
  const http2 = builtin<NodeHttp2>("node:http2");
  const sockets = new Set<Socket>();
  const h2 = http2.createServer();
  // Every session and stream keeps an 'error' listener: an error emitted without one ends the process.
  const ignore = () => {};
  h2.on("sessionError", ignore);
  h2.on("session", (session) => session.on("error", ignore));
  h2.on("stream", (stream, headers) => {
    stream.on("error", ignore);
    const gone = new AbortController();
    calls.add(gone);
    let answered = false;
    stream.once("close", () => {
      calls.delete(gone);
      if (!answered) gone.abort(new Error("the caller went away"));
    });
    serve(stream, headers, gone.signal)
      .then(() => void (answered = true))
      .catch(() => {
        // A cut (the script's drop, a ConnectionCut) resets the stream; so does anything else that went wrong.
        if (!stream.closed) stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
      });
  });

  async function serve(stream: ServerStream, headers: H2Headers, signal: AbortSignal): Promise<void> {
    const body = await concatBytes(stream);
    const request: AgentRequest = {
      method: String(headers[":method"] ?? "POST"),
      url: new URL(String(headers[":path"] ?? "/"), origin()),
      headers: headersFrom(headers),
      body,
      signal,
    };
    const answer = await grpc(request);
    if (answer.kind === "trailersOnly") {
      stream.respond(h2Headers(answer.fields, { ":status": 200 }), { endStream: true });
      return;
    }
    if (answer.kind === "http") {
      stream.respond(h2Headers(answer.headers, { ":status": answer.status }));
      for await (const chunk of answer.body) await write(stream, chunk);
      stream.end();
      return;
    }
    stream.respond(h2Headers(answer.headers, { ":status": 200 }), { waitForTrailers: true });
    for (;;) {
      const next = await answer.body.next();
      if (next.done) {
        stream.once("wantTrailers", () => stream.sendTrailers(h2Headers(next.value)));
        stream.end();
        return;
      }
      await write(stream, next.value);
    }
  }

  const server = net.createServer((socket) => {
    // Before a server has it, a socket reset by its client would emit 'error' to no one.
    socket.on("error", ignore);
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    let seen = new Uint8Array(0);
    const sniff = (chunk: Uint8Array) => {
      const bytes = new Uint8Array(seen.byteLength + chunk.byteLength);
      bytes.set(seen);
      bytes.set(chunk, seen.byteLength);
      seen = bytes;
      const http2Client = opensAsHttp2(seen);
      if (http2Client && seen.byteLength < PREFACE.byteLength) return;
      socket.off("data", sniff);
      socket.pause();
      socket.unshift(seen);
      if (http2Client) {
        // node:http2 reads what is already buffered on the socket when its session starts.
        h2.emit("connection", socket);
        return;
      }
      http1.emit("connection", socket);
      // node:http would read the socket's handle directly, past the bytes put back: a 'data'
      // listener makes it read through the stream, where they are.
      socket.on("data", ignore);
      socket.resume();
    };
    socket.on("data", sniff);
  });
  return {
    listen: (port, host, callback) => server.listen(port, host, callback),
    once: (event, listener) => server.once(event, listener),
    address: () => server.address(),
    close: (callback) => server.close(callback),
    closeAllConnections() {
      for (const socket of sockets) socket.destroy();
    },
  };
}
