/**
 * A bare node:http2 server that answers gRPC calls exactly as a test says:
 * for what a real gRPC peer will not send on demand (odd chunking, broken
 * frames, trailers-only errors, GOAWAY). Registers its own vitest hooks.
 */
import { createServer, type Http2Session, type IncomingHttpHeaders, type ServerHttp2Session, type ServerHttp2Stream } from "node:http2";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach } from "vitest";

/** One call as the server received it. */
export interface GrpcCall {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  session: Http2Session;
}

export type GrpcHandler = (stream: ServerHttp2Stream, call: GrpcCall) => void;

export interface FakeGrpcServer {
  /** Answers each call once its request has arrived; by default 404. */
  handler: GrpcHandler;
  /** The calls of the current test, in order. */
  readonly calls: GrpcCall[];
  /** The port on 127.0.0.1, once the server listens (in beforeAll). */
  readonly port: number;
}

/** Starts a server for the test file: listening before its tests, closed after them; `calls` cleared before each. */
export function useFakeGrpcServer(): FakeGrpcServer {
  const sessions = new Set<ServerHttp2Session>();
  const server = createServer();
  const state = {
    handler: ((stream) => stream.respond({ ":status": 404 }, { endStream: true })) as GrpcHandler,
    calls: [] as GrpcCall[],
    port: 0,
  };
  server.on("session", (s) => {
    sessions.add(s);
    s.on("close", () => sessions.delete(s));
  });
  server.on("stream", (stream, headers) => {
    // A client that cancels makes the server stream fail; that is no test's failure.
    stream.on("error", () => {});
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => {
      const call = { path: String(headers[":path"]), headers, body: Buffer.concat(chunks), session: stream.session! };
      state.calls.push(call);
      state.handler(stream, call);
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    state.port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const s of sessions) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    state.calls.length = 0;
  });
  return state;
}

/** A length-prefixed gRPC message frame; `flags` 1 marks it compressed. */
export function frame(message: Uint8Array, flags = 0): Buffer {
  const head = Buffer.alloc(5);
  head[0] = flags;
  head.writeUInt32BE(message.byteLength, 1);
  return Buffer.concat([head, message]);
}
