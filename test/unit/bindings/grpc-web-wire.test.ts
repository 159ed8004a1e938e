/**
 * gRPC-web's wire (bindings/grpc/web-transport.ts, binary only) against a
 * fake proxy on 127.0.0.1: the request it sends, and each way an answer
 * can end: trailers-only, a trailers frame missing, one over readMaxBytes,
 * a compressed frame, a stream cut inside a frame. Each is named as the
 * binding names it (ProtocolError for what the proxy got wrong,
 * ConnectionError for an answer cut short), on a call and on a stream.
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { ServerResponse } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  A2AService,
  GetTaskRequestSchema,
  SendMessageRequestSchema,
  StreamResponseSchema,
  SubscribeToTaskRequestSchema,
  TaskSchema,
  TaskState,
} from "../../../gen/lf/a2a/v1/a2a_pb.js";
import {
  A2AClient,
  ConnectionError,
  InvalidParamsError,
  ProtocolError,
  TaskNotFoundError,
  createGrpcWebTransport,
} from "../../../src/node.js";
import { closed, startFakeServer, type FakeServer } from "../../support/fake-server.js";
import { frame } from "../../support/fake-grpc-server.js";

const TASK = toBinary(TaskSchema, create(TaskSchema, { id: "t1", contextId: "c1", status: { state: TaskState.WORKING } }));
const EVENT = toBinary(
  StreamResponseSchema,
  create(StreamResponseSchema, { payload: { case: "task", value: { id: "t1", contextId: "c1", status: { state: TaskState.WORKING } } } }),
);
const GRPC_WEB = { "Content-Type": "application/grpc-web+proto" };

/** A trailers frame of `fields`. */
function trailers(fields: Record<string, string>): Buffer {
  return frame(
    Buffer.from(
      Object.entries(fields)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join(""),
    ),
    0x80,
  );
}
const OK = trailers({ "grpc-status": "0" });

let proxy: FakeServer;
beforeEach(async () => {
  proxy = await startFakeServer();
});
afterEach(() => proxy.close());

/** The proxy answers every call with these headers, then these bytes, then ends. */
function answers(body: Buffer, headers: Record<string, string> = GRPC_WEB): void {
  proxy.handle((_req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  });
}

/** A stream's request, as connect takes it: an async iterable of one message. */
async function* subscribe() {
  yield create(SubscribeToTaskRequestSchema, { id: "t1" });
}

const client = (readMaxBytes?: number) => new A2AClient(createGrpcWebTransport({ baseUrl: proxy.url, readMaxBytes }));

/** A unary call's error. */
const callError = (c = client()) =>
  c.getTask({ id: "t1" }).then(
    () => new Error("the call succeeded"),
    (e: unknown) => e,
  );

