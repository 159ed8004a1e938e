/**
 * The test agent's handler of gRPC calls, shared by the two ways they
 * arrive: over HTTP/2 on the loopback server (grpc-h2.ts), and as gRPC-web
 * over HTTP/1.1 or in memory (handler.ts, grpc-web.ts). Each call is noted
 * in the log of what the agent saw, as binding `GRPC`, before it is
 * answered.
 */
import type { AgentRequest } from "./exchange.js";
import { answerGrpc, type GrpcAnswer } from "./grpc.js";
import type { HandlerParts } from "./handler.js";
import { noteReceived } from "./received.js";
import { maskedRequest } from "./request-log.js";

/** Answers one gRPC call. */
export type GrpcHandler = (request: AgentRequest) => Promise<GrpcAnswer>;

export function createGrpcHandler(parts: HandlerParts): GrpcHandler {
  return (request) => {
    const entry = noteReceived(parts.log, parts.card(request.url.origin), request);
    return answerGrpc({
      agent: parts.agent,
      request,
      path: request.url.pathname,
      note(binding, method, json) {
        entry.binding = binding;
        entry.method = method;
        entry.request = maskedRequest(method, json);
      },
    });
  };
}
