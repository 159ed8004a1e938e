/** Exit codes of `a2a`, one per class of failure (see classify.ts). */
export const EXIT = {
  /** Success. */
  ok: 0,
  /** A failure that is not an A2A error. */
  unexpected: 1,
  /** A mistake in the command line. */
  usage: 2,
  /** No such task, or no Agent Card. */
  notFound: 3,
  /** Credentials missing, wrong, or not enough. */
  auth: 4,
  /** The agent could not be reached, or did not answer in time. */
  connection: 5,
  /** A broken exchange, or a card that cannot be trusted or used. */
  protocol: 6,
  /** Any other error an agent reported. */
  a2a: 7,
  /** A stream dropped and could not be resumed: the task may still be running. */
  streamLost: 8,
  /** Stopped by Ctrl-C. */
  interrupted: 130,
  /** The reader of stdout or stderr went away early (`| head`): 128 + SIGPIPE, as `cat` ends. */
  brokenPipe: 141,
} as const;

/** For `a2a --help` and the CLI guide (docs/cli.md). */
export const EXIT_CODE_TABLE: ReadonlyArray<readonly [number, string]> = [
  [EXIT.ok, "success: the agent answered, whatever state the task is in (printed; in --json its status.state)"],
  [EXIT.unexpected, "unexpected failure (a bug, or an error that is not an A2A error)"],
  [EXIT.usage, "usage: unknown command or flag, missing or malformed argument"],
  [EXIT.notFound, "not found: TaskNotFoundError, AgentCardNotFoundError"],
  [EXIT.auth, "authentication or authorization: AuthenticationError, AuthorizationError"],
  [EXIT.connection, "connection or timeout: ConnectionError, CallTimeoutError, AbortedError"],
  [
    EXIT.protocol,
    "protocol or trust: ProtocolError, InvalidAgentCardError, AgentCardVerificationError, RedirectRefusedError, NoCompatibleInterfaceError, VersionNotSupportedError, InvalidAgentResponseError, JsonRpcParseError",
  ],
  [EXIT.a2a, "any other A2A error the agent reported (TaskNotCancelableError, UnsupportedOperationError, ...)"],
  [EXIT.streamLost, "a stream dropped and could not be resumed (StreamResumeError); the task may still be running"],
  [EXIT.interrupted, "interrupted (Ctrl-C)"],
  [EXIT.brokenPipe, "stdout or stderr was closed early by its reader (| head); nothing is printed"],
];
