/** Runs one `a2a` command line and returns its exit code. */
import type { Readable } from "node:stream";
import { UsageError, parseCommandLine } from "./args.js";
import { EXIT } from "./exit-codes.js";
import { helpText, usageHint } from "./help.js";
import { Output, type OutputOptions } from "./output.js";

/** The streams, environment and signal a run uses; tests give their own. */
export interface RunOptions extends Omit<OutputOptions, "json" | "secrets"> {
  /** Aborts the command in flight (Ctrl-C). */
  signal?: AbortSignal;
  /** Where the message text `-` is read from. Default `process.stdin`. */
  stdin?: Readable;
  /** What `a2a --version` prints. */
  version?: string;
}

/** Runs one `a2a` command line (without `node` and the script) and returns its exit code. */
export async function run(argv: readonly string[], options: RunOptions = {}): Promise<number> {
  // Known before parsing, so that a usage error is JSON too when --json was asked for.
  let out = new Output({ ...options, json: wantsJson(argv) });
  let code: number;
  try {
    const parsed = parseCommandLine(argv, options.env);
    if (parsed.kind === "help") {
      out.line(helpText(parsed.command).trimEnd());
      code = EXIT.ok;
    } else if (parsed.kind === "version") {
      out.line(options.version ?? "unknown");
      code = EXIT.ok;
    } else {
      out = new Output({ ...options, json: parsed.flags.json, secrets: parsed.flags.secrets });
      const signal = options.signal ?? new AbortController().signal;
      try {
        // The client is loaded only to run a command, so help and usage errors are quick.
        const { COMMANDS } = await import("./commands.js");
        await COMMANDS[parsed.command]({ ...parsed, out, signal, stdin: options.stdin ?? process.stdin });
        code = EXIT.ok;
      } catch (e) {
        if (signal.aborted) {
          code = EXIT.interrupted;
          if (out.json) out.jsonError({ error: { name: "Interrupted", message: "interrupted", exitCode: code } });
          else out.error("interrupted");
        } else {
          code = await report(out, e, parsed.command);
        }
      }
    }
  } catch (e) {
    code = await report(out, e, undefined);
  }
  await out.flush();
  return code;
}

/** Prints an error on stderr (JSON with --json) and returns its exit code. */
async function report(out: Output, e: unknown, command: string | undefined): Promise<number> {
  if (e instanceof UsageError) {
    const hint = usageHint(e.command ?? command);
    if (out.json) out.jsonError({ error: { name: "UsageError", message: e.message, exitCode: EXIT.usage, hint } });
    else {
      out.error(`a2a: ${e.message}`);
      out.error(hint);
    }
    return EXIT.usage;
  }
  const { exitCodeOf, A2AError } = await import("./classify.js");
  const code = exitCodeOf(e);
  const name = e instanceof Error ? e.name : "Error";
  const message = e instanceof Error ? e.message : String(e);
  if (out.json) {
    const a2a = e instanceof A2AError ? e : undefined;
    out.jsonError({
      error: {
        name,
        message,
        exitCode: code,
        ...(a2a?.reason ? { reason: a2a.reason } : {}),
        ...(a2a?.binding ? { binding: a2a.binding } : {}),
        ...(a2a?.httpStatus ? { httpStatus: a2a.httpStatus } : {}),
      },
    });
  } else {
    out.error(`a2a: ${name}: ${message}`);
    if (code === EXIT.unexpected && e instanceof Error && e.stack && process.env.A2A_DEBUG) out.error(e.stack);
  }
  return code;
}

/** `--json` among the flags (not after `--`, where it would be an argument). */
function wantsJson(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === "--") return false;
    if (a === "--json") return true;
  }
  return false;
}
