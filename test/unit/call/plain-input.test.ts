/**
 * Requests written as plain JavaScript (call/plain-input.ts): the spec's
 * JSON shapes are read as the generated types' init shapes, on every
 * operation, and what is of neither shape fails before any request with an
 * InvalidParamsError naming the field's path and not its value.
 */
import { inspect } from "node:util";
import { create, toJson, type MessageInitShape } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  ListTasksRequestSchema,
  MessageSchema,
  Role,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  TaskSchema,
  TaskState,
} from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { A2AClient } from "../../../src/client/client.js";
import type { A2ATransport } from "../../../src/call/transport.js";
import { readRequest } from "../../../src/call/request.js";
import { InvalidParamsError, text, userMessage } from "../../../src/index.js";
import { unaryAnswer } from "../../support/unary-answer.js";

/** A transport that records each request as the transports build it (`create`), and answers with an empty result. */
function recording() {
  const sent: unknown[] = [];
  const transport = {
    binding: "JSONRPC",
    async unary(method, _signal, _timeoutMs, _header, input) {
      sent.push(create(method.input, input));
      const message = method.output.typeName === TaskSchema.typeName ? create(TaskSchema) : create(SendMessageResponseSchema);
      return unaryAnswer(method, message as never);
    },
    async stream(method, _signal, _timeoutMs, _header, input) {
      for await (const m of input) sent.push(create(method.input, m));
      throw new Error("no stream here");
    },
  } satisfies A2ATransport;
  return { client: new A2AClient(transport), sent };
}

const SECRET = "s3cr3t-T0KEN";
const anyRequest = (r: unknown) => r as any;

describe("the spec's JSON shapes are read (call/plain-input.ts)", () => {
  it("a message of { text }, { data }, { url }, { raw } parts with role ROLE_USER is sent as those parts", async () => {
    const { client, sent } = recording();
    await client.sendMessage(
      anyRequest({
        message: {
          role: "ROLE_USER",
          messageId: "m1",
          parts: [
            { text: "hi" },
            { data: { a: [1, "x"] } },
            { url: "https://x.example/f.pdf", mediaType: "application/pdf" },
            { raw: "AQID" },
          ],
          metadata: { k: "v" },
        },
        configuration: { historyLength: "3", acceptedOutputModes: ["text/plain"] },
      }),
    );
    const req = sent[0] as ReturnType<typeof create<typeof SendMessageRequestSchema>>;
    expect(req.message?.role).toBe(Role.USER);
    expect(req.message?.parts.map((p) => p.content.case)).toEqual(["text", "data", "url", "raw"]);
    expect(req.message?.parts[0]?.content.value).toBe("hi");
    expect(req.message?.parts[3]?.content.value).toEqual(new Uint8Array([1, 2, 3]));
    expect(req.configuration?.historyLength).toBe(3);
    expect(toJson(SendMessageRequestSchema, req)).toEqual({
      message: {
        role: "ROLE_USER",
        messageId: "m1",
        parts: [
          { text: "hi" },
          { data: { a: [1, "x"] } },
          { url: "https://x.example/f.pdf", mediaType: "application/pdf" },
          { raw: "AQID" },
        ],
        metadata: { k: "v" },
      },
      configuration: { historyLength: 3, acceptedOutputModes: ["text/plain"] },
    });
  });

  it("the JSON text of a request, as JSON.parse gives it, is sent as it reads", async () => {
    const { client, sent } = recording();
    const json = { message: { role: "ROLE_USER", message_id: "m2", parts: [{ text: "from a file" }] } };
    await client.sendMessage(anyRequest(JSON.parse(JSON.stringify(json))));
    expect(toJson(SendMessageRequestSchema, sent[0] as never)).toEqual({
      message: { role: "ROLE_USER", messageId: "m2", parts: [{ text: "from a file" }] },
    });
  });

  it("enum names and timestamps on other operations: ListTasks status TASK_STATE_WORKING, statusTimestampAfter as RFC 3339", async () => {
    const { client, sent } = recording();
    await client.listTasks({ status: "TASK_STATE_WORKING", statusTimestampAfter: "2026-01-02T03:04:05Z", pageSize: 5 });
    const req = sent[0] as ReturnType<typeof create<typeof ListTasksRequestSchema>>;
    expect(req.status).toBe(TaskState.WORKING);
    expect(req.statusTimestampAfter?.seconds).toBe(BigInt(Date.UTC(2026, 0, 2, 3, 4, 5) / 1000));
    expect(req.pageSize).toBe(5);
  });

  it("a streaming send reads the same shapes", async () => {
    const { client, sent } = recording();
    const stream = client.sendStreamingMessage({ message: { role: "ROLE_USER", parts: [{ text: "hi" }] } }, { resume: false });
    await expect(stream[Symbol.asyncIterator]().next()).rejects.toThrow();
    const req = sent[0] as ReturnType<typeof create<typeof SendMessageRequestSchema>>;
    expect(req.message?.parts[0]?.content).toEqual({ case: "text", value: "hi" });
    expect(req.message?.role).toBe(Role.USER);
  });

  it("the init shape and made messages are kept as they are, without a copy; typed requests without a walk or a load", async () => {
    const msg = userMessage("hi");
    const request: MessageInitShape<typeof SendMessageRequestSchema> = { message: msg };
    // Made messages, strings and numbers are seen at a glance: the same object, not a promise.
    expect(readRequest(SendMessageRequestSchema, request)).toBe(request);
    expect(readRequest(MessageSchema, msg)).toBe(msg);
    const list = { pageSize: 5, status: TaskState.WORKING, contextId: "c" };
    expect(readRequest(ListTasksRequestSchema, list)).toBe(list);
    // A plain message in the init shape is read, and left as it was.
    const init = { message: { role: Role.USER, messageId: "m", parts: [text("a"), { content: { case: "text" as const, value: "b" } }] } };
    expect(await readRequest(SendMessageRequestSchema, init)).toBe(init);
  });
});

