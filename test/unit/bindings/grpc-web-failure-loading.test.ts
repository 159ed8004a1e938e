/**
 * gRPC-web names what a call failed with (bindings/grpc/failures.ts, the
 * classification with it) with code loaded when a call first fails. A chunk
 * whose fetch stalls holds no call past its deadline or signal, and one that
 * fails to load ends the call with an A2AError that says so.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { settled } from "../../support/failure.js";
import { BOUND_MS } from "../../support/deadline-server.js";

const FAILURES = "../../../src/bindings/grpc/failures.js";

afterEach(() => {
  vi.doUnmock(FAILURES);
  vi.resetModules();
});

/** The browser entry, loaded afresh (the Node entry's gRPC transport imports the naming itself). */
const browserEntry = () => import("../../../src/index.js");

/** A gRPC-web proxy that answers every call at once with NOT_FOUND, in its headers (a trailers-only answer). */
const notFound = (async () =>
  new Response(null, {
    status: 200,
    headers: { "content-type": "application/grpc-web+proto", "grpc-status": "5", "grpc-message": "no such task" },
  })) as typeof fetch;

async function clientOf(a2a: Awaited<ReturnType<typeof browserEntry>>) {
  return new a2a.A2AClient(a2a.createGrpcWebTransport({ baseUrl: "http://127.0.0.1:9", fetch: notFound }));
}

describe("gRPC-web names a failure with code loaded when a call first fails", () => {
  it("loaded, the server's status is the A2AError it names", async () => {
    const a2a = await browserEntry();
    const e = await settled((await clientOf(a2a)).getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(a2a.TaskNotFoundError);
  });

  it("never loading, the call still ends by its deadline, or by its signal", async () => {
    vi.resetModules();
    vi.doMock(FAILURES, () => new Promise(() => {}));
    const a2a = await browserEntry();
    const agent = await clientOf(a2a);
    const started = performance.now();
    const timedOut = await settled(agent.getTask({ id: "t1" }, { timeoutMs: 50 }));
    expect(timedOut).toBeInstanceOf(a2a.CallTimeoutError);
    expect(timedOut).toMatchObject({ kind: "deadline" });
    expect(performance.now() - started).toBeLessThan(BOUND_MS);

    const controller = new AbortController();
    const reason = new Error("the user left");
    const aborted = settled(agent.getTask({ id: "t1" }, { signal: controller.signal, timeoutMs: 0 }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(reason);
    const e = await aborted;
    expect(e).toBeInstanceOf(a2a.AbortedError);
    expect((e as Error).cause).toBe(reason);
  });

  it("failing to load, the call ends with an A2AError that says so", async () => {
    vi.resetModules();
    vi.doMock(FAILURES, () => {
      throw new TypeError("Failed to fetch dynamically imported module: failures.js");
    });
    const a2a = await browserEntry();
    const e = await settled((await clientOf(a2a)).getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(a2a.A2AError);
    expect(e).not.toBeInstanceOf(a2a.TaskNotFoundError);
    expect((e as Error).message).toMatch(/^the call failed, and the code that classifies its failure did not load \(.+\)$/);
  });
});

describe("gRPC-web, a stream cut while the naming's code never loads", () => {
  it("ends by its signal", async () => {
    vi.resetModules();
    vi.doMock(FAILURES, () => new Promise(() => {}));
    const a2a = await browserEntry();
    const { create, toBinary } = await import("@bufbuild/protobuf");
    const { StreamResponseSchema, TaskState } = await import("../../../gen/lf/a2a/v1/a2a_pb.js");
    const event = toBinary(
      StreamResponseSchema,
      create(StreamResponseSchema, {
        payload: { case: "task", value: { id: "t1", contextId: "c1", status: { state: TaskState.WORKING } } },
      }),
    );
    const frame = new Uint8Array(5 + event.length);
    new DataView(frame.buffer).setUint32(1, event.length);
    frame.set(event, 5);
    // One event, then the connection is cut (fetch's TypeError), which the binding names with the code that never loads.
    const cutAfterOne = (async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(frame);
          },
          pull(controller) {
            controller.error(new TypeError("network error"));
          },
        }),
        { status: 200, headers: { "content-type": "application/grpc-web+proto" } },
      )) as typeof fetch;
    const agent = new a2a.A2AClient(a2a.createGrpcWebTransport({ baseUrl: "http://127.0.0.1:9", fetch: cutAfterOne }));
    const controller = new AbortController();
    const events: unknown[] = [];
    const read = settled(
      (async () => {
        for await (const e of agent.subscribeToTask({ id: "t1" }, { resume: false, signal: controller.signal })) events.push(e);
      })(),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = performance.now();
    controller.abort(new Error("the user left"));
    const e = await read;
    expect(events).toHaveLength(1);
    expect(e).toBeInstanceOf(a2a.AbortedError);
    expect(performance.now() - started).toBeLessThan(BOUND_MS);
  }, 5_000);
});
