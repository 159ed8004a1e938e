/**
 * The error bodies the HTTP bindings read, each rule once: a JSON-RPC error
 * object is the same error whether JSON-RPC sends it in its envelope or a
 * 0.3 server sends it bare on HTTP+JSON; an HTTP status without an A2A
 * error is the same error on the HTTP bindings and on gRPC.
 */
import { describe, expect, it } from "vitest";
import { TaskNotFoundError } from "../../../src/errors/family.js";
import type { ResponseFacts } from "../../../src/http/codec.js";
import { httpAnswerError } from "../../../src/bindings/grpc/http-answer.js";
import { parseRetryAfter } from "../../../src/errors/retry-after.js";
import { genericHttpError, isJsonRpcCode, jsonRpcError, statusOnlyError } from "../../../src/http/error-bodies.js";

const facts = (binding: ResponseFacts["binding"]): ResponseFacts => ({
  binding,
  httpStatus: 200,
  challenge: undefined,
  url: "http://127.0.0.1:1/a2a",
  method: "GetTask",
});

describe("a JSON-RPC error object", () => {
  it("is read by its code, message and data, on either HTTP binding", () => {
    const object = { code: -32001, message: "no task t1", data: { taskId: "t1" } };
    for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
      const error = jsonRpcError(object, facts(binding));
      expect(error).toBeInstanceOf(TaskNotFoundError);
      expect(error).toMatchObject({ jsonRpcCode: -32001, message: expect.stringContaining("no task t1"), binding });
      expect(error.details).toEqual([{ taskId: "t1" }]);
    }
  });

  it("data as an array is the details as they are; none is no details", () => {
    expect(jsonRpcError({ code: -32001, message: "x", data: [1, 2] }, facts("JSONRPC")).details).toEqual([1, 2]);
    expect(jsonRpcError({ code: -32001, message: "x", data: null }, facts("JSONRPC")).details).toEqual([]);
    expect(jsonRpcError({ code: -32001 }, facts("JSONRPC")).details).toEqual([]);
  });

  it("JSON-RPC codes are negative whole numbers; an HTTP status or a google.rpc.Status code is not one", () => {
    expect([-32001, -32603].map(isJsonRpcCode)).toEqual([true, true]);
    expect([404, 5, -1.5, "-32001", undefined].map(isJsonRpcCode)).toEqual([false, false, false, false, false]);
  });
});

describe("an HTTP status without an A2A error", () => {
  it("is the same error on the HTTP bindings and on gRPC: its class, status, challenge and Retry-After", () => {
    const url = "http://127.0.0.1:1/a2a";
    for (const [status, header] of [
      [503, { "Retry-After": "2" }],
      [429, { "Retry-After": "1" }],
      [401, { "WWW-Authenticate": 'Bearer realm="a2a"' }],
      [404, {}],
    ] as const) {
      const headers = new Headers(header);
      const grpc = httpAnswerError(status, headers, url, parseRetryAfter(headers.get("retry-after")));
      const http = genericHttpError(undefined, {
        ...facts("JSONRPC"),
        httpStatus: status,
        challenge: headers.get("WWW-Authenticate") ?? undefined,
        retryAfterMs: headers.has("Retry-After") ? Number(headers.get("Retry-After")) * 1000 : undefined,
      });
      for (const e of [grpc, http]) expect(e.constructor).toBe(statusOnlyError("", { ...facts("GRPC"), httpStatus: status }).constructor);
      const shown = (e: typeof grpc) => ({ code: e.code, httpStatus: e.httpStatus, transient: e.transient, retryAfterMs: e.retryAfterMs });
      expect(shown(grpc)).toEqual(shown(http));
      expect(grpc.message).toContain(`HTTP ${status} without a gRPC status`);
      expect(http.message).toContain(`HTTP ${status} without an A2A error body`);
    }
  });
});
