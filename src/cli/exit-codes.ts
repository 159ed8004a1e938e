/** Exit codes of `a2a`, one per class of failure (see classify.ts). */
export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  notFound: 3,
  auth: 4,
  connection: 5,
  protocol: 6,
  a2a: 7,
  interrupted: 130,
} as const;

/** For `a2a --help` and the README. */
export const EXIT_CODE_TABLE: ReadonlyArray<readonly [number, string]> = [
  [EXIT.ok, "success"],
  [EXIT.unexpected, "unexpected failure (a bug, or an error that is not an A2A error)"],
  [EXIT.usage, "usage: unknown command or flag, missing or malformed argument"],
  [EXIT.notFound, "not found: TaskNotFoundError, AgentCardNotFoundError"],
  [EXIT.auth, "authentication or authorization: AuthenticationError, AuthorizationError"],
  [EXIT.connection, "connection or timeout: ConnectionError, CallTimeoutError, StreamResumeError, AbortedError"],
  [
    EXIT.protocol,
    "protocol or trust: ProtocolError, InvalidAgentCardError, AgentCardVerificationError, RedirectRefusedError, NoCompatibleInterfaceError, VersionNotSupportedError, InvalidAgentResponseError, JsonRpcParseError",
  ],
  [EXIT.a2a, "any other A2A error the agent reported (TaskNotCancelableError, UnsupportedOperationError, ...)"],
  [EXIT.interrupted, "interrupted (Ctrl-C)"],
];
