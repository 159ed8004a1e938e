// Runs the `a2a` CLI in this process (no child process: quick under load),
// with its stdin, stdout, stderr and environment in the test's hands.
import { Readable, Writable } from "node:stream";
import { run } from "../../src/cli/run.js";

/** What one run printed, and its exit code. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `a2a <args>` with `input` as stdin and `env` as the whole
 * environment; `onStderr` sees stderr as it grows; `stderrIsTTY` makes
 * stderr pass for a terminal.
 */
export async function runCli(
  args: string[],
  options: {
    input?: string[];
    env?: NodeJS.ProcessEnv;
    signal?: AbortSignal;
    onStderr?: (all: string) => void;
    stderrIsTTY?: boolean;
  } = {},
): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const sink = (add: (s: string) => void) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        add(chunk.toString());
        done();
      },
    });
  const code = await run(args, {
    stdin: Readable.from(options.input ?? []),
    stdout: sink((s) => (stdout += s)),
    stderr: Object.assign(
      sink((s) => {
        stderr += s;
        options.onStderr?.(stderr);
      }),
      { isTTY: options.stderrIsTTY === true },
    ),
    env: options.env ?? {},
    signal: options.signal,
  });
  return { code, stdout, stderr };
}
