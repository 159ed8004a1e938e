/**
 * The errors the Java SDK's 0.3 servers name on HTTP+JSON: instead of the
 * A2A error's code, `{"error": "io.a2a.spec.TaskNotFoundError", "message":
 * "..."}`, as an error answer (404, 409, ...) and as a stream's only event.
 * The class's simple name says which A2A error it is, as the SDK's own
 * client reads it (its RestErrorMapper). Part of the 0.3 wire, loaded on
 * demand with it.
 */
import {
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  InternalError,
  InvalidAgentResponseError,
  InvalidParamsError,
  InvalidRequestError,
  JsonRpcParseError,
  MethodNotFoundError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "../errors/family.js";
import type { ErrorClass } from "../errors/classify.js";
import { isRecord } from "../base/is-record.js";

// The SDK's error classes (io.a2a.spec, 0.3.3.Final) that its REST handler
// writes, by simple name, and ours for each. Its JSONRPCError, an error of
// no A2A name, is not among them: its body is read as any other error body.
const CLASSES: ReadonlyMap<string, ErrorClass> = new Map<string, ErrorClass>([
  ["TaskNotFoundError", TaskNotFoundError],
  ["TaskNotCancelableError", TaskNotCancelableError],
  ["PushNotificationNotSupportedError", PushNotificationNotSupportedError],
  ["UnsupportedOperationError", UnsupportedOperationError],
  ["ContentTypeNotSupportedError", ContentTypeNotSupportedError],
  ["InvalidAgentResponseError", InvalidAgentResponseError],
  ["AuthenticatedExtendedCardNotConfiguredError", ExtendedAgentCardNotConfiguredError],
  ["JSONParseError", JsonRpcParseError],
  ["InvalidRequestError", InvalidRequestError],
  ["MethodNotFoundError", MethodNotFoundError],
  ["InvalidParamsError", InvalidParamsError],
  ["InternalError", InternalError],
]);

/**
 * Our class of the A2A error `json` names as a Java SDK 0.3 server does: an
 * object whose `error` is a string naming one of the classes above (the
 * name after its last `.`) and whose `message` is a string. Undefined for
 * any other body, an unknown class's included, which is read as before.
 */
export function javaErrorClass(json: unknown): ErrorClass | undefined {
  if (!isRecord(json) || typeof json.error !== "string" || typeof json.message !== "string") return undefined;
  return CLASSES.get(json.error.slice(json.error.lastIndexOf(".") + 1));
}
