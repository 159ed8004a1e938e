/**
 * The shape a response must have (src/protocol/response-shape.ts), for
 * GetExtendedAgentCard: a card is held to what discovery holds a card to,
 * so one lacking only the REQUIRED fields that describe the agent (its
 * description, name, version, skills) is read, and one lacking what a call
 * needs (its interfaces, capabilities) is refused. For every response: its
 * payload set, and the REQUIRED fields of what it holds, named by their path.
 */
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  A2AService,
  AgentCardSchema,
  AgentSkillSchema,
  ListTasksResponseSchema,
  MessageSchema,
  ProtocolError,
  Role,
  StreamResponseSchema,
  TaskArtifactUpdateEventSchema,
  TaskSchema,
  TaskState,
  TaskStatusSchema,
  TaskStatusUpdateEventSchema,
  type AgentCard,
  type StreamResponse,
} from "../../../src/index.js";
import { fromJson } from "@bufbuild/protobuf";
import { jsonReaders } from "../../../gen/lf/a2a/v1/a2a_json_readers.js";
import { checkedResponse, responseFromJson } from "../../../src/protocol/response-shape.js";

const method = A2AService.method.getExtendedAgentCard;

/** A whole card, changed by `change`. */
function card(change: (c: AgentCard) => void = () => {}): AgentCard {
  const c = create(AgentCardSchema, {
    name: "Agent",
    description: "An agent",
    version: "1.0.0",
    capabilities: { streaming: true },
    supportedInterfaces: [{ url: "https://example.com/a2a", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }],
  });
  change(c);
  return c;
}

describe("GetExtendedAgentCard's card", () => {
  it("lacking only what describes the agent (description, name, version, skills, a skill's description): read", () => {
    const answer = card((c) => {
      c.name = "";
      c.description = "";
      c.version = "";
      c.skills = [create(AgentSkillSchema, { id: "s", name: "S" })];
    });
    expect(checkedResponse(method, answer, { httpStatus: 200 })).toBe(answer);
  });

  it("lacking its capabilities: ProtocolError naming the field", () => {
    const answer = card((c) => {
      c.capabilities = undefined;
    });
    expect(() => checkedResponse(method, answer, { httpStatus: 200 })).toThrow(ProtocolError);
    expect(() => checkedResponse(method, answer, { httpStatus: 200 })).toThrow(
      /GetExtendedAgentCard response \(HTTP 200\) lacks the REQUIRED field "capabilities"/,
    );
  });

  it("with an interface lacking its URL: ProtocolError naming the field", () => {
    const answer = card((c) => {
      c.supportedInterfaces[0]!.url = "";
    });
    expect(() => checkedResponse(method, answer, {})).toThrow(/lacks the REQUIRED field "supportedInterfaces\[0\]\.url"/);
  });
});

describe("a response's REQUIRED fields, through its payload and what that holds", () => {
  const stream = A2AService.method.sendStreamingMessage;
  const list = A2AService.method.listTasks;
  const event = (payload: StreamResponse["payload"]) => create(StreamResponseSchema, { payload });
  const status = { state: TaskState.WORKING };

  it("a whole event of each kind: returned as it is", () => {
    for (const payload of [
      { case: "statusUpdate", value: create(TaskStatusUpdateEventSchema, { taskId: "t", contextId: "c", status }) },
      {
        case: "artifactUpdate",
        value: create(TaskArtifactUpdateEventSchema, { taskId: "t", contextId: "c", artifact: { artifactId: "a" } }),
      },
      { case: "task", value: create(TaskSchema, { id: "t", status }) },
      { case: "message", value: create(MessageSchema, { messageId: "m", role: Role.AGENT }) },
    ] as const) {
      const answer = event(payload);
      expect(checkedResponse(stream, answer, {})).toBe(answer);
    }
  });

  it("no payload: names the oneof and its members", () => {
    expect(() => checkedResponse(stream, event({ case: undefined }), {})).toThrow(
      /lacks its payload: one of task, message, statusUpdate, artifactUpdate \("payload"\)/,
    );
  });

  it.each([
    ["statusUpdate.taskId", { case: "statusUpdate", value: create(TaskStatusUpdateEventSchema, { contextId: "c", status }) }],
    ["statusUpdate.status", { case: "statusUpdate", value: create(TaskStatusUpdateEventSchema, { taskId: "t", contextId: "c" }) }],
    ["artifactUpdate.artifact", { case: "artifactUpdate", value: create(TaskArtifactUpdateEventSchema, { taskId: "t", contextId: "c" }) }],
    [
      "artifactUpdate.artifact.artifactId",
      { case: "artifactUpdate", value: create(TaskArtifactUpdateEventSchema, { taskId: "t", contextId: "c", artifact: {} }) },
    ],
    ["task.id", { case: "task", value: create(TaskSchema, { status }) }],
    ["message.messageId", { case: "message", value: create(MessageSchema, { role: Role.AGENT }) }],
  ] as const)("lacking %s: a ProtocolError naming its path", (path, payload) => {
    expect(() => checkedResponse(stream, event(payload), {})).toThrow(`lacks the REQUIRED field "${path}"`);
  });

  it("a page: each task is held to a task's fields, the first missing named with its index", () => {
    const page = create(ListTasksResponseSchema, {
      tasks: [create(TaskSchema, { id: "a", status }), create(TaskSchema, { id: "b" }), create(TaskSchema, { status })],
    });
    expect(() => checkedResponse(list, page, {})).toThrow(`lacks the REQUIRED field "tasks[1].status"`);
    page.tasks[1]!.status = create(TaskStatusSchema, status);
    expect(() => checkedResponse(list, page, {})).toThrow(`lacks the REQUIRED field "tasks[2].id"`);
    page.tasks[2]!.id = "c";
    expect(checkedResponse(list, page, {})).toBe(page);
  });
});

