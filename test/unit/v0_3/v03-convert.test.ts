/**
 * The 1.0 <-> 0.3 translation of src/v0_3/translate.ts, mapping by
 * mapping: requests as the 0.3 ProtoJSON (and binary) they become, responses
 * as the 1.0 messages they become, and the edge cases in between.
 */
import {
  create,
  fromBinary,
  fromJson,
  toBinary,
  toJson,
  type DescMessage,
  type JsonObject,
  type JsonValue,
  type MessageShape,
} from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import * as V03 from "../../../gen/a2a/v1/a2a_pb.js";
import * as V1 from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { UnsupportedOperationError } from "../../../src/errors/family.js";
import { agentCardFromV03 } from "../../../src/v0_3/card-proto.js";
import { V03_RUNNER_KIT } from "../../../src/v0_3/runner-kit.js";
import {
  messageFromV03,
  messageToV03,
  partFromV03,
  partToV03,
  sendMessageResponseFromV03,
  streamResponseFromV03,
  taskFromV03,
} from "../../../src/v0_3/messages.js";
import { parsePushConfigName } from "../../../src/v0_3/names.js";
import { pushConfigFromV03 } from "../../../src/v0_3/push-config.js";
import { roleFromV03, roleToV03, taskStateFromV03 } from "../../../src/v0_3/states.js";
import { V03_OPERATIONS, v03OperationFor } from "../../../src/v0_3/translate.js";

const M = V1.A2AService.method;

/** A 1.0 request through its table row, as the 0.3 ProtoJSON it becomes. */
function requestJson(method: keyof typeof M, init: Record<string, unknown>): JsonValue {
  const op = v03OperationFor(M[method]);
  const out = op.request(create(M[method].input, init as never) as MessageShape<DescMessage>, V03_RUNNER_KIT);
  expect(out.$typeName).toBe(op.method.input.typeName);
  // The binary form reads back the same with the 0.3 schema.
  const bytes = toBinary(op.method.input, out);
  expect(fromBinary(op.method.input, bytes)).toEqual(out);
  return toJson(op.method.input, out);
}

/** A 0.3 response (as its ProtoJSON) through a table row, as the 1.0 ProtoJSON it becomes. */
function responseJson(method: keyof typeof M, v03: JsonValue, request: Record<string, unknown> = {}): JsonValue {
  const op = v03OperationFor(M[method]);
  const res = fromJson(op.method.output, v03);
  const out = op.response(res, create(M[method].input, request as never) as MessageShape<DescMessage>, V03_RUNNER_KIT);
  expect(out.$typeName).toBe(M[method].output.typeName);
  return toJson(M[method].output as DescMessage, out);
}

function v1Part(init: Parameters<typeof create<typeof V1.PartSchema>>[1]): V1.Part {
  return create(V1.PartSchema, init);
}