/** A stream's events (their payload's case), and what it ended with. */
async function streamed(c = client()): Promise<{ events: string[]; error: unknown }> {
  const events: string[] = [];
  try {
    for await (const e of c.subscribeToTask({ id: "t1" }, { resume: false })) events.push(e.payload.case ?? "");
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

describe("the request", () => {
  it("is one binary frame of the request, with gRPC-web's headers and the call's deadline as grpc-timeout", async () => {
    let sent: { url: string; init: RequestInit } | undefined;
    const fetch = (async (url: string, init: RequestInit) => {
      sent = { url, init };
      return new Response(Buffer.concat([frame(TASK), OK]), { headers: GRPC_WEB });
    }) as unknown as typeof globalThis.fetch;
    const task = await new A2AClient(createGrpcWebTransport({ baseUrl: "http://127.0.0.1:9/proxy", fetch })).getTask(
      { id: "t1", historyLength: 3 },
      { timeoutMs: 5000 },
    );
    expect(task.id).toBe("t1");
    expect(sent!.url).toBe("http://127.0.0.1:9/proxy/lf.a2a.v1.A2AService/GetTask");
    expect(sent!.init.method).toBe("POST");
    const headers = new Headers(sent!.init.headers);
    expect(headers.get("content-type")).toBe("application/grpc-web+proto");
    expect(headers.get("x-grpc-web")).toBe("1");
    // The client named as this package, not as the library beneath it.
    expect(headers.get("x-user-agent")).toBe("a2a-connect");
    // What is left of the deadline, in milliseconds, as connect writes it.
    expect(headers.get("grpc-timeout")).toMatch(/^\d+m$/);
    expect(Number.parseInt(headers.get("grpc-timeout")!, 10)).toBeLessThanOrEqual(5000);
    const body = sent!.init.body as Uint8Array;
    expect(body[0]).toBe(0);
    expect(new DataView(body.buffer, body.byteOffset).getUint32(1)).toBe(body.length - 5);
    const request = fromBinary(GetTaskRequestSchema, body.subarray(5));
    expect(request).toMatchObject({ id: "t1", historyLength: 3 });
  });

  it("of a stream is its one request message, sent whole", async () => {
    let body: Uint8Array | undefined;
    const fetch = (async (_url: string, init: RequestInit) => {
      body = init.body as Uint8Array;
      return new Response(Buffer.concat([frame(EVENT), OK]), { headers: GRPC_WEB });
    }) as unknown as typeof globalThis.fetch;
    const transport = createGrpcWebTransport({ baseUrl: "http://127.0.0.1:9", fetch });
    const res = await transport.stream(A2AService.method.subscribeToTask, undefined, undefined, undefined, subscribe());
    const got: unknown[] = [];
    for await (const m of res.message) got.push(m.payload.case);
    expect(got).toEqual(["task"]);
    expect(fromBinary(SubscribeToTaskRequestSchema, body!.subarray(5)).id).toBe("t1");
    expect(res.trailer.get("grpc-status")).toBe("0");
  });

  it("that cannot be written (an int32 of NaN) is the caller's InvalidParamsError naming the field, on a call and on a stream, and nothing is sent", async () => {
    let sent = 0;
    const fetch = (async () => {
      sent++;
      return new Response(Buffer.concat([frame(TASK), OK]), { headers: GRPC_WEB });
    }) as unknown as typeof globalThis.fetch;
    const transport = createGrpcWebTransport({ baseUrl: "http://127.0.0.1:9", fetch });
    const call = await new A2AClient(transport)
      .getTask(create(GetTaskRequestSchema, { id: "t1", historyLength: Number.NaN }))
      .catch((e: unknown) => e);
    expect(call).toBeInstanceOf(InvalidParamsError);
    // As over HTTP/2 (grpc-h2.test.ts): named by the field, never by its value.
    expect((call as Error).message).toBe("the request cannot be written as protobuf (at lf.a2a.v1.GetTaskRequest.history_length)");
    // A stream's request, as the transport takes it (the client's own checks would refuse this one first).
    async function* unwritable() {
      yield create(SendMessageRequestSchema, { configuration: { historyLength: Number.NaN } });
    }
    const stream = await transport
      .stream(A2AService.method.sendStreamingMessage, undefined, undefined, undefined, unwritable())
      .catch((e: unknown) => e);
    expect(stream).toBeInstanceOf(InvalidParamsError);
    expect((stream as Error).message).toBe(
      "the request cannot be written as protobuf (at lf.a2a.v1.SendMessageConfiguration.history_length)",
    );
    expect(sent).toBe(0);
  });
});

describe("a trailers-only answer (the status in the headers, no frame)", () => {
  it("with an error status: the server's error, on a call and on a stream", async () => {
    answers(Buffer.alloc(0), { ...GRPC_WEB, "grpc-status": "5", "grpc-message": "no%20such%20task" });
    const e = await callError();
    expect(e).toBeInstanceOf(TaskNotFoundError);
    expect((e as Error).message).toBe("no such task");
    const { events, error } = await streamed();
    expect(events).toEqual([]);
    expect(error).toBeInstanceOf(TaskNotFoundError);
  });

  it("with status 0: a stream that ends without messages; a call, which needs its message, is the proxy's ProtocolError", async () => {
    answers(Buffer.alloc(0), { ...GRPC_WEB, "grpc-status": "0" });
    const transport = createGrpcWebTransport({ baseUrl: proxy.url });
    const res = await transport.stream(A2AService.method.subscribeToTask, undefined, undefined, undefined, subscribe());
    const got: unknown[] = [];
    for await (const m of res.message) got.push(m);
    expect(got).toEqual([]);
    const e = await callError();
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as Error).message).toBe("malformed gRPC response: protocol error: no message for a unary method");
  });

  it("followed by a frame: ProtocolError, the frame not read as a message", async () => {
    answers(frame(TASK), { ...GRPC_WEB, "grpc-status": "0" });
    for (const e of [await callError(), (await streamed()).error]) {
      expect(e).toBeInstanceOf(ProtocolError);
      expect((e as Error).message).toBe("malformed gRPC response: extra data for trailers-only");
    }
  });
});

