/**
 * What a gateway, proxy or login wall in front of an agent answers instead
 * of the agent (a 429 with Retry-After, a 503, an HTML 404 page, a 401 with
 * a challenge) is the same error, with the same facts, on every binding:
 * JSON-RPC, HTTP+JSON, gRPC over HTTP/2 and gRPC-web. Fake servers: the
 * official agent never answers so.
 */
import type { ServerHttp2Stream } from "node:http2";
import { create, toBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SendMessageResponseSchema } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { A2AClient, type A2AError, createGrpcWebTransport, userMessage, type A2ATransport } from "../../../src/index.js";
import { createGrpcTransport, createJsonRpcTransport, createRestTransport } from "../../../src/node.js";
import { collect } from "../../support/bindings.js";
import { startFakeServer, type FakeServer } from "../../support/fake-server.js";
import { frame, useFakeGrpcServer } from "../../support/fake-grpc-server.js";
import { failure } from "../../support/failure.js";

/** One answer of something in front of the agent: the status, its headers, its body. */
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

let answer: Answer;
const h2 = useFakeGrpcServer();
let http: FakeServer;
beforeAll(async () => {
  http = await startFakeServer((_req, res) => {
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  });
});
afterAll(() => http.close());

function gateway(stream: ServerHttp2Stream): void {
  stream.respond({ ":status": answer.status, ...answer.headers });
  stream.end(answer.body);
}

const TRANSPORTS: ReadonlyArray<[string, () => A2ATransport]> = [
  ["JSON-RPC", () => createJsonRpcTransport({ baseUrl: `${http.url}/rpc` })],
  ["HTTP+JSON", () => createRestTransport({ baseUrl: `${http.url}/rest` })],
  ["gRPC", () => createGrpcTransport({ baseUrl: `127.0.0.1:${h2.port}` })],
  ["gRPC-web", () => createGrpcWebTransport({ baseUrl: `${http.url}/grpc-web` })],
];

const html = (text: string) => ({ headers: { "content-type": "text/html" }, body: `<html><body>${text}</body></html>` });

// Each answer, and the facts it must arrive with whatever the binding.
const ANSWERS: ReadonlyArray<[string, Answer, Partial<A2AError> & { challenge?: string }]> = [
  [
    "429 with Retry-After",
    { status: 429, headers: { "retry-after": "3", "content-type": "text/plain" }, body: "slow down" },
    { name: "ServerError", code: "SERVER_ERROR", transient: true, httpStatus: 429, retryAfterMs: 3000 },
  ],
  [
    "503 with Retry-After",
    { status: 503, ...html("maintenance"), headers: { "retry-after": "2", "content-type": "text/html" } },
    { name: "ServerError", code: "SERVER_ERROR", transient: true, httpStatus: 503, retryAfterMs: 2000 },
  ],
  ["502 page", { status: 502, ...html("bad gateway") }, { name: "ServerError", code: "SERVER_ERROR", transient: true, httpStatus: 502 }],
  [
    "401 with a challenge",
    { status: 401, headers: { "www-authenticate": 'Bearer realm="agents"' }, body: "" },
    { name: "AuthenticationError", code: "UNAUTHENTICATED", transient: false, httpStatus: 401, challenge: 'Bearer realm="agents"' },
  ],
  ["403 page", { status: 403, ...html("forbidden") }, { name: "AuthorizationError", code: "PERMISSION_DENIED", httpStatus: 403 }],
  ["404 page", { status: 404, ...html("not found") }, { name: "MethodNotFoundError", code: "METHOD_NOT_FOUND", httpStatus: 404 }],
  [
    "404 in a framework's JSON ({code, message})",
    { status: 404, headers: { "content-type": "application/json" }, body: JSON.stringify({ code: 404, message: "Not Found" }) },
    { name: "MethodNotFoundError", code: "METHOD_NOT_FOUND", httpStatus: 404 },
  ],
  [
    "429 in a framework's JSON ({code, message})",
    { status: 429, headers: { "content-type": "application/json" }, body: JSON.stringify({ code: 429, message: "Too Many Requests" }) },
    { name: "ServerError", code: "SERVER_ERROR", transient: true, httpStatus: 429 },
  ],
  ["500 page", { status: 500, ...html("oops") }, { name: "ServerError", code: "SERVER_ERROR", transient: false, httpStatus: 500 }],
];

