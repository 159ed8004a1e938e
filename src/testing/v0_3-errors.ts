/**
 * The test agent's errors on the 0.3 wire: JSON-RPC's error object with
 * the code of 0.3's table (specification 0.3, section 8), `{code,
 * message}` without the ErrorInfo 1.0 adds, so a client knows it by its
 * code alone, as it must know a 0.3 agent's. The codes are the 1.0 ones
 * (errors.ts), which 0.3's table has the same; the errors 0.3 lacks
 * (VERSION_NOT_SUPPORTED, EXTENSION_SUPPORT_REQUIRED) keep 1.0's codes,
 * as the official SDKs' 0.3 surfaces send them. HTTP+JSON 0.3 sends the
 * same object under the HTTP status of 1.0's table, as 0.3 servers do.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { httpJsonError, jsonRpcErrorObject, type TestErrorKind } from "./errors.js";

/** The JSON-RPC 0.3 error object of an error. */
export function errorObjectV03(kind: TestErrorKind, message: string): JsonObject {
  return { code: jsonRpcErrorObject(kind, message).code ?? null, message };
}

/** The HTTP status and body of an error on HTTP+JSON 0.3. */
export function httpJsonErrorV03(kind: TestErrorKind, message: string): { status: number; body: JsonObject } {
  return { status: httpJsonError(kind, message).status, body: errorObjectV03(kind, message) };
}
