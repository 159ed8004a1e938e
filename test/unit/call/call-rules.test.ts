/**
 * The rules every call follows whatever the binding (src/call/): one
 * timeout convention, the request as sent (tenant, message extensions, one
 * message id for a send), the extension headers, and the A2A version facts.
 * The A2AClient's operations are checked against the service by the
 * compiler: a new RPC is a compile error until the client has it.
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { A2AService, SendMessageResponseSchema, TaskSchema } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { A2AClient, type ServiceOperations } from "../../../src/client/client.js";
import type { A2ATransport } from "../../../src/call/transport.js";
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, timeoutFor } from "../../../src/call/timeouts.js";
import { outgoingRequest } from "../../../src/call/request.js";
import { traitsOf } from "../../../src/call/method-traits.js";
import { mergeHeaders, serviceHeaders, withExtensions } from "../../../src/call/options.js";
import { compareVersions, majorMinor, parseVersion } from "../../../src/protocol/version.js";
import { InvalidParamsError } from "../../../src/errors/family.js";
import { A2A_EXTENSIONS, A2A_VERSION } from "../../../src/protocol/headers.js";
import { unaryAnswer } from "../../support/unary-answer.js";

/** A transport that records what each unary call is given, and answers with an empty result. */
function recording(): {
  transport: A2ATransport;
  calls: { request: Record<string, unknown>; header: Headers; timeoutMs: number | undefined }[];
} {
  const calls: { request: Record<string, unknown>; header: Headers; timeoutMs: number | undefined }[] = [];
  const transport = {
    binding: "JSONRPC",
    async unary(method, _signal, timeoutMs, header, input) {
      calls.push({ request: input as Record<string, unknown>, header: new Headers(header), timeoutMs });
      const message = method.output.typeName === TaskSchema.typeName ? create(TaskSchema) : create(SendMessageResponseSchema);
      return unaryAnswer(method, message as never);
    },
    async stream() {
      throw new Error("not used");
    },
  } satisfies A2ATransport;
  return { transport, calls };
}

describe("one timeout convention (call/timeouts.ts)", () => {
  it("unary: the call's, else the transport's, else 60 s; 0 means none", () => {
    expect(timeoutFor("unary", 5, 7)).toBe(5);
    expect(timeoutFor("unary", undefined, 7)).toBe(7);
    expect(timeoutFor("unary", undefined, undefined)).toBe(DEFAULT_TIMEOUT_MS);
    expect(DEFAULT_TIMEOUT_MS).toBe(60_000);
    expect(timeoutFor("unary", 0, 7)).toBeUndefined();
    expect(timeoutFor("unary", undefined, 0)).toBeUndefined();
  });

  it("streams: no deadline unless the call asks for one (the transport's timeoutMs is for unary calls)", () => {
    expect(timeoutFor("stream", undefined, 7)).toBeUndefined();
    expect(timeoutFor("stream", 5, 7)).toBe(5);
    expect(timeoutFor("stream", 0)).toBeUndefined();
    expect(timeoutFor("stream", -1)).toBeUndefined();
  });

  it("idle: the transport's, else 300 s; 0 means none", () => {
    expect(timeoutFor("idle", undefined, 9)).toBe(9);
    expect(timeoutFor("idle", undefined, undefined)).toBe(DEFAULT_IDLE_TIMEOUT_MS);
    expect(DEFAULT_IDLE_TIMEOUT_MS).toBe(300_000);
    expect(timeoutFor("idle", undefined, 0)).toBeUndefined();
  });
});