describe("an answer that ends without its trailers frame", () => {
  it("is a ConnectionError (the status never came), after the stream's messages", async () => {
    answers(frame(TASK));
    const e = await callError();
    expect(e).toBeInstanceOf(ConnectionError);
    expect((e as Error).message).toBe("the gRPC-web response ended before its status");
    answers(frame(EVENT));
    const { events, error } = await streamed();
    expect(events).toEqual(["task"]);
    expect(error).toBeInstanceOf(ConnectionError);
  });
});

describe("the frames the wire refuses", () => {
  it("a trailers frame over readMaxBytes: ProtocolError naming the limit, on a call and on a stream", async () => {
    const long = trailers({ "grpc-status": "0", "x-padding": "p".repeat(200) });
    answers(Buffer.concat([frame(TASK), long]));
    const limit = TASK.length + 10;
    const e = await callError(client(limit));
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as Error).message).toContain(`readMaxBytes ${limit}`);
    answers(Buffer.concat([frame(EVENT), long]));
    const { events, error } = await streamed(client(limit));
    expect(events).toEqual(["task"]);
    expect((error as Error).message).toContain(`readMaxBytes ${limit}`);
  });

  it("a compressed frame (none was asked for): ProtocolError, on a call and after a stream's messages", async () => {
    answers(Buffer.concat([frame(TASK, 1), OK]));
    const e = await callError();
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as Error).message).toBe("malformed gRPC response: protocol error: received unsupported compressed output");
    answers(Buffer.concat([frame(EVENT), frame(EVENT, 1), OK]));
    const { events, error } = await streamed();
    expect(events).toEqual(["task"]);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toBe("malformed gRPC response: protocol error: received unsupported compressed output");
  });

  it("a second message on a call, a message after the trailers, a second trailers frame: ProtocolError", async () => {
    for (const [body, message] of [
      [Buffer.concat([frame(TASK), frame(TASK), OK]), "protocol error: more than one message for a unary method"],
      [Buffer.concat([frame(TASK), OK, frame(TASK)]), "extra message"],
      [Buffer.concat([frame(TASK), OK, OK]), "extra trailer"],
    ] as const) {
      answers(body);
      const e = await callError();
      expect(e, message).toBeInstanceOf(ProtocolError);
      expect((e as Error).message).toBe(`malformed gRPC response: ${message}`);
    }
  });

  it("a message that does not decode: ProtocolError", async () => {
    answers(Buffer.concat([frame(Buffer.from([0xff, 0xff, 0xff])), OK]));
    const e = await callError();
    expect(e).toBeInstanceOf(ProtocolError);
    // Worded as over HTTP/2 (grpc-malformed.test.ts): one decoder for both, frames.ts.
    expect((e as Error).message).toMatch(/^malformed gRPC response: cannot decode lf\.a2a\.v1\.Task: /);
  });
});

describe("a stream cut inside a frame", () => {
  /** The proxy sends one event and part of the next, then ends the body, or drops the connection. */
  function cutsInside(how: (res: ServerResponse) => void): void {
    proxy.handle((_req, res) => {
      res.writeHead(200, GRPC_WEB);
      res.write(Buffer.concat([frame(EVENT), frame(EVENT).subarray(0, 8)]), () => setTimeout(() => how(res), 20));
    });
  }

  it("its body ending there: the messages before, then the proxy's ProtocolError", async () => {
    cutsInside((res) => res.end());
    const { events, error } = await streamed();
    expect(events).toEqual(["task"]);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toBe("malformed gRPC response: the gRPC-web response ended inside a message frame");
  });

  it("its connection dropped there: the messages before, then a ConnectionError, the connection gone", async () => {
    let gone: Promise<void> | undefined;
    cutsInside((res) => {
      gone = closed(res);
      res.socket?.destroy();
    });
    const { events, error } = await streamed();
    expect(events).toEqual(["task"]);
    expect(error).toBeInstanceOf(ConnectionError);
    await gone;
  });
});
