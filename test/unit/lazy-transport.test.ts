/**
 * Transports whose code loads on the first call (the 0.3 wire): they load
 * once, pass calls through unchanged, try again after a failed load, and
 * check their options when created, not when first called.
 */
import { create } from "@bufbuild/protobuf";
import { createContextValues } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { A2AService, GetTaskRequestSchema, TaskSchema } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { InvalidParamsError, createJsonRpcTransportV03, createRestTransportV03, type A2ATransport } from "../../src/index.js";
import { lazyTransport } from "../../src/call/lazy.js";

function fakeTransport(calls: unknown[][]): A2ATransport {
  return {
    binding: "JSONRPC",
    async unary(...args: unknown[]) {
      calls.push(args);
      const method = args[0] as typeof A2AService.method.getTask;
      return {
        stream: false,
        service: A2AService,
        method,
        header: new Headers(),
        trailer: new Headers(),
        message: create(TaskSchema, { id: "t" }),
      };
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
      t.unary(A2AService.method.getTask, signal, 5, { x: "1" }, input, ctx),
      t.unary(A2AService.method.getTask, undefined, undefined, undefined, input),
    ]);
    expect([a.message.id, b.message.id]).toEqual(["t", "t"]);
    expect(loads).toBe(1);
    expect(calls[0]).toEqual([A2AService.method.getTask, signal, 5, { x: "1" }, input, ctx]);
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

describe("the 0.3 transports of the root entry", () => {
  it("check their options when created", () => {
    expect(() => createJsonRpcTransportV03({ baseUrl: "http://127.0.0.1:1", protocolVersion: "zero" })).toThrow(InvalidParamsError);
    expect(() => createRestTransportV03({ baseUrl: "http://127.0.0.1:1", protocolVersion: "zero" })).toThrow(InvalidParamsError);
    expect(createJsonRpcTransportV03({ baseUrl: "http://127.0.0.1:1" }).binding).toBe("JSONRPC");
    expect(createRestTransportV03({ baseUrl: "http://127.0.0.1:1" }).binding).toBe("HTTP+JSON");
  });
});