/** The errors of a unary call and of a stream (without resumption) through a fresh client on `transport`. */
async function unaryAndStream(transport: () => A2ATransport): Promise<A2AError[]> {
  const client = new A2AClient(transport());
  return [await failure(client.getTask({ id: "t1" })), await failure(collect(client.subscribeToTask({ id: "t1" }, { resume: false })))];
}

describe.each(ANSWERS)("a gateway's %s", (_what, given, facts) => {
  it.each(TRANSPORTS)("%s: the same error, unary and stream", async (_name, transport) => {
    answer = given;
    h2.handler = gateway;
    for (const e of await unaryAndStream(transport)) {
      expect(e).toMatchObject(facts);
      // The HTTP status of a gateway's body is no JSON-RPC code.
      expect(e.jsonRpcCode).toBeUndefined();
      if (facts.retryAfterMs === undefined) expect(e.retryAfterMs).toBeUndefined();
      if (facts.httpStatus === 404) expect(e.message).toMatch(/^no A2A endpoint at http:\/\/127\.0\.0\.1:\d+\//);
    }
  });
});

it("gRPC: a SendMessage a gateway refused with 429 is sent again, after its Retry-After, with the same message", async () => {
  const bodies: Buffer[] = [];
  h2.handler = (stream, call) => {
    bodies.push(call.body);
    if (bodies.length === 1) {
      stream.respond({ ":status": 429, "retry-after": "0" });
      stream.end();
      return;
    }
    const reply = toBinary(
      SendMessageResponseSchema,
      create(SendMessageResponseSchema, { payload: { case: "message", value: { messageId: "r1" } } }),
    );
    stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
    stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
    stream.end(frame(reply));
  };
  const client = new A2AClient(createGrpcTransport({ baseUrl: `127.0.0.1:${h2.port}` }), { retry: { initialDelayMs: 1 } });
  const res = await client.sendMessage({ message: userMessage("hi") });
  expect(res.payload.case).toBe("message");
  expect(bodies).toHaveLength(2);
  expect(bodies[1]!.equals(bodies[0]!)).toBe(true);
});

describe("a gateway's error page larger than the response limit", () => {
  // Limits far below the page, as a 1 GB page would be past the default ones.
  const LIMITED: ReadonlyArray<[string, () => A2ATransport]> = [
    ["JSON-RPC", () => createJsonRpcTransport({ baseUrl: `${http.url}/rpc`, maxResponseBytes: 1000 })],
    ["HTTP+JSON", () => createRestTransport({ baseUrl: `${http.url}/rest`, maxResponseBytes: 1000 })],
    ["gRPC", () => createGrpcTransport({ baseUrl: `127.0.0.1:${h2.port}`, readMaxBytes: 1000 })],
    ["gRPC-web", () => createGrpcWebTransport({ baseUrl: `${http.url}/grpc-web`, readMaxBytes: 1000 })],
  ];
  const page = html("x".repeat(64 * 1024));
  const OVER: ReadonlyArray<[string, Answer, Partial<A2AError> & { challenge?: string }]> = [
    [
      "503 with Retry-After",
      { status: 503, body: page.body, headers: { ...page.headers, "retry-after": "2" } },
      { name: "ServerError", code: "SERVER_ERROR", transient: true, httpStatus: 503, retryAfterMs: 2000 },
    ],
    [
      "401 with a challenge",
      { status: 401, body: page.body, headers: { ...page.headers, "www-authenticate": 'Bearer realm="agents"' } },
      { name: "AuthenticationError", code: "UNAUTHENTICATED", httpStatus: 401, challenge: 'Bearer realm="agents"' },
    ],
  ];
  describe.each(OVER)("%s", (_what, given, facts) => {
    it.each(LIMITED)("%s: the status's error, unary and stream, not a ProtocolError", async (name, transport) => {
      answer = given;
      h2.handler = gateway;
      for (const e of await unaryAndStream(transport)) {
        expect(e).toMatchObject(facts);
        // The HTTP bindings read error bodies, up to their limit: the error says it was passed.
        if (!name.startsWith("gRPC"))
          expect(e.message).toContain(`HTTP ${given.status} with a body over 1000 bytes (maxResponseBytes), not read`);
      }
    });
  });
});
