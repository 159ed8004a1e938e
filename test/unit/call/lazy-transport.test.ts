/**
 * Transports whose code loads on the first call (the 0.3 wire): they load
 * once, pass calls through unchanged, try again after a failed load, and
 * check their options when created, not when first called.
 */
import { create } from "@bufbuild/protobuf";
import { createContextValues } from "@connectrpc/connect";
import { describe, expect, it, vi } from "vitest";
import { A2AService, GetTaskRequestSchema, SubscribeToTaskRequestSchema, TaskSchema } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import {
  AbortedError,
  CallTimeoutError,
  InvalidParamsError,
  createJsonRpcTransportV03,
  createRestTransportV03,
  type A2ATransport,
} from "../../../src/index.js";
import { lazyTransport } from "../../../src/call/lazy.js";
import { settled } from "../../support/failure.js";
import { trackTimers } from "../../support/timers.js";
import { unaryAnswer } from "../../support/unary-answer.js";

function fakeTransport(calls: unknown[][]): A2ATransport {
  return {
    binding: "JSONRPC",
    async unary(...args: unknown[]) {
      calls.push(args);
      const method = args[0] as typeof A2AService.method.getTask;
      return unaryAnswer(method, create(TaskSchema, { id: "t" }));
    },
    async stream() {
      throw new Error("not used");
    },
  } as unknown as A2ATransport;
}

describe("lazyTransport", () => {
  it("loads once, on the first call, and passes every argument through", async () => {
    let loads = 0;
    const calls: unknown[][] = [];
    const t = lazyTransport("JSONRPC", async () => {
      loads++;
      return fakeTransport(calls);
    });
    expect(loads).toBe(0);
    expect(t.binding).toBe("JSONRPC");
    const signal = new AbortController().signal;
    const ctx = createContextValues();
    const input = create(GetTaskRequestSchema, { id: "t" });
    const [a, b] = await Promise.all([
      t.unary(A2AService.method.getTask, signal, 60_000, { x: "1" }, input, ctx),
      t.unary(A2AService.method.getTask, undefined, undefined, undefined, input),
    ]);
    expect([a.message.id, b.message.id]).toEqual(["t", "t"]);
    expect(loads).toBe(1);
    // The timeout goes on as what is left of it once the code has loaded.
    const [method, passedSignal, left, header, message, values] = calls[0]!;
    expect([method, passedSignal, header, message, values]).toEqual([A2AService.method.getTask, signal, { x: "1" }, input, ctx]);
    expect(left).toBeGreaterThan(50_000);
    expect(left).toBeLessThanOrEqual(60_000);
    expect(calls[1]![2]).toBeUndefined();
  });

  it("tries to load again after a failed load", async () => {
    let loads = 0;
    const t = lazyTransport("JSONRPC", async () => {
      if (++loads === 1) throw new TypeError("Failed to fetch dynamically imported module");
      return fakeTransport([]);
    });
    const input = create(GetTaskRequestSchema, { id: "t" });
    await expect(t.unary(A2AService.method.getTask, undefined, undefined, undefined, input)).rejects.toThrow(/dynamically imported/);
    await expect(t.unary(A2AService.method.getTask, undefined, undefined, undefined, input)).resolves.toBeDefined();
    expect(loads).toBe(2);
  });
});

describe("lazyTransport whose code never loads (a chunk whose fetch stalls)", () => {
  const input = create(GetTaskRequestSchema, { id: "t" });
  const stalled = () => lazyTransport("JSONRPC", () => new Promise<A2ATransport>(() => {}));

  it.each(["unary", "stream"] as const)("%s: the call's timeoutMs ends it with CallTimeoutError, leaving no timer", async (kind) => {
    const timers = trackTimers(/[/\\]src[/\\]/);
    try {
      const t = stalled();
      const started = performance.now();
      const call =
        kind === "unary"
          ? t.unary(A2AService.method.getTask, undefined, 50, undefined, input)
          : t.stream(
              A2AService.method.subscribeToTask,
              undefined,
              50,
              undefined,
              (async function* () {
                yield create(SubscribeToTaskRequestSchema, { id: "t" });
              })(),
            );
      const error = await settled(call);
      expect(error).toBeInstanceOf(CallTimeoutError);
      expect(error).toMatchObject({ kind: "deadline", binding: "JSONRPC" });
      expect((error as Error).message).toContain("50 ms");
      expect(performance.now() - started).toBeLessThan(1000);
      expect(await timers.live()).toEqual([]);
    } finally {
      timers.stop();
    }
  });

  it.each(["unary", "stream"] as const)("%s: the call's signal ends it at once with AbortedError, its reason as cause", async (kind) => {
    const t = stalled();
    const controller = new AbortController();
    const call =
      kind === "unary"
        ? t.unary(A2AService.method.getTask, controller.signal, 0, undefined, input)
        : t.stream(
            A2AService.method.subscribeToTask,
            controller.signal,
            undefined,
            undefined,
            (async function* () {
              yield create(SubscribeToTaskRequestSchema, { id: "t" });
            })(),
          );
    const reason = new Error("the user left");
    controller.abort(reason);
    const error = await settled(call);
    expect(error).toBeInstanceOf(AbortedError);
    expect((error as AbortedError).cause).toBe(reason);
  });

  it("a load that took part of the timeout leaves the call what is left of it", async () => {
    const calls: unknown[][] = [];
    let loaded!: () => void;
    const t = lazyTransport("JSONRPC", () => new Promise<A2ATransport>((resolve) => (loaded = () => resolve(fakeTransport(calls)))));
    // The load takes 100 ms by the clock the call reads.
    let now = 5000;
    const clock = vi.spyOn(performance, "now").mockImplementation(() => now);
    try {
      const call = t.unary(A2AService.method.getTask, undefined, 1000, undefined, input);
      now += 100;
      loaded();
      await call;
    } finally {
      clock.mockRestore();
    }
    expect(calls[0]![2]).toBe(900);
  });
});

describe("the 0.3 transports of the root entry", () => {
  it("check their options when created", () => {
    expect(() => createJsonRpcTransportV03({ baseUrl: "http://127.0.0.1:1", protocolVersion: "zero" })).toThrow(InvalidParamsError);
    expect(() => createRestTransportV03({ baseUrl: "http://127.0.0.1:1", protocolVersion: "zero" })).toThrow(InvalidParamsError);
    expect(createJsonRpcTransportV03({ baseUrl: "http://127.0.0.1:1" }).binding).toBe("JSONRPC");
    expect(createRestTransportV03({ baseUrl: "http://127.0.0.1:1" }).binding).toBe("HTTP+JSON");
  });
});
