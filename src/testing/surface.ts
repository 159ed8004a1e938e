/**
 * What a binding's surface is given for one request: the agent, the
 * request, and where to note what the request turned out to be (its
 * operation and message) in the log of what the agent saw.
 */
import { toJson, type DescMethod, type JsonValue, type Message as ProtoMessage } from "@bufbuild/protobuf";
import type { AgentRequest } from "./exchange.js";
import { LAST_EVENT_ID } from "../protocol/headers.js";
import { AgentAnswerError, type TestErrorKind } from "./errors.js";
import { answerOperation } from "./operation-faults.js";
import { OPERATIONS, type AgentState, type CallContext, type Reply } from "./operations.js";
import type { ReceivedRequest } from "./request-log.js";

/** A surface's view of one request. */
export interface SurfaceCall {
  readonly agent: AgentState;
  readonly request: AgentRequest;
  /** The path under the interface's URL (HTTP+JSON routes are matched on it). */
  readonly path: string;
  /** Notes the operation called and its request message, as the specification's JSON. */
  note(binding: ReceivedRequest["binding"], method: string, request: JsonValue | undefined): void;
}

/** What an operation is given of the request besides its message. */
export function callContext(request: AgentRequest): CallContext {
  return { lastEventId: request.headers.get(LAST_EVENT_ID) ?? undefined, signal: request.signal, origin: request.url.origin };
}

/** The request body as JSON; undefined when it is empty, or not JSON. */
export function bodyJson(body: Uint8Array): { json: unknown } | undefined {
  if (body.byteLength === 0) return { json: undefined };
  try {
    return { json: JSON.parse(new TextDecoder().decode(body)) as unknown };
  } catch {
    return undefined;
  }
}

/**
 * Runs the operation a surface read a request as: notes the request (its
 * operation and message), runs it on the agent and hands its reply to
 * `write`; an A2A error the operation throws (a task it does not hold, ...)
 * goes to `refuse`, to be written as the binding writes errors.
 */
export async function runOperation<A>(
  call: SurfaceCall,
  binding: NonNullable<ReceivedRequest["binding"]>,
  method: DescMethod,
  message: ProtoMessage,
  context: CallContext,
  write: (reply: Reply) => Promise<A>,
  refuse: (kind: TestErrorKind, message: string) => A | Promise<A>,
): Promise<A> {
  call.note(binding, method.name, toJson(method.input, message));
  try {
    return await write(await answerOperation(method.name, OPERATIONS[method.name]!, call.agent, message, context));
  } catch (e) {
    if (e instanceof AgentAnswerError) return refuse(e.kind, e.message);
    throw e;
  }
}
