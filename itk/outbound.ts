/**
 * The calls the kit's `CallAgent` step asks for, made with this client: the
 * other agent's card is resolved, one interface of the binding the step
 * names is used (never another binding: the kit tests that one), and the
 * nested instruction is sent the way the step's behavior says. The answer
 * is the text the other agent answered with, one entry per message. Each
 * call is logged when it ends (`log`), so that a kit run can be read.
 */
import { randomUUID } from "node:crypto";
import type { CallAgent } from "../gen/itk/instruction_pb.js";
import {
  A2AError,
  connect,
  InvalidAgentResponseError,
  InvalidParamsError,
  isTerminal,
  loggingInterceptor,
  Role,
  TaskNotCancelableError,
  TaskState,
  taskStateName,
  textOf,
  taskIdOf,
  userMessage,
  type AgentSession,
  type CallOptions,
  type Binding,
  type ConnectOptions,
  type Message,
  type SendMessageRequestSchema,
  type StreamResponse,
  type Task,
  type TaskStatus,
} from "../src/node.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { callLogLine } from "../src/observability.js";
import { bindingOfTransport, instructionPart } from "./instruction.js";

type SendRequest = MessageInitShape<typeof SendMessageRequestSchema>;

/** The marker a holding agent ends its answer with; a resubscribing caller reads until it. */
export const TASK_FINISHED = "task-finished";

/** How outbound calls are made. */
export interface OutboundOptions {
  /**
   * connect() options for every agent called (interceptors, timeouts, card
   * cache, verification). The binding rules are the step's and override
   * `bindings`.
   */
  connect?: ConnectOptions;
  /** Deadline of one outbound call, streams included, in ms. Default 120 000 (the kit's own read timeout). */
  callTimeoutMs?: number;
  /**
   * One line per outbound call when it ends: `outbound a2a SendMessage
   * JSONRPC 1.0 http://127.0.0.1:9001/jsonrpc ok 12.3ms` (binding, version,
   * method, URL, outcome, the error's class); default none.
   */
  log?: (line: string) => void;
}

/** Makes the calls of `CallAgent` steps, one session per agent and binding. */
export class Outbound {
  private readonly sessions = new Map<string, Promise<AgentSession>>();

  constructor(private readonly options: OutboundOptions = {}) {}

  /**
   * Runs one `CallAgent` step; ends by `signal` (the task's cancel) or the
   * call deadline. A failure names the binding and the agent, and a hop that
   * ends its task failed, rejected or canceled is one, so the first agent's
   * answer says which hop of a trip broke and why.
   */
  async call(step: CallAgent, signal: AbortSignal): Promise<string[]> {
    const binding = bindingOfTransport(step.transport);
    try {
      return await this.callOn(binding, step, signal);
    } catch (e) {
      throw new A2AError(`${binding} call to ${step.agentCardUri} failed: ${e instanceof Error ? e.message : String(e)}`, {
        binding,
        cause: e,
      });
    }
  }

  private async callOn(binding: Binding, step: CallAgent, signal: AbortSignal): Promise<string[]> {
    if (!step.instruction) throw new InvalidParamsError("CallAgent has no instruction to pass on");
    const session = await this.session(step.agentCardUri, binding);
    const request: SendRequest = {
      message: userMessage(instructionPart(step.instruction)),
      configuration: pushConfiguration(step),
    };
    // Streams have no deadline unless the call sets one: every call here does.
    const call = { signal, timeoutMs: this.options.callTimeoutMs ?? 120_000 };
    const { client } = session;
    if (step.behavior.case === "resubscribe") return resubscribe(session, request, call);
    const out: string[] = [];
    if (step.streaming) {
      for await (const event of client.sendStreamingMessage(request, call)) eventTexts(event, out);
      return out;
    }
    const response = await client.sendMessage(request, call);
    if (response.payload.case === "message") messageText(response.payload.value, out);
    else if (response.payload.case === "task") taskTexts(response.payload.value, out, false);
    return out;
  }

  private session(uri: string, binding: Binding): Promise<AgentSession> {
    const key = `${binding} ${uri}`;
    let session = this.sessions.get(key);
    if (!session) {
      session = open(uri, binding, this.options.connect, this.options.log);
      // A failure is not kept: the agent may be up by the next step.
      session.catch(() => this.sessions.delete(key));
      this.sessions.set(key, session);
    }
    return session;
  }
}

