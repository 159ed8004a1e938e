/**
 * The request handler both ways of running the test agent share: the card
 * at its well-known path, JSON-RPC and HTTP+JSON under their interface
 * paths (the 0.3 wire's under its own, v0_3-card.ts), gRPC-web calls
 * (grpc-web.ts), and every request noted in the log of what the agent saw
 * before it is answered (a request that hangs is in the log too).
 */
import type { AgentCardJson } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { CARD_PATH, INTERFACE_PATHS, type TestBinding } from "./card.js";
import { bodyOf, type AgentHandler, type AgentResponse } from "./exchange.js";
import { createGrpcHandler } from "./grpc-handler.js";
import { grpcWebResponse, isGrpcWeb } from "./grpc-web.js";
import { answerHttpJson } from "./http-json.js";
import { answerJsonRpc } from "./jsonrpc.js";
import type { AgentState } from "./operations.js";
import { noteReceived } from "./received.js";
import { maskedRequest, type ReceivedRequest } from "./request-log.js";
import { KEYS_PATH, type CardSigner } from "./sign.js";
import type { SurfaceCall } from "./surface.js";
import { INTERFACE_PATHS_V03, servedCard, type TestVersion } from "./v0_3-card.js";
import { answerHttpJsonV03 } from "./v0_3-http-json.js";
import { answerJsonRpcV03 } from "./v0_3-jsonrpc.js";

/** What the handler serves. */
export interface HandlerParts {
  readonly agent: AgentState;
  readonly bindings: readonly TestBinding[];
  /** The card as served at an origin. */
  card(origin: string): AgentCardJson;
  /** Where received requests are noted. */
  readonly log: ReceivedRequest[];
  /** The card as served at an origin when the agent signs it; and the key set that verifies it, served at KEYS_PATH. */
  readonly signer?: CardSigner | undefined;
  /** The versions served, each on every binding. Default `["1.0"]`. */
  readonly versions?: readonly TestVersion[] | undefined;
}

const json = (value: unknown): AgentResponse => ({
  status: 200,
  headers: new Headers({ "content-type": "application/json" }),
  body: bodyOf(new TextEncoder().encode(JSON.stringify(value))),
});

/** Each version's surface of each binding. */
const SURFACES: Readonly<
  Record<
    TestVersion,
    {
      paths: Readonly<Record<Exclude<TestBinding, "GRPC">, string>>;
      answer: Record<Exclude<TestBinding, "GRPC">, (call: SurfaceCall) => Promise<AgentResponse>>;
    }
  >
> = {
  "1.0": { paths: INTERFACE_PATHS, answer: { JSONRPC: answerJsonRpc, "HTTP+JSON": answerHttpJson } },
  "0.3": { paths: INTERFACE_PATHS_V03, answer: { JSONRPC: answerJsonRpcV03, "HTTP+JSON": answerHttpJsonV03 } },
};

const text = (status: number, body: string): AgentResponse => ({
  status,
  headers: new Headers({ "content-type": "text/plain" }),
  body: bodyOf(new TextEncoder().encode(body)),
});

export function createHandler(parts: HandlerParts): AgentHandler {
  const versions = parts.versions ?? ["1.0"];
  const surfaces = versions.flatMap((v) =>
    parts.bindings.flatMap((binding) =>
      binding === "GRPC" ? [] : [{ binding, base: SURFACES[v].paths[binding], answer: SURFACES[v].answer[binding] }],
    ),
  );
  // gRPC over HTTP/1.1 is gRPC-web, at the service's paths on the agent's origin.
  const grpcWeb = parts.bindings.includes("GRPC") ? createGrpcHandler(parts) : undefined;
  return async (request) => {
    if (grpcWeb && isGrpcWeb(request.headers)) return grpcWebResponse(await grpcWeb(request));
    const card = parts.card(request.url.origin);
    const entry = noteReceived(parts.log, card, request);
    const path = request.url.pathname;
    if (path === CARD_PATH) {
      entry.method = "AgentCard";
      if (request.method !== "GET") return text(405, "GET only");
      const served = servedCard(card, versions);
      return json(parts.signer ? await parts.signer.served(request.url.origin, served) : served);
    }
    if (path === KEYS_PATH && parts.signer) {
      entry.method = "KeySet";
      if (request.method !== "GET") return text(405, "GET only");
      return json(await parts.signer.keySet());
    }
    for (const { binding, base, answer } of surfaces) {
      const under = binding === "JSONRPC" ? path === base : path.startsWith(`${base}/`);
      if (!under) continue;
      const call: SurfaceCall = {
        agent: parts.agent,
        request,
        path: path.slice(base.length),
        note(b, method, json) {
          entry.binding = b;
          entry.method = method;
          entry.request = maskedRequest(method, json);
        },
      };
      return answer(call);
    }
    return text(404, `the test agent serves nothing at ${path}`);
  };
}