describe("the request as sent (call/request.ts)", () => {
  it("a message sent without an id gets one, on SendMessage too, and a resend keeps it", async () => {
    const { transport, calls } = recording();
    const client = new A2AClient(transport);
    await client.sendMessage({ message: { role: 1, parts: [{ content: { case: "text", value: "hi" } }] } });
    const message = calls[0]!.request.message as { messageId: string };
    expect(message.messageId).toMatch(/^[0-9a-f-]{36}$/);
    // An id the caller gave is kept.
    await client.sendMessage({ message: { messageId: "m1", role: 1 } });
    expect((calls[1]!.request.message as { messageId: string }).messageId).toBe("m1");
  });

  it("the client's tenant and the activated extensions, header and message, on every call", async () => {
    const { transport, calls } = recording();
    const client = new A2AClient(transport, { tenant: "acme", extensions: ["https://x/a"] });
    await client.sendMessage(
      { tenant: "other", message: { messageId: "m1", extensions: ["https://x/m"] } },
      { extensions: ["https://x/b"], headers: { [A2A_EXTENSIONS]: "https://x/h" } },
    );
    const { request, header } = calls[0]!;
    expect(request.tenant).toBe("acme");
    expect((request.message as { extensions: string[] }).extensions).toEqual(["https://x/m", "https://x/a", "https://x/b"]);
    expect(header.get(A2A_EXTENSIONS)).toBe("https://x/a,https://x/b,https://x/h");
  });

  it("nothing to apply: the request and the headers go on as given, without a copy", () => {
    const request = { id: "t1" } as MessageInitShape<typeof A2AService.method.getTask.input>;
    expect(outgoingRequest(traitsOf(A2AService.method.getTask), request, undefined, undefined)).toBe(request);
    expect(outgoingRequest(traitsOf(A2AService.method.getTask), request, undefined, ["https://x/a"])).toBe(request);
    const headers = { "x-a": "1" };
    expect(withExtensions(headers, undefined)).toBe(headers);
    expect(withExtensions(headers, [])).toBe(headers);
  });

  it("a call's timeout goes to the transport as given; the transport applies the convention", async () => {
    const { transport, calls } = recording();
    await new A2AClient(transport).getTask({ id: "t1" }, { timeoutMs: 0 });
    expect(calls[0]!.timeoutMs).toBe(0);
  });
});

describe("service headers (call/options.ts, protocol/headers.ts)", () => {
  it("A2A-Version is Major.Minor; extensions add up over the transport's", () => {
    const defaults = serviceHeaders({ baseUrl: "http://x", protocolVersion: "1.0.3", extensions: ["https://x/t"] });
    expect(defaults.get(A2A_VERSION)).toBe("1.0");
    const h = mergeHeaders(defaults, { "A2A-Extensions": "https://x/c, https://x/t" });
    expect(h.get("A2A-Extensions")).toBe("https://x/t,https://x/c");
  });
});

describe("versions (protocol/version.ts)", () => {
  it("majorMinor keeps Major.Minor and refuses what is not a version", () => {
    expect(majorMinor(" 1.0.3 ")).toBe("1.0");
    expect(() => majorMinor("v1")).toThrow(InvalidParamsError);
  });

  it("parseVersion gives Major.Minor with its numbers normalised, or undefined for what is not a version", () => {
    expect(parseVersion(" 01.00.3")).toBe("1.0");
    expect(parseVersion("0.3")).toBe("0.3");
    expect(parseVersion("v1")).toBeUndefined();
    expect(parseVersion("")).toBeUndefined();
  });

  it("compareVersions orders by major, then minor", () => {
    expect(compareVersions("0.3", "1.0")).toBeLessThan(0);
    expect(compareVersions("1.10", "1.2")).toBeGreaterThan(0);
    expect(compareVersions("1.0", "1.0")).toBe(0);
  });
});

describe("A2AClient's operations against the service (compile-time)", () => {
  it("has an operation for every RPC of A2AService, named as the service names it", () => {
    const ops: ServiceOperations<typeof A2AService.method> = new A2AClient(recording().transport);
    for (const name of Object.keys(A2AService.method)) expect(typeof (ops as Record<string, unknown>)[name]).toBe("function");
    expect(Object.keys(A2AService.method)).toHaveLength(11);
  });

  it("an RPC added to the service is a compile error until the client handles it", () => {
    type WithNewRpc = typeof A2AService.method & { archiveTask: typeof A2AService.method.getTask };
    // @ts-expect-error A2AClient has no archiveTask operation
    const ops: ServiceOperations<WithNewRpc> = new A2AClient(recording().transport);
    expect("archiveTask" in ops).toBe(false);
  });

  it("an operation taking another request than its RPC's is a compile error", () => {
    type Swapped = Omit<typeof A2AService.method, "getTask"> & { getTask: typeof A2AService.method.sendMessage };
    // @ts-expect-error getTask takes a GetTaskRequest, not a SendMessageRequest
    const ops: ServiceOperations<Swapped> = new A2AClient(recording().transport);
    expect(typeof ops.getTask).toBe("function");
  });
});
