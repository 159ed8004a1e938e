/**
 * The test agent's gRPC wire, read raw with node:http2 (and, for gRPC-web,
 * through its in-memory fetch): one port serving HTTP/1.1 and HTTP/2,
 * results as one message frame then `grpc-status: 0` in the trailers, an
 * A2A error as the specification's gRPC code with a google.rpc.Status
 * holding its ErrorInfo in `grpc-status-details-bin` (trailers-only before
 * any message, the trailers after a stream's), a drop as a reset stream
 * that leaves the connection serving, an HTTP status as the `:status`, and
 * what a gRPC server answers a call it cannot take with.
 */
import { connect as h2connect, constants, type ClientHttp2Session, type IncomingHttpHeaders } from "node:http2";
import { create, fromBinary, toBinary, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { afterEach, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../../gen/google/rpc/status_pb.js";
import {
  GetTaskRequestSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
} from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { A2AClient, connect as connectFetch, createGrpcWebTransport, textOf, userMessage } from "../../../src/index.js";
import { createTestAgent, steps, TEST_ERROR_KINDS, type TestAgent, type TestErrorKind } from "../../../src/testing.js";

let agent: TestAgent;
let session: ClientHttp2Session | undefined;
afterEach(async () => {
  session?.destroy();
  session = undefined;
  await agent?.close();
});

const SERVICE = "/lf.a2a.v1.A2AService";

/** The gRPC code of each error, as the specification's table (section 5.4) gives it. */
const SPEC_CODES: Record<TestErrorKind, number> = {
  TASK_NOT_FOUND: 5,
  TASK_NOT_CANCELABLE: 9,
  PUSH_NOTIFICATION_NOT_SUPPORTED: 9,
  UNSUPPORTED_OPERATION: 9,
  CONTENT_TYPE_NOT_SUPPORTED: 3,
  INVALID_AGENT_RESPONSE: 13,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: 9,
  EXTENSION_SUPPORT_REQUIRED: 9,
  VERSION_NOT_SUPPORTED: 9,
  PARSE_ERROR: 3,
  INVALID_REQUEST: 3,
  METHOD_NOT_FOUND: 12,
  INVALID_PARAMS: 3,
  INTERNAL_ERROR: 13,
};

function frame(schema: DescMessage, init: MessageInitShape<DescMessage>): Uint8Array<ArrayBuffer> {
  const message = toBinary(schema, create(schema, init));
  const out = new Uint8Array(5 + message.byteLength);
  new DataView(out.buffer).setUint32(1, message.byteLength);
  out.set(message, 5);
  return out;
}

/** The messages of a body of length-prefixed frames. */
function framesOf(body: Uint8Array): Array<{ flags: number; bytes: Uint8Array }> {
  const out: Array<{ flags: number; bytes: Uint8Array }> = [];
  for (let at = 0; at < body.byteLength; ) {
    const length = new DataView(body.buffer, body.byteOffset + at + 1, 4).getUint32(0);
    out.push({ flags: body[at]!, bytes: body.subarray(at + 5, at + 5 + length) });
    at += 5 + length;
  }
  return out;
}

interface Exchange {
  headers: IncomingHttpHeaders;
  body: Uint8Array;
  trailers: IncomingHttpHeaders | undefined;
  rstCode: number;
}

/** One call on the agent's HTTP/2 port, read to its end. */
async function call(path: string, body: Uint8Array, headers: Record<string, string> = {}): Promise<Exchange> {
  session ??= h2connect((await agent.listen()).url);
  const stream = session.request({
    ":method": "POST",
    ":path": path,
    "content-type": "application/grpc+proto",
    te: "trailers",
    ...headers,
  });
  stream.end(body);
  return new Promise((resolve) => {
    let head: IncomingHttpHeaders = {};
    let trailers: IncomingHttpHeaders | undefined;
    const chunks: Buffer[] = [];
    stream.on("response", (h) => (head = h));
    stream.on("trailers", (t) => (trailers = t));
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("error", () => {});
    stream.on("close", () =>
      resolve({ headers: head, body: new Uint8Array(Buffer.concat(chunks)), trailers, rstCode: stream.rstCode ?? 0 }),
    );
  });
}

const send = (text: string) => frame(SendMessageRequestSchema, { message: userMessage(text) });

/** The google.rpc.Status of `grpc-status-details-bin`, and its ErrorInfo. */
function details(fields: IncomingHttpHeaders) {
  const status = fromBinary(StatusSchema, new Uint8Array(Buffer.from(String(fields["grpc-status-details-bin"]), "base64")));
  return { code: status.code, message: status.message, info: anyUnpack(status.details[0]!, ErrorInfoSchema) };
}

it("serves the card over HTTP/1.1 and gRPC over HTTP/2 on one port, the card's GRPC interface at its origin", async () => {
  agent = createTestAgent({ bindings: ["GRPC", "JSONRPC"], script: [steps.reply("hi")] });
  const server = await agent.listen();
  const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as { supportedInterfaces: unknown[] };
  expect(card.supportedInterfaces).toEqual([
    { url: server.url, protocolBinding: "GRPC", protocolVersion: "1.0" },
    { url: `${server.url}/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
  ]);
  const answer = await call(`${SERVICE}/SendMessage`, send("hello"), { authorization: "Bearer s3cret", "a2a-version": "1.0" });
  expect([answer.headers[":status"], answer.headers["content-type"]]).toEqual([200, "application/grpc+proto"]);
  const [only, ...more] = framesOf(answer.body);
  expect(more).toEqual([]);
  expect(fromBinary(SendMessageResponseSchema, only!.bytes).payload.case).toBe("message");
  expect(answer.trailers?.["grpc-status"]).toBe("0");
  const noted = agent.requests.at(-1)!;
  expect([noted.binding, noted.method, noted.version, noted.httpMethod, noted.path]).toEqual([
    "GRPC",
    "SendMessage",
    "1.0",
    "POST",
    `${SERVICE}/SendMessage`,
  ]);
  expect(noted.headers.authorization).toBe("Bearer ***");
  expect(Object.keys(noted.headers).filter((h) => h.startsWith(":"))).toEqual([]);
  expect(noted.request).toMatchObject({ message: { role: "ROLE_USER", parts: [{ text: "hello" }] } });
});

it("answers an A2A error of each kind with the specification's gRPC code and a google.rpc.Status holding its ErrorInfo, trailers only", async () => {
  agent = createTestAgent({ bindings: ["GRPC"], scripts: TEST_ERROR_KINDS.map((kind) => [steps.error(kind, `100% ${kind} ✓`)]) });
  for (const kind of TEST_ERROR_KINDS) {
    const answer = await call(`${SERVICE}/SendMessage`, send(kind));
    expect(answer.body.byteLength, kind).toBe(0);
    expect(answer.trailers, kind).toBeUndefined();
    expect(answer.headers["grpc-status"], kind).toBe(String(SPEC_CODES[kind]));
    expect(decodeURIComponent(String(answer.headers["grpc-message"])), kind).toBe(`100% ${kind} ✓`);
    const status = details(answer.headers);
    expect([status.code, status.message, status.info?.reason, status.info?.domain], kind).toEqual([
      SPEC_CODES[kind],
      `100% ${kind} ✓`,
      kind,
      "a2a-protocol.org",
    ]);
  }
});

it("ends a stream's messages with the error's status in the trailers", async () => {
  agent = createTestAgent({ bindings: ["GRPC"], script: [steps.working(), steps.error("TASK_NOT_FOUND", "gone")] });
  const answer = await call(`${SERVICE}/SendStreamingMessage`, send("go"));
  const events = framesOf(answer.body).map((f) => fromBinary(StreamResponseSchema, f.bytes).payload.case);
  expect(events).toEqual(["task", "statusUpdate"]);
  expect(answer.trailers?.["grpc-status"]).toBe("5");
  expect(details(answer.trailers!).info?.reason).toBe("TASK_NOT_FOUND");
});

it("a drop resets the call's stream, and the connection serves the next call", async () => {
  agent = createTestAgent({
    bindings: ["GRPC"],
    scripts: [
      [steps.working(), steps.drop()],
      [steps.working(), steps.artifact("x"), steps.drop()],
    ],
  });
  const before = await call(`${SERVICE}/SendMessage`, send("cut"));
  expect([before.headers[":status"], before.trailers, before.rstCode]).toEqual([undefined, undefined, constants.NGHTTP2_INTERNAL_ERROR]);
  const midway = await call(`${SERVICE}/SendStreamingMessage`, send("cut later"));
  expect(framesOf(midway.body).map((f) => fromBinary(StreamResponseSchema, f.bytes).payload.case)).toEqual([
    "task",
    "statusUpdate",
    "artifactUpdate",
  ]);
  expect([midway.trailers, midway.rstCode]).toEqual([undefined, constants.NGHTTP2_INTERNAL_ERROR]);
  const after = await call(`${SERVICE}/GetTask`, frame(GetTaskRequestSchema, { id: agent.tasks()[0]!.id }));
  expect(after.trailers?.["grpc-status"]).toBe("0");
});

it("an HTTP status is the answer's :status with its headers, no gRPC status; raw bytes are its body", async () => {
  agent = createTestAgent({
    bindings: ["GRPC"],
    scripts: [
      [steps.httpStatus(503, { "Retry-After": "1" }, "busy")],
      [steps.raw("<html>Bad gateway</html>", { status: 502, contentType: "text/html" })],
    ],
  });
  const busy = await call(`${SERVICE}/SendMessage`, send("busy?"));
  expect([busy.headers[":status"], busy.headers["retry-after"], busy.headers["grpc-status"], new TextDecoder().decode(busy.body)]).toEqual([
    503,
    "1",
    undefined,
    "busy",
  ]);
  const gateway = await call(`${SERVICE}/SendMessage`, send("hi"));
  expect([gateway.headers[":status"], gateway.headers["content-type"], new TextDecoder().decode(gateway.body)]).toEqual([
    502,
    "text/html",
    "<html>Bad gateway</html>",
  ]);
});

it("answers what a gRPC server answers a call it cannot take: UNIMPLEMENTED, INVALID_ARGUMENT, 415", async () => {
  agent = createTestAgent({ bindings: ["GRPC"] });
  const unknown = await call(`${SERVICE}/Nothing`, send("?"));
  expect([unknown.headers["grpc-status"], details(unknown.headers).info?.reason]).toEqual(["12", "METHOD_NOT_FOUND"]);
  const garbage = await call(`${SERVICE}/SendMessage`, new Uint8Array([0, 0, 0, 0, 2, 0xff, 0xff]));
  expect([garbage.headers["grpc-status"], details(garbage.headers).info?.reason]).toEqual(["3", "INVALID_PARAMS"]);
  const json = await call(`${SERVICE}/SendMessage`, new TextEncoder().encode("{}"), { "content-type": "application/json" });
  expect(json.headers[":status"]).toBe(415);
  expect(agent.requests.map((r) => [r.binding, r.method])).toEqual([
    ["GRPC", "Nothing"],
    ["GRPC", "SendMessage"],
    ["GRPC", ""],
  ]);
});

it("serves gRPC-web in memory, the trailers in a frame of their own", async () => {
  agent = createTestAgent({ bindings: ["GRPC"], script: [steps.working(), steps.complete()] });
  const res = await agent.fetch(`${agent.url}${SERVICE}/SendStreamingMessage`, {
    method: "POST",
    headers: { "content-type": "application/grpc-web+proto", "x-grpc-web": "1" },
    body: send("go"),
  });
  expect([res.status, res.headers.get("content-type")]).toEqual([200, "application/grpc-web+proto"]);
  const frames = framesOf(new Uint8Array(await res.arrayBuffer()));
  expect(frames.map((f) => f.flags)).toEqual([0, 0, 0, 0x80]);
  expect(new TextDecoder().decode(frames.at(-1)!.bytes)).toBe("grpc-status: 0\r\n");
});

it('serves the GRPC interface as gRPC-web on the loopback server\'s HTTP/1.1 side, and in memory to agent.transport("GRPC")', async () => {
  agent = createTestAgent({ bindings: ["GRPC"], script: [steps.reply("gRPC-web")] });
  const server = await agent.listen();
  const { client } = await connectFetch(server.url, { grpcWeb: createGrpcWebTransport });
  expect(textOf(await client.sendMessage({ message: userMessage("over HTTP/1.1") }))).toBe("gRPC-web");
  const direct = new A2AClient(agent.transport("GRPC"));
  expect(textOf(await direct.sendMessage({ message: userMessage("in memory") }))).toBe("gRPC-web");
  const calls = agent.requests.filter((r) => r.binding === "GRPC");
  expect(calls.map((r) => [r.method, r.headers["content-type"]])).toEqual([
    ["SendMessage", "application/grpc-web+proto"],
    ["SendMessage", "application/grpc-web+proto"],
  ]);
});
