/** Which exit code an error means. */
import { A2AError, AbortedError, AgentCardNotFoundError, AgentCardVerificationError, AuthenticationError, AuthorizationError, CallTimeoutError, ConnectionError, InvalidAgentCardError, InvalidAgentResponseError, JsonRpcParseError, NoCompatibleInterfaceError, ProtocolError, RedirectRefusedError, StreamResumeError, TaskNotFoundError, VersionNotSupportedError } from "../errors/family.js";
import { UsageError } from "./args.js";
import { EXIT } from "./exit-codes.js";

/** The exit code for an error, by its class (see `EXIT`). */
export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (!(error instanceof A2AError)) return EXIT.unexpected;
  if (error instanceof TaskNotFoundError || error instanceof AgentCardNotFoundError) return EXIT.notFound;
  if (error instanceof AuthenticationError || error instanceof AuthorizationError) return EXIT.auth;
  if (
    error instanceof ConnectionError ||
    error instanceof CallTimeoutError ||
    error instanceof StreamResumeError ||
    error instanceof AbortedError
  ) {
    return EXIT.connection;
  }
  if (
    error instanceof ProtocolError ||
    error instanceof InvalidAgentCardError ||
    error instanceof AgentCardVerificationError ||
    error instanceof RedirectRefusedError ||
    error instanceof NoCompatibleInterfaceError ||
    error instanceof VersionNotSupportedError ||
    error instanceof InvalidAgentResponseError ||
    error instanceof JsonRpcParseError
  ) {
    return EXIT.protocol;
  }
  return EXIT.a2a;
}

export { A2AError };