describe("responseFromJson: a response read by its generated reader needs no check", () => {
  const getTask = A2AService.method.getTask;
  const TASK_JSON = { id: "t-1", contextId: "c-1", status: { state: "TASK_STATE_WORKING" } };

  it("takes the message of the reader it is given, unchecked", () => {
    const made = create(TaskSchema, {});
    expect(responseFromJson(getTask, TASK_JSON, { "lf.a2a.v1.Task": () => made }, {})).toBe(made);
  });

  it("reads with fromJson, unknown fields ignored, and checks, what a reader gives up on or what has no reader", () => {
    const json = { ...TASK_JSON, addedInAFutureVersion: true };
    expect(responseFromJson(getTask, json, { "lf.a2a.v1.Task": () => undefined }, {})).toEqual(fromJson(TaskSchema, TASK_JSON));
    expect(responseFromJson(getTask, json, {}, {}).status?.state).toBe(TaskState.WORKING);
    expect(responseFromJson(getTask, json, undefined, {}).status?.state).toBe(TaskState.WORKING);
    expect(() => responseFromJson(getTask, { status: TASK_JSON.status }, {}, {})).toThrow(`lacks the REQUIRED field "id"`);
  });

  it("with the generated readers: their result where they read, fromJson's result and errors elsewhere", () => {
    expect(responseFromJson(getTask, TASK_JSON, jsonReaders, {})).toEqual(fromJson(TaskSchema, TASK_JSON));
    // An enum as a number: the readers give up, fromJson accepts it.
    expect(responseFromJson(getTask, { ...TASK_JSON, status: { state: 3 } }, jsonReaders, {}).status?.state).toBe(TaskState.COMPLETED);
    expect(() => responseFromJson(getTask, { id: 42 }, jsonReaders, {})).toThrow(/cannot decode/);
  });

  it("with the generated readers: a REQUIRED value absent is named as without them", () => {
    const stream = A2AService.method.sendStreamingMessage;
    for (const readers of [jsonReaders, undefined]) {
      expect(() => responseFromJson(getTask, { contextId: "c", status: TASK_JSON.status }, readers, {})).toThrow(
        `lacks the REQUIRED field "id"`,
      );
      expect(() => responseFromJson(stream, { statusUpdate: { taskId: "t", contextId: "c" } }, readers, {})).toThrow(
        `lacks the REQUIRED field "statusUpdate.status"`,
      );
      expect(() => responseFromJson(stream, {}, readers, {})).toThrow(/lacks its payload/);
    }
  });

  it("with the generated readers: a newer server's Agent Card and push config, unknown fields and all, read as fromJson reads them", () => {
    const card = {
      name: "Agent",
      supportedInterfaces: [{ url: "https://agent.example.com/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0", addedLater: 1 }],
      capabilities: { streaming: true },
      addedInAFutureVersion: { nested: true },
    };
    const extended = A2AService.method.getExtendedAgentCard;
    expect(responseFromJson(extended, card, jsonReaders, {})).toEqual(fromJson(AgentCardSchema, card, { ignoreUnknownFields: true }));
    expect(responseFromJson(extended, card, jsonReaders, {}).supportedInterfaces[0]?.url).toBe("https://agent.example.com/a2a");
    const config = { taskId: "t-1", url: "https://client.example.com/hook", addedLater: "x" };
    expect(responseFromJson(A2AService.method.getTaskPushNotificationConfig, config, jsonReaders, {}).url).toBe(
      "https://client.example.com/hook",
    );
    expect(() => responseFromJson(extended, { name: 42 }, jsonReaders, {})).toThrow(/cannot decode/);
  });
});
