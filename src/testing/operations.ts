/**
 * The A2A operations of the test agent, whatever the binding: each takes
 * the request message and answers with a reply the binding writes (a
 * result, a stream of events, or a fault of the script's), or throws an
 * AgentAnswerError. Scripts run for SendMessage and SendStreamingMessage;
 * the other operations read and change the store as an agent would.
 */
import { create, type DescMessage, type Message as ProtoMessage } from "@bufbuild/protobuf";
import {
  ListTasksResponseSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskSchema,
  TaskState,
  AgentCardSchema,
  type AgentCard,
  type CancelTaskRequest,
  type GetTaskRequest,
  type ListTasksRequest,
  type Message,
  type SendMessageRequest,
  type SubscribeToTaskRequest,
  type Task,
  type TaskPushNotificationConfig,
} from "../../gen/lf/a2a/v1/a2a_pb.js";
import { isTerminal } from "../protocol/messages.js";
import { Channel } from "./channel.js";
import { AgentAnswerError } from "./errors.js";
import type { PushNotifier } from "./push.js";
import type { CardSigner } from "./sign.js";
import { notifierOf, PUSH_OPERATIONS, refuseUnlessValid } from "./push-operations.js";
import type { OperationFaults } from "./operation-faults.js";
import { runTurn, type Fault, type RunContext, type Turn } from "./run.js";
import type { Script } from "./steps.js";
import { endsStream, snapshot, stateOf, type LoggedEvent, type TaskRecord } from "./store.js";
import { subscribed } from "./subscriptions.js";

/** What one event of a stream is: a logged event (with its SSE id), a direct reply, or a fault. */
export type Frame = { kind: "event"; logged: LoggedEvent } | { kind: "fault"; fault: Fault };

/** What a binding writes for a call. */
export type Reply =
  | { kind: "result"; schema: DescMessage; message: ProtoMessage }
  | { kind: "stream"; frames: AsyncIterable<Frame> }
  | { kind: "fault"; fault: Fault };

/** What a call brings besides its request message. */
export interface CallContext {
  /** The `Last-Event-ID` of a resumed stream. */
  lastEventId: string | undefined;
  /** Aborted when the caller goes away: the call stops listening to its task (the task goes on). */
  signal: AbortSignal;
  /** The origin the call came to (the loopback server's, or the in-memory URL): a signed extended card names its key set there. */
  origin?: string | undefined;
}

/** Closes `channel` when `signal` aborts, so that a call waiting on it ends; returns what undoes that. */
function closedOnAbort(channel: Pick<Channel<unknown>, "close">, signal: AbortSignal): () => void {
  const close = () => channel.close();
  if (signal.aborted) close();
  else signal.addEventListener("abort", close, { once: true });
  return () => signal.removeEventListener("abort", close);
}

/** What the operations need from the agent. */
export interface AgentState extends RunContext {
  /** The script for a message; `task` is the task it continues, if any. */
  scriptFor(message: Message, task: Task | undefined): Script;
  /** The extended card, when the agent has one. */
  extendedCard: AgentCard | undefined;
  /** The push configs and deliveries, when the agent was made with push. */
  push: PushNotifier | undefined;
  /** Signs the extended card as served at an origin, when the agent signs its cards. */
  signer: Pick<CardSigner, "extendedAt"> | undefined;
  /** Steps run before each request of an operation is answered (operation-faults.ts). */
  readonly faults: OperationFaults;
}

/** An operation of the agent, by its proto method name. */
export type Operation = (agent: AgentState, request: ProtoMessage, context: CallContext) => Promise<Reply>;

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;

const result = (schema: DescMessage, message: ProtoMessage): Reply => ({ kind: "result", schema, message });

function found(agent: AgentState, id: string): TaskRecord {
  const record = agent.store.get(id);
  if (!record) throw new AgentAnswerError("TASK_NOT_FOUND", `no task ${id}`);
  return record;
}

/**
 * Starts the run for a message: on the task it continues (its steps left, else a new script), or on a task of its own;
 * `config`, the push config sent with the message, is registered for that task before the run logs anything.
 */
