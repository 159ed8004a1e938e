/**
 * TaskTracker: events folded into the task they describe, rebased on every
 * snapshot, a final state never lost.
 */
import { clone, create, equals } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ArtifactSchema,
  MessageSchema,
  Role,
  StreamResponseSchema,
  TaskSchema,
  TaskState,
  TaskTracker,
  text,
  type Artifact,
  type Message,
  type StreamResponse,
  type Task,
} from "../../../src/index.js";

const TASK_ID = "t1";
const CONTEXT_ID = "c1";

function snapshot(task: Task): StreamResponse {
  return create(StreamResponseSchema, { payload: { case: "task", value: task } });
}

function taskOf(state: TaskState, artifacts: Artifact[] = [], history: Message[] = []): Task {
  return create(TaskSchema, { id: TASK_ID, contextId: CONTEXT_ID, status: { state }, artifacts, history });
}

function status(state: TaskState, taskId = TASK_ID): StreamResponse {
  return create(StreamResponseSchema, {
    payload: { case: "statusUpdate", value: { taskId, contextId: CONTEXT_ID, status: { state } } },
  });
}

function chunk(artifactId: string, texts: string[], append: boolean, lastChunk = false): StreamResponse {
  return create(StreamResponseSchema, {
    payload: {
      case: "artifactUpdate",
      value: { taskId: TASK_ID, contextId: CONTEXT_ID, artifact: { artifactId, parts: texts.map((t) => text(t)) }, append, lastChunk },
    },
  });
}

function agentMessage(body: string, taskId = ""): Message {
  return create(MessageSchema, { messageId: `m-${body}`, role: Role.AGENT, taskId, contextId: CONTEXT_ID, parts: [text(body)] });
}

function message(m: Message): StreamResponse {
  return create(StreamResponseSchema, { payload: { case: "message", value: m } });
}

function artifact(artifactId: string, texts: string[]): Artifact {
  return create(ArtifactSchema, { artifactId, parts: texts.map((t) => text(t)) });
}

/** The text of every part of each artifact, by artifact id, in order. */
function texts(task: Task | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const a of task?.artifacts ?? []) out[a.artifactId] = a.parts.map((p) => (p.content.case === "text" ? p.content.value : "?"));
  return out;
}

function feed(events: StreamResponse[], tracker = new TaskTracker()): TaskTracker {
  for (const e of events) tracker.apply(e);
  return tracker;
}

describe("TaskTracker folds events into the task", () => {
  it("starts from the snapshot and follows status updates", () => {
    const t = feed([snapshot(taskOf(TaskState.SUBMITTED)), status(TaskState.WORKING)]);
    expect(t.task?.id).toBe(TASK_ID);
    expect(t.task?.status?.state).toBe(TaskState.WORKING);
    expect(t.settled).toBe(false);
    t.apply(status(TaskState.COMPLETED));
    expect(t.task?.status?.state).toBe(TaskState.COMPLETED);
    expect(t.settled).toBe(true);
  });

  it("keeps artifacts apart by id; append adds parts, a non-append update replaces the artifact; lastChunk changes nothing else", () => {
    const t = feed([
      snapshot(taskOf(TaskState.WORKING)),
      chunk("a", ["a1"], false),
      chunk("b", ["b1"], false),
      chunk("a", ["a2", "a3"], true),
      chunk("b", ["b2"], true, true),
      chunk("a", ["a4"], true, true),
    ]);
    expect(texts(t.task)).toEqual({ a: ["a1", "a2", "a3", "a4"], b: ["b1", "b2"] });
    expect(t.task?.artifacts.map((a) => a.artifactId)).toEqual(["a", "b"]);
    t.apply(chunk("a", ["fresh"], false));
    expect(texts(t.task)).toEqual({ a: ["fresh"], b: ["b1", "b2"] });
    // An append for an artifact not seen yet starts it.
    t.apply(chunk("c", ["c1"], true));
    expect(texts(t.task).c).toEqual(["c1"]);
  });

  it("does not alter the events it was given", () => {
    const first = snapshot(taskOf(TaskState.WORKING, [artifact("a", ["a1"])]));
    const before = clone(StreamResponseSchema, first);
    const second = chunk("b", ["b1"], false);
    const t = feed([first, second, chunk("a", ["a2"], true), chunk("b", ["b2"], true)]);
    expect(texts(t.task)).toEqual({ a: ["a1", "a2"], b: ["b1", "b2"] });
    expect(equals(StreamResponseSchema, first, before)).toBe(true);
    expect(second.payload.case === "artifactUpdate" && second.payload.value.artifact?.parts).toHaveLength(1);
  });

  it("a direct message reply is the answer: no task, settled", () => {
    const t = feed([message(agentMessage("hi"))]);
    expect(t.task).toBeUndefined();
    expect(t.message?.parts[0]?.content.value).toBe("hi");
    expect(t.settled).toBe(true);
  });

  it("a message for the task followed goes into its history", () => {
    const t = feed([snapshot(taskOf(TaskState.WORKING)), message(agentMessage("note", TASK_ID))]);
    expect(t.message).toBeUndefined();
    expect(t.task?.history.map((m) => m.messageId)).toEqual(["m-note"]);
    expect(t.settled).toBe(false);
  });

  it("events without a snapshot first start a task", () => {
    const t = feed([status(TaskState.WORKING), chunk("a", ["a1"], true)]);
    expect(t.task).toMatchObject({ id: TASK_ID, contextId: CONTEXT_ID });
    expect(texts(t.task)).toEqual({ a: ["a1"] });
  });

  it("an interrupted state settles the tracker until the task goes on", () => {
    const t = feed([snapshot(taskOf(TaskState.WORKING)), status(TaskState.INPUT_REQUIRED)]);
    expect(t.settled).toBe(true);
    t.apply(status(TaskState.WORKING));
    expect(t.settled).toBe(false);
  });
});

