/**
 * What `a2a` prints on stderr when a task waits on the caller
 * (INPUT_REQUIRED, AUTH_REQUIRED): the command line that continues it, to
 * paste or to script. It repeats the target and the flags that chose the
 * interface, never a credential: a token is referred to as `A2A_TOKEN`.
 */
import { TaskState, type Task } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { taskStateName } from "../protocol/serialize.js";
import { partsText } from "./format.js";
import type { Output } from "./output.js";

/** What the hint is built from: the command's target argument and options (global flags included). */
export interface HintContext {
  /** The positionals; `url` is the target as typed. */
  args: Record<string, string>;
  /** Every option as parsed, global ones included. */
  options: Record<string, string | boolean | string[] | undefined>;
  /** Where it is printed. */
  out: Output;
}

// Words a POSIX shell reads as themselves.
const SHELL_SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** `arg` as one POSIX shell word: as is when safe, else in single quotes. */
export function shellQuote(arg: string): string {
  return SHELL_SAFE.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The `a2a send` line that answers `task`. */
export function continueCommand(ctx: HintContext, task: Task): string {
  const { options } = ctx;
  const words = ["a2a", "send", ctx.args.url!, "--task", task.id];
  if (task.contextId) words.push("--context", task.contextId);
  for (const flag of ["binding", "timeout"] as const) {
    const value = options[flag];
    if (typeof value === "string") words.push(`--${flag}`, value);
  }
  for (const v of (options["a2a-version"] as string[] | undefined) ?? []) words.push("--a2a-version", v);
  for (const flag of ["auth-over-http", "allow-local-urls"] as const) if (options[flag] === true) words.push(`--${flag}`);
  if (options.json === true) words.push("--json");
  words.push("your reply");
  return words.map(shellQuote).join(" ");
}

/** Prints, on stderr, how to continue `task` when it waits on the caller; nothing otherwise. */
export function printContinueHint(ctx: HintContext, task: Task | undefined): void {
  const state = task?.status?.state;
  if (!task || (state !== TaskState.INPUT_REQUIRED && state !== TaskState.AUTH_REQUIRED)) return;
  const { out, options } = ctx;
  const command = continueCommand(ctx, task);
  // Credentials are never repeated: the token goes through the environment.
  const notes = [
    typeof options.token === "string" ? "--token is not repeated: put the token in A2A_TOKEN" : undefined,
    options.header ? "--header flags are not repeated: add them again" : undefined,
  ].filter((n): n is string => n !== undefined);
  if (out.json) {
    out.jsonError({ continue: { taskId: task.id, contextId: task.contextId, state: taskStateName(state), command, notes } });
    return;
  }
  const status = task.status?.message ? partsText(task.status.message.parts) : "";
  const need = state === TaskState.INPUT_REQUIRED ? "waits for input" : "waits for authorization (provide credentials, e.g. A2A_TOKEN)";
  out.error(`task ${task.id} ${need}${status ? `: ${status}` : ""}`);
  out.error("continue it with:");
  out.error(`  ${command}`);
  for (const note of notes) out.error(`  (${note})`);
}
