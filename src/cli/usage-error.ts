/** The error of a command line that `a2a` cannot run (in a module of its own, so that the parsers it spans share it without a cycle). */

/** A mistake in how the CLI was called: exit code 2, with a hint. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose help applies, e.g. "task get". */
    readonly command?: string,
  ) {
    super(message);
    this.name = "UsageError";
  }
}
