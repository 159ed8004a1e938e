/**
 * The gRPC binding's per-request step (bindings/grpc/common.ts) takes the
 * call's record once, as the A2AClient made it, and the timeout its
 * deadline chose, for calls and streams alike; the protocol below is given
 * that timeout, and the deadline's error names the call's whole limit.
 */
import { create } from "@bufbuild/protobuf";
import type { Transport } from "@connectrpc/connect";
import { afterEach, describe, expect, it, vi } from "vitest";
import { A2AService, SendMessageResponseSchema, StreamResponseSchema, TaskSchema, TaskState } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { A2AClient } from "../../../src/client/client.js";
import { a2aGrpcTransport } from "../../../src/bindings/grpc/common.js";
import { userMessage } from "../../../src/protocol/messages.js";
import { CallRecord, recordFor } from "../../../src/call/record.js";
import { CallTimeoutError } from "../../../src/errors/family.js";
import { timeoutFor } from "../../../src/call/timeouts.js";

vi.mock("../../../src/call/record.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../src/call/record.js")>();
  return { ...real, recordFor: vi.fn(real.recordFor) };
});
vi.mock("../../../src/call/timeouts.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../src/call/timeouts.js")>();
  return { ...real, timeoutFor: vi.fn(real.timeoutFor) };
});

const task = () => create(TaskSchema, { id: "t1", contextId: "c1", status: { state: TaskState.COMPLETED } });

/** A protocol below the binding that answers at once, noting the timeout each call was given. */
function inner(given: (number | undefined)[]): Transport {
  return {
    async unary(method, _signal, timeoutMs) {
      given.push(timeoutMs);
      const message = create(SendMessageResponseSchema, { payload: { case: "task", value: task() } });
      return { stream: false, service: method.parent, method, header: new Headers(), trailer: new Headers(), message } as never;
    },
    async stream(method, _signal, timeoutMs) {
      given.push(timeoutMs);
      const message = (async function* () {
        yield create(StreamResponseSchema, { payload: { case: "task", value: task() } });
      })();
      return { stream: true, service: method.parent, method, header: new Headers(), trailer: new Headers(), message } as never;
    },
  };
}

afterEach(() => {
  vi.mocked(recordFor).mockClear();
  vi.mocked(timeoutFor).mockClear();
});

describe("the gRPC binding's request step", () => {
  it("takes the record once and its timeout once, for calls and streams", async () => {
    const given: (number | undefined)[] = [];
    const transport = a2aGrpcTransport(inner(given), { baseUrl: "http://127.0.0.1:9", timeoutMs: 7_000 }, () => undefined, {
      url: "http://127.0.0.1:9",
      guarded: true,
    });
    const client = new A2AClient(transport);
    for (const timeoutMs of [undefined, 5_000]) {
      vi.mocked(recordFor).mockClear();
      vi.mocked(timeoutFor).mockClear();
      await client.sendMessage({ message: userMessage("hi") }, { timeoutMs });
      for await (const _ of client.sendStreamingMessage({ message: userMessage("hi") }, { timeoutMs, resume: false })) {
        // read to the end
      }
      // Once per request: the client's record, as it comes.
      expect(recordFor).toHaveBeenCalledTimes(2);
      // One for each call's record, none at the request.
      expect(timeoutFor).toHaveBeenCalledTimes(2);
    }
    // A unary call that gave none has the transport's; a stream that gave none has none.
    expect(given).toEqual([7_000, undefined, 5_000, 5_000]);
  });

  it("a request given what is left of its call's deadline names the call's whole limit (gRPC-web)", async () => {
    vi.useFakeTimers();
    try {
      const stalled: Transport = { unary: () => new Promise(() => {}), stream: () => new Promise(() => {}) };
      const url = "http://127.0.0.1:9";
      const transport = a2aGrpcTransport(stalled, { baseUrl: url }, () => undefined, { url, guarded: false });
      // The call's clock started 400 ms before its request (code loaded on demand).
      const record = new CallRecord("unary", 1_000).start();
      await vi.advanceTimersByTimeAsync(400);
      const failed = transport
        .unary(A2AService.method.getTask, undefined, record.timeoutMs(), undefined, { id: "t1" }, record)
        .catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(600);
      const e = await failed;
      expect(e).toBeInstanceOf(CallTimeoutError);
      expect((e as Error).message).toContain("within 1000 ms");
    } finally {
      vi.useRealTimers();
    }
  });
});
