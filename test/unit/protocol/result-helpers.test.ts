/**
 * textOf, taskIdOf, toProtoJson / fromProtoJson and the enum names, on
 * built values: every source type, partial and hostile input.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import {
  AgentCardSchema,
  ArtifactSchema,
  InvalidParamsError,
  MessageSchema,
  Role,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
  TaskState,
  data,
  fromProtoJson,
  roleName,
  taskIdOf,
  taskStateName,
  text,
  textOf,
  toProtoJson,
  type StreamResponse,
  type TextSource,
} from "../../../src/index.js";

const said = (t: string) => create(MessageSchema, { messageId: "m", role: Role.AGENT, parts: [text(t)] });
const artifact = (...t: string[]) => create(ArtifactSchema, { artifactId: "a", parts: t.map((x) => text(x)) });
const task = (init: Parameters<typeof create<typeof TaskSchema>>[1]) => create(TaskSchema, { id: "t1", ...init });

describe("textOf", () => {
  it("a task: its artifacts' text, in order, before its status message", () => {
    const t = task({ artifacts: [artifact("a", "b"), artifact("c")], status: { state: TaskState.COMPLETED, message: said("done") } });
    expect(textOf(t, "|")).toBe("a|b|c");
  });

  it("a task without artifact text: its status message's text", () => {
    expect(textOf(task({ status: { state: TaskState.INPUT_REQUIRED, message: said("which city?") } }))).toBe("which city?");
    // Artifacts that hold only data count as no text.
    const onlyData = create(ArtifactSchema, { artifactId: "d", parts: [data({ n: 1 })] });
    expect(textOf(task({ artifacts: [onlyData], status: { state: TaskState.FAILED, message: said("no quota") } }))).toBe("no quota");
  });

  it("a message and an artifact: their text parts, other parts skipped", () => {
    const m = create(MessageSchema, { parts: [text("x"), data({ a: 1 }), text("y")] });
    expect(textOf(m, " ")).toBe("x y");
    expect(textOf(artifact("p", "q"))).toBe("pq");
  });

  it("a SendMessageResponse and every StreamResponse payload: the text of what it carries", () => {
    const t = task({ status: { state: TaskState.INPUT_REQUIRED, message: said("more?") } });
    expect(textOf(create(SendMessageResponseSchema, { payload: { case: "task", value: t } }))).toBe("more?");
    expect(textOf(create(SendMessageResponseSchema, { payload: { case: "message", value: said("hi") } }))).toBe("hi");
    const events: Array<[StreamResponse["payload"], string]> = [
      [{ case: "task", value: t }, "more?"],
      [{ case: "message", value: said("direct") }, "direct"],
      [
        {
          case: "statusUpdate",
          value: {
            $typeName: "lf.a2a.v1.TaskStatusUpdateEvent",
            taskId: "t1",
            contextId: "",
            status: { $typeName: "lf.a2a.v1.TaskStatus", state: TaskState.WORKING, message: said("thinking") },
          },
        },
        "thinking",
      ],
      [
        {
          case: "artifactUpdate",
          value: {
            $typeName: "lf.a2a.v1.TaskArtifactUpdateEvent",
            taskId: "t1",
            contextId: "",
            artifact: artifact("chunk"),
            append: false,
            lastChunk: true,
          },
        },
        "chunk",
      ],
      [{ case: undefined }, ""],
    ];
    for (const [payload, expected] of events) expect(textOf(create(StreamResponseSchema, { payload }))).toBe(expected);
  });

  it("is total: empty, partial and malformed objects give an empty string", () => {
    const odd = [
      undefined,
      null,
      {},
      { payload: undefined },
      { payload: { case: "task" } },
      { payload: { case: "statusUpdate", value: { status: undefined } } },
      { artifacts: undefined, status: undefined },
      { artifacts: [undefined, { parts: undefined }, { parts: [null, { content: undefined }, { content: { case: "text" } }] }] },
      { status: { message: { parts: "not a list" } } },
      { artifact: null },
      { parts: 42 },
      "text",
    ];
    for (const o of odd) expect(textOf(o as unknown as TextSource)).toBe("");
  });
});

describe("taskIdOf", () => {
  const event = (payload: StreamResponse["payload"]) => create(StreamResponseSchema, { payload });
  it("names the task of a task, a status update, an artifact update and a message in a task", () => {
    expect(taskIdOf(event({ case: "task", value: task({}) }))).toBe("t1");
    expect(
      taskIdOf(event({ case: "statusUpdate", value: { $typeName: "lf.a2a.v1.TaskStatusUpdateEvent", taskId: "t2", contextId: "" } })),
    ).toBe("t2");
    expect(
      taskIdOf(
        event({
          case: "artifactUpdate",
          value: { $typeName: "lf.a2a.v1.TaskArtifactUpdateEvent", taskId: "t3", contextId: "", append: false, lastChunk: false },
        }),
      ),
    ).toBe("t3");
    expect(taskIdOf(event({ case: "message", value: create(MessageSchema, { taskId: "t4" }) }))).toBe("t4");
    expect(taskIdOf(create(SendMessageResponseSchema, { payload: { case: "task", value: task({}) } }))).toBe("t1");
  });

  it("is undefined for a message outside a task, an empty id, no payload or no event", () => {
    expect(taskIdOf(event({ case: "message", value: said("direct") }))).toBeUndefined();
    expect(taskIdOf(event({ case: "task", value: create(TaskSchema) }))).toBeUndefined();
    expect(taskIdOf(event({ case: undefined }))).toBeUndefined();
    expect(taskIdOf(undefined)).toBeUndefined();
    expect(taskIdOf({ payload: { case: "task" } } as unknown as StreamResponse)).toBeUndefined();
  });
});

describe("toProtoJson and fromProtoJson", () => {
  const when = new Date("2026-03-04T05:06:07.089Z");
  const full = task({
    contextId: "c1",
    status: { state: TaskState.COMPLETED, timestamp: timestampFromDate(when), message: said("ok") },
    artifacts: [create(ArtifactSchema, { artifactId: "a", parts: [text("x"), data({ n: 1, list: [true, null] })] })],
    history: [
      create(MessageSchema, {
        messageId: "u",
        role: Role.USER,
        parts: [{ $typeName: "lf.a2a.v1.Part", content: { case: "raw", value: new Uint8Array([1, 2, 255]) }, mediaType: "", filename: "" }],
      }),
    ],
    metadata: { k: "v" },
  });

  it("writes the spec's JSON: no $typeName, enums by name, RFC 3339 timestamps, base64 bytes; JSON.stringify works", () => {
    expect(() => JSON.stringify(full)).toThrow(TypeError); // BigInt seconds: why the helper exists
    const json = JSON.parse(JSON.stringify(toProtoJson(full)));
    expect(json).toEqual({
      id: "t1",
      contextId: "c1",
      status: {
        state: "TASK_STATE_COMPLETED",
        timestamp: "2026-03-04T05:06:07.089Z",
        message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "ok" }] },
      },
      artifacts: [{ artifactId: "a", parts: [{ text: "x" }, { data: { n: 1, list: [true, null] } }] }],
      history: [{ messageId: "u", role: "ROLE_USER", parts: [{ raw: "AQL/" }] }],
      metadata: { k: "v" },
    });
    expect(fromProtoJson(TaskSchema, json)).toEqual(full);
  });

  it("works for any message of the schema, by its $typeName", () => {
    const card = create(AgentCardSchema, { name: "n", version: "1", capabilities: { streaming: true } });
    expect(fromProtoJson(AgentCardSchema, toProtoJson(card))).toEqual(card);
    const event = create(StreamResponseSchema, { payload: { case: "task", value: full } });
    expect(fromProtoJson(StreamResponseSchema, JSON.parse(JSON.stringify(toProtoJson(event))))).toEqual(event);
  });

  it("refuses what is not an A2A message with InvalidParamsError", () => {
    for (const bad of [undefined, null, {}, { id: "t1" }, { $typeName: "google.protobuf.Empty" }, { $typeName: 7 }]) {
      expect(() => toProtoJson(bad as never)).toThrow(InvalidParamsError);
    }
    expect(() => toProtoJson({ $typeName: "x.Y" } as never)).toThrow(/not a message of the A2A schema \(its \$typeName "x.Y"\)/);
    expect(() => toProtoJson({ ...full, id: 5 } as never)).toThrow(
      /lf\.a2a\.v1\.Task cannot be written as ProtoJSON \(at lf\.a2a\.v1\.Task\.id\)/,
    );
  });

  it("names the field that could not be read, never the value in it", () => {
    const read = (json: unknown) => {
      try {
        fromProtoJson(TaskPushNotificationConfigSchema, json as never);
      } catch (e) {
        return e;
      }
      throw new Error("expected an error");
    };
    const e = read({ url: "https://h", token: { secret: "s3cr3t-value" } }) as InvalidParamsError;
    expect(e).toBeInstanceOf(InvalidParamsError);
    expect(e.message).toBe("fromProtoJson: not a lf.a2a.v1.TaskPushNotificationConfig (at token)");
    expect(e.cause).toBeUndefined();
    expect(JSON.stringify(e) + String(e.stack)).not.toContain("s3cr3t");
    expect(read("a string")).toBeInstanceOf(InvalidParamsError);
    expect(read([1])).toBeInstanceOf(InvalidParamsError);
  });

  it("names where in the document the field is, however deep, never its value", () => {
    const at = (json: unknown) => {
      try {
        fromProtoJson(TaskSchema, json as never);
      } catch (e) {
        return (e as Error).message;
      }
      return "read";
    };
    expect(at({ id: "t1", status: "s3cr3t-x" })).toBe("fromProtoJson: not a lf.a2a.v1.Task (at status)");
    expect(at({ id: "t1", status: { timestamp: "s3cr3t-yesterday" } })).toBe("fromProtoJson: not a lf.a2a.v1.Task (at status.timestamp)");
    expect(at({ id: "t1", artifacts: [{ parts: [{ text: "ok" }] }, { parts: [{ text: "ok" }, { text: 5 }] }] })).toBe(
      "fromProtoJson: not a lf.a2a.v1.Task (at artifacts[1].parts[1].text)",
    );
    expect(at({ id: "t1", history: [{ messageId: "m", role: "ROLE_USER", parts: [], metadata: "s3cr3t" }] })).toBe(
      "fromProtoJson: not a lf.a2a.v1.Task (at history[0].metadata)",
    );
  });

  it("ignores fields it does not know, as the client does with servers' answers", () => {
    expect(fromProtoJson(TaskSchema, { id: "t1", futureField: 1 })).toEqual(create(TaskSchema, { id: "t1" }));
  });
});

describe("enum names", () => {
  it("are the ProtoJSON names, and the digits for a number the schema does not know", () => {
    expect(taskStateName(TaskState.COMPLETED)).toBe("TASK_STATE_COMPLETED");
    expect(taskStateName(TaskState.INPUT_REQUIRED)).toBe("TASK_STATE_INPUT_REQUIRED");
    expect(taskStateName(TaskState.UNSPECIFIED)).toBe("TASK_STATE_UNSPECIFIED");
    expect(taskStateName(99 as TaskState)).toBe("99");
    expect(roleName(Role.USER)).toBe("ROLE_USER");
    expect(roleName(Role.AGENT)).toBe("ROLE_AGENT");
    expect(roleName(-1 as Role)).toBe("-1");
  });
});
