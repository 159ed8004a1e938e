/**
 * Faults of any operation, the ones that run no script included (GetTask,
 * ListTasks, CancelTask, SubscribeToTask...): the `faults` option gives, per
 * operation, steps the agent runs before it answers a request of that
 * operation. A wait delays the answer; the first fault that runs is the
 * answer (a 503, a cut connection, an error, silence). A fault wrapped in
 * `once` acts on the first request only, so several in a row fail that many
 * requests before the operation answers as usual: how a test makes a poll
 * or a retried read fail, then succeed.
 */
import type { Message as ProtoMessage } from "@bufbuild/protobuf";
import { followSignal } from "../base/abort.js";
import { sleep } from "../base/timers.js";
import type { CallContext, Operation, AgentState, Reply } from "./operations.js";
import type { Fault } from "./run.js";
import {
  stepToRun,
  type DropStep,
  type ErrorStep,
  type HangStep,
  type HttpStatusStep,
  type MalformedStep,
  type OnceStep,
  type RawStep,
  type WaitStep,
} from "./steps.js";

/** An A2A operation of the test agent, by its proto name. @category Testing */
export type TestOperation =
  | "SendMessage"
  | "SendStreamingMessage"
  | "GetTask"
  | "ListTasks"
  | "CancelTask"
  | "SubscribeToTask"
  | "GetExtendedAgentCard"
  | "CreateTaskPushNotificationConfig"
  | "GetTaskPushNotificationConfig"
  | "ListTaskPushNotificationConfigs"
  | "DeleteTaskPushNotificationConfig";

/** A step that can come before an operation's answer: a wait, a fault, or one of those once. @category Testing */
export type FaultStep = WaitStep | HangStep | DropStep | HttpStatusStep | ErrorStep | RawStep | MalformedStep | OnceStep;

/**
 * Steps run before the agent answers each request of an operation, e.g.
 * `{ GetTask: [steps.once(steps.httpStatus(503, { "Retry-After": "1" }))] }`.
 * @category Testing
 */
export type OperationFaults = Partial<Record<TestOperation, readonly FaultStep[]>>;

const stopped = () => new Error("the call went away");

/** Runs the faults of operation `name` for one request: the fault that answers it, or undefined when none does. */
async function faultFor(agent: AgentState, name: string, signal: AbortSignal): Promise<Fault | undefined> {
  for (const listed of agent.faults[name as TestOperation] ?? []) {
    const step = stepToRun(listed, agent.onceRan);
    if (step === undefined) continue;
    if (step.kind !== "wait") return step as Fault;
    // The wait ends when the caller goes away or the agent closes.
    const either = followSignal(signal);
    const onClose = () => either.controller.abort();
    if (agent.closing.aborted) onClose();
    else agent.closing.addEventListener("abort", onClose, { once: true });
    try {
      await sleep(step.ms, either.controller.signal, stopped);
    } finally {
      either.unlink();
      agent.closing.removeEventListener("abort", onClose);
    }
  }
  return undefined;
}

/** Answers a request of operation `name`: its faults first, then, when none answered, the operation. */
export async function answerOperation(
  name: string,
  operation: Operation,
  agent: AgentState,
  request: ProtoMessage,
  context: CallContext,
): Promise<Reply> {
  const fault = await faultFor(agent, name, context.signal);
  return fault ? { kind: "fault", fault } : operation(agent, request, context);
}
