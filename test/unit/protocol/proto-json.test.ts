import { describe, expect, it } from "vitest";
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { A2AService, TaskSchema, TaskState } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { jsonReaders } from "../../../gen/lf/a2a/v1/a2a_json_readers.js";
import { messageFromJson } from "../../../src/protocol/proto-json.js";
import { responseFromJson } from "../../../src/protocol/response-shape.js";

const TASK_JSON = { id: "t-1", contextId: "c-1", status: { state: "TASK_STATE_WORKING" } };

describe("messageFromJson", () => {
  it("reads with fromJson, unknown fields ignored", () => {
    const json = { ...TASK_JSON, addedInAFutureVersion: true };
    expect(messageFromJson(TaskSchema, json)).toEqual(fromJson(TaskSchema, TASK_JSON));
    expect(() => messageFromJson(TaskSchema, { id: 42 })).toThrow(/cannot decode/);
  });
});

describe("timestamps that name no time zone (FastA2A 2.1.1 writes its local time so)", () => {
  const task = (timestamp: string) => ({
    id: "t1",
    contextId: "c1",
    status: { state: "TASK_STATE_COMPLETED", timestamp },
    history: [{ messageId: "m1", role: "ROLE_AGENT", parts: [{ text: "hi" }] }],
  });

  // A response read by its generated reader where it can (responseFromJson), else by messageFromJson.
  const getTask = A2AService.method.getTask;
  it.each([
    ["with the generated readers", (json: JsonValue) => responseFromJson(getTask, json, jsonReaders, {})],
    ["with fromJson alone", (json: JsonValue) => messageFromJson(TaskSchema, json)],
  ])("are read as absent, the rest of the message as sent, %s", (_, read) => {
    const zoneless = read(task("2026-12-03T16:23:00.084905"));
    expect(zoneless.status?.state).toBe(TaskState.COMPLETED);
    expect(zoneless.status?.timestamp).toBeUndefined();
    expect(zoneless.history[0]?.messageId).toBe("m1");
    // With a zone, the time is kept; a string that is no time at all is still refused.
    expect(read(task("2026-12-03T16:23:00.084905Z")).status?.timestamp?.seconds).toBe(BigInt(Date.parse("2026-12-03T16:23:00Z") / 1000));
    expect(() => read(task("yesterday"))).toThrow(/Timestamp/);
  });
});
