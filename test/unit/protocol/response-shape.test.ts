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
import { checkedResponse } from "../../../src/protocol/response-shape.js";

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