function startTurn(agent: AgentState, message: Message | undefined, config?: TaskPushNotificationConfig): Turn {
  if (!message) throw new AgentAnswerError("INVALID_PARAMS", "the request has no message");
  // An agent without push refuses a config here as it refuses the config operations, before anything runs.
  const notifier = config && notifierOf(agent);
  if (config) refuseUnlessValid(config);
  if (!message.taskId) {
    if (notifier && config) notifier.registerForNewTask(message, config);
    return runTurn(agent, message, agent.scriptFor(message, undefined), undefined);
  }
  const record = found(agent, message.taskId);
  const state = record.task.status?.state ?? TaskState.UNSPECIFIED;
  if (isTerminal(state)) throw new AgentAnswerError("UNSUPPORTED_OPERATION", `task ${message.taskId} has ended and takes no more messages`);
  if (notifier && config) notifier.register(record.task.id, config);
  const script = record.pending ?? agent.scriptFor(message, snapshot(record));
  record.pending = undefined;
  return runTurn(agent, message, script, record);
}

async function sendMessage(agent: AgentState, request: ProtoMessage, context: CallContext): Promise<Reply> {
  const { message, configuration } = request as SendMessageRequest;
  const turn = startTurn(agent, message, configuration?.taskPushNotificationConfig);
  const unlink = closedOnAbort(turn.happenings, context.signal);
  try {
    for (let next = await turn.happenings.next(); !next.done; next = await turn.happenings.next()) {
      const h = next.value;
      if (h.kind === "message")
        return result(SendMessageResponseSchema, create(SendMessageResponseSchema, { payload: { case: "message", value: h.message } }));
      if (h.kind === "fault") return { kind: "fault", fault: h.fault };
      if (h.kind === "answer" || configuration?.returnImmediately) break;
    }
  } finally {
    unlink();
    turn.happenings.close();
  }
  const record = turn.record();
  // No task and no reply: the run was cut short (the caller went away, or the agent closed).
  if (!record) throw new AgentAnswerError("INTERNAL_ERROR", "the test agent stopped before it answered");
  const task = snapshot(record, configuration?.historyLength);
  return result(SendMessageResponseSchema, create(SendMessageResponseSchema, { payload: { case: "task", value: task } }));
}

async function sendStreamingMessage(agent: AgentState, request: ProtoMessage, context: CallContext): Promise<Reply> {
  const { message, configuration } = request as SendMessageRequest;
  const turn = startTurn(agent, message, configuration?.taskPushNotificationConfig);
  async function* frames(): AsyncGenerator<Frame> {
    const unlink = closedOnAbort(turn.happenings, context.signal);
    try {
      for (let next = await turn.happenings.next(); !next.done; next = await turn.happenings.next()) {
        const h = next.value;
        if (h.kind === "answer") continue;
        if (h.kind === "message") {
          const event = create(StreamResponseSchema, { payload: { case: "message", value: h.message } });
          yield { kind: "event", logged: { id: 0, event } };
          return;
        }
        yield h;
        if (h.kind === "event" && endsStream(stateOf(h.logged.event))) return;
      }
    } finally {
      unlink();
      turn.happenings.close();
    }
  }
  return { kind: "stream", frames: frames() };
}

async function getTask(agent: AgentState, request: ProtoMessage): Promise<Reply> {
  const { id, historyLength } = request as GetTaskRequest;
  return result(TaskSchema, snapshot(found(agent, id), historyLength));
}

