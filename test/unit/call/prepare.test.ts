/**
 * The prepare step (src/call/prepare.ts): one record per operation that
 * carries what the later steps read (the method and its traits, the
 * request as sent, the headers with the activated extensions, the caller's
 * signal, the timeout given) and is the call's one deadline.
 */
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { A2AService, SendMessageResponseSchema, TaskSchema } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { METHOD_TRAITS } from "../../../src/call/method-traits.js";
import { prepareCall } from "../../../src/call/prepare.js";
import { CallRecord } from "../../../src/call/record.js";
import type { A2ATransport } from "../../../src/call/transport.js";
import { A2AClient } from "../../../src/client/client.js";
import { InvalidParamsError } from "../../../src/errors/family.js";
import { A2A_EXTENSIONS } from "../../../src/protocol/headers.js";
import { userMessage } from "../../../src/protocol/messages.js";

const client = { tenant: "acme", extensions: ["https://x/a"], timeoutMs: 700 };

describe("the prepare step", () => {
  it("a unary call's record carries its method, traits, request as sent, headers, signal and timeout, and is its deadline", () => {
    const signal = new AbortController().signal;
    const message = userMessage("hi");
    message.messageId = "";
    const record = prepareCall(
      A2AService.method.sendMessage,
      { message },
      { signal, headers: { "x-a": "1" }, extensions: ["https://x/b"] },
      client,
    );
    expect(record).toBeInstanceOf(CallRecord);
    expect(record.method).toBe(A2AService.method.sendMessage);
    expect(record.traits).toBe(METHOD_TRAITS.sendMessage);
    expect(record.signal).toBe(signal);
    const request = record.request as { tenant: string; message: { messageId: string; extensions: string[] } };
    expect(request.tenant).toBe("acme");
    expect(request.message.messageId).not.toBe("");
    expect(request.message.extensions).toEqual(["https://x/a", "https://x/b"]);
    const headers = new Headers(record.headers);
    expect(headers.get(A2A_EXTENSIONS)).toBe("https://x/a,https://x/b");
    expect(headers.get("x-a")).toBe("1");
    // The call's timeout, else the client's: given to its first request, and its deadline's limit.
    expect(record.givenMs).toBe(700);
    expect(record.limitMs).toBe(700);
    expect(prepareCall(A2AService.method.getTask, { id: "t1" }, { timeoutMs: 300 }, client).givenMs).toBe(300);
  });

  it("a stream's timeout is only its own: the client's is a unary call's", () => {
    const record = prepareCall(A2AService.method.subscribeToTask, { id: "t1" }, {}, client);
    expect(record.traits).toBe(METHOD_TRAITS.subscribeToTask);
    expect(record.givenMs).toBeUndefined();
    expect(record.limitMs).toBeUndefined();
    expect(prepareCall(A2AService.method.subscribeToTask, { id: "t1" }, { timeoutMs: 50 }, client).limitMs).toBe(50);
  });

  it("a request of the spec's JSON shape is a promise of the request as sent, the rules applied once it is read", async () => {
    const record = prepareCall(A2AService.method.sendMessage, { message: { role: "ROLE_USER", parts: [{ text: "hi" }] } }, {}, client);
    expect(record.request).toBeInstanceOf(Promise);
    const request = (await record.request) as { tenant: string; message: { messageId: string; extensions: string[] } };
    expect(request.tenant).toBe("acme");
    expect(request.message.messageId).toMatch(/./);
    expect(request.message.extensions).toEqual(["https://x/a"]);
  });

  it("a call of a stream is prepared into the stream's record, sharing its deadline and position", () => {
    const stream = prepareCall(A2AService.method.sendStreamingMessage, { message: userMessage("hi") }, { timeoutMs: 900 }, client);
    stream.lastEventId = "7";
    const read = prepareCall(A2AService.method.getTask, { id: "t1" }, { timeoutMs: 400 }, client, stream);
    expect(read).toBe(stream);
    expect(read.method).toBe(A2AService.method.getTask);
    expect(read.givenMs).toBe(400);
    expect(read.limitMs).toBe(900);
    expect(read.lastEventId).toBe("7");
  });

  it("a header that cannot be sent fails the preparation, naming it", () => {
    expect(() => prepareCall(A2AService.method.getTask, { id: "t1" }, { headers: { "x-a": "a\nb" } }, client)).toThrow(InvalidParamsError);
    expect(() => prepareCall(A2AService.method.getTask, { id: "t1" }, { extensions: ["not a uri"] }, client)).toThrow(
      /extensions: "not a uri"/,
    );
  });

  it("the A2AClient's transport is given the prepared record, and the request and headers it carries", async () => {
    const seen: Array<{ values: unknown; request: unknown; headers: unknown; timeoutMs: unknown }> = [];
    const transport: A2ATransport = {
      binding: "JSONRPC",
      unary: async (method, _signal, timeoutMs, headers, request, values) => {
        seen.push({ values, request, headers, timeoutMs });
        const message = method.name === "SendMessage" ? create(SendMessageResponseSchema) : create(TaskSchema);
        return { stream: false, service: A2AService, method, header: new Headers(), trailer: new Headers(), message } as never;
      },
      stream: () => Promise.reject(new Error("no streams here")),
    };
    await new A2AClient(transport, client).sendMessage({ message: userMessage("hi") }, { timeoutMs: 300 });
    const [{ values, request, headers, timeoutMs }] = seen as [(typeof seen)[0]];
    const record = values as CallRecord;
    expect(record).toBeInstanceOf(CallRecord);
    expect(record.method).toBe(A2AService.method.sendMessage);
    expect(record.request).toBe(request);
    expect(record.headers).toBe(headers);
    expect(timeoutMs).toBe(300);
  });
});
