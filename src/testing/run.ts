/**
 * Runs a script for one message: each step acts on the task in the store
 * (made at the first step that needs one) and is told, in order, to the
 * call that answers for the message through a channel. Faults are told too;
 * what they do to the connection is the call's business. The run goes on
 * when the call has gone (a dropped stream): the task reaches the same end,
 * where a client that resumes finds it. A run that pauses for input or
 * authentication leaves its remaining steps on the task.
 */
import { create } from "@bufbuild/protobuf";
import { MessageSchema, Role, StreamResponseSchema, TaskState, type Message } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { isInterrupted, isTerminal } from "../protocol/messages.js";
import { sleep } from "../base/timers.js";
import { uuid } from "../base/uuid.js";
import { Channel } from "./channel.js";
import {
  stepToRun,
  type DropStep,
  type ErrorStep,
  type HangStep,
  type HttpStatusStep,
  type MalformedStep,
  type OnceStep,
  type RawStep,
  type Script,
} from "./steps.js";
import { snapshot, type LoggedEvent, type TaskRecord, type TaskStore } from "./store.js";
import { untilSubscribed } from "./subscriptions.js";

/** A step that acts on the connection rather than on the task. */
export type Fault = DropStep | HangStep | HttpStatusStep | ErrorStep | RawStep | MalformedStep;

/** What a run tells the call that answers for its message. */
export type Happening =
  /** An event of the task's log (the run's own, or a cancel's). */
  | { kind: "event"; logged: LoggedEvent }
  /** A direct reply, without a task. */
  | { kind: "message"; message: Message }
  /** A unary call answers with the task now: it works on until cancelled. */
  | { kind: "answer" }
  | { kind: "fault"; fault: Fault };

/** A run under way. */
export interface Turn {
  readonly happenings: Channel<Happening>;
  /** The task, once the run has one. */
  record(): TaskRecord | undefined;
}

/** Faults after which the run has nothing more to say to the call. */
const FINAL_FAULTS: ReadonlySet<Fault["kind"]> = new Set(["hang", "httpStatus", "error"]);

/** What a run needs of its agent. */
export interface RunContext {
  readonly store: TaskStore;
  /** Aborted when the agent closes: the run's waits end. */
  readonly closing: AbortSignal;
  /** The `once` steps that have run. */
  readonly onceRan: WeakSet<OnceStep>;
}

/**
 * Starts running `script` for `message`, on `existing` (a task the message
 * continues) or on a task of its own.
 */
export function runTurn(agent: RunContext, message: Message, script: Script, existing: TaskRecord | undefined): Turn {
  const { store, closing, onceRan } = agent;
  const happenings = new Channel<Happening>();
  const listen = (logged: LoggedEvent) => happenings.push({ kind: "event", logged });
  let record = existing;
  if (record) {
    store.addUserMessage(record, message);
    // The answer it waited for sets a waiting task working again (a client stops reading a stream at a task that waits on it).
    if (isInterrupted(record.task.status?.state ?? TaskState.UNSPECIFIED)) store.setStatus(record, TaskState.WORKING, []);
    // A stream for a message to a task opens with the task as it stands.
    const task = create(StreamResponseSchema, { payload: { case: "task", value: snapshot(record) } });
    happenings.push({ kind: "event", logged: { id: record.log.length, event: task } });
    record.listeners.add(listen);
  }
  const taskOf = (): TaskRecord => {
    if (record) return record;
    record = store.create(message, TaskState.SUBMITTED);
    happenings.push({ kind: "event", logged: record.log[0]! });
    record.listeners.add(listen);
    return record;
  };
  const stopped = () => (record ? record.cancelled.signal : closing);
  const ended = () => new Error("the task ended");

  async function run(): Promise<void> {
    for (let i = 0; i < script.length; i++) {
      if (stopped().aborted) return;
      const step = stepToRun(script[i]!, onceRan);
      if (step === undefined) continue;
      switch (step.kind) {
        case "wait":
          await sleep(step.ms, stopped(), ended);
          break;
        case "untilSubscribed":
          await untilSubscribed(taskOf(), stopped());
          break;
        case "reply": {
          const contextId = record?.task.contextId || message.contextId || uuid();
          const reply = create(MessageSchema, {
            messageId: uuid(),
            role: Role.AGENT,
            contextId,
            taskId: record?.task.id ?? "",
            parts: [...step.parts],
          });
          happenings.push({ kind: "message", message: reply });
          return;
        }
        case "status": {
          const task = taskOf();
          store.setStatus(task, step.state, step.parts);
          if (isInterrupted(step.state) && i + 1 < script.length) task.pending = script.slice(i + 1);
          if (isInterrupted(step.state) || isTerminal(step.state)) return;
          break;
        }
        case "artifact":
          store.addArtifact(taskOf(), step.parts, step.options);
          break;
        case "untilCancelled": {
          const task = taskOf();
          if (task.task.status?.state !== TaskState.WORKING) store.setStatus(task, TaskState.WORKING, []);
          happenings.push({ kind: "answer" });
          await new Promise<void>((resolve) => {
            const signal = task.cancelled.signal;
            if (signal.aborted) resolve();
            else signal.addEventListener("abort", () => resolve(), { once: true });
          });
          return;
        }
        default:
          happenings.push({ kind: "fault", fault: step });
          if (FINAL_FAULTS.has(step.kind)) return;
      }
    }
    // A script that made no task and sent no reply completes one.
    if (!record) store.setStatus(taskOf(), TaskState.COMPLETED, []);
  }

  run()
    .catch(() => {
      // A wait cut short: the task was cancelled, or the agent closed.
    })
    .finally(() => {
      record?.listeners.delete(listen);
      happenings.end();
    });
  return { happenings, record: () => record };
}
