/**
 * What a binding's surface is given for one request: the agent, the
 * request, and where to note what the request turned out to be (its
 * operation and message) in the log of what the agent saw.
 */
import type { JsonValue } from "@bufbuild/protobuf";
import type { AgentRequest } from "./exchange.js";
import { LAST_EVENT_ID } from "../protocol/headers.js";
import type { AgentState, CallContext } from "./operations.js";
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
