/**
 * A SendStreamingMessage that fails before its task is known, resumed by
 * the rule retries and failover follow too (call/attempt-rules.ts): a
 * message that cannot have reached the agent (a refused connection, a 429
 * or 503) is sent again at once, without asking the agent whether it
 * started a task; one that may have arrived is looked for first.
 */
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { METHOD_TRAITS } from "../../../src/call/method-traits.js";
import { resumable, type ResumeIo } from "../../../src/client/resume.js";
import { LOOP_KIT } from "../../../src/client/resume-start.js";
import {
  ConnectionError,
  ServerError,
  StreamResponseSchema,
  TaskSchema,
  TaskState,
  type A2AError,
  type StreamResponse,
} from "../../../src/index.js";

const completed: StreamResponse = create(StreamResponseSchema, {
  payload: { case: "task", value: create(TaskSchema, { id: "t1", contextId: "c1", status: { state: TaskState.COMPLETED } }) },
});

/** A send whose first stream fails with `failure` and whose second completes; what was called. */
async function sendFailingFirst(failure: A2AError) {
  const calls: string[] = [];
  const io: ResumeIo = {
    traits: METHOD_TRAITS.sendStreamingMessage,
    binding: () => "JSONRPC",
    signal: undefined,
    taskId: undefined,
    open: () => {
      calls.push("send");
      const first = calls.filter((c) => c === "send").length === 1;
      return (async function* () {
        if (first) throw failure;
        yield completed;
      })();
    },
    subscribe: () => {
      throw new Error("no task to subscribe to");
    },
    getTask: () => Promise.reject(new Error("no task to get")),
    findSent: async () => {
      calls.push("lookup");
      return { found: undefined, conclusive: true };
    },
  };
  const events: StreamResponse[] = [];
  for await (const e of resumable(io, { backoff: { initialMs: 1, maxMs: 1 } }, LOOP_KIT)) events.push(e);
  return { calls, events };
}

describe("a send that failed before its task was known", () => {
  it("refused, or unknown host: sent again without a lookup", async () => {
    for (const kind of ["refused", "dns"] as const) {
      const { calls, events } = await sendFailingFirst(new ConnectionError(`connection ${kind}`, { kind }));
      expect(calls).toEqual(["send", "send"]);
      expect(events).toEqual([completed]);
    }
  });

  it("a 503 asking to be called later: sent again without a lookup", async () => {
    const { calls } = await sendFailingFirst(new ServerError("busy", { httpStatus: 503, retryAfterMs: 1 }));
    expect(calls).toEqual(["send", "send"]);
  });

  it("a reset (the message may have arrived): looked for first, then sent again", async () => {
    const { calls } = await sendFailingFirst(new ConnectionError("connection reset", { kind: "reset" }));
    expect(calls).toEqual(["send", "lookup", "send"]);
  });
});
