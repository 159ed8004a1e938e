/**
 * The entry a request gets in the log of what the agent saw, made when it
 * arrives (so that a request that hangs is in the log too), from what its
 * headers and URL tell, credentials masked; the surface that answers it
 * fills in its binding, operation and message once it has read them.
 */
import type { AgentCardJson } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { A2A_VERSION } from "../protocol/headers.js";
import { apiKeyNames } from "./card.js";
import type { AgentRequest } from "./exchange.js";
import { maskedHeaders, maskedPath, type ReceivedRequest } from "./request-log.js";

/** A log entry as its surface completes it. */
export type LogEntry = { -readonly [K in keyof ReceivedRequest]: ReceivedRequest[K] };

/** Notes `request` in `log`, masking what `card`'s API key schemes name too; returns its entry. */
export function noteReceived(log: ReceivedRequest[], card: AgentCardJson, request: AgentRequest): LogEntry {
  const named = apiKeyNames(card);
  const entry: LogEntry = {
    binding: undefined,
    method: "",
    version: request.headers.get(A2A_VERSION) ?? request.url.searchParams.get("A2A-Version") ?? undefined,
    httpMethod: request.method,
    path: maskedPath(request.url, named),
    headers: maskedHeaders(request.headers, named),
    request: undefined,
    receivedAt: Date.now(),
  };
  log.push(entry);
  return entry;
}
