/**
 * The gRPC transport on node:http2 against a bare HTTP/2 server, for what a
 * real gRPC peer does not show on demand: odd DATA chunking, trailers-only
 * errors, GOAWAY, a connection that stops answering, and what the transport
 * leaves behind (timers, a process kept alive).
 */
import { execFile } from "node:child_process";
import { once } from "node:events";
import { constants, createServer, type Http2Session, type ServerHttp2Stream } from "node:http2";
import * as net from "node:net";
import * as v8 from "node:v8";
import { runInNewContext } from "node:vm";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { create, toBinary, type MessageInitShape } from "@bufbuild/protobuf";
import { anyPack } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type Transport } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../../gen/google/rpc/status_pb.js";
import {
  A2AService,
  StreamResponseSchema,
  type SubscribeToTaskRequestSchema,
  TaskSchema,
  TaskState,
} from "../../../gen/lf/a2a/v1/a2a_pb.js";
import {
  A2AClient,
  AbortedError,
  CallTimeoutError,
  ConnectionError,
  InvalidParamsError,
  createGrpcTransport,
  userMessage,
} from "../../../src/node.js";
import { createH2GrpcTransport, type H2GrpcTransportOptions } from "../../../src/bindings/grpc/h2.js";
import { FrameReader } from "../../../src/bindings/grpc/frames.js";
import { within } from "../../support/fake-server.js";
import { failure as a2aFailure } from "../../support/failure.js";
import { frame, useFakeGrpcServer } from "../../support/fake-grpc-server.js";
import { trackTimers } from "../../support/timers.js";

const srv = useFakeGrpcServer();

const { getTask, subscribeToTask } = A2AService.method;

function transport(options: Partial<H2GrpcTransportOptions> = {}): Transport {
  return createH2GrpcTransport({
    baseUrl: `http://127.0.0.1:${srv.port}`,
    readMaxBytes: 1 << 20,
    pingIntervalMs: 15_000,
    pingTimeoutMs: 10_000,
    ...options,
  });
}

const task = (id: string) => toBinary(TaskSchema, create(TaskSchema, { id }));
/** The URL a reader's errors name. */
const URL_OF_CALL = "http://127.0.0.1:9/lf.a2a.v1.A2AService/GetTask?secret=1";
const event = (id: string) =>
  toBinary(
    StreamResponseSchema,
    create(StreamResponseSchema, { payload: { case: "task", value: { id, contextId: "c1", status: { state: TaskState.WORKING } } } }),
  );

/** Headers, then each chunk as a write of its own (each waited for), then grpc-status 0. */
async function replyInChunks(stream: ServerHttp2Stream, chunks: Buffer[]): Promise<void> {
  stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
  stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
  for (const c of chunks) await new Promise((resolve) => stream.write(c, resolve));
  stream.end();
}

function reply(stream: ServerHttp2Stream, body: Buffer): void {
  void replyInChunks(stream, [body]);
}

function trailersOnly(stream: ServerHttp2Stream, fields: Record<string, string>): void {
  stream.respond({ ":status": 200, "content-type": "application/grpc", ...fields }, { endStream: true });
}

function unary(t: Transport, id = "t1", timeoutMs?: number, signal?: AbortSignal) {
  return t.unary(getTask, signal, timeoutMs, undefined, { id });
}

async function* one<T>(x: T): AsyncIterable<T> {
  yield x;
}

function subscribe(t: Transport, signal?: AbortSignal) {
  return t.stream(subscribeToTask, signal, undefined, undefined, one<MessageInitShape<typeof SubscribeToTaskRequestSchema>>({ id: "t1" }));
}

async function failure(p: Promise<unknown>): Promise<ConnectError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ConnectError);
  return e as ConnectError;
}

async function ids(p: ReturnType<typeof subscribe>): Promise<string[]> {
  const out: string[] = [];
  for await (const m of (await p).message) out.push(m.payload.case === "task" ? m.payload.value.id : "?");
  return out;
}

function statusDetails(code: number, reason: string): string {
  const status = create(StatusSchema, { code, message: "m", details: [anyPack(ErrorInfoSchema, create(ErrorInfoSchema, { reason }))] });
  // Unpadded, as some servers send binary headers.
  return Buffer.from(toBinary(StatusSchema, status)).toString("base64").replace(/=+$/, "");
}