describe("what is of neither shape fails before any request, naming the field and not its value", () => {
  const cases: Array<[string, unknown, string, "unary" | "stream"]> = [
    ["an unknown part field", { message: { role: "ROLE_USER", parts: [{ txt: SECRET }] } }, "message.parts[0].txt", "unary"],
    ["a 0.3 part (kind)", { message: { role: "ROLE_USER", parts: [{ kind: "text", text: SECRET }] } }, "message.parts[0].kind", "unary"],
    ["two contents in one part", { message: { parts: [{ text: SECRET, url: SECRET }] } }, "message.parts[0].url", "unary"],
    ["an unknown role name", { message: { role: SECRET, parts: [{ text: "hi" }] } }, "message.role", "unary"],
    ["a text that is not a string", { message: { parts: [{ text: { secret: SECRET } }] } }, "message.parts[0].text", "unary"],
    ["a part that is not an object", { message: { parts: [SECRET] } }, "message.parts[0]", "unary"],
    ["parts that are not a list", { message: { parts: SECRET } }, "message.parts", "unary"],
    ["raw that is not base64", { message: { parts: [{ raw: `${SECRET}!!` }] } }, "message.parts[0].raw", "unary"],
    ["a wrong oneof case", { message: { parts: [{ content: { case: SECRET, value: "x" } }] } }, "message.parts[0].content.case", "unary"],
    ["a streaming send with a bad role", { message: { role: SECRET, parts: [] } }, "message.role", "stream"],
    [
      "an int32 past 32 bits",
      { message: { parts: [] }, configuration: { historyLength: 2 ** 40 } },
      "configuration.historyLength",
      "unary",
    ],
    ["metadata holding NaN", { message: { parts: [], metadata: { a: { b: [1, Number.NaN] } } } }, "message.metadata.a.b[1]", "unary"],
    ["metadata holding a bigint", { message: { parts: [], metadata: { n: 10n } } }, "message.metadata.n", "unary"],
    ["metadata holding undefined", { message: { parts: [], metadata: { gone: undefined } } }, "message.metadata.gone", "unary"],
    ["metadata holding a Date", { message: { parts: [], metadata: { when: new Date(0) } } }, "message.metadata.when", "unary"],
  ];
  it.each(cases)("%s -> InvalidParamsError at %s", async (_name, request, path, kind) => {
    const { client, sent } = recording();
    let error: unknown;
    if (kind === "unary") {
      error = await client.sendMessage(anyRequest(request)).catch((e: unknown) => e);
    } else {
      const stream = client.sendStreamingMessage(anyRequest(request));
      error = await stream[Symbol.asyncIterator]()
        .next()
        .catch((e: unknown) => e);
    }
    expect(error).toBeInstanceOf(InvalidParamsError);
    const e = error as InvalidParamsError;
    expect(e.message).toContain(path);
    for (const surface of [
      e.message,
      e.stack ?? "",
      JSON.stringify(e),
      inspect(e, { depth: Infinity, showHidden: true }),
      String(e.cause ?? ""),
    ]) {
      expect(surface).not.toContain(SECRET);
    }
    expect(sent).toEqual([]);
  });

  it("an int32 in the typed shape that is NaN, a fraction or past 32 bits is read and refused, not sent", async () => {
    const { client, sent } = recording();
    for (const historyLength of [Number.NaN, 0.5, 2 ** 31, -(2 ** 31) - 1]) {
      await expect(client.getTask({ id: "t", historyLength })).rejects.toThrow(
        /^the request's historyLength is (not an integer|outside the range of a 32-bit integer)$/,
      );
    }
    await client.getTask({ id: "t", historyLength: 2 ** 31 - 1 });
    expect(sent).toHaveLength(1);
  });

  it("a timestamp past year 9999, or with nanos past a second, is refused by path", async () => {
    const { client, sent } = recording();
    for (const after of [{ seconds: 10n ** 15n }, { seconds: "-99999999999999" }, { seconds: 0n, nanos: 1e9 }]) {
      await expect(client.listTasks(anyRequest({ statusTimestampAfter: after }))).rejects.toThrow(
        /^the request's statusTimestampAfter(\.nanos)? is outside the range/,
      );
    }
    expect(sent).toEqual([]);
  });

  it("metadata that refers back to itself, or nests 10,000 levels deep, is refused by path, not a stack overflow", async () => {
    const { client, sent } = recording();
    const loop: Record<string, unknown> = { a: {} };
    (loop.a as Record<string, unknown>).back = loop;
    await expect(client.sendMessage(anyRequest({ message: { parts: [], metadata: loop } }))).rejects.toThrow(
      /^the request's message\.metadata\.a\.back refers back to itself$/,
    );
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = { d: deep };
    await expect(client.sendMessage(anyRequest({ message: { parts: [], metadata: deep } }))).rejects.toThrow(
      /nests deeper than 100 levels$/,
    );
    expect(sent).toEqual([]);
  });

  it("on every operation: GetTask with a numeric id, CancelTask with an unknown field, a push config with a bad URL type", async () => {
    const { client, sent } = recording();
    await expect(client.getTask(anyRequest({ id: 42 }))).rejects.toThrow(/the request's id is not a string/);
    await expect(client.cancelTask(anyRequest({ id: "t", secret: SECRET }))).rejects.toThrow(/the request's secret is not a field/);
    await expect(client.createTaskPushNotificationConfig(anyRequest({ taskId: "t", url: 7, token: SECRET }))).rejects.toBeInstanceOf(
      InvalidParamsError,
    );
    await expect(client.listTasks(anyRequest({ statusTimestampAfter: "yesterday" }))).rejects.toThrow(/statusTimestampAfter/);
    await expect(
      client
        .subscribeToTask(anyRequest({ id: ["t"] }))
        [Symbol.asyncIterator]()
        .next(),
    ).rejects.toThrow(/the request's id/);
    expect(sent).toEqual([]);
  });
});
