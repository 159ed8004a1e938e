/**
 * The errors the test agent answers with, and how each binding writes one:
 * the specification's mapping table (section 5.4) from the agent's side,
 * with JSON-RPC's standard errors beside the A2A ones. JSON-RPC sends
 * `{code, message, data: [ErrorInfo]}` (section 9.5); HTTP+JSON a
 * `google.rpc.Status` with an ErrorInfo among its details under the HTTP
 * status of the table (section 11.6). The reason in the ErrorInfo is the
 * client's error code (`TASK_NOT_FOUND`), so a test names an error as the
 * client will report it.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { A2AErrorCode } from "../errors/codes.js";

/** How one error is written on each binding. */
interface ErrorWire {
  jsonRpc: number;
  httpStatus: number;
  /** The gRPC status's name, the `status` of a google.rpc.Status. */
  grpcStatus: string;
}

// Keyed by the client's own error codes, which the compiler holds each key to.
const WIRE = {
  TASK_NOT_FOUND: { jsonRpc: -32001, httpStatus: 404, grpcStatus: "NOT_FOUND" },
  TASK_NOT_CANCELABLE: { jsonRpc: -32002, httpStatus: 400, grpcStatus: "FAILED_PRECONDITION" },
  PUSH_NOTIFICATION_NOT_SUPPORTED: { jsonRpc: -32003, httpStatus: 400, grpcStatus: "FAILED_PRECONDITION" },
  UNSUPPORTED_OPERATION: { jsonRpc: -32004, httpStatus: 400, grpcStatus: "FAILED_PRECONDITION" },
  CONTENT_TYPE_NOT_SUPPORTED: { jsonRpc: -32005, httpStatus: 400, grpcStatus: "INVALID_ARGUMENT" },
  INVALID_AGENT_RESPONSE: { jsonRpc: -32006, httpStatus: 500, grpcStatus: "INTERNAL" },
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: { jsonRpc: -32007, httpStatus: 400, grpcStatus: "FAILED_PRECONDITION" },
  EXTENSION_SUPPORT_REQUIRED: { jsonRpc: -32008, httpStatus: 400, grpcStatus: "FAILED_PRECONDITION" },
  VERSION_NOT_SUPPORTED: { jsonRpc: -32009, httpStatus: 400, grpcStatus: "FAILED_PRECONDITION" },
  PARSE_ERROR: { jsonRpc: -32700, httpStatus: 400, grpcStatus: "INVALID_ARGUMENT" },
  INVALID_REQUEST: { jsonRpc: -32600, httpStatus: 400, grpcStatus: "INVALID_ARGUMENT" },
  METHOD_NOT_FOUND: { jsonRpc: -32601, httpStatus: 404, grpcStatus: "UNIMPLEMENTED" },
  INVALID_PARAMS: { jsonRpc: -32602, httpStatus: 400, grpcStatus: "INVALID_ARGUMENT" },
  INTERNAL_ERROR: { jsonRpc: -32603, httpStatus: 500, grpcStatus: "INTERNAL" },
} as const satisfies { readonly [K in A2AErrorCode]?: ErrorWire };

/**
 * An error the test agent can answer with, by its `google.rpc.ErrorInfo`
 * reason: the client's error code for it (`TASK_NOT_FOUND`).
 * @category Testing
 */
export type TestErrorKind = keyof typeof WIRE;

/** Every error kind the test agent answers with, in the specification's table order. @category Testing */
export const TEST_ERROR_KINDS = Object.keys(WIRE) as readonly TestErrorKind[];

/** An error the agent answers a call with: thrown by its operations, written by the binding the call came on. */
export class AgentAnswerError extends Error {
  constructor(
    readonly kind: TestErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "AgentAnswerError";
  }
}

/** The `google.rpc.ErrorInfo` of an error, as ProtoJSON (an `Any`). */
function errorInfo(kind: TestErrorKind): JsonObject {
  return { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: kind, domain: "a2a-protocol.org" };
}

/** The JSON-RPC error object of an error (section 9.5). */
export function jsonRpcErrorObject(kind: TestErrorKind, message: string): JsonObject {
  return { code: WIRE[kind].jsonRpc, message, data: [errorInfo(kind)] };
}

/** The gRPC status of an error, by its name in the specification's table (`NOT_FOUND`). */
export function grpcStatusName(kind: TestErrorKind): (typeof WIRE)[TestErrorKind]["grpcStatus"] {
  return WIRE[kind].grpcStatus;
}

/** The HTTP status and `{"error": google.rpc.Status}` body of an error on HTTP+JSON (section 11.6). */
export function httpJsonError(kind: TestErrorKind, message: string): { status: number; body: JsonObject } {
  const { httpStatus, grpcStatus } = WIRE[kind];
  return { status: httpStatus, body: { error: { code: httpStatus, status: grpcStatus, message, details: [errorInfo(kind)] } } };
}
