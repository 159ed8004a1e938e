/**
 * readMaxBytes on both gRPC bindings: over HTTP/2 and through a gRPC-web
 * proxy, a message (or trailers frame) over the limit fails the call with
 * ProtocolError naming the limit, before it is buffered, and whatever the
 * split of the bytes; a size limit exceeded is not worth another attempt.
 */
import { create, toBinary } from "@bufbuild/protobuf";
import type { ServerResponse } from "node:http";
import * as v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StreamResponseSchema, TaskSchema, TaskState } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { A2AClient, ProtocolError, TaskNotFoundError, createGrpcTransport, createGrpcWebTransport } from "../../../src/node.js";
import { StatusSchema } from "../../../gen/google/rpc/status_pb.js";
import { closed, startFakeServer, type FakeServer } from "../../support/fake-server.js";
import { frame, useFakeGrpcServer } from "../../support/fake-grpc-server.js";

// Larger than a trailers frame, so that a limit just under it refuses the message, not the trailers.
const TASK = toBinary(TaskSchema, create(TaskSchema, { id: "t1", contextId: "c".repeat(64), status: { state: TaskState.WORKING } }));
const EVENT = toBinary(
  StreamResponseSchema,
  create(StreamResponseSchema, { payload: { case: "task", value: { id: "t1", contextId: "c1", status: { state: TaskState.WORKING } } } }),
);
/** A frame header announcing 4 GiB less one byte. */
const HUGE_PREFIX = Buffer.from([0, 0xff, 0xff, 0xff, 0xff]);

function expectRefused(e: unknown, limit: number): void {
  expect(e).toBeInstanceOf(ProtocolError);
  expect((e as ProtocolError).message).toContain(`readMaxBytes ${limit}`);
  // Where the message came from: origin and path.
  expect((e as ProtocolError).message).toMatch(/ from http:\/\/127\.0\.0\.1:\d+\/\S*lf\.a2a\.v1\.A2AService\/\w+ is larger/);
  expect((e as ProtocolError).transient).toBe(false);
}

describe("gRPC over HTTP/2", () => {
  const srv = useFakeGrpcServer();

  it("a message over readMaxBytes is ProtocolError naming the limit, not a transient server error", async () => {
    srv.handler = (stream) => {
      stream.respond({ ":status": 200, "content-type": "application/grpc" });
      stream.end(frame(TASK));
    };
    const client = new A2AClient(createGrpcTransport({ baseUrl: `127.0.0.1:${srv.port}`, readMaxBytes: 8 }));
    expectRefused(await client.getTask({ id: "t1" }).catch((e: unknown) => e), 8);
  });
});

