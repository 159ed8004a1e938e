/**
 * The one table of what each method does: a row for every method of the
 * generated service, the message senders and the reads as the call rules
 * (message ids, retries, failover) treat them.
 */
import { describe, expect, it } from "vitest";
import { A2AService } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { METHOD_TRAITS, traitsOf } from "../../../src/call/method-traits.js";

const methods = Object.values(A2AService.method);

describe("method traits", () => {
  it("has a row for exactly the methods of the generated service", () => {
    expect(Object.keys(METHOD_TRAITS).sort()).toEqual(methods.map((m) => m.localName).sort());
  });

  it("SendMessage and SendStreamingMessage send a message; no method both sends and only reads", () => {
    expect(methods.filter((m) => traitsOf(m).sendsMessage).map((m) => m.name)).toEqual(["SendMessage", "SendStreamingMessage"]);
    for (const m of methods) expect(traitsOf(m).sendsMessage && traitsOf(m).readsOnly).toBe(false);
  });

  it("the gets, the lists, the extended card and the subscribe only read; cancel and push config create and delete write", () => {
    const reads = methods.filter((m) => traitsOf(m).readsOnly).map((m) => m.name);
    expect(reads.sort()).toEqual(
      [
        "GetExtendedAgentCard",
        "GetTask",
        "GetTaskPushNotificationConfig",
        "ListTaskPushNotificationConfigs",
        "ListTasks",
        "SubscribeToTask",
      ].sort(),
    );
  });

  it("a method of another service is a write that sends no message", () => {
    const other = { ...A2AService.method.getTask, parent: { ...A2AService, typeName: "example.Other" } };
    expect(traitsOf(other)).toEqual({ sendsMessage: false, readsOnly: false });
  });
});
