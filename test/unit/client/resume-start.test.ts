/**
 * The lazy boundary of resumption: a stream's first drop loads the loop, and
 * what happens while it loads. The caller's signal still ends the stream, a
 * loop that cannot be loaded ends it with a typed error, a failure that is no
 * drop or a stream that settles never loads it, and watchers are told the end.
 */
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import type { StreamState, StreamWatcher } from "../../../src/call/stream-state.js";
import { METHOD_TRAITS } from "../../../src/call/method-traits.js";
import { carryOn, type ResumeIo } from "../../../src/client/resume.js";
import { resumableWith, type CarryOn } from "../../../src/client/resume-start.js";
import {
  AbortedError,
  ConnectionError,
  InvalidParamsError,
  StreamResponseSchema,
  StreamResumeError,
  TaskSchema,
  TaskState,
  type StreamResponse,
} from "../../../src/index.js";

const snapshot = (state: TaskState): StreamResponse =>
  create(StreamResponseSchema, { payload: { case: "task", value: create(TaskSchema, { id: "t1", contextId: "c1", status: { state } }) } });

async function* events(list: StreamResponse[], then?: Error): AsyncGenerator<StreamResponse> {
  yield* list;
  if (then) throw then;
}

function ioOf(first: () => AsyncIterable<StreamResponse>, signal?: AbortSignal) {
  const ended: Array<unknown> = [];
  const watcher: StreamWatcher = { resuming: () => {}, ended: (e) => ended.push(e ?? "ok") };
  // What the stream's calls share: the client gives its record here.
  const state: StreamState = {};
  const io: ResumeIo = {
    traits: METHOD_TRAITS.sendStreamingMessage,
    binding: () => "JSONRPC",
    signal,
    taskId: undefined,
    state,
    open: () => {
      (state.watchers ??= []).push(watcher);
      return first();
    },
    getTask: async () => create(TaskSchema, { id: "t1", contextId: "c1", status: { state: TaskState.COMPLETED } }),
    subscribe: () => events([]),
  };
  return { io, ended };
}

async function drain(stream: AsyncIterable<StreamResponse>) {
  const items: StreamResponse[] = [];
  try {
    for await (const e of stream) items.push(e);
    return { items, error: undefined };
  } catch (error) {
    return { items, error };
  }
}

describe("resumption's lazy boundary", () => {
  it("an abort while the loop loads ends the stream with AbortedError, without waiting for the load", async () => {
    const controller = new AbortController();
    let asked!: () => void;
    const loading = new Promise<void>((r) => (asked = r));
    const { io, ended } = ioOf(
      () => events([snapshot(TaskState.WORKING)], new ConnectionError("reset", { kind: "reset" })),
      controller.signal,
    );
    // A load that never finishes, as a chunk on a stalled network.
    const load = () => {
      asked();
      return new Promise<CarryOn>(() => {});
    };
    const run = drain(resumableWith(io, {}, load));
    await loading;
    controller.abort();
    const { items, error } = await run;
    expect(items).toHaveLength(1);
    expect(error).toBeInstanceOf(AbortedError);
    expect(ended).toEqual([error]);
  });

  it("a loop that cannot be loaded ends the stream with StreamResumeError naming the task, the load failure as cause", async () => {
    const { io, ended } = ioOf(() => events([snapshot(TaskState.WORKING)]));
    const failure = new TypeError("Failed to fetch dynamically imported module");
    const { error } = await drain(resumableWith(io, {}, () => Promise.reject(failure)));
    expect(error).toBeInstanceOf(StreamResumeError);
    expect((error as StreamResumeError).taskId).toBe("t1");
    expect((error as StreamResumeError).state).toBe(TaskState.WORKING);
    expect((error as Error).message).toContain("task t1");
    expect((error as Error).cause).toBe(failure);
    expect(ended).toEqual([error]);
  });

  it("a stream that settles, or fails with what is no drop, never loads the loop", async () => {
    let loads = 0;
    const load = async () => {
      loads++;
      return carryOn;
    };
    const settled = ioOf(() => events([snapshot(TaskState.WORKING), snapshot(TaskState.COMPLETED)]));
    expect((await drain(resumableWith(settled.io, {}, load))).items).toHaveLength(2);
    expect(settled.ended).toEqual(["ok"]);
    const refused = ioOf(() => events([], new InvalidParamsError("bad request")));
    const { error } = await drain(resumableWith(refused.io, {}, load));
    expect(error).toBeInstanceOf(InvalidParamsError);
    expect(refused.ended).toEqual([error]);
    expect(loads).toBe(0);
  });

  it("after the first drop the loop carries on from what the first stream said: GetTask finds the task ended", async () => {
    let loads = 0;
    const { io, ended } = ioOf(() => events([snapshot(TaskState.WORKING)]));
    const { items, error } = await drain(
      resumableWith(io, { backoff: { initialMs: 1, maxMs: 1 } }, async () => {
        loads++;
        return carryOn;
      }),
    );
    expect(error).toBeUndefined();
    expect(loads).toBe(1);
    expect(items.map((e) => (e.payload.case === "task" ? e.payload.value.status?.state : undefined))).toEqual([
      TaskState.WORKING,
      TaskState.COMPLETED,
    ]);
    expect(ended).toEqual(["ok"]);
  });
});
