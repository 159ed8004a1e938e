// What the browser example (examples/browser) shows of a task as its reply.
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { replyText } from "../../../examples/browser/reply.js";
import { TaskSchema, TaskState } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { text } from "../../../src/index.js";

const task = (artifacts: string[], statusMessage?: string) =>
  create(TaskSchema, {
    id: "t-1",
    status: {
      state: TaskState.INPUT_REQUIRED,
      ...(statusMessage === undefined ? {} : { message: { messageId: "m-1", parts: [text(statusMessage)] } }),
    },
    artifacts: artifacts.map((a, i) => ({ artifactId: `a-${i}`, parts: [text(a)] })),
  });

describe("the browser example's reply", () => {
  it("shows a status message once, where the artifacts have no text", () => {
    expect(replyText(task([], "need more"))).toBe("need more");
  });

  it("shows each artifact's text, then the status message, one per line", () => {
    expect(replyText(task(["chunk-1", "chunk-2"], "need more"))).toBe("chunk-1\nchunk-2\nneed more");
    expect(replyText(task(["chunk-1"]))).toBe("chunk-1");
    expect(replyText(task([]))).toBe("");
  });
});
