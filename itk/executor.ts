/**
 * The kit's agent behind the official @a2a-js/sdk server: each message
 * carries an `Instruction`; the task runs it (answering, calling other agents
 * through this client, or a series of both) and completes with the answers,
 * one per line, in its status message, where the kit and the other SDKs'
 * agents read them. A failure ends the task FAILED with the error's message.
 */
import { randomUUID } from "node:crypto";
import { Role, TaskState, type Message, type Task } from "@a2a-js/sdk";
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import type { Instruction } from "../gen/itk/instruction_pb.js";
import { InvalidParamsError } from "../src/node.js";
import { holdsTask, instructionOf, INSTRUCTION_MEDIA_TYPE } from "./instruction.js";
import { TASK_FINISHED, type Outbound } from "./outbound.js";

/** Options of the kit's executor. */
export interface ItkExecutorOptions {
  /** How long a task that holds stays WORKING unless canceled, in ms. Default 10 000, the kit's baselines' window. */
  holdMs?: number;
  /** One line per task that fails, for the operator; default none. */
  log?: (line: string) => void;
}

/** Deepest nesting of series run by one agent; the kit nests a few levels. */
const MAX_DEPTH = 64;

export class ItkExecutor implements AgentExecutor {
  /** Each live task's cancel: a hold or an outbound call ends when it fires. */
  private readonly live = new Map<string, AbortController>();

  constructor(
    private readonly outbound: Outbound,
    private readonly options: ItkExecutorOptions = {},
  ) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = ctx;
    const publish = (state: TaskState, text?: string): void =>
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(state, ctx, text), metadata: undefined }));

    // Live before the task is published, so that no cancel finds it missing.
    const cancel = new AbortController();
    this.live.set(taskId, cancel);
    try {
      bus.publish(AgentEvent.task(snapshot(ctx)));
      const instruction = instructionOf(ctx.userMessage);
      if (!instruction) {
        publish(TaskState.TASK_STATE_FAILED, `the message carries no Instruction (a part of media type ${INSTRUCTION_MEDIA_TYPE})`);
        return;
      }
      publish(TaskState.TASK_STATE_WORKING);
      const answer = (await this.run(instruction, cancel.signal, 0)).join("\n");
      if (holdsTask(instruction)) {
        // The answer and the marker in a WORKING status: a resubscribing
        // caller reads up to the marker, then cancels the task.
        publish(TaskState.TASK_STATE_WORKING, `${answer}\n${TASK_FINISHED}`);
        await hold(this.options.holdMs ?? 10_000, cancel.signal);
      }
      publish(cancel.signal.aborted ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_COMPLETED, answer);
    } catch (e) {
      if (cancel.signal.aborted) {
        publish(TaskState.TASK_STATE_CANCELED);
      } else {
        const reason = e instanceof Error ? e.message : String(e);
        this.options.log?.(`task ${taskId} failed: ${reason}`);
        publish(TaskState.TASK_STATE_FAILED, reason);
      }
    } finally {
      this.live.delete(taskId);
    }
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const cancel = this.live.get(taskId);
    if (cancel) {
      // execute() ends the task CANCELED once what it awaits has stopped.
      cancel.abort();
      return;
    }
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: "",
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      }),
    );
  }

  /** Ends every live task's hold and outbound calls (the agent is stopping). */
  abortAll(): void {
    for (const cancel of this.live.values()) cancel.abort();
  }

  private async run(instruction: Instruction, signal: AbortSignal, depth: number): Promise<string[]> {
    const step = instruction.step;
    switch (step.case) {
      case "returnResponse":
        return [step.value.response];
      case "callAgent":
        return this.outbound.call(step.value, signal);
      case "steps": {
        if (depth >= MAX_DEPTH) throw new InvalidParamsError(`the instruction nests series of steps deeper than ${MAX_DEPTH}`);
        // Every response generator the kit defines concatenates, in step order.
        const out: string[] = [];
        for (const next of step.value.instructions) out.push(...(await this.run(next, signal, depth + 1)));
        return out;
      }
      default:
        throw new InvalidParamsError("an Instruction without a step (call_agent, return_response or steps)");
    }
  }
}

/** Resolves after `ms`, or as soon as `signal` fires. */
function hold(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

function status(state: TaskState, ctx: RequestContext, text?: string): Task["status"] {
  const message: Message | undefined =
    text === undefined
      ? undefined
      : {
          messageId: randomUUID(),
          contextId: ctx.contextId,
          taskId: ctx.taskId,
          role: Role.ROLE_AGENT,
          parts: [{ content: { $case: "text", value: text }, mediaType: "text/plain", filename: "", metadata: undefined }],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        };
  return { state, message, timestamp: new Date().toISOString() };
}

/** The task as it starts: submitted, with the message that asked for it. */
function snapshot(ctx: RequestContext): Task {
  if (ctx.task) return { ...structuredClone(ctx.task), status: status(TaskState.TASK_STATE_SUBMITTED, ctx) };
  return {
    id: ctx.taskId,
    contextId: ctx.contextId,
    status: status(TaskState.TASK_STATE_SUBMITTED, ctx),
    artifacts: [],
    history: [ctx.userMessage],
    metadata: undefined,
  };
}
