import { create, type DescMessage, type Message, toJson } from "@bufbuild/protobuf";
import { TimestampSchema, ValueSchema } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  A2AService,
  CancelTaskRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  MessageSchema,
  PartSchema,
  Role,
  SendMessageRequestSchema,
  TaskPushNotificationConfigSchema,
} from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { jsonWriters } from "../../../gen/lf/a2a/v1/a2a_json_writers.js";

function writerFor(schema: DescMessage) {
  const writer = jsonWriters[schema.typeName];
  if (writer === undefined) throw new Error(`no writer for ${schema.typeName}`);
  return writer;
}

/** The writer agrees with toJson: equal values, same keys in the same order at every level. */
function expectAgreement(schema: DescMessage, message: Message): void {
  const written = writerFor(schema)(message);
  const expected = toJson(schema, message);
  expect(written).toStrictEqual(expected);
  expect(JSON.stringify(written)).toBe(JSON.stringify(expected));
}

const sendRequest = () =>
  create(SendMessageRequestSchema, {
    tenant: "t1",
    message: create(MessageSchema, {
      messageId: "m-1",
      role: Role.USER,
      parts: [
        create(PartSchema, { content: { case: "text", value: "hello" }, mediaType: "text/plain" }),
        create(PartSchema, { content: { case: "raw", value: new Uint8Array([0, 1, 250, 255]) }, filename: "a.bin" }),
        create(PartSchema, {
          content: {
            case: "data",
            value: create(ValueSchema, {
              kind: {
                case: "structValue",
                value: {
                  $typeName: "google.protobuf.Struct",
                  fields: {
                    a: create(ValueSchema, { kind: { case: "numberValue", value: -0 } }),
                    l: create(ValueSchema, {
                      kind: {
                        case: "listValue",
                        value: {
                          $typeName: "google.protobuf.ListValue",
                          values: [
                            create(ValueSchema, { kind: { case: "nullValue", value: 0 } }),
                            create(ValueSchema, { kind: { case: "boolValue", value: true } }),
                          ],
                        },
                      },
                    }),
                  },
                },
              },
            }),
          },
        }),
      ],
      metadata: { b: 1, a: [null, "x", { "1": 2, z: false }], "2": {} },
      extensions: ["e1", "e2"],
    }),
    configuration: { acceptedOutputModes: ["text/plain"], historyLength: 0, returnImmediately: true },
    metadata: { trace: "abc" },
  });

describe("generated ProtoJSON writers", () => {
  it("cover the input of every method of A2AService", () => {
    for (const method of Object.values(A2AService.method)) {
      expect(jsonWriters[method.input.typeName], method.name).toBeTypeOf("function");
    }
  });

  it("write every request of A2AService like toJson, defaults left out", () => {
    for (const method of Object.values(A2AService.method)) {
      const empty = create(method.input);
      expectAgreement(method.input, empty);
      expect(writerFor(method.input)(empty)).not.toBeUndefined();
    }
  });

  it("write a SendMessageRequest with oneofs, bytes, Value nesting, Struct metadata and optional zero like toJson", () => {
    const message = sendRequest();
    expectAgreement(SendMessageRequestSchema, message);
    expect(writerFor(SendMessageRequestSchema)(message)).not.toBeUndefined();
  });

  it("write enums by name, and unknown numbers as numbers, like toJson", () => {
    const message = create(MessageSchema, { messageId: "m", role: 77 as Role });
    expectAgreement(MessageSchema, message);
    expect((writerFor(MessageSchema)(message) as { role: unknown }).role).toBe(77);
  });

  it("write Timestamps at the edges of the range, with 0, 3, 6 and 9 fraction digits, like toJson", () => {
    for (const [seconds, nanos] of [
      [-62135596800n, 0],
      [253402300799n, 999999999],
      [0n, 1000000],
      [0n, 1000],
      [1n, 1],
    ] as const) {
      const message = create(ListTasksRequestSchema, {
        pageSize: 5,
        includeArtifacts: false,
        statusTimestampAfter: create(TimestampSchema, { seconds, nanos }),
      });
      expectAgreement(ListTasksRequestSchema, message);
      expect(writerFor(ListTasksRequestSchema)(message)).not.toBeUndefined();
    }
  });

  it("agree with toJson on randomized requests", () => {
    const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.constant(null),
        fc.boolean(),
        fc.string(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.array(tie("value"), { maxLength: 3 }),
        tie("object"),
      ),
      // Null-prototype objects and "__proto__" keys are give-up cases, tested below.
      object: fc.dictionary(
        fc.string().filter((key) => key !== "__proto__"),
        tie("value"),
        { maxKeys: 3, noNullPrototype: true },
      ),
    })).object;
    fc.assert(
      fc.property(
        fc.string(),
        fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }),
        fc.option(json, { nil: undefined }),
        fc.string(),
        (id, historyLength, metadata, text) => {
          expectAgreement(GetTaskRequestSchema, create(GetTaskRequestSchema, { id, historyLength }));
          expectAgreement(CancelTaskRequestSchema, create(CancelTaskRequestSchema, { id, metadata: metadata as never }));
          expectAgreement(PartSchema, create(PartSchema, { content: { case: "text", value: text }, metadata: metadata as never }));
          expectAgreement(
            TaskPushNotificationConfigSchema,
            create(TaskPushNotificationConfigSchema, { id, taskId: text, url: "https://x" }),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it("give up on wrong types, NaN in a Value, out-of-range timestamps, __proto__ keys and deep nesting", () => {
    const cases: [DescMessage, unknown][] = [
      [GetTaskRequestSchema, { ...create(GetTaskRequestSchema), id: 5 }],
      [GetTaskRequestSchema, { ...create(GetTaskRequestSchema), $typeName: "lf.a2a.v1.Task" }],
      [GetTaskRequestSchema, Object.create(create(GetTaskRequestSchema, { id: "x" }))],
      [
        PartSchema,
        create(PartSchema, { content: { case: "data", value: create(ValueSchema, { kind: { case: "numberValue", value: Number.NaN } }) } }),
      ],
      [CancelTaskRequestSchema, create(CancelTaskRequestSchema, { metadata: JSON.parse('{"__proto__": 1}') })],
      [
        ListTasksRequestSchema,
        create(ListTasksRequestSchema, { statusTimestampAfter: create(TimestampSchema, { seconds: 253402300800n }) }),
      ],
      [
        ListTasksRequestSchema,
        create(ListTasksRequestSchema, { statusTimestampAfter: create(TimestampSchema, { seconds: 0n, nanos: -1 }) }),
      ],
    ];
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 200; i++) deep = deep.a = {};
    cases.push([CancelTaskRequestSchema, create(CancelTaskRequestSchema, { metadata: root as never })]);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    cases.push([CancelTaskRequestSchema, { ...create(CancelTaskRequestSchema), metadata: cyclic }]);
    for (const [schema, message] of cases) expect(writerFor(schema)(message)).toBeUndefined();
  });
});