describe("the operation table", () => {
  it("maps each 1.0 method to its 0.3 method", () => {
    const mapped = Object.fromEntries(
      Object.entries(V03_OPERATIONS).map(([k, op]) => [k, op.supported ? `${op.method.parent.typeName}.${op.method.name}` : null]),
    );
    expect(mapped).toEqual({
      sendMessage: "a2a.v1.A2AService.SendMessage",
      sendStreamingMessage: "a2a.v1.A2AService.SendStreamingMessage",
      getTask: "a2a.v1.A2AService.GetTask",
      listTasks: null,
      cancelTask: "a2a.v1.A2AService.CancelTask",
      subscribeToTask: "a2a.v1.A2AService.TaskSubscription",
      createTaskPushNotificationConfig: "a2a.v1.A2AService.CreateTaskPushNotificationConfig",
      getTaskPushNotificationConfig: "a2a.v1.A2AService.GetTaskPushNotificationConfig",
      listTaskPushNotificationConfigs: "a2a.v1.A2AService.ListTaskPushNotificationConfig",
      getExtendedAgentCard: "a2a.v1.A2AService.GetAgentCard",
      deleteTaskPushNotificationConfig: "a2a.v1.A2AService.DeleteTaskPushNotificationConfig",
    });
    // Every 1.0 method has a row, and every 0.3 method is used by one.
    expect(Object.keys(V03_OPERATIONS).sort()).toEqual(V1.A2AService.methods.map((m) => m.localName).sort());
    const used = Object.values(V03_OPERATIONS).flatMap((op) => (op.supported ? [op.method] : []));
    expect(new Set(used)).toEqual(new Set(V03.A2AService.methods));
  });

  it("refuses ListTasks, saying that the agent speaks 0.3", () => {
    const e = (() => {
      try {
        v03OperationFor(M.listTasks, "GRPC");
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(UnsupportedOperationError);
    expect((e as Error).message).toBe("the agent speaks A2A 0.3, which cannot do ListTasks: 0.3 has no operation to list tasks");
    expect((e as UnsupportedOperationError).binding).toBe("GRPC");
  });

  it("refuses methods of other services", () => {
    expect(() => v03OperationFor(V03.A2AService.method.getTask)).toThrow(UnsupportedOperationError);
    expect(() => v03OperationFor(V03.A2AService.method.getTask)).toThrow(/0\.3 has no method a2a\.v1\.A2AService\.GetTask/);
  });
});

describe("requests, 1.0 -> 0.3", () => {
  const message = {
    messageId: "m1",
    contextId: "c1",
    taskId: "t1",
    role: V1.Role.USER,
    parts: [{ content: { case: "text", value: "hi" }, mediaType: "text/plain", filename: "dropped.txt", metadata: { dropped: true } }],
    metadata: { trace: "abc" },
    extensions: ["https://ext.example/1"],
    referenceTaskIds: ["t0"],
  };

  it("SendMessage: message, configuration and metadata; tenant and reference task ids dropped", () => {
    expect(
      requestJson("sendMessage", {
        tenant: "dropped",
        message,
        configuration: {
          acceptedOutputModes: ["text/plain"],
          taskPushNotificationConfig: {
            tenant: "dropped",
            taskId: "dropped",
            id: "p1",
            url: "https://hooks.example/a2a",
            token: "tok",
            authentication: { scheme: "Bearer", credentials: "secret" },
          },
          historyLength: 3,
          returnImmediately: false,
        },
        metadata: { request: 1 },
      }),
    ).toEqual({
      message: {
        messageId: "m1",
        contextId: "c1",
        taskId: "t1",
        role: "ROLE_USER",
        content: [{ text: "hi" }],
        metadata: { trace: "abc" },
        extensions: ["https://ext.example/1"],
      },
      configuration: {
        acceptedOutputModes: ["text/plain"],
        pushNotification: {
          id: "p1",
          url: "https://hooks.example/a2a",
          token: "tok",
          authentication: { schemes: ["Bearer"], credentials: "secret" },
        },
        historyLength: 3,
        blocking: true,
      },
      metadata: { request: 1 },
    });
  });

  it("SendMessage: returnImmediately becomes blocking = false, and its absence blocking = true", () => {
    expect(requestJson("sendMessage", { message, configuration: { returnImmediately: true } })).toMatchObject({ configuration: {} });
    expect(requestJson("sendStreamingMessage", { message, configuration: { returnImmediately: true } })).not.toHaveProperty(
      "configuration.blocking",
    );
    expect(requestJson("sendMessage", { message })).toMatchObject({ configuration: { blocking: true } });
    expect(requestJson("sendStreamingMessage", { message })).toMatchObject({ configuration: { blocking: true } });
  });

  it("SendMessage: no cap is the largest int32, a cap of 0 is 0 (0.3 cannot leave it unset)", () => {
    const sent = (historyLength?: number) =>
      (
        requestJson("sendMessage", { message, configuration: historyLength === undefined ? {} : { historyLength } }) as {
          configuration: { historyLength?: number };
        }
      ).configuration.historyLength;
    expect(sent()).toBe(2147483647);
    expect(sent(-2)).toBe(2147483647);
    expect(sent(0)).toBeUndefined();
    expect(sent(7)).toBe(7);
    expect((requestJson("sendMessage", { message }) as { configuration: { historyLength?: number } }).configuration.historyLength).toBe(
      2147483647,
    );
  });

  it("GetTask, CancelTask and SubscribeToTask name the task; cancel metadata is dropped", () => {
    expect(requestJson("getTask", { tenant: "x", id: "t-1", historyLength: 2 })).toEqual({ name: "tasks/t-1", historyLength: 2 });
    expect(requestJson("getTask", { id: "t-1" })).toEqual({ name: "tasks/t-1", historyLength: 2147483647 });
    expect(requestJson("getTask", { id: "t-1", historyLength: 0 })).toEqual({ name: "tasks/t-1" });
    expect(requestJson("cancelTask", { tenant: "x", id: "t-1", metadata: { why: "bored" } })).toEqual({ name: "tasks/t-1" });
    expect(requestJson("subscribeToTask", { tenant: "x", id: "t-1" })).toEqual({ name: "tasks/t-1" });
  });

  it("refuses task ids that a 0.3 resource name cannot hold", () => {
    expect(() => requestJson("getTask", { id: "a/b" })).toThrow(UnsupportedOperationError);
    expect(() => requestJson("getTask", { id: "a/b" })).toThrow(/speaks A2A 0\.3.*task id containing "\/"/);
    expect(() => requestJson("getTaskPushNotificationConfig", { taskId: "t", id: "p/q" })).toThrow(UnsupportedOperationError);
  });

  it("push configs: create nests the config under a name; get, list and delete use names", () => {
    expect(
      requestJson("createTaskPushNotificationConfig", {
        tenant: "x",
        taskId: "t-1",
        id: "p-1",
        url: "https://hooks.example/a2a",
        token: "tok",
        authentication: { scheme: "Basic", credentials: "dXNlcjpwdw==" },
      }),
    ).toEqual({
      parent: "tasks/t-1",
      configId: "p-1",
      config: {
        name: "tasks/t-1/pushNotificationConfigs/p-1",
        pushNotificationConfig: {
          id: "p-1",
          url: "https://hooks.example/a2a",
          token: "tok",
          authentication: { schemes: ["Basic"], credentials: "dXNlcjpwdw==" },
        },
      },
    });
    // No id yet: the agent assigns one, and the name is the task's collection of configs.
    expect(requestJson("createTaskPushNotificationConfig", { taskId: "t-1", url: "https://h.example" })).toEqual({
      parent: "tasks/t-1",
      config: { name: "tasks/t-1/pushNotificationConfigs", pushNotificationConfig: { url: "https://h.example" } },
    });
    expect(requestJson("getTaskPushNotificationConfig", { taskId: "t-1", id: "p-1" })).toEqual({
      name: "tasks/t-1/pushNotificationConfigs/p-1",
    });
    expect(requestJson("deleteTaskPushNotificationConfig", { tenant: "x", taskId: "t-1", id: "p-1" })).toEqual({
      name: "tasks/t-1/pushNotificationConfigs/p-1",
    });
    expect(requestJson("listTaskPushNotificationConfigs", { taskId: "t-1", pageSize: 5, pageToken: "next" })).toEqual({
      parent: "tasks/t-1",
      pageSize: 5,
      pageToken: "next",
    });
  });

  it("GetExtendedAgentCard becomes an empty GetAgentCard request", () => {
    expect(requestJson("getExtendedAgentCard", { tenant: "x" })).toEqual({});
  });
});

describe("parts", () => {
  const bytes = new Uint8Array([0, 1, 2, 250, 255]);

  it("text, raw bytes, URLs and data, 1.0 -> 0.3 (metadata, filename and non-file media types dropped)", () => {
    const json = (p: V1.Part) => toJson(V03.PartSchema, partToV03(p, V03_RUNNER_KIT));
    expect(json(v1Part({ content: { case: "text", value: "hello" }, mediaType: "text/markdown", metadata: { a: 1 } }))).toEqual({
      text: "hello",
    });
    expect(json(v1Part({ content: { case: "raw", value: bytes }, mediaType: "image/png", filename: "x.png" }))).toEqual({
      file: { fileWithBytes: "AAEC+v8=", mimeType: "image/png" },
    });
    expect(
      json(v1Part({ content: { case: "url", value: "https://files.example/doc.pdf" }, mediaType: "application/pdf", filename: "doc.pdf" })),
    ).toEqual({
      file: { fileWithUri: "https://files.example/doc.pdf", mimeType: "application/pdf" },
    });
    expect(json(v1Part({ content: { case: "url", value: "https://files.example/x" } }))).toEqual({
      file: { fileWithUri: "https://files.example/x" },
    });
  });

  it("data parts keep nested values both ways", () => {
    const nested = { a: { b: [1, "two", true, null, { c: [] }] }, n: 1.5, s: "", empty: {} };
    const v1 = v1Part({ content: { case: "data", value: fromJson(ValueSchema, nested) }, mediaType: "application/json" });
    const v03 = partToV03(v1, V03_RUNNER_KIT);
    expect(toJson(V03.PartSchema, v03)).toEqual({ data: { data: nested } });
    const back = partFromV03(v03, V03_RUNNER_KIT);
    expect(toJson(V1.PartSchema, back)).toEqual({ data: nested });
  });

  it("refuses data parts that are not JSON objects", () => {
    for (const [value, what] of [
      [[1, 2], "a list"],
      ["text", "a string"],
      [3, "a number"],
      [false, "a boolean"],
      [null, "null"],
    ] as const) {
      const p = v1Part({ content: { case: "data", value: fromJson(ValueSchema, value as JsonValue) } });
      expect(() => partToV03(p, V03_RUNNER_KIT)).toThrow(UnsupportedOperationError);
      expect(() => partToV03(p, V03_RUNNER_KIT)).toThrow(
        `the agent speaks A2A 0.3, which cannot express a data part holding ${what} (0.3 data parts are JSON objects)`,
      );
    }
  });

  it("0.3 -> 1.0: files become url/raw with mediaType; data objects become data values", () => {
    const json = (p: JsonValue) => toJson(V1.PartSchema, partFromV03(fromJson(V03.PartSchema, p), V03_RUNNER_KIT));
    expect(json({ text: "hello" })).toEqual({ text: "hello" });
    expect(json({ file: { fileWithUri: "https://f.example/a", mimeType: "text/csv" } })).toEqual({
      url: "https://f.example/a",
      mediaType: "text/csv",
    });
    expect(json({ file: { fileWithBytes: "AAEC+v8=", mimeType: "image/png" } })).toEqual({ raw: "AAEC+v8=", mediaType: "image/png" });
    expect(partFromV03(fromJson(V03.PartSchema, { file: { fileWithBytes: "AAEC+v8=" } }), V03_RUNNER_KIT).content).toEqual({
      case: "raw",
      value: bytes,
    });
    expect(json({ data: { data: { k: "v" } } })).toEqual({ data: { k: "v" } });
  });

  it("empty parts stay empty; a file without content keeps its media type; data without data is {}", () => {
    expect(toJson(V03.PartSchema, partToV03(v1Part({}), V03_RUNNER_KIT))).toEqual({});
    expect(partFromV03(create(V03.PartSchema), V03_RUNNER_KIT).content.case).toBeUndefined();
    const noFile = partFromV03(fromJson(V03.PartSchema, { file: { mimeType: "image/gif" } }), V03_RUNNER_KIT);
    expect(noFile.content.case).toBeUndefined();
    expect(noFile.mediaType).toBe("image/gif");
    const noData = partFromV03(fromJson(V03.PartSchema, { data: {} }), V03_RUNNER_KIT);
    expect(toJson(V1.PartSchema, noData)).toEqual({ data: {} });
  });
});

describe("enums", () => {
  it("maps every task state by name, CANCELLED to CANCELED", () => {
    const pairs = V03.TaskStateSchema.values.map((v) => [v.name, V1.TaskStateSchema.value[taskStateFromV03(v.number)]!.name]);
    expect(pairs).toEqual([
      ["TASK_STATE_UNSPECIFIED", "TASK_STATE_UNSPECIFIED"],
      ["TASK_STATE_SUBMITTED", "TASK_STATE_SUBMITTED"],
      ["TASK_STATE_WORKING", "TASK_STATE_WORKING"],
      ["TASK_STATE_COMPLETED", "TASK_STATE_COMPLETED"],
      ["TASK_STATE_FAILED", "TASK_STATE_FAILED"],
      ["TASK_STATE_CANCELLED", "TASK_STATE_CANCELED"],
      ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_INPUT_REQUIRED"],
      ["TASK_STATE_REJECTED", "TASK_STATE_REJECTED"],
      ["TASK_STATE_AUTH_REQUIRED", "TASK_STATE_AUTH_REQUIRED"],
    ]);
  });

  it("maps roles both ways", () => {
    expect([V1.Role.UNSPECIFIED, V1.Role.USER, V1.Role.AGENT].map(roleToV03)).toEqual([
      V03.Role.UNSPECIFIED,
      V03.Role.USER,
      V03.Role.AGENT,
    ]);
    expect([V03.Role.UNSPECIFIED, V03.Role.USER, V03.Role.AGENT].map(roleFromV03)).toEqual([
      V1.Role.UNSPECIFIED,
      V1.Role.USER,
      V1.Role.AGENT,
    ]);
  });

  it("reads values it does not know as UNSPECIFIED", () => {
    expect(taskStateFromV03(42 as V03.TaskState)).toBe(V1.TaskState.UNSPECIFIED);
    expect(roleFromV03(7 as V03.Role)).toBe(V1.Role.UNSPECIFIED);
    expect(roleToV03(7 as V1.Role)).toBe(V03.Role.UNSPECIFIED);
    // A whole task from the binary wire with an unknown state.
    const wire = toBinary(V03.TaskSchema, create(V03.TaskSchema, { id: "t", status: { state: 42 as V03.TaskState } }));
    expect(taskFromV03(fromBinary(V03.TaskSchema, wire), V03_RUNNER_KIT).status?.state).toBe(V1.TaskState.UNSPECIFIED);
  });
});

describe("messages both ways", () => {
  it("1.0 -> 0.3 -> 1.0 keeps everything 0.3 can hold", () => {
    const m = create(V1.MessageSchema, {
      messageId: "m",
      contextId: "c",
      taskId: "t",
      role: V1.Role.AGENT,
      parts: [
        { content: { case: "text", value: "a" } },
        { content: { case: "url", value: "https://x.example/f" }, mediaType: "text/plain" },
        {},
      ],
      metadata: { k: [1, { z: null }] },
      extensions: ["e1", "e2"],
      referenceTaskIds: ["gone"],
    });
    const back = messageFromV03(messageToV03(m, V03_RUNNER_KIT), V03_RUNNER_KIT);
    expect(toJson(V1.MessageSchema, back)).toEqual({
      messageId: "m",
      contextId: "c",
      taskId: "t",
      role: "ROLE_AGENT",
      parts: [{ text: "a" }, { url: "https://x.example/f", mediaType: "text/plain" }, {}],
      metadata: { k: [1, { z: null }] },
      extensions: ["e1", "e2"],
    });
  });

  it("a message without parts stays without parts", () => {
    const m = create(V1.MessageSchema, { messageId: "m", role: V1.Role.USER });
    expect(toJson(V03.MessageSchema, messageToV03(m, V03_RUNNER_KIT))).toEqual({ messageId: "m", role: "ROLE_USER" });
    expect(messageFromV03(messageToV03(m, V03_RUNNER_KIT), V03_RUNNER_KIT).parts).toEqual([]);
  });
});

describe("responses, 0.3 -> 1.0", () => {
  const task03: JsonObject = {
    id: "t1",
    contextId: "c1",
    status: {
      state: "TASK_STATE_CANCELLED",
      message: { messageId: "s", role: "ROLE_AGENT", content: [{ text: "stopped" }] },
      timestamp: "2025-01-02T03:04:05.678Z",
    },
    artifacts: [
      {
        artifactId: "a1",
        name: "result",
        description: "the result",
        parts: [{ text: "x" }, { data: { data: { n: 1 } } }],
        metadata: { m: true },
        extensions: ["e"],
      },
    ],
    history: [
      { messageId: "h1", role: "ROLE_USER", content: [{ text: "one" }] },
      { messageId: "h2", role: "ROLE_AGENT", content: [{ text: "two" }] },
      { messageId: "h3", role: "ROLE_USER", content: [{ text: "three" }] },
    ],
    metadata: { owner: "me" },
  };
  const task1: JsonObject = {
    id: "t1",
    contextId: "c1",
    status: {
      state: "TASK_STATE_CANCELED",
      message: { messageId: "s", role: "ROLE_AGENT", parts: [{ text: "stopped" }] },
      timestamp: "2025-01-02T03:04:05.678Z",
    },
    artifacts: [
      {
        artifactId: "a1",
        name: "result",
        description: "the result",
        parts: [{ text: "x" }, { data: { n: 1 } }],
        metadata: { m: true },
        extensions: ["e"],
      },
    ],
    history: [
      { messageId: "h1", role: "ROLE_USER", parts: [{ text: "one" }] },
      { messageId: "h2", role: "ROLE_AGENT", parts: [{ text: "two" }] },
      { messageId: "h3", role: "ROLE_USER", parts: [{ text: "three" }] },
    ],
    metadata: { owner: "me" },
  };

  it("tasks: status, artifacts, history and metadata", () => {
    expect(responseJson("getTask", task03, { id: "t1" })).toEqual(task1);
    expect(responseJson("cancelTask", task03, { id: "t1" })).toEqual(task1);
  });

  it("caps history at the request's historyLength, 0 meaning none", () => {
    const ids = (json: JsonValue) => ((json as { history?: { messageId: string }[] }).history ?? []).map((m) => m.messageId);
    expect(ids(responseJson("getTask", task03, { id: "t1", historyLength: 0 }))).toEqual([]);
    expect(ids(responseJson("getTask", task03, { id: "t1", historyLength: 2 }))).toEqual(["h2", "h3"]);
    expect(ids(responseJson("getTask", task03, { id: "t1", historyLength: 9 }))).toEqual(["h1", "h2", "h3"]);
    expect(ids(responseJson("getTask", task03, { id: "t1" }))).toEqual(["h1", "h2", "h3"]);
    const send = (historyLength?: number) =>
      sendMessageResponseFromV03(fromJson(V03.SendMessageResponseSchema, { task: task03 }), V03_RUNNER_KIT, historyLength);
    expect((send(1).payload.value as V1.Task).history.map((m) => m.messageId)).toEqual(["h3"]);
    expect((send().payload.value as V1.Task).history).toHaveLength(3);
    const stream = streamResponseFromV03(fromJson(V03.StreamResponseSchema, { task: task03 }), V03_RUNNER_KIT, 0);
    expect((stream.payload.value as V1.Task).history).toEqual([]);
    expect(taskFromV03(fromJson(V03.TaskSchema, task03), V03_RUNNER_KIT, -1).history).toHaveLength(3);
  });

  it("SendMessage: a task or a direct message", () => {
    expect(responseJson("sendMessage", { task: task03 })).toEqual({ task: task1 });
    expect(responseJson("sendMessage", { message: { messageId: "r", role: "ROLE_AGENT", content: [{ text: "hi" }] } })).toEqual({
      message: { messageId: "r", role: "ROLE_AGENT", parts: [{ text: "hi" }] },
    });
    expect(responseJson("sendMessage", {})).toEqual({});
  });

  it("stream events: the status update's `final` is dropped, append and lastChunk kept", () => {
    const status: JsonObject = {
      statusUpdate: {
        taskId: "t1",
        contextId: "c1",
        status: { state: "TASK_STATE_COMPLETED" },
        final: true,
        metadata: { x: 1 },
      },
    };
    expect(responseJson("sendStreamingMessage", status)).toEqual({
      statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" }, metadata: { x: 1 } },
    });
    const artifact: JsonObject = {
      artifactUpdate: {
        taskId: "t1",
        contextId: "c1",
        artifact: { artifactId: "a", parts: [{ text: "chunk" }] },
        append: true,
        lastChunk: true,
        metadata: { y: 2 },
      },
    };
    expect(responseJson("subscribeToTask", artifact)).toEqual({
      artifactUpdate: {
        taskId: "t1",
        contextId: "c1",
        artifact: { artifactId: "a", parts: [{ text: "chunk" }] },
        append: true,
        lastChunk: true,
        metadata: { y: 2 },
      },
    });
    expect(responseJson("subscribeToTask", { task: task03 })).toEqual({ task: task1 });
    expect(responseJson("sendStreamingMessage", { message: { messageId: "r", role: "ROLE_AGENT" } })).toEqual({
      message: { messageId: "r", role: "ROLE_AGENT" },
    });
    expect(responseJson("sendStreamingMessage", {})).toEqual({});
  });

  it("push configs: ids from the name, flattened, first authentication scheme kept", () => {
    const config03: JsonObject = {
      name: "tasks/t-1/pushNotificationConfigs/p-1",
      pushNotificationConfig: {
        id: "p-1",
        url: "https://hooks.example/a2a",
        token: "tok",
        authentication: { schemes: ["Bearer", "Basic"], credentials: "c" },
      },
    };
    const config1: JsonObject = {
      id: "p-1",
      taskId: "t-1",
      url: "https://hooks.example/a2a",
      token: "tok",
      authentication: { scheme: "Bearer", credentials: "c" },
    };
    expect(responseJson("createTaskPushNotificationConfig", config03, { taskId: "t-1" })).toEqual(config1);
    expect(responseJson("getTaskPushNotificationConfig", config03, { taskId: "t-1", id: "p-1" })).toEqual(config1);
    expect(
      responseJson("listTaskPushNotificationConfigs", { configs: [config03, config03], nextPageToken: "n" }, { taskId: "t-1" }),
    ).toEqual({
      configs: [config1, config1],
      nextPageToken: "n",
    });
    expect(responseJson("listTaskPushNotificationConfigs", {}, { taskId: "t-1" })).toEqual({});
    expect(responseJson("deleteTaskPushNotificationConfig", {}, { taskId: "t-1", id: "p-1" })).toEqual({});
  });

  it("push configs: the config id falls back to the name's, the task id to the request's", () => {
    const fromName = pushConfigFromV03(
      fromJson(V03.TaskPushNotificationConfigSchema, {
        name: "tasks/t-9/pushNotificationConfigs/p-9",
        pushNotificationConfig: { url: "u" },
      }),
      "t-req",
    );
    expect([fromName.taskId, fromName.id, fromName.url]).toEqual(["t-9", "p-9", "u"]);
    const odd = pushConfigFromV03(
      fromJson(V03.TaskPushNotificationConfigSchema, { name: "something/else", pushNotificationConfig: { id: "p", url: "u" } }),
      "t-req",
    );
    expect([odd.taskId, odd.id]).toEqual(["t-req", "p"]);
    const bare = pushConfigFromV03(create(V03.TaskPushNotificationConfigSchema), "t-req");
    expect(toJson(V1.TaskPushNotificationConfigSchema, bare)).toEqual({ taskId: "t-req" });
    expect(parsePushConfigName("tasks/a/pushNotificationConfigs/b")).toEqual({ taskId: "a", configId: "b" });
    expect(parsePushConfigName("tasks/a")).toBeUndefined();
  });
});

describe("AgentCard, 0.3 -> 1.0", () => {
  const scopes = { read: "Read things" };
  const card03: JsonObject = {
    protocolVersion: "0.3.0",
    name: "Agent",
    description: "Does things",
    url: "https://agent.example/a2a",
    preferredTransport: "GRPC",
    additionalInterfaces: [
      { url: "https://agent.example/a2a", transport: "GRPC" },
      { url: "https://agent.example/rpc", transport: "" },
      { url: "https://agent.example/rest", transport: "HTTP+JSON" },
    ],
    provider: { url: "https://org.example", organization: "Org" },
    version: "2.1.0",
    documentationUrl: "https://agent.example/docs",
    capabilities: {
      streaming: true,
      extensions: [{ uri: "https://ext.example", description: "an ext", required: true, params: { p: 1 } }],
    },
    securitySchemes: {
      key: { apiKeySecurityScheme: { description: "k", location: "header", name: "X-Key" } },
      http: { httpAuthSecurityScheme: { description: "h", scheme: "bearer", bearerFormat: "JWT" } },
      code: {
        oauth2SecurityScheme: {
          description: "o",
          flows: {
            authorizationCode: { authorizationUrl: "https://a/auth", tokenUrl: "https://a/token", refreshUrl: "https://a/r", scopes },
          },
          oauth2MetadataUrl: "https://a/.well-known/oauth-authorization-server",
        },
      },
      cc: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: "https://a/token", scopes } } } },
      implicit: { oauth2SecurityScheme: { flows: { implicit: { authorizationUrl: "https://a/auth", scopes } } } },
      password: { oauth2SecurityScheme: { flows: { password: { tokenUrl: "https://a/token", refreshUrl: "https://a/r", scopes } } } },
      oidc: { openIdConnectSecurityScheme: { description: "i", openIdConnectUrl: "https://a/.well-known/openid-configuration" } },
      mtls: { mtlsSecurityScheme: { description: "m" } },
      none: {},
    },
    security: [{ schemes: { code: { list: ["read"] } } }, { schemes: { key: {}, mtls: {} } }],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["application/json"],
    skills: [
      {
        id: "s",
        name: "Skill",
        description: "d",
        tags: ["t"],
        examples: ["e"],
        inputModes: ["text/plain"],
        outputModes: ["text/plain"],
        security: [{ schemes: { http: {} } }],
      },
    ],
    supportsAuthenticatedExtendedCard: true,
    signatures: [{ protected: "eyJhbGciOiJFUzI1NiJ9", signature: "c2ln", header: { kid: "k1" } }],
  };

  it("turns the endpoints into supportedInterfaces and moves fields to their 1.0 places", () => {
    expect(responseJson("getExtendedAgentCard", card03)).toEqual({
      name: "Agent",
      description: "Does things",
      supportedInterfaces: [
        { url: "https://agent.example/a2a", protocolBinding: "GRPC", protocolVersion: "0.3.0" },
        { url: "https://agent.example/rpc", protocolBinding: "JSONRPC", protocolVersion: "0.3.0" },
        { url: "https://agent.example/rest", protocolBinding: "HTTP+JSON", protocolVersion: "0.3.0" },
      ],
      provider: { url: "https://org.example", organization: "Org" },
      version: "2.1.0",
      documentationUrl: "https://agent.example/docs",
      capabilities: {
        streaming: true,
        pushNotifications: false,
        extensions: [{ uri: "https://ext.example", description: "an ext", required: true, params: { p: 1 } }],
        extendedAgentCard: true,
      },
      securitySchemes: {
        key: { apiKeySecurityScheme: { description: "k", location: "header", name: "X-Key" } },
        http: { httpAuthSecurityScheme: { description: "h", scheme: "bearer", bearerFormat: "JWT" } },
        code: {
          oauth2SecurityScheme: {
            description: "o",
            flows: {
              authorizationCode: { authorizationUrl: "https://a/auth", tokenUrl: "https://a/token", refreshUrl: "https://a/r", scopes },
            },
            oauth2MetadataUrl: "https://a/.well-known/oauth-authorization-server",
          },
        },
        cc: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: "https://a/token", scopes } } } },
        implicit: { oauth2SecurityScheme: { flows: { implicit: { authorizationUrl: "https://a/auth", scopes } } } },
        password: { oauth2SecurityScheme: { flows: { password: { tokenUrl: "https://a/token", refreshUrl: "https://a/r", scopes } } } },
        oidc: { openIdConnectSecurityScheme: { description: "i", openIdConnectUrl: "https://a/.well-known/openid-configuration" } },
        mtls: { mtlsSecurityScheme: { description: "m" } },
        none: {},
      },
      securityRequirements: [{ schemes: { code: { list: ["read"] } } }, { schemes: { key: {}, mtls: {} } }],
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["application/json"],
      skills: [
        {
          id: "s",
          name: "Skill",
          description: "d",
          tags: ["t"],
          examples: ["e"],
          inputModes: ["text/plain"],
          outputModes: ["text/plain"],
          securityRequirements: [{ schemes: { http: {} } }],
        },
      ],
      signatures: [{ protected: "eyJhbGciOiJFUzI1NiJ9", signature: "c2ln", header: { kid: "k1" } }],
    });
  });

  it("fills in defaults for a sparse card: JSONRPC, version 0.3, capabilities present", () => {
    const card = agentCardFromV03(fromJson(V03.AgentCardSchema, { name: "n", url: "https://a.example" }), V03_RUNNER_KIT);
    expect(toJson(V1.AgentCardSchema, card)).toEqual({
      name: "n",
      supportedInterfaces: [{ url: "https://a.example", protocolBinding: "JSONRPC", protocolVersion: "0.3" }],
      capabilities: { streaming: false, pushNotifications: false, extendedAgentCard: false },
    });
    expect(card.documentationUrl).toBeUndefined();
    expect(agentCardFromV03(create(V03.AgentCardSchema), V03_RUNNER_KIT).supportedInterfaces).toEqual([]);
  });
});
