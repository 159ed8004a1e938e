/**
 * gRPC-web (bindings/grpc/web.ts, connect's runner over fetch): a fetch
 * that ignores its signal holds no call past its deadline, its idle timeout
 * or its signal, and leaves no timer armed.
 */
import { describe, expect, it } from "vitest";
import { A2AClient, AbortedError, CallTimeoutError, createGrpcWebTransport } from "../../../src/node.js";
import { BOUND_MS, settle, drain, withoutTimersLeft } from "../../support/deadline-server.js";

describe("gRPC-web (connect's runner over fetch) with a fetch that ignores its signal", () => {
  const fetchNever = (() => new Promise<Response>(() => {})) as typeof fetch;
  const client = (idleTimeoutMs?: number) =>
    new A2AClient(createGrpcWebTransport({ baseUrl: "http://127.0.0.1:9", fetch: fetchNever, idleTimeoutMs }));

  it("unary: the deadline and the signal end the call", async () => {
    await withoutTimersLeft(async () => {
      const timed = await settle(client().getTask({ id: "t1" }, { timeoutMs: 30 }));
      expect(timed.error).toBeInstanceOf(CallTimeoutError);
      expect((timed.error as CallTimeoutError).kind).toBe("deadline");
      expect(timed.ms).toBeLessThan(BOUND_MS);

      const controller = new AbortController();
      const stop = setTimeout(() => controller.abort(), 20);
      const aborted = await settle(client().getTask({ id: "t1" }, { signal: controller.signal, timeoutMs: 0 }));
      clearTimeout(stop);
      expect(aborted.error).toBeInstanceOf(AbortedError);
    });
  });

  it("stream: the idle timeout runs from the request, and the signal ends it", async () => {
    await withoutTimersLeft(async () => {
      const idle = await settle(drain(client(30).subscribeToTask({ id: "t1" }, { resume: false })));
      expect(idle.error).toBeInstanceOf(CallTimeoutError);
      expect((idle.error as CallTimeoutError).kind).toBe("idle");
      expect(idle.ms).toBeLessThan(BOUND_MS);

      const controller = new AbortController();
      const stop = setTimeout(() => controller.abort(), 20);
      const aborted = await settle(drain(client(0).subscribeToTask({ id: "t1" }, { resume: false, signal: controller.signal })));
      clearTimeout(stop);
      expect(aborted.error).toBeInstanceOf(AbortedError);
    });
  });
});
