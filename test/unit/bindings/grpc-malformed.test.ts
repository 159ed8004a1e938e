/**
 * The gRPC binding against a raw node:http2 server that says exactly what a
 * test wants: broken messages, status details, odd content types.
 */
import type { ServerHttp2Stream } from "node:http2";
import { create, toBinary } from "@bufbuild/protobuf";
import { anyPack } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../../gen/google/rpc/status_pb.js";
import {
  A2AClient,
  ProtocolError,
  StreamResponseSchema,
  TaskNotFoundError,
  TaskSchema,
  TaskState,
  VersionNotSupportedError,
  createGrpcTransport,
  createGrpcTransportV03,
} from "../../../src/node.js";
import * as V03 from "../../../gen/a2a/v1/a2a_pb.js";
import { within } from "../../support/fake-server.js";
import { frame, useFakeGrpcServer } from "../../support/fake-grpc-server.js";
import { trackTimers } from "../../support/timers.js";
import { failure } from "../../support/failure.js";

const srv = useFakeGrpcServer();

function reply(stream: ServerHttp2Stream, message: Uint8Array, trailers: Record<string, string> = { "grpc-status": "0" }): void {
  stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
  stream.on("wantTrailers", () => stream.sendTrailers(trailers));
  stream.end(frame(message));
}

/** A response with no messages, the status in the headers. */
function trailersOnly(stream: ServerHttp2Stream, status: Record<string, string>): void {
  stream.respond({ ":status": 200, "content-type": "application/grpc", ...status }, { endStream: true });
}

function statusDetails(code: number, message: string, reason: string): string {
  const status = create(StatusSchema, {
    code,
    message,
    details: [anyPack(ErrorInfoSchema, create(ErrorInfoSchema, { reason, domain: "a2a-protocol.org" }))],
  });
  return Buffer.from(toBinary(StatusSchema, status)).toString("base64");
}

function client(): A2AClient {
  // A bare host:port, as Agent Cards may give it: plain HTTP/2 on loopback.
  return new A2AClient(createGrpcTransport({ baseUrl: `127.0.0.1:${srv.port}` }));
}

// Field 1 with wire type 7, which does not exist, then junk.
const GARBAGE = Uint8Array.of(0x0f, 0xde, 0xad, 0xbe, 0xef, 0xff, 0xff);

