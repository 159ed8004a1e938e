import { describe, expect, it } from "vitest";
import { create, fromJson } from "@bufbuild/protobuf";
import { AgentCardSchema, TaskPushNotificationConfigSchema, TaskSchema, TaskState } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { jsonReaders } from "../../../gen/lf/a2a/v1/a2a_json_readers.js";
import { messageFromJson } from "../../../src/protocol/proto-json.js";

const TASK_JSON = { id: "t-1", contextId: "c-1", status: { state: "TASK_STATE_WORKING" } };

describe("messageFromJson", () => {
  it("takes the message of the reader it is given", () => {
    const made = create(TaskSchema, { id: "from the reader" });
    expect(messageFromJson(TaskSchema, TASK_JSON, { "lf.a2a.v1.Task": () => made })).toBe(made);
  });

  it("reads with fromJson, unknown fields ignored, what a reader gives up on or what has no reader", () => {
    const json = { ...TASK_JSON, addedInAFutureVersion: true };
    expect(messageFromJson(TaskSchema, json, { "lf.a2a.v1.Task": () => undefined })).toEqual(fromJson(TaskSchema, TASK_JSON));
    expect(messageFromJson(TaskSchema, json, {}).status?.state).toBe(TaskState.WORKING);
    expect(messageFromJson(TaskSchema, json).status?.state).toBe(TaskState.WORKING);
  });

  it("with the generated readers: their result where they read, fromJson's result and errors elsewhere", () => {
    expect(messageFromJson(TaskSchema, TASK_JSON, jsonReaders)).toEqual(fromJson(TaskSchema, TASK_JSON));
    // An enum as a number: the readers give up, fromJson accepts it.
    expect(messageFromJson(TaskSchema, { ...TASK_JSON, status: { state: 3 } }, jsonReaders).status?.state).toBe(TaskState.COMPLETED);
    expect(() => messageFromJson(TaskSchema, { id: 42 }, jsonReaders)).toThrow(/cannot decode/);
  });

  it("with the generated readers: a newer server's Agent Card and push config, unknown fields and all, read as fromJson reads them", () => {
    const card = {
      name: "Agent",
      supportedInterfaces: [{ url: "https://agent.example.com/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0", addedLater: 1 }],
      capabilities: { streaming: true },
      addedInAFutureVersion: { nested: true },
    };
    expect(messageFromJson(AgentCardSchema, card, jsonReaders)).toEqual(fromJson(AgentCardSchema, card, { ignoreUnknownFields: true }));
    expect(messageFromJson(AgentCardSchema, card, jsonReaders).supportedInterfaces[0]?.url).toBe("https://agent.example.com/a2a");
    const config = { taskId: "t-1", url: "https://client.example.com/hook", addedLater: "x" };
    expect(messageFromJson(TaskPushNotificationConfigSchema, config, jsonReaders).url).toBe("https://client.example.com/hook");
    expect(() => messageFromJson(AgentCardSchema, { name: 42 }, jsonReaders)).toThrow(/cannot decode/);
  });
});

describe("timestamps that name no time zone (FastA2A 2.1.1 writes its local time so)", () => {
  const task = (timestamp: string) => ({
    id: "t1",
    contextId: "c1",
    status: { state: "TASK_STATE_COMPLETED", timestamp },
    history: [{ messageId: "m1", role: "ROLE_AGENT", parts: [{ text: "hi" }] }],
  });

  it.each([
    ["with the generated readers", true],
    ["with fromJson alone", false],
  ])("are read as absent, the rest of the message as sent, %s", (_, withReaders) => {
    const readers = withReaders ? jsonReaders : undefined;
    const read = messageFromJson(TaskSchema, task("2026-12-03T16:23:00.084905"), readers);
    expect(read.status?.state).toBe(TaskState.COMPLETED);
    expect(read.status?.timestamp).toBeUndefined();
    expect(read.history[0]?.messageId).toBe("m1");
    // With a zone, the time is kept; a string that is no time at all is still refused.
    expect(messageFromJson(TaskSchema, task("2026-12-03T16:23:00.084905Z"), readers).status?.timestamp?.seconds).toBe(
      BigInt(Date.parse("2026-12-03T16:23:00Z") / 1000),
    );
    expect(() => messageFromJson(TaskSchema, task("yesterday"), readers)).toThrow(/Timestamp/);
  });
});