describe("frames", () => {
  const messages = [task("first"), new Uint8Array(0), task("third, a little longer")];
  const bytes = Buffer.concat(messages.map((m) => frame(m)));
  const hex = (ms: Uint8Array[]) => ms.map((m) => Buffer.from(m).toString("hex"));

  it("are read whole wherever the chunks split them: at every byte boundary, and one byte at a time", () => {
    for (let at = 0; at <= bytes.length; at++) {
      const reader = new FrameReader(1024, URL_OF_CALL);
      const out = [...reader.push(bytes.subarray(0, at)), ...reader.push(bytes.subarray(at))];
      expect(hex(out), `split at ${at}`).toEqual(hex(messages));
      expect(reader.end()).toBeUndefined();
    }
    const reader = new FrameReader(1024, URL_OF_CALL);
    const out = [...bytes].flatMap((b) => reader.push(Buffer.of(b)));
    expect(hex(out)).toEqual(hex(messages));
  });

  it("refuse a response that ends inside a frame, a compressed frame and one over readMaxBytes", () => {
    const cut = new FrameReader(1024, URL_OF_CALL);
    cut.push(bytes.subarray(0, 7));
    expect(cut.end()?.code).toBe(Code.Internal);
    expect(() => new FrameReader(1024, URL_OF_CALL).push(frame(task("x"), 1))).toThrow(/compress/);
    const big = frame(new Uint8Array(100));
    // The prefix alone says it is too large.
    expect(() => new FrameReader(99, URL_OF_CALL).push(big.subarray(0, 5))).toThrow(
      expect.objectContaining({
        code: Code.ResourceExhausted,
        rawMessage: "message size 100 from http://127.0.0.1:9/lf.a2a.v1.A2AService/GetTask is larger than the configured readMaxBytes 99",
      }),
    );
  });

  it("a message arriving a byte per DATA chunk costs its bytes, not an object per byte, and reads whole", () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const size = 400_000;
    const message = new Uint8Array(size).map((_, i) => i % 251);
    const bytes = frame(message);
    const reader = new FrameReader(1 << 20, URL_OF_CALL);
    gc();
    const before = process.memoryUsage().heapUsed;
    // Every chunk a fresh one-byte Buffer, as node:http2 gives each DATA frame.
    for (let i = 0; i < bytes.length - 1; i++) expect(reader.push(Buffer.of(bytes[i]!))).toEqual([]);
    gc();
    const held = process.memoryUsage().heapUsed - before;
    // Kept as one chunk each, the 400,000 chunks took some 80 MB of heap; the message itself is 0.4 MB.
    expect(held).toBeLessThan(8 * 1024 * 1024);
    const [read] = reader.push(Buffer.of(bytes.at(-1)!));
    expect(Buffer.from(read!).equals(Buffer.from(message))).toBe(true);
    expect(reader.end()).toBeUndefined();
  });
});

