/** Which exit code an error means. */
import { A2AError } from "../errors/family.js";
import type { A2AErrorCode } from "../errors/codes.js";
import { UsageError } from "./usage-error.js";
import { EXIT } from "./exit-codes.js";

/**
 * The exit code of each error code (see `EXIT`). A record over every code,
 * so that a new error class does not compile until it has an exit code.
 */
const EXIT_BY_CODE: Readonly<Record<A2AErrorCode, number>> = {
  TASK_NOT_FOUND: EXIT.notFound,
  AGENT_CARD_NOT_FOUND: EXIT.notFound,

  UNAUTHENTICATED: EXIT.auth,
  PERMISSION_DENIED: EXIT.auth,

  CONNECTION_FAILED: EXIT.connection,
  CALL_TIMEOUT: EXIT.connection,
  STREAM_RESUME_FAILED: EXIT.streamLost,
  ABORTED: EXIT.connection,

  PROTOCOL_ERROR: EXIT.protocol,
  INVALID_AGENT_CARD: EXIT.protocol,
  AGENT_CARD_VERIFICATION_FAILED: EXIT.protocol,
  REDIRECT_REFUSED: EXIT.protocol,
  NO_COMPATIBLE_INTERFACE: EXIT.protocol,
  VERSION_NOT_SUPPORTED: EXIT.protocol,
  INVALID_AGENT_RESPONSE: EXIT.protocol,
  PARSE_ERROR: EXIT.protocol,

  TASK_NOT_CANCELABLE: EXIT.a2a,
  PUSH_NOTIFICATION_NOT_SUPPORTED: EXIT.a2a,
  UNSUPPORTED_OPERATION: EXIT.a2a,
  TASK_TERMINAL: EXIT.a2a,
  CONTENT_TYPE_NOT_SUPPORTED: EXIT.a2a,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: EXIT.a2a,
  EXTENSION_SUPPORT_REQUIRED: EXIT.a2a,
  INVALID_REQUEST: EXIT.a2a,
  METHOD_NOT_FOUND: EXIT.a2a,
  INVALID_PARAMS: EXIT.a2a,
  INTERNAL_ERROR: EXIT.a2a,
  SERVER_ERROR: EXIT.a2a,
  UNKNOWN: EXIT.a2a,
};

/** The exit code for an error, by its code (see `EXIT`). */
export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (!(error instanceof A2AError)) return EXIT.unexpected;
  return EXIT_BY_CODE[error.code] ?? EXIT.a2a;
}

export { A2AError };