describe("gRPC-web through a proxy", () => {
  let proxy: FakeServer;
  beforeEach(async () => {
    proxy = await startFakeServer();
  });
  afterEach(() => proxy.close());

  function answer(res: ServerResponse): void {
    res.writeHead(200, { "Content-Type": "application/grpc-web+proto" });
    res.flushHeaders();
  }

  /** The gRPC-web trailers frame of status 0. */
  const trailers = () => {
    const text = Buffer.from("grpc-status: 0\r\n");
    return Buffer.concat([Buffer.from([0x80, 0, 0, 0, text.length]), text]);
  };

  it("a proxy announcing a 4 GiB message and sending without end: ProtocolError at once, the connection closed", async () => {
    let gone: Promise<void> | undefined;
    proxy.handle((_req, res) => {
      answer(res);
      res.write(HUGE_PREFIX);
      res.write(Buffer.alloc(64 * 1024));
      gone = closed(res);
    });
    const client = new A2AClient(createGrpcWebTransport({ baseUrl: proxy.url, timeoutMs: 5000 }));
    expectRefused(await client.getTask({ id: "t1" }).catch((e: unknown) => e), 16 * 1024 * 1024);
    await gone;
  });

  it("on a stream: the messages before, then ProtocolError", async () => {
    let firstSeen!: () => void;
    const seenOne = new Promise<void>((resolve) => (firstSeen = resolve));
    proxy.handle(async (_req, res) => {
      answer(res);
      res.write(frame(EVENT));
      await seenOne;
      res.write(HUGE_PREFIX);
    });
    const client = new A2AClient(createGrpcWebTransport({ baseUrl: proxy.url, readMaxBytes: 1024 }));
    const seen: string[] = [];
    let error: unknown;
    try {
      for await (const e of client.subscribeToTask({ id: "t1" }, { resume: false })) {
        seen.push(e.payload.case ?? "");
        firstSeen();
      }
    } catch (e) {
      error = e;
    }
    expect(seen).toEqual(["task"]);
    expectRefused(error, 1024);
  });

  it("a 200 that is not gRPC-web (a proxy's HTML page) is ProtocolError naming its content type; its bytes are not read as frames", async () => {
    proxy.handle((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/html" });
      // "<htm" would read as a frame of 1.7 GB.
      res.end("<html><body>maintenance</body></html>");
    });
    const client = new A2AClient(createGrpcWebTransport({ baseUrl: proxy.url }));
    for (const call of [
      () => client.getTask({ id: "t1" }),
      async () => client.subscribeToTask({ id: "t1" }, { resume: false })[Symbol.asyncIterator]().next(),
    ]) {
      const e = await call().catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ProtocolError);
      expect((e as Error).message).toMatch(
        /^expected a gRPC-web response from http:\/\/127\.0\.0\.1:\d+\/lf\.a2a\.v1\.A2AService\/\w+, got content type "text\/html"$/,
      );
    }
  });

  it("a body that ends inside a frame is the proxy's ProtocolError, not the caller's InvalidParamsError", async () => {
    proxy.handle((_req, res) => {
      answer(res);
      res.end(frame(TASK).subarray(0, 10));
    });
    const client = new A2AClient(createGrpcWebTransport({ baseUrl: proxy.url }));
    const e = await client.getTask({ id: "t1" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as Error).message).toBe("malformed gRPC response: the gRPC-web response ended inside a message frame");
  });

  it("holds whatever the split: a message at the limit passes and one byte more fails, sent a byte at a time", async () => {
    for (const [limit, ok] of [
      [TASK.length, true],
      [TASK.length - 1, false],
    ] as const) {
      proxy.handle(async (_req, res) => {
        answer(res);
        for (const byte of Buffer.concat([frame(TASK), trailers()])) {
          await new Promise<void>((resolve) => res.write(Buffer.from([byte]), () => resolve()));
        }
        res.end();
      });
      const client = new A2AClient(createGrpcWebTransport({ baseUrl: proxy.url, readMaxBytes: limit }));
      const result = await client.getTask({ id: "t1" }).catch((e: unknown) => e);
      if (ok) expect((result as { id: string }).id).toBe("t1");
      else expectRefused(result, limit);
    }
  });

  it("a message arriving a byte per chunk is read in linear time, costing about its bytes", async () => {
    v8.setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const big = toBinary(
      TaskSchema,
      create(TaskSchema, { id: "t1", contextId: "c".repeat(300_000), status: { state: TaskState.WORKING } }),
    );
    const trailer = Buffer.from("grpc-status: 0\r\n");
    const bytes = Buffer.concat([frame(big), Buffer.from([0x80, 0, 0, 0, trailer.length]), trailer]);
    let held = 0;
    let before = 0;
    let at = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (at === 0) {
          gc();
          before = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
        }
        // Chunks flow through promises alone; a turn of the event loop now and then lets the test's timeout fire.
        if (at % 16_384 === 0) await new Promise((resolve) => setImmediate(resolve));
        if (at === bytes.length - trailer.length - 6) {
          gc();
          held = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - before;
        }
        if (at === bytes.length) return controller.close();
        controller.enqueue(Uint8Array.of(bytes[at++]!));
      },
    });
    const fetch = async () => new Response(body, { headers: { "Content-Type": "application/grpc-web+proto" } });
    const client = new A2AClient(createGrpcWebTransport({ baseUrl: proxy.url, fetch }));
    // connect's envelope reader alone sums its list of chunks on each chunk: 300,000 chunks took it minutes.
    const task = await client.getTask({ id: "t1" }, { timeoutMs: 10_000 });
    expect(task.contextId).toHaveLength(300_000);
    expect(held).toBeLessThan(8 * 1024 * 1024);
  });

  describe("a status the proxy garbles is read as over HTTP/2: the code decides", () => {
    const notFound = { "grpc-status": "5", "grpc-message": "no such task %zz 100%" };
    const zeroDetails = Buffer.from(toBinary(StatusSchema, create(StatusSchema, { code: 0 }))).toString("base64");
    const garbles: ReadonlyArray<[string, Record<string, string>]> = [
      ["a malformed escape in grpc-message", notFound],
      ["undecodable grpc-status-details-bin", { ...notFound, "grpc-status-details-bin": "!!not base64!!" }],
      ["details of code 0 beside grpc-status 5", { ...notFound, "grpc-status-details-bin": zeroDetails }],
    ];

    it.each(garbles)("%s, in the trailers frame (sent a byte at a time) or trailers-only: TaskNotFoundError", async (_name, fields) => {
      const text = Object.entries(fields)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join("");
      const trailersFrame = Buffer.concat([Buffer.from([0x80, 0, 0, 0, Buffer.byteLength(text)]), Buffer.from(text)]);
      for (const form of ["frame", "trailers-only"]) {
        proxy.handle(async (_req, res) => {
          if (form === "trailers-only") {
            res.writeHead(200, { "Content-Type": "application/grpc-web+proto", ...fields });
            return res.end();
          }
          answer(res);
          for (const byte of trailersFrame) await new Promise<void>((resolve) => res.write(Buffer.from([byte]), () => resolve()));
          res.end();
        });
        const client = new A2AClient(createGrpcWebTransport({ baseUrl: proxy.url }));
        const e = await client.getTask({ id: "t1" }).catch((x: unknown) => x);
        expect(e, form).toBeInstanceOf(TaskNotFoundError);
        expect((e as Error).message).toBe("no such task %zz 100%");
      }
    });
  });
});