async function listTasks(agent: AgentState, request: ProtoMessage): Promise<Reply> {
  const r = request as ListTasksRequest;
  const pageSize = r.pageSize ?? DEFAULT_PAGE_SIZE;
  if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) throw new AgentAnswerError("INVALID_PARAMS", `pageSize must be 1 to ${MAX_PAGE_SIZE}`);
  const start = r.pageToken === "" ? 0 : Number(r.pageToken);
  if (!Number.isInteger(start) || start < 0) throw new AgentAnswerError("INVALID_PARAMS", "pageToken is not one this agent gave");
  const after = r.statusTimestampAfter;
  const matching = agent.store.newestFirst().filter(({ task }) => {
    if (r.contextId && task.contextId !== r.contextId) return false;
    if (r.status !== TaskState.UNSPECIFIED && task.status?.state !== r.status) return false;
    const at = task.status?.timestamp;
    if (after && at && (at.seconds < after.seconds || (at.seconds === after.seconds && at.nanos <= after.nanos))) return false;
    return true;
  });
  const page = matching.slice(start, start + pageSize);
  const end = start + page.length;
  return result(
    ListTasksResponseSchema,
    create(ListTasksResponseSchema, {
      tasks: page.map((t) => snapshot(t, r.historyLength, r.includeArtifacts ?? false)),
      nextPageToken: end < matching.length ? String(end) : "",
      pageSize,
      totalSize: matching.length,
    }),
  );
}

async function cancelTask(agent: AgentState, request: ProtoMessage): Promise<Reply> {
  const record = found(agent, (request as CancelTaskRequest).id);
  const state = record.task.status?.state ?? TaskState.UNSPECIFIED;
  if (isTerminal(state)) throw new AgentAnswerError("TASK_NOT_CANCELABLE", `task ${record.task.id} has ended`);
  record.pending = undefined;
  agent.store.setStatus(record, TaskState.CANCELED, []);
  return result(TaskSchema, snapshot(record));
}

/**
 * The task's events from a resumed stream's `Last-Event-ID` on (those it
 * missed), or from the task as it stands; then live, until the task ends
 * or waits for the user.
 */
async function subscribeToTask(agent: AgentState, request: ProtoMessage, context: CallContext): Promise<Reply> {
  const record = found(agent, (request as SubscribeToTaskRequest).id);
  const state = record.task.status?.state ?? TaskState.UNSPECIFIED;
  if (isTerminal(state))
    throw new AgentAnswerError("UNSUPPORTED_OPERATION", `task ${record.task.id} has ended: there is nothing to subscribe to`);
  const seen = context.lastEventId === undefined ? Number.NaN : Number(context.lastEventId);
  async function* frames(): AsyncGenerator<Frame> {
    // The replay and the listener are taken in one go: no event falls between the two.
    const first: LoggedEvent[] =
      Number.isInteger(seen) && seen >= 0 && seen <= record.log.length
        ? record.log.slice(seen)
        : [{ id: record.log.length, event: create(StreamResponseSchema, { payload: { case: "task", value: snapshot(record) } }) }];
    const live = new Channel<LoggedEvent>();
    const listen = (e: LoggedEvent) => live.push(e);
    record.listeners.add(listen);
    subscribed(record);
    const unlink = closedOnAbort(live, context.signal);
    try {
      for (const logged of first) {
        yield { kind: "event", logged };
        if (endsStream(stateOf(logged.event))) return;
      }
      for (let next = await live.next(); !next.done; next = await live.next()) {
        yield { kind: "event", logged: next.value };
        if (endsStream(stateOf(next.value.event))) return;
      }
    } finally {
      unlink();
      record.listeners.delete(listen);
      live.close();
    }
  }
  return { kind: "stream", frames: frames() };
}

async function getExtendedAgentCard(agent: AgentState, _request: ProtoMessage, context: CallContext): Promise<Reply> {
  const { extendedCard: card, signer } = agent;
  if (!card) throw new AgentAnswerError("EXTENDED_AGENT_CARD_NOT_CONFIGURED", "this agent has no extended card");
  const { origin } = context;
  return result(AgentCardSchema, signer && origin !== undefined ? await signer.extendedAt(origin, card) : card);
}

/** The operations by proto method name. */
export const OPERATIONS: Readonly<Record<string, Operation>> = {
  SendMessage: sendMessage,
  SendStreamingMessage: sendStreamingMessage,
  GetTask: getTask,
  ListTasks: listTasks,
  CancelTask: cancelTask,
  SubscribeToTask: subscribeToTask,
  GetExtendedAgentCard: getExtendedAgentCard,
  ...PUSH_OPERATIONS,
};