describe("TaskTracker keeps metadata as agents keep it", () => {
  it("a status update's metadata goes into the task's, an appended chunk's into its artifact's: the same task with or without a drop", () => {
    const working = create(StreamResponseSchema, {
      payload: {
        case: "statusUpdate",
        value: { taskId: TASK_ID, contextId: CONTEXT_ID, status: { state: TaskState.WORKING }, metadata: { step: 1, stage: "draft" } },
      },
    });
    const later = create(StreamResponseSchema, {
      payload: {
        case: "statusUpdate",
        value: { taskId: TASK_ID, contextId: CONTEXT_ID, status: { state: TaskState.WORKING }, metadata: { step: 2 } },
      },
    });
    const first = chunk("a", ["a1"], false);
    const appended = chunk("a", ["a2"], true);
    if (first.payload.case === "artifactUpdate") first.payload.value.artifact!.metadata = { lang: "en", lines: 1 };
    if (appended.payload.case === "artifactUpdate") appended.payload.value.artifact!.metadata = { lines: 2 };
    const start = create(TaskSchema, {
      id: TASK_ID,
      contextId: CONTEXT_ID,
      status: { state: TaskState.SUBMITTED },
      metadata: { owner: "me" },
    });
    const t = feed([snapshot(start), working, first, later, appended]);
    // What the official servers (JavaScript and Python) hold after these events, and send as the snapshot after a drop.
    expect(t.task?.metadata).toEqual({ owner: "me", step: 2, stage: "draft" });
    expect(t.task?.artifacts[0]?.metadata).toEqual({ lang: "en", lines: 2 });
    expect(texts(t.task)).toEqual({ a: ["a1", "a2"] });
  });
});

describe("TaskTracker rebases on a snapshot", () => {
  it("chunks applied before the snapshot that the snapshot contains are not applied twice", () => {
    const t = feed([
      snapshot(taskOf(TaskState.WORKING)),
      chunk("a", ["1"], false),
      chunk("a", ["2"], true),
      // The stream dropped here; chunk 3 was missed, the resumed stream starts with the server's task.
      snapshot(taskOf(TaskState.WORKING, [artifact("a", ["1", "2", "3"])])),
      chunk("a", ["4"], true, true),
      status(TaskState.COMPLETED),
    ]);
    expect(texts(t.task)).toEqual({ a: ["1", "2", "3", "4"] });
    expect(t.task?.status?.state).toBe(TaskState.COMPLETED);
  });

  it("a snapshot replaces status, artifacts and history", () => {
    const t = feed([
      snapshot(taskOf(TaskState.WORKING)),
      chunk("a", ["1"], false),
      chunk("gone", ["x"], false),
      message(agentMessage("early", TASK_ID)),
      snapshot(taskOf(TaskState.WORKING, [artifact("a", ["1", "2"])], [agentMessage("server", TASK_ID)])),
    ]);
    expect(texts(t.task)).toEqual({ a: ["1", "2"] });
    expect(t.task?.history.map((m) => m.messageId)).toEqual(["m-server"]);
  });
});