describe("gRPC over node:http2 against a bare server", () => {
  it("sends POST to the method's path under the base URL's prefix, with gRPC's headers and the caller's, minus connection headers", async () => {
    srv.handler = (stream) => reply(stream, frame(task("t1")));
    const t = createH2GrpcTransport({
      baseUrl: `http://127.0.0.1:${srv.port}/prefix/`,
      readMaxBytes: 1024,
      pingIntervalMs: 15_000,
      pingTimeoutMs: 10_000,
    });
    const res = await t.unary(
      getTask,
      undefined,
      undefined,
      { "x-custom": "yes", connection: "keep-alive", "keep-alive": "5" },
      { id: "t1" },
    );
    expect(res.message.id).toBe("t1");
    const { headers, body } = srv.calls[0]!;
    expect(headers).toMatchObject({ ":method": "POST", ":path": "/prefix/lf.a2a.v1.A2AService/GetTask", ":scheme": "http" });
    expect(headers).toMatchObject({ "content-type": "application/grpc+proto", te: "trailers", "x-custom": "yes" });
    expect(headers.connection).toBeUndefined();
    expect(headers["keep-alive"]).toBeUndefined();
    expect(headers["grpc-timeout"]).toBeUndefined();
    expect(body.equals(frame(toBinary(A2AService.method.getTask.input, create(A2AService.method.getTask.input, { id: "t1" }))))).toBe(true);
    expect(res.trailer.get("grpc-status")).toBe("0");
  });

  it("sends grpc-timeout when the call has a deadline", async () => {
    srv.handler = (stream) => reply(stream, frame(task("t1")));
    await unary(transport(), "t1", 1500);
    expect(srv.calls[0]!.headers["grpc-timeout"]).toBe("1500m");
  });

  it("a made request that cannot be written (an int32 of NaN) is the caller's InvalidParamsError, not the server's malformed answer", async () => {
    const client = new A2AClient(createGrpcTransport({ baseUrl: `127.0.0.1:${srv.port}` }));
    const e = await client
      .getTask(create(A2AService.method.getTask.input, { id: "t1", historyLength: Number.NaN }))
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidParamsError);
    // Named by the field, never by its value.
    expect((e as Error).message).toBe("the request cannot be written as protobuf (at lf.a2a.v1.GetTaskRequest.history_length)");
    expect(srv.calls).toHaveLength(0);
  });

  it("writes a long deadline's grpc-timeout in at most 8 digits, in the finest unit that holds it", async () => {
    srv.handler = (stream) => reply(stream, frame(task("t1")));
    const day = 24 * 3600 * 1000;
    for (const ms of [99_999_999, 100_000_000, 30 * day, 5000 * day, 100_000 * day]) await unary(transport(), "t1", ms);
    expect(srv.calls.map((c) => c.headers["grpc-timeout"])).toEqual(["99999999m", "100000S", "2592000S", "7200000M", "2400000H"]);
  });

  it("reads a unary answer split into two DATA chunks at every byte boundary", async () => {
    const bytes = frame(task("split"));
    const t = transport();
    for (let at = 1; at < bytes.length; at++) {
      srv.handler = (stream) => void replyInChunks(stream, [bytes.subarray(0, at), bytes.subarray(at)]);
      expect((await unary(t)).message.id, `split at ${at}`).toBe("split");
    }
  });

  it("reads a stream sent one byte per DATA chunk, and several messages in one chunk", async () => {
    const bytes = Buffer.concat(["a", "b", "c"].map((id) => frame(event(id))));
    const t = transport();
    srv.handler = (stream) =>
      void replyInChunks(
        stream,
        [...bytes].map((b) => Buffer.of(b)),
      );
    expect(await ids(subscribe(t))).toEqual(["a", "b", "c"]);
    srv.handler = (stream) => reply(stream, bytes);
    expect(await ids(subscribe(t))).toEqual(["a", "b", "c"]);
  });

  it("refuses a unary answer with two messages, or none", async () => {
    const t = transport();
    srv.handler = (stream) => reply(stream, Buffer.concat([frame(task("a")), frame(task("b"))]));
    const two = await failure(unary(t));
    expect(two.code).toBe(Code.Internal);
    expect(two.metadata.has("grpc-status")).toBe(false);
    srv.handler = (stream) => void replyInChunks(stream, []);
    expect((await failure(unary(t))).code).toBe(Code.Internal);
  });

  it("a trailers-only error: the status, its metadata with grpc-status, and the details from grpc-status-details-bin", async () => {
    const t = transport();
    srv.handler = (stream) =>
      trailersOnly(stream, {
        "grpc-status": "5",
        "grpc-message": "no such task",
        "grpc-status-details-bin": statusDetails(5, "TASK_NOT_FOUND"),
      });
    for (const call of [() => unary(t), () => subscribe(t)]) {
      const e = await failure(call());
      expect(e.code).toBe(Code.NotFound);
      expect(e.rawMessage).toBe("no such task");
      expect(e.metadata.get("grpc-status")).toBe("5");
      expect(e.findDetails(ErrorInfoSchema)[0]?.reason).toBe("TASK_NOT_FOUND");
    }
  });

  it("decodes a percent-encoded grpc-message, leniently", async () => {
    const t = transport();
    srv.handler = (stream) => trailersOnly(stream, { "grpc-status": "3", "grpc-message": "caf%C3%A9 at 100%25" });
    expect((await failure(unary(t))).rawMessage).toBe("café at 100%");
    srv.handler = (stream) => trailersOnly(stream, { "grpc-status": "3", "grpc-message": "caf%C3%A9, 50%ZZ off, %E2%82" });
    expect((await failure(unary(t))).rawMessage).toBe("café, 50%ZZ off, %E2%82");
  });

  it("an error status in the trailers after a message ends the stream with that status", async () => {
    srv.handler = (stream) => {
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "14", "grpc-message": "going away" }));
      stream.end(frame(event("a")));
    };
    const seen: string[] = [];
    const e = await failure(
      (async () => {
        for await (const m of (await subscribe(transport())).message) seen.push(m.payload.case === "task" ? m.payload.value.id : "?");
      })(),
    );
    expect(seen).toEqual(["a"]);
    expect(e.code).toBe(Code.Unavailable);
    expect(e.metadata.get("grpc-status")).toBe("14");
  });

  it("a response that is not gRPC: gRPC's codes for HTTP statuses, Internal for a content type, none with grpc-status", async () => {
    const t = transport();
    for (const [status, code] of [
      [401, Code.Unauthenticated],
      [404, Code.Unimplemented],
      [503, Code.Unavailable],
      [500, Code.Unknown],
    ] as const) {
      srv.handler = (stream) => stream.respond({ ":status": status, "content-type": "text/plain" }, { endStream: true });
      const e = await failure(unary(t));
      expect(e.code, `HTTP ${status}`).toBe(code);
      expect(e.metadata.has("grpc-status")).toBe(false);
    }
    srv.handler = (stream) => {
      stream.respond({ ":status": 200, "content-type": "application/json" });
      stream.end("{}");
    };
    const e = await failure(unary(t));
    expect(e.code).toBe(Code.Internal);
    expect(e.metadata.has("grpc-status")).toBe(false);
  });

  it("a message over readMaxBytes fails the call with ResourceExhausted", async () => {
    srv.handler = (stream) => reply(stream, frame(task("a task id longer than the limit")));
    expect((await failure(unary(transport({ readMaxBytes: 10 })))).code).toBe(Code.ResourceExhausted);
  });

  it("a session that receives GOAWAY finishes its call, and the next call opens a new session", async () => {
    const t = transport();
    srv.handler = (stream) => {
      // Before the answer, so the client has the GOAWAY when the call ends.
      stream.session!.goaway(constants.NGHTTP2_NO_ERROR, stream.id);
      reply(stream, frame(task("t1")));
    };
    expect((await unary(t)).message.id).toBe("t1");
    srv.handler = (stream) => reply(stream, frame(task("t2")));
    expect((await unary(t)).message.id).toBe("t2");
    expect((await unary(t)).message.id).toBe("t2");
    expect(srv.calls[1]!.session).not.toBe(srv.calls[0]!.session);
    expect(srv.calls[2]!.session).toBe(srv.calls[1]!.session);
  });

  it("a GOAWAY that lets only the first of two calls finish: the other, refused unprocessed, is sent again on a new connection", async () => {
    const t = transport();
    srv.handler = (stream) => reply(stream, frame(task("warm")));
    expect((await unary(t)).message.id).toBe("warm");
    const held: ServerHttp2Stream[] = [];
    srv.handler = (stream) => {
      held.push(stream);
      if (held.length < 2) return;
      // Graceful: the stream opened first will be answered, the other was never processed.
      const [older] = held.sort((a, b) => a.id! - b.id!);
      stream.session!.goaway(constants.NGHTTP2_NO_ERROR, older!.id);
      reply(older!, frame(task("finished")));
      srv.handler = (again) => reply(again, frame(task("sent again")));
    };
    const answers = await Promise.all([unary(t, "one"), unary(t, "two")]);
    expect(answers.map((a) => a.message.id).sort()).toEqual(["finished", "sent again"]);
    // The warm-up, the two calls, and the refused one again, on a new connection.
    expect(srv.calls).toHaveLength(4);
    expect(srv.calls[3]!.session).not.toBe(srv.calls[0]!.session);
  });

  it("a call refused unprocessed (RST_STREAM REFUSED_STREAM) is sent again, unary and stream; refused every time, it fails after 3 more tries", async () => {
    const t = transport();
    let refusals = 1;
    srv.handler = (stream) => {
      if (refusals-- > 0) stream.close(constants.NGHTTP2_REFUSED_STREAM);
      else reply(stream, frame(task("t1")));
    };
    expect((await unary(t)).message.id).toBe("t1");
    expect(srv.calls).toHaveLength(2);
    refusals = 1;
    srv.handler = (stream) => {
      if (refusals-- > 0) return stream.close(constants.NGHTTP2_REFUSED_STREAM);
      void replyInChunks(stream, [frame(event("e1"))]);
    };
    expect(await ids(subscribe(t))).toEqual(["e1"]);
    expect(srv.calls).toHaveLength(4);
    srv.calls.length = 0;
    srv.handler = (stream) => stream.close(constants.NGHTTP2_REFUSED_STREAM);
    const e = await failure(unary(t));
    expect(e.code).toBe(Code.Unavailable);
    expect(e.message).toMatch(/REFUSED_STREAM/);
    expect(srv.calls).toHaveLength(4);
  });

  it("a GOAWAY with an error in the middle of a stream cuts it: Unavailable, the Node error as cause, no grpc-status", async () => {
    const t = transport();
    let session!: Http2Session;
    srv.handler = (stream, call) => {
      session = call.session;
      stream.respond({ ":status": 200, "content-type": "application/grpc" });
      stream.write(frame(event("a")));
    };
    const messages = (await subscribe(t)).message[Symbol.asyncIterator]();
    expect((await messages.next()).value).toMatchObject({ payload: { value: { id: "a" } } });
    // Once the message is read: a stream destroyed with an error drops what it has not handed out.
    session.goaway(constants.NGHTTP2_INTERNAL_ERROR);
    const e = await failure(within(messages.next(), 5000, "the stream's failure"));
    expect(e.code).toBe(Code.Unavailable);
    expect(e.metadata.has("grpc-status")).toBe(false);
    expect(e.cause).toMatchObject({ code: "ERR_HTTP2_SESSION_ERROR" });
    srv.handler = (stream) => reply(stream, frame(task("t2")));
    expect((await unary(t)).message.id).toBe("t2");
  });

  it("a PING unanswered in time destroys a stalled connection; the next call connects afresh", async () => {
    const relay = await startRelay(srv.port);
    try {
      const t = transport({ baseUrl: `http://127.0.0.1:${relay.port}`, pingIntervalMs: 50, pingTimeoutMs: 200 });
      srv.handler = (stream) => {
        stream.respond({ ":status": 200, "content-type": "application/grpc" });
        stream.write(frame(event("a")));
      };
      const messages = (await subscribe(t)).message[Symbol.asyncIterator]();
      expect((await messages.next()).done).toBe(false);
      relay.stall();
      const e = await failure(within(messages.next(), 5000, "the stalled stream's failure"));
      expect(e.code).toBe(Code.Unavailable);
      expect(e.rawMessage).toBe("PING timed out");
      expect(e.metadata.has("grpc-status")).toBe(false);
      srv.handler = (stream) => reply(stream, frame(task("t2")));
      expect((await unary(t)).message.id).toBe("t2");
      expect(relay.connections()).toBe(2);
    } finally {
      relay.close();
    }
  });

  it("a call on a connection gone quiet checks it with a PING first: a dead one is replaced and the call succeeds", async () => {
    const relay = await startRelay(srv.port);
    try {
      // An interval of 0: every call finds the connection quiet for long enough.
      const t = transport({ baseUrl: `http://127.0.0.1:${relay.port}`, pingIntervalMs: 0, pingTimeoutMs: 200 });
      srv.handler = (stream) => reply(stream, frame(task("t1")));
      expect((await unary(t, "t1")).message.id).toBe("t1");
      // The answered stream's 'close' follows its answer within the turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      relay.stall();
      expect((await within(unary(t, "t1"), 5000, "the call after the stall")).message.id).toBe("t1");
      expect(relay.connections()).toBe(2);
    } finally {
      relay.close();
    }
  });

  it("a call cut by its deadline while a quiet connection's PING check waits leaves no timer holding the process", async () => {
    const relay = await startRelay(srv.port);
    const timers = trackTimers(/[/\\]src[/\\]/);
    try {
      // Every call checks the connection first; an unanswered check takes 10 s to give up.
      const t = transport({ baseUrl: `http://127.0.0.1:${relay.port}`, pingIntervalMs: 0, pingTimeoutMs: 10_000 });
      srv.handler = (stream) => reply(stream, frame(task("t1")));
      expect((await unary(t, "t1")).message.id).toBe("t1");
      await new Promise((resolve) => setImmediate(resolve));
      relay.stall();
      // The call runner's deadline: the A2AError the caller gets, whatever the interceptors.
      expect(await a2aFailure(within(unary(t, "t1", 100), 2000, "the call's deadline"))).toBeInstanceOf(CallTimeoutError);
      expect(await timers.live()).toEqual([]);
    } finally {
      timers.stop();
      relay.close();
    }
  });

  it("an abort, or a deadline, before the answer cancels the HTTP/2 stream", async () => {
    const t = transport();
    let arrived!: () => void;
    let closed!: Promise<number>;
    srv.handler = (stream) => {
      closed = once(stream, "close").then(() => stream.rstCode);
      arrived();
    };
    const controller = new AbortController();
    let arriving = new Promise<void>((resolve) => (arrived = resolve));
    const aborted = a2aFailure(unary(t, "t1", undefined, controller.signal));
    await within(arriving, 2000, "the call at the server");
    controller.abort();
    expect(await aborted).toBeInstanceOf(AbortedError);
    expect(await within(closed, 2000, "the server stream's close")).toBe(constants.NGHTTP2_CANCEL);

    arriving = new Promise<void>((resolve) => (arrived = resolve));
    const late = a2aFailure(unary(t, "t1", 100));
    await within(arriving, 2000, "the call at the server");
    expect(await late).toBeInstanceOf(CallTimeoutError);
    expect(await within(closed, 2000, "the server stream's close")).toBe(constants.NGHTTP2_CANCEL);
  });

  it("leaves no timer armed after unary calls, nor after a reader stops a stream early", async () => {
    const timers = trackTimers(/[/\\]src[/\\]/);
    try {
      // PINGs due at once, so their timers are armed during the calls.
      const t = transport({ pingIntervalMs: 1, pingTimeoutMs: 5000 });
      srv.handler = (stream) => reply(stream, frame(task("t1")));
      for (let i = 0; i < 5; i++) await unary(t, "t1", 5000);
      let gone!: Promise<unknown>;
      srv.handler = (stream) => {
        gone = once(stream, "close");
        stream.respond({ ":status": 200, "content-type": "application/grpc" });
        stream.write(frame(event("a")));
      };
      for await (const _ of (await subscribe(t)).message) break;
      await within(gone, 2000, "the server stream's close after the break");
      expect(await timers.live()).toEqual([]);
    } finally {
      timers.stop();
    }
  });

  it("through the binding: a refused connection is a ConnectionError of kind refused, with the socket error below", async () => {
    const closedPort = await freePort();
    const client = new A2AClient(createGrpcTransport({ baseUrl: `127.0.0.1:${closedPort}` }));
    const e = await client.getTask({ id: "t1" }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ConnectionError);
    expect(e).toMatchObject({ kind: "refused", binding: "GRPC" });
    const raw = await failure(unary(transport({ baseUrl: `http://127.0.0.1:${closedPort}` })));
    expect(raw.code).toBe(Code.Unavailable);
    expect(raw.cause).toMatchObject({ code: "ECONNREFUSED" });
  });

  it("an idle connection does not keep the process alive, an open call does", async () => {
    // The answer comes late: until then only the call's stream holds the
    // child's event loop (no PINGs, so no PING timer holds it instead).
    srv.handler = (stream) => setTimeout(() => reply(stream, frame(task("late"))), 300);
    const module = (path: string) => JSON.stringify(fileURLToPath(new URL(path, import.meta.url)));
    const script = [
      `import { createH2GrpcTransport } from ${module("../../../src/bindings/grpc/h2.ts")};`,
      `import { A2AService } from ${module("../../../gen/lf/a2a/v1/a2a_pb.ts")};`,
      `const t = createH2GrpcTransport({ baseUrl: "http://127.0.0.1:${srv.port}", readMaxBytes: 1024, pingIntervalMs: Infinity, pingTimeoutMs: 10000 });`,
      `const res = await t.unary(A2AService.method.getTask, undefined, undefined, undefined, { id: "t1" });`,
      `console.log(res.message.id);`,
    ].join("\n");
    const child = execFile(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { timeout: 20_000 });
    let stdout = "";
    child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()));
    const [code, signal] = (await once(child, "exit")) as [number | null, string | null];
    expect({ code, signal, stdout: stdout.trim() }).toEqual({ code: 0, signal: null, stdout: "late" });
  }, 30_000);
});