describe("gRPC against a raw HTTP/2 server", () => {
  it("a bare host:port works: plain HTTP/2, the A2A service path and headers", async () => {
    srv.handler = (stream) => reply(stream, toBinary(TaskSchema, create(TaskSchema, { id: "t1", status: { state: TaskState.WORKING } })));
    const task = await client().getTask({ id: "t1" });
    expect(task.id).toBe("t1");
    expect(task.status?.state).toBe(TaskState.WORKING);
    const [call] = srv.calls;
    expect(call!.path).toBe("/lf.a2a.v1.A2AService/GetTask");
    expect(call!.headers[":scheme"]).toBe("http");
    expect(call!.headers["content-type"]).toMatch(/^application\/grpc/);
    expect(call!.headers["a2a-version"]).toBe("1.0");
  });

  it("A2A 0.3: the a2a.v1 service, A2A-Version 0.3, and activated extensions also as 0.3's x-a2a-extensions", async () => {
    srv.handler = (stream) =>
      reply(
        stream,
        toBinary(V03.TaskSchema, create(V03.TaskSchema, { id: "t1", contextId: "c1", status: { state: V03.TaskState.WORKING } })),
      );
    const old = new A2AClient(createGrpcTransportV03({ baseUrl: `127.0.0.1:${srv.port}`, extensions: ["urn:ext:a"] }));
    expect((await old.getTask({ id: "t1" })).id).toBe("t1");
    const [call] = srv.calls;
    expect(call!.path).toBe("/a2a.v1.A2AService/GetTask");
    expect(call!.headers["a2a-version"]).toBe("0.3");
    expect(call!.headers["a2a-extensions"]).toBe("urn:ext:a");
    expect(call!.headers["x-a2a-extensions"]).toBe("urn:ext:a");
  });

  it("a message that is not valid protobuf, with grpc-status 0 -> an A2AError", async () => {
    srv.handler = (stream) => reply(stream, GARBAGE);
    const e = await failure(client().getTask({ id: "t1" }));
    expect(e.binding).toBe("GRPC");
  });

  it("a message that is not valid protobuf, with grpc-status 0 -> ProtocolError", async () => {
    srv.handler = (stream) => reply(stream, GARBAGE);
    const e = await failure(client().getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(ProtocolError);
    expect(e.message).toMatch(/^malformed gRPC response: cannot decode lf\.a2a\.v1\.Task: /);
  });

  it("a non-gRPC content type -> ProtocolError", async () => {
    srv.handler = (stream) => {
      stream.respond({ ":status": 200, "content-type": "text/html" });
      stream.end("<html>proxy says hi</html>");
    };
    const e = await failure(client().getTask({ id: "t1" }));
    expect(e.binding).toBe("GRPC");
    expect(e).toBeInstanceOf(ProtocolError);
  });

  it("a grpc-status that is not a code (abc, 99, 5x), in trailers or trailers-only -> ProtocolError, not the server's error", async () => {
    for (const status of ["abc", "99", "5x"]) {
      srv.handler = (stream) => reply(stream, toBinary(TaskSchema, create(TaskSchema, { id: "t1" })), { "grpc-status": status });
      const inTrailers = await failure(client().getTask({ id: "t1" }));
      srv.handler = (stream) => trailersOnly(stream, { "grpc-status": status });
      const only = await failure(client().getTask({ id: "t1" }));
      for (const e of [inTrailers, only]) {
        expect(e, status).toBeInstanceOf(ProtocolError);
        expect(e.message).toBe(`malformed gRPC response: invalid grpc-status: ${status}`);
      }
    }
  });

  it("grpc-status 5 with an ErrorInfo TASK_NOT_FOUND in grpc-status-details-bin -> TaskNotFoundError", async () => {
    srv.handler = (stream) =>
      trailersOnly(stream, {
        "grpc-status": "5",
        "grpc-message": "no such task",
        "grpc-status-details-bin": statusDetails(5, "no such task", "TASK_NOT_FOUND"),
      });
    const e = await failure(client().getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(TaskNotFoundError);
    expect(e).toMatchObject({ binding: "GRPC", grpcCode: 5, reason: "TASK_NOT_FOUND", message: "no such task" });
  });

  it("the same status in trailers after the headers", async () => {
    srv.handler = (stream) => {
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.on("wantTrailers", () =>
        stream.sendTrailers({
          "grpc-status": "5",
          "grpc-message": "no such task",
          "grpc-status-details-bin": statusDetails(5, "no such task", "TASK_NOT_FOUND"),
        }),
      );
      stream.end();
    };
    const e = await failure(client().getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(TaskNotFoundError);
    expect(e).toMatchObject({ grpcCode: 5, reason: "TASK_NOT_FOUND" });
  });

  it("grpc-status 9 with an ErrorInfo VERSION_NOT_SUPPORTED -> VersionNotSupportedError", async () => {
    srv.handler = (stream) =>
      trailersOnly(stream, {
        "grpc-status": "9",
        "grpc-message": "version 1.0 only",
        "grpc-status-details-bin": statusDetails(9, "version 1.0 only", "VERSION_NOT_SUPPORTED"),
      });
    const e = await failure(client().getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(VersionNotSupportedError);
    expect(e).toMatchObject({ grpcCode: 9, reason: "VERSION_NOT_SUPPORTED" });
  });

  it("grpc-status 5 without details -> TaskNotFoundError from the code", async () => {
    srv.handler = (stream) => trailersOnly(stream, { "grpc-status": "5", "grpc-message": "gone" });
    const e = await failure(client().getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(TaskNotFoundError);
    expect(e).toMatchObject({ grpcCode: 5, reason: undefined });
  });

  it("a Task without its REQUIRED id, or a SendMessageResponse without payload -> ProtocolError", async () => {
    srv.handler = (stream) => reply(stream, toBinary(TaskSchema, create(TaskSchema, { status: { state: TaskState.WORKING } })));
    const e = await failure(client().getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(ProtocolError);
    expect(e.binding).toBe("GRPC");
    expect(e.message).toMatch(/GetTask.*REQUIRED field "id"/);
    srv.handler = (stream) => reply(stream, new Uint8Array(0));
    const sent = await failure(
      client().sendMessage({ message: { messageId: "m", role: 1, parts: [{ content: { case: "text", value: "x" } }] } }),
    );
    expect(sent).toBeInstanceOf(ProtocolError);
    expect(sent.message).toMatch(/SendMessage.*one of task, message/);
  });

  it("a stream event without payload ends the stream after the good ones, and cancels it", async () => {
    let gone: Promise<void> | undefined;
    srv.handler = (stream) => {
      gone = new Promise((resolve) => stream.once("close", () => resolve()));
      stream.respond({ ":status": 200, "content-type": "application/grpc" });
      stream.write(
        frame(toBinary(StreamResponseSchema, create(StreamResponseSchema, { payload: { case: "task", value: { id: "t1", status: {} } } }))),
      );
      stream.write(frame(new Uint8Array(0)));
    };
    const items: unknown[] = [];
    const e = await failure(
      (async () => {
        for await (const x of client().subscribeToTask({ id: "t1" })) items.push(x);
      })(),
    );
    expect(items).toHaveLength(1);
    expect(e).toBeInstanceOf(ProtocolError);
    expect(e.message).toMatch(/SubscribeToTask.*payload/);
    await within(gone!, 2000, "the server stream to close");
  });

  it("a stream message that is not valid protobuf ends the stream with an A2AError", async () => {
    srv.handler = (stream) => {
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
      stream.write(
        frame(toBinary(StreamResponseSchema, create(StreamResponseSchema, { payload: { case: "task", value: { id: "t1", status: {} } } }))),
      );
      stream.end(frame(GARBAGE));
    };
    const items: unknown[] = [];
    const e = await failure(
      (async () => {
        for await (const x of client().subscribeToTask({ id: "t1" })) items.push(x);
      })(),
    );
    expect(items).toHaveLength(1);
    expect(e.binding).toBe("GRPC");
  });

  it("a consumer that breaks out of a stream cancels it and leaves no timer armed", async () => {
    let gone: Promise<void> | undefined;
    srv.handler = (stream) => {
      gone = new Promise((resolve) => stream.once("close", () => resolve()));
      stream.respond({ ":status": 200, "content-type": "application/grpc" });
      stream.write(
        frame(toBinary(StreamResponseSchema, create(StreamResponseSchema, { payload: { case: "task", value: { id: "t1", status: {} } } }))),
      );
    };
    const timers = trackTimers(/[/\\]src[/\\]/);
    try {
      for await (const _ of client().subscribeToTask({ id: "t1" })) break;
      await within(gone!, 2000, "server-side stream close after break");
      expect(await timers.live()).toEqual([]);
    } finally {
      timers.stop();
    }
  });
});