describe("TaskTracker never misses a final state", () => {
  it("a final state known only from the closing snapshot (GetTask after a drop) is taken", () => {
    const t = feed([
      snapshot(taskOf(TaskState.WORKING)),
      chunk("a", ["1"], false),
      // Dropped: chunk 2 and COMPLETED were never received.
      snapshot(taskOf(TaskState.COMPLETED, [artifact("a", ["1", "2"])])),
    ]);
    expect(t.settled).toBe(true);
    expect(t.task?.status?.state).toBe(TaskState.COMPLETED);
    expect(texts(t.task)).toEqual({ a: ["1", "2"] });
  });

  it("a stale status update or snapshot arriving after the final state does not undo it", () => {
    const final = taskOf(TaskState.COMPLETED, [artifact("a", ["1", "2"])]);
    const t = feed([snapshot(taskOf(TaskState.WORKING)), snapshot(final)]);
    t.apply(status(TaskState.WORKING));
    t.apply(snapshot(taskOf(TaskState.WORKING, [artifact("a", ["1"])])));
    expect(t.settled).toBe(true);
    expect(equals(TaskSchema, t.task!, final)).toBe(true);
  });

  it("a chunk arriving after the final snapshot (a late push notification) is not applied twice; after a final status only, it is applied", () => {
    const final = taskOf(TaskState.COMPLETED, [artifact("a", ["1", "2"])]);
    const t = feed([snapshot(taskOf(TaskState.WORKING, [artifact("a", ["1"])])), snapshot(final), chunk("a", ["2"], true, true)]);
    expect(texts(t.task)).toEqual({ a: ["1", "2"] });
    expect(equals(TaskSchema, t.task!, final)).toBe(true);
    // The final state from a status update says nothing of the chunks: one delivered late is still new.
    const u = feed([
      snapshot(taskOf(TaskState.WORKING, [artifact("a", ["1"])])),
      status(TaskState.COMPLETED),
      chunk("a", ["2"], true, true),
    ]);
    expect(texts(u.task)).toEqual({ a: ["1", "2"] });
  });

  it("a message already in the task's history (the same messageId) is not added again", () => {
    const said = agentMessage("done", TASK_ID);
    const t = feed([snapshot(taskOf(TaskState.WORKING)), message(said), snapshot(taskOf(TaskState.COMPLETED, [], [said])), message(said)]);
    expect(t.task?.history.map((m) => m.messageId)).toEqual([said.messageId]);
    const u = feed([snapshot(taskOf(TaskState.WORKING, [], [said])), message(said), message(agentMessage("more", TASK_ID))]);
    expect(u.task?.history.map((m) => m.messageId)).toEqual([said.messageId, "m-more"]);
  });

  it("another task's events are not mistaken for the finished one", () => {
    const t = feed([snapshot(taskOf(TaskState.COMPLETED)), status(TaskState.WORKING, "t2")]);
    expect(t.task?.id).toBe("t2");
    expect(t.settled).toBe(false);
  });
});

// ---------------------------------------------------------------------------
// Property: any evolution of a task, however it is cut and resumed.

type Step =
  | { kind: "chunk"; artifact: number; parts: string[]; append: boolean; last: boolean }
  | { kind: "status"; state: TaskState }
  | { kind: "message"; body: string };

const ARTIFACT_IDS = ["a", "b", "c"];
const LIVE_STATES = [TaskState.SUBMITTED, TaskState.WORKING, TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED];
const FINAL_STATES = [TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED];

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("chunk" as const),
      artifact: fc.integer({ min: 0, max: ARTIFACT_IDS.length - 1 }),
      parts: fc.array(fc.string({ maxLength: 6, unit: "grapheme" }), { minLength: 1, maxLength: 3 }),
      // Mostly appends, as streaming agents send them.
      append: fc.oneof({ arbitrary: fc.constant(true), weight: 4 }, { arbitrary: fc.constant(false), weight: 1 }),
      last: fc.boolean(),
    }),
    weight: 6,
  },
  { arbitrary: fc.record({ kind: fc.constant("status" as const), state: fc.constantFrom(...LIVE_STATES) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("message" as const), body: fc.string({ maxLength: 8 }) }), weight: 1 },
);

