/**
 * The test agent's task store: every task with its history and artifacts,
 * and the log of the events each task went through, numbered from 1. The
 * numbers are the SSE `id`s of the stream events, so a stream that dropped
 * is resumed from its `Last-Event-ID` with the events it missed; a
 * subscriber without one starts from the task as it stands. Listeners
 * hear each event as it is logged (the open streams).
 */
import { clone, create } from "@bufbuild/protobuf";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import {
  ArtifactSchema,
  MessageSchema,
  Role,
  StreamResponseSchema,
  TaskArtifactUpdateEventSchema,
  TaskSchema,
  type TaskState,
  TaskStatusUpdateEventSchema,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
} from "../../gen/lf/a2a/v1/a2a_pb.js";
import { isInterrupted, isTerminal } from "../protocol/messages.js";
import { uuid } from "../base/uuid.js";
import type { ArtifactOptions, Script } from "./steps.js";

/** An event of a task's log, with its number (the SSE id). */
export interface LoggedEvent {
  readonly id: number;
  readonly event: StreamResponse;
}

/** One task, as the store keeps it. */
export interface TaskRecord {
  readonly task: Task;
  readonly log: LoggedEvent[];
  readonly listeners: Set<(e: LoggedEvent) => void>;
  /** The steps left when the task paused for input or authentication: the next message to the task runs them. */
  pending: Script | undefined;
  /** Aborted when the task is cancelled: a step that waits ends. */
  readonly cancelled: AbortController;
  /** Order of the last update, newest highest (ListTasks sorts by it). */
  updated: number;
}

/** Hears each task the store makes, before its first event, and each event it logs (push deliveries). */
export interface StoreObserver {
  /** `record` was made for `message`; its first event is not logged yet. */
  created(record: TaskRecord, message: Message): void;
  /** `logged` was added to the record's log. */
  logged(record: TaskRecord, logged: LoggedEvent): void;
}

export class TaskStore {
  readonly #tasks = new Map<string, TaskRecord>();
  #clock = 0;
  readonly #observer: StoreObserver | undefined;

  constructor(observer?: StoreObserver) {
    this.#observer = observer;
  }

  get(id: string): TaskRecord | undefined {
    return this.#tasks.get(id);
  }

  /** Every task, the most recently updated first. */
  newestFirst(): TaskRecord[] {
    return [...this.#tasks.values()].sort((a, b) => b.updated - a.updated);
  }

  /** A new task in `state`, opened by `message` (the user's); its first event is the task itself. */
  create(message: Message, state: TaskState): TaskRecord {
    const id = uuid();
    const contextId = message.contextId || uuid();
    const task = create(TaskSchema, {
      id,
      contextId,
      status: { state, timestamp: timestampNow() },
      history: [{ ...message, taskId: id, contextId }],
    });
    const record: TaskRecord = {
      task,
      log: [],
      listeners: new Set(),
      pending: undefined,
      cancelled: new AbortController(),
      updated: 0,
    };
    this.#tasks.set(id, record);
    this.#observer?.created(record, message);
    this.#log(record, create(StreamResponseSchema, { payload: { case: "task", value: clone(TaskSchema, task) } }));
    return record;
  }

  /** A later message of the user's to the task, kept in its history. */
  addUserMessage(record: TaskRecord, message: Message): void {
    record.task.history.push({ ...message, taskId: record.task.id, contextId: record.task.contextId });
    this.#touch(record);
  }

  /** The task moves to `state`, with an agent message made of `parts` when there are any. */
  setStatus(record: TaskRecord, state: TaskState, parts: readonly Part[]): void {
    const { id, contextId } = record.task;
    const message =
      parts.length === 0
        ? undefined
        : create(MessageSchema, { messageId: uuid(), role: Role.AGENT, taskId: id, contextId, parts: [...parts] });
    const status = { state, timestamp: timestampNow(), message };
    record.task.status = create(TaskSchema, { status }).status;
    if (message) record.task.history.push(message);
    if (isTerminal(state)) record.cancelled.abort();
    const update = create(TaskStatusUpdateEventSchema, { taskId: id, contextId, status: record.task.status });
    this.#log(record, create(StreamResponseSchema, { payload: { case: "statusUpdate", value: update } }));
  }

  /** An artifact, or a chunk appended to one. */
  addArtifact(record: TaskRecord, parts: readonly Part[], options: Readonly<ArtifactOptions>): void {
    const { id, contextId, artifacts } = record.task;
    const artifactId = options.artifactId ?? "artifact-1";
    const artifact = create(ArtifactSchema, { artifactId, name: options.name ?? "", parts: [...parts] });
    const at = artifacts.findIndex((a) => a.artifactId === artifactId);
    if (at < 0) artifacts.push(clone(ArtifactSchema, artifact));
    else if (options.append) artifacts[at]!.parts.push(...parts);
    else artifacts[at] = clone(ArtifactSchema, artifact);
    const update = create(TaskArtifactUpdateEventSchema, {
      taskId: id,
      contextId,
      artifact,
      append: options.append ?? false,
      lastChunk: options.lastChunk ?? false,
    });
    this.#log(record, create(StreamResponseSchema, { payload: { case: "artifactUpdate", value: update } }));
  }

  #log(record: TaskRecord, event: StreamResponse): void {
    this.#touch(record);
    const logged = { id: record.log.length + 1, event };
    record.log.push(logged);
    this.#observer?.logged(record, logged);
    for (const listen of [...record.listeners]) listen(logged);
  }

  #touch(record: TaskRecord): void {
    record.updated = ++this.#clock;
  }

  /** Ends the work on every task: their waiting steps return (the agent is closing). */
  close(): void {
    for (const record of this.#tasks.values()) record.cancelled.abort();
  }
}

/** The task as an answer shows it: a copy, its history cut to the last `historyLength` messages when given. */
export function snapshot(record: TaskRecord, historyLength?: number, withArtifacts = true): Task {
  const task = clone(TaskSchema, record.task);
  if (historyLength !== undefined) task.history = historyLength === 0 ? [] : task.history.slice(-historyLength);
  if (!withArtifacts) task.artifacts = [];
  return task;
}

/** Whether a task in `state` has ended or waits for the user: its streams close there. */
export function endsStream(state: TaskState | undefined): boolean {
  return state !== undefined && (isTerminal(state) || isInterrupted(state));
}

/** The state an event gives its task, when it gives one. */
export function stateOf(event: StreamResponse): TaskState | undefined {
  const p = event.payload;
  if (p.case === "task") return p.value.status?.state;
  if (p.case === "statusUpdate") return p.value.status?.state;
  return undefined;
}