/**
 * A session on `binding` only (`bindings`): the card's own order decides
 * among that binding's interfaces (1.0 or 0.3), and a call never fails over
 * to another binding. A card without it fails with NoCompatibleInterfaceError.
 * With `log`, every call is logged as it ends, outermost, so that the line
 * has the outcome the caller gets.
 */
async function open(uri: string, binding: Binding, options: ConnectOptions = {}, log?: (line: string) => void): Promise<AgentSession> {
  const logging = log && loggingInterceptor((entry) => log(`outbound ${callLogLine(entry)}`));
  return connect(uri, {
    // The kit's agents publish unsigned cards, and key sets of its agents
    // (not always on loopback) are served over http: a signature is checked
    // when present, against keys from the agent's own origin.
    verification: { jku: { allowHttp: true } },
    ...options,
    transport: logging ? { ...options.transport, interceptors: [logging, ...(options.transport?.interceptors ?? [])] } : options.transport,
    bindings: [binding],
  });
}

/** The push config of a `push_notification` step: the kit's service at `{url}/notifications`. */
function pushConfiguration(step: CallAgent): SendRequest["configuration"] {
  if (step.behavior.case !== "pushNotification") return undefined;
  const given = step.behavior.value.url;
  const base = /^https?:\/\//i.test(given) ? given : `http://${given}`;
  if (!given || !URL.canParse(base)) throw new InvalidParamsError(`PushNotificationBehavior.url "${given}" is not a URL`);
  // The kit's service stores what it gets and checks no token; a fresh one
  // per call still lets a receiver tell the calls apart.
  return { taskPushNotificationConfig: { url: `${base.replace(/\/+$/, "")}/notifications`, token: randomUUID() } };
}

/**
 * Send, drop the stream once the task id is known, subscribe to the task and
 * read until the holding agent's `task-finished` marker, then cancel the task.
 */
async function resubscribe(session: AgentSession, request: SendRequest, call: CallOptions): Promise<string[]> {
  const { client } = session;
  let taskId: string | undefined;
  // Leaving the loop closes the stream's connection; the task goes on.
  for await (const event of client.sendStreamingMessage(request, call)) if ((taskId = taskIdOf(event))) break;
  if (!taskId) throw new InvalidAgentResponseError("the agent's stream ended without naming a task, so there is none to subscribe to");

  const out: string[] = [];
  let finished = false;
  for await (const event of client.subscribeToTask({ id: taskId }, call)) {
    const texts: string[] = [];
    eventTexts(event, texts, true);
    for (const text of texts) {
      finished ||= text.includes(TASK_FINISHED);
      const answer = text.replaceAll(TASK_FINISHED, "").trim();
      if (answer) out.push(answer);
    }
    if (finished) break;
  }
  try {
    await client.cancelTask({ id: taskId }, call);
  } catch (e) {
    // Ended meanwhile (its hold ran out): nothing left to cancel.
    if (!(e instanceof TaskNotCancelableError)) throw e;
  }
  return out;
}

/** A hop whose task ended without an answer (failed, rejected, canceled) fails the step, with what its agent said. */
function checkState(status: TaskStatus | undefined): void {
  if (status && isTerminal(status.state) && status.state !== TaskState.COMPLETED) {
    throw new A2AError(`its task ended ${taskStateName(status.state)}${status.message ? `: ${textOf(status.message, " ")}` : ""}`);
  }
}

function messageText(message: Message | undefined, out: string[]): void {
  const text = textOf(message, "\n");
  if (text) out.push(text);
}

/**
 * A task's answer: its status message; where that has no text, the agent's
 * messages in its history (agents differ in where the last answer stays).
 * `withHistory` reads both, for a subscription's first snapshot.
 */
function taskTexts(task: Task, out: string[], withHistory: boolean): void {
  checkState(task.status);
  const before = out.length;
  messageText(task.status?.message, out);
  if (out.length > before && !withHistory) return;
  const statusId = task.status?.message?.messageId;
  for (const m of task.history) if (m.role === Role.AGENT && m.messageId !== statusId) messageText(m, out);
}

function eventTexts(event: StreamResponse, out: string[], withHistory = false): void {
  const p = event.payload;
  if (p.case === "message") messageText(p.value, out);
  else if (p.case === "task") taskTexts(p.value, out, withHistory);
  else if (p.case === "statusUpdate") {
    checkState(p.value.status);
    messageText(p.value.status?.message, out);
  }
}