/** A task's life: its events (a snapshot first, a final status last) and the server's task after each. */
interface Evolution {
  events: StreamResponse[];
  /** states[k]: the task once events[0..k] happened. */
  states: Task[];
}

const evolutionArb: fc.Arbitrary<Evolution> = fc
  .tuple(fc.array(stepArb, { maxLength: 40 }), fc.constantFrom(...FINAL_STATES))
  .map(([steps, finalState]) => {
    // The server's model of the task, kept independently of the tracker.
    let state = TaskState.SUBMITTED;
    const artifacts = new Map<string, string[]>();
    const history: Message[] = [];
    const now = (): Task =>
      taskOf(
        state,
        [...artifacts].map(([id, parts]) => artifact(id, parts)),
        history.map((m) => clone(MessageSchema, m)),
      );
    const events: StreamResponse[] = [snapshot(now())];
    const states: Task[] = [now()];
    let n = 0;
    for (const step of [...steps, { kind: "status", state: finalState } as Step]) {
      switch (step.kind) {
        case "chunk": {
          const id = ARTIFACT_IDS[step.artifact]!;
          const known = artifacts.get(id);
          artifacts.set(id, step.append && known ? [...known, ...step.parts] : [...step.parts]);
          events.push(chunk(id, step.parts, step.append, step.last));
          break;
        }
        case "status":
          state = step.state;
          events.push(status(step.state));
          break;
        case "message": {
          const m = create(MessageSchema, {
            messageId: `m${n++}`,
            role: Role.AGENT,
            taskId: TASK_ID,
            contextId: CONTEXT_ID,
            parts: [text(step.body)],
          });
          history.push(m);
          events.push(message(m));
          break;
        }
      }
      states.push(now());
    }
    return { events, states };
  });

function sameTask(actual: Task | undefined, expected: Task): void {
  expect(actual).toBeDefined();
  if (!equals(TaskSchema, actual!, expected)) {
    // Show a readable difference.
    expect({ state: actual!.status?.state, artifacts: texts(actual), history: actual!.history.length }).toEqual({
      state: expected.status?.state,
      artifacts: texts(expected),
      history: expected.history.length,
    });
    expect.fail("tasks differ");
  }
}

describe("TaskTracker property: a random task evolution", () => {
  it("the whole event list folds into the final task", () => {
    fc.assert(
      fc.property(evolutionArb, ({ events, states }) => {
        const t = feed(events);
        sameTask(t.task, states.at(-1)!);
        expect(t.settled).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("a prefix, then a snapshot of a later point, then the events after it, folds into the final task", () => {
    const cutArb = evolutionArb.chain((evo) =>
      fc.integer({ min: 1, max: evo.events.length }).chain((received) =>
        fc.record({
          evo: fc.constant(evo),
          received: fc.constant(received),
          at: fc.integer({ min: received - 1, max: evo.events.length - 1 }),
        }),
      ),
    );
    fc.assert(
      fc.property(cutArb, ({ evo, received, at }) => {
        // Events 0..received-1 arrived, the stream dropped; the resumed stream
        // starts with the server's task after event `at` and goes on from there.
        const resumed = [snapshot(clone(TaskSchema, evo.states[at]!)), ...evo.events.slice(at + 1)];
        const t = feed([...evo.events.slice(0, received), ...resumed]);
        sameTask(t.task, evo.states.at(-1)!);
        expect(t.settled).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("several drops and resumes in a row fold into the final task", () => {
    const cutsArb = evolutionArb.chain((evo) =>
      fc.record({
        evo: fc.constant(evo),
        points: fc.uniqueArray(fc.integer({ min: 0, max: evo.events.length - 1 }), { maxLength: 4 }).map((p) => p.sort((a, b) => a - b)),
        lost: fc.array(fc.nat({ max: 3 }), { minLength: 4, maxLength: 4 }),
      }),
    );
    fc.assert(
      fc.property(cutsArb, ({ evo, points, lost }) => {
        const t = new TaskTracker();
        let next = 0;
        points.forEach((at, i) => {
          // Receive up to a few events short of `at`, then resume at `at`.
          const upTo = Math.max(next, at + 1 - lost[i]!);
          feed(evo.events.slice(next, upTo), t);
          t.apply(snapshot(clone(TaskSchema, evo.states[at]!)));
          next = at + 1;
        });
        feed(evo.events.slice(next), t);
        sameTask(t.task, evo.states.at(-1)!);
      }),
      { numRuns: 300 },
    );
  });
});