describe("every gRPC call ends by its deadline or its signal, whatever the server does (through the binding)", () => {
  const base = () => `http://127.0.0.1:${srv.port}`;
  const client = (options: { idleTimeoutMs?: number } = {}) =>
    new A2AClient(createGrpcTransport({ baseUrl: `127.0.0.1:${srv.port}`, pingIntervalMs: Infinity, ...options }));
  type Behaviour = "silent" | "headers" | "endless" | "informational";
  /**
   * Accepts the stream and: says nothing, sends headers only, sends forever
   * (a message, or a frame that never completes), or sends only 1xx headers.
   */
  const behave = (behaviour: Behaviour, unaryCall: boolean) => {
    let closed!: Promise<unknown>;
    srv.handler = (stream) => {
      closed = once(stream, "close");
      if (behaviour === "silent") return;
      if (behaviour === "informational") {
        const timer = setInterval(() => stream.additionalHeaders({ ":status": 103, link: "</x>; rel=preload" }), 5);
        stream.once("close", () => clearInterval(timer));
        return;
      }
      stream.respond({ ":status": 200, "content-type": "application/grpc" });
      if (behaviour === "headers") return;
      // A unary answer whose one frame never completes, or a stream of events that never ends.
      if (unaryCall) stream.write(Buffer.from([0, 0, 0, 0x10, 0]));
      const timer = setInterval(() => stream.write(unaryCall ? Buffer.from([0]) : frame(event("e"))), 5);
      stream.once("close", () => clearInterval(timer));
    };
    return () => within(closed, 2000, "the server stream's close");
  };
  const settle = async (p: Promise<unknown>) => {
    const start = performance.now();
    const error = await within(
      p.then(
        () => new Error("the call succeeded"),
        (e: unknown) => e,
      ),
      3000,
      "the call settling",
    );
    return { error, ms: performance.now() - start };
  };
  const drain = async (source: AsyncIterable<unknown>) => {
    for await (const _ of source) {
      // Events may arrive; the call must still end.
    }
  };
  const noTimers = async (body: () => Promise<void>) => {
    const timers = trackTimers(/[/\\]src[/\\]/);
    try {
      await body();
      expect(await timers.live()).toEqual([]);
    } finally {
      timers.stop();
    }
  };

  it.each(["silent", "headers", "endless", "informational"] as const)(
    "unary, server %s: CallTimeoutError by timeoutMs naming URL and duration; the stream is cancelled",
    async (behaviour) => {
      await noTimers(async () => {
        const closed = behave(behaviour, true);
        const { error, ms } = await settle(client().getTask({ id: "t1" }, { timeoutMs: 60 }));
        expect(error).toBeInstanceOf(CallTimeoutError);
        expect(error).toMatchObject({ kind: "deadline", binding: "GRPC" });
        expect((error as Error).message).toContain(base());
        expect((error as Error).message).toContain("60 ms");
        expect(ms).toBeLessThan(1500);
        await closed();
      });
    },
  );

  it.each(["silent", "informational"] as const)(
    "a stream whose server accepts it and never sends headers (%s) fails by idleTimeoutMs, counted from the request",
    async (behaviour) => {
      await noTimers(async () => {
        const closed = behave(behaviour, false);
        const { error, ms } = await settle(drain(client({ idleTimeoutMs: 60 }).subscribeToTask({ id: "t1" }, { resume: false })));
        expect(error).toBeInstanceOf(CallTimeoutError);
        expect(error).toMatchObject({ kind: "idle", binding: "GRPC" });
        expect((error as Error).message).toContain(base());
        expect((error as Error).message).toContain("60 ms");
        expect(ms).toBeLessThan(1500);
        await closed();
      });
    },
  );

  it("a stream with headers and then silence fails by idleTimeoutMs", async () => {
    await noTimers(async () => {
      const closed = behave("headers", false);
      const { error, ms } = await settle(drain(client({ idleTimeoutMs: 60 }).subscribeToTask({ id: "t1" }, { resume: false })));
      expect(error).toBeInstanceOf(CallTimeoutError);
      expect(error).toMatchObject({ kind: "idle" });
      expect(ms).toBeLessThan(1500);
      await closed();
    });
  });

  it("a peer that accepts the connection and never speaks HTTP/2: the deadline, and the idle timeout, end the calls", async () => {
    const sockets = new Set<net.Socket>();
    const mute = net.createServer((socket) => {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => mute.listen(0, "127.0.0.1", resolve));
    const port = (mute.address() as AddressInfo).port;
    try {
      const c = new A2AClient(createGrpcTransport({ baseUrl: `127.0.0.1:${port}`, pingIntervalMs: Infinity, idleTimeoutMs: 60 }));
      const unaryCall = await settle(c.getTask({ id: "t1" }, { timeoutMs: 60 }));
      expect(unaryCall.error).toBeInstanceOf(CallTimeoutError);
      expect(unaryCall.error).toMatchObject({ kind: "deadline" });
      expect(unaryCall.ms).toBeLessThan(1500);
      const streamCall = await settle(drain(c.subscribeToTask({ id: "t1" }, { resume: false })));
      expect(streamCall.error).toBeInstanceOf(CallTimeoutError);
      expect(streamCall.error).toMatchObject({ kind: "idle" });
      expect(streamCall.ms).toBeLessThan(1500);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => mute.close(resolve));
    }
  });

  it("a server that never opens its flow-control window: the request cannot be sent; the deadline and the idle timeout end the calls", async () => {
    const stalled = createServer({ settings: { initialWindowSize: 0 } });
    const sessions = new Set<Http2Session>();
    stalled.on("session", (session) => sessions.add(session));
    const streams = new Set<ServerHttp2Stream>();
    stalled.on("stream", (stream) => {
      streams.add(stream);
      stream.on("error", () => {});
      stream.on("close", () => streams.delete(stream));
    });
    await new Promise<void>((resolve) => stalled.listen(0, "127.0.0.1", resolve));
    try {
      const port = (stalled.address() as AddressInfo).port;
      const c = new A2AClient(createGrpcTransport({ baseUrl: `127.0.0.1:${port}`, pingIntervalMs: Infinity, idleTimeoutMs: 60 }));
      // A message larger than a window's worth of nothing.
      const message = { message: userMessage("x".repeat(100_000)) };
      await noTimers(async () => {
        const unaryCall = await settle(c.sendMessage(message, { timeoutMs: 60 }));
        expect(unaryCall.error).toBeInstanceOf(CallTimeoutError);
        expect(unaryCall.error).toMatchObject({ kind: "deadline" });
        expect(unaryCall.ms).toBeLessThan(1500);
        const streamCall = await settle(drain(c.sendStreamingMessage(message, { resume: false })));
        expect(streamCall.error).toBeInstanceOf(CallTimeoutError);
        expect(streamCall.error).toMatchObject({ kind: "idle" });
        expect(streamCall.ms).toBeLessThan(1500);
      });
      await expect.poll(() => streams.size, { timeout: 2000, interval: 10 }).toBe(0);
    } finally {
      for (const session of sessions) session.destroy();
      await new Promise((resolve) => stalled.close(resolve));
    }
  });

  it("a stream that never ends: its timeoutMs, or its signal, ends it", async () => {
    await noTimers(async () => {
      let closed = behave("endless", false);
      const timed = await settle(drain(client({ idleTimeoutMs: 5000 }).subscribeToTask({ id: "t1" }, { resume: false, timeoutMs: 80 })));
      expect(timed.error).toBeInstanceOf(CallTimeoutError);
      expect(timed.error).toMatchObject({ kind: "deadline" });
      expect(timed.ms).toBeLessThan(1500);
      await closed();

      closed = behave("silent", false);
      const controller = new AbortController();
      const stop = setTimeout(() => controller.abort(), 30);
      const aborted = await settle(
        drain(client({ idleTimeoutMs: 0 }).subscribeToTask({ id: "t1" }, { resume: false, signal: controller.signal })),
      );
      clearTimeout(stop);
      expect(aborted.error).toBeInstanceOf(AbortedError);
      await closed();
    });
  });
});

/** A port nothing listens on. */
async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const p = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return p;
}

/** A TCP relay to `target` whose open connections can be made to stop passing bytes either way. */
async function startRelay(target: number) {
  const pairs: Array<{ down: net.Socket; up: net.Socket; stalled: boolean }> = [];
  const relay = net.createServer((down) => {
    const pair = { down, up: net.connect(target, "127.0.0.1"), stalled: false };
    pairs.push(pair);
    down.on("data", (c) => pair.stalled || pair.up.write(c));
    pair.up.on("data", (c) => pair.stalled || down.write(c));
    for (const s of [down, pair.up]) {
      s.on("error", () => {});
      s.on("close", () => (s === down ? pair.up : down).destroy());
    }
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  return {
    port: (relay.address() as AddressInfo).port,
    connections: () => pairs.length,
    stall: () => pairs.forEach((p) => (p.stalled = true)),
    close() {
      for (const p of pairs) p.down.destroy();
      relay.close();
    },
  };
}
