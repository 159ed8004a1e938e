/**
 * The test agent's gRPC surface (specification section 10): a POST to
 * `/lf.a2a.v1.A2AService/{Method}` whose body is one length-prefixed
 * protobuf request, answered as a gRPC server answers: a result as one
 * message then an OK status in the trailers, a stream as its messages then
 * the status, an A2A error as a status (trailers only, or the trailers
 * after the messages a stream sent) with its ErrorInfo. The agent's
 * operations are those of the other surfaces (operations.ts).
 *
 * The script's faults on gRPC: a drop resets the call's HTTP/2 stream
 * (RST_STREAM); an HTTP status and raw bytes are an answer that is not
 * gRPC, as a proxy in front of a server gives one (raw bytes inside a
 * stream go into it as they are); a malformed step is a frame whose bytes
 * are not the message. An HTTP status cannot be sent once a stream has
 * started: there it fails the call with INTERNAL, saying so. gRPC has no
 * Last-Event-ID: SubscribeToTask opens with the task as it stands, and
 * a resuming client rebases on it.
 *
 * What carries the answer is not this file's business: HTTP/2 on loopback
 * (grpc-h2.ts), or gRPC-web over HTTP/1.1 and in memory (grpc-web.ts).
 */
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { A2AService, StreamResponseSchema } from "../../gen/lf/a2a/v1/a2a_pb.js";
import type { TestErrorKind } from "./errors.js";
import { bodyOf, ConnectionCut, untilAborted } from "./exchange.js";
import { errorStatus, GRPC_CODES, GRPC_CONTENT_TYPE, grpcFrame, okStatus, plainStatus, requestMessage } from "./grpc-wire.js";
import { OPERATIONS, type Frame, type Reply } from "./operations.js";
import type { Fault } from "./run.js";
import { runOperation, type SurfaceCall } from "./surface.js";

/** The path prefix of the service's methods. */
export const GRPC_SERVICE_PATH = `/${A2AService.typeName}/`;

/** Request content types of gRPC and gRPC-web, with protobuf. */
const GRPC_REQUEST_TYPE = /^application\/grpc(-web)?(\+proto)?\s*(;|$)/i;

/**
 * The agent's answer to a gRPC call, whatever carries it: a status alone
 * (a trailers-only answer), a gRPC answer (messages, then the trailers the
 * body returns), or an answer that is not gRPC (an HTTP status, raw bytes).
 */
export type GrpcAnswer =
  | { readonly kind: "trailersOnly"; readonly fields: Headers }
  | { readonly kind: "grpc"; readonly headers: Headers; readonly body: AsyncGenerator<Uint8Array, Headers> }
  | { readonly kind: "http"; readonly status: number; readonly headers: Headers; readonly body: AsyncIterable<Uint8Array> };

/** A message frame that is not the message: a field whose bytes are cut short (what a `malformed` step sends). */
const CUT_MESSAGE = grpcFrame(new Uint8Array([0x0a, 0x10, 0x0a, 0x03]));

const grpcHeaders = () => new Headers({ "content-type": GRPC_CONTENT_TYPE });

function statusOnly(status: Headers): GrpcAnswer {
  const fields = grpcHeaders();
  status.forEach((value, name) => fields.set(name, value));
  return { kind: "trailersOnly", fields };
}

const refusal = (kind: TestErrorKind, message: string) => statusOnly(errorStatus(kind, message));

/** A gRPC answer of these frames, then `status`. */
function framed(frames: Uint8Array[], status: Headers): GrpcAnswer {
  async function* body(): AsyncGenerator<Uint8Array, Headers> {
    yield* frames;
    return status;
  }
  return { kind: "grpc", headers: grpcHeaders(), body: body() };
}

/** Answers one gRPC call; throws ConnectionCut where the script drops it. */
export async function answerGrpc(call: SurfaceCall): Promise<GrpcAnswer> {
  const { request } = call;
  if (request.method !== "POST")
    return { kind: "http", status: 405, headers: new Headers({ allow: "POST" }), body: bodyOf(new Uint8Array()) };
  const type = request.headers.get("content-type") ?? "";
  if (!GRPC_REQUEST_TYPE.test(type)) {
    call.note("GRPC", "", undefined);
    const body = new TextEncoder().encode(`the test agent's gRPC interface takes application/grpc, not ${type || "(none)"}`);
    return { kind: "http", status: 415, headers: new Headers({ "content-type": "text/plain" }), body: bodyOf(body) };
  }
  const name = call.path.startsWith(GRPC_SERVICE_PATH) ? call.path.slice(GRPC_SERVICE_PATH.length) : "";
  const method = A2AService.methods.find((m) => m.name === name);
  const operation = OPERATIONS[name];
  if (!method || !operation) {
    call.note("GRPC", name, undefined);
    return refusal("METHOD_NOT_FOUND", `no method ${call.path}`);
  }
  const framedRequest = requestMessage(request.body);
  if ("wrong" in framedRequest) {
    call.note("GRPC", name, undefined);
    return refusal("INVALID_REQUEST", framedRequest.wrong);
  }
  let message;
  try {
    message = fromBinary(method.input, framedRequest.message);
  } catch (e) {
    call.note("GRPC", name, undefined);
    return refusal("INVALID_PARAMS", `not a ${method.input.typeName}: ${e instanceof Error ? e.message : String(e)}`);
  }
  // No Last-Event-ID on gRPC: a subscription opens with the task as it stands.
  const context = { lastEventId: undefined, signal: request.signal };
  return runOperation(call, "GRPC", method, message, context, (reply) => grpcReply(reply, request.signal), refusal);
}

/** The answer of a fault where no message has been sent. */
async function faultAnswer(fault: Fault, signal: AbortSignal): Promise<GrpcAnswer> {
  switch (fault.kind) {
    case "drop":
      throw new ConnectionCut(fault.how);
    case "hang":
      return untilAborted(signal);
    case "httpStatus":
      return {
        kind: "http",
        status: fault.status,
        headers: new Headers(fault.headers),
        body: bodyOf(new TextEncoder().encode(fault.body)),
      };
    case "error":
      return refusal(fault.error, fault.message);
    case "raw":
      return { kind: "http", status: fault.status, headers: new Headers({ "content-type": fault.contentType }), body: bodyOf(fault.body) };
    case "malformed":
      return framed([CUT_MESSAGE], okStatus());
  }
}

/** The gRPC answer of `reply`; `signal` ends what waits on the caller (a hang). */
async function grpcReply(reply: Reply, signal: AbortSignal): Promise<GrpcAnswer> {
  if (reply.kind === "result") return framed([grpcFrame(toBinary(reply.schema, reply.message))], okStatus());
  if (reply.kind === "fault") return faultAnswer(reply.fault, signal);
  const frames = reply.frames[Symbol.asyncIterator]();
  const first = await frames.next();
  // A fault before the first message answers as it would a unary call (a malformed frame is the stream's first message).
  if (!first.done && first.value.kind === "fault" && first.value.fault.kind !== "malformed") {
    await frames.return?.();
    return faultAnswer(first.value.fault, signal);
  }
  return { kind: "grpc", headers: grpcHeaders(), body: streamBody(first, frames, signal) };
}

async function* streamBody(
  first: IteratorResult<Frame>,
  frames: AsyncIterator<Frame>,
  signal: AbortSignal,
): AsyncGenerator<Uint8Array, Headers> {
  try {
    for (let next = first; !next.done; next = await frames.next()) {
      const frame = next.value;
      if (frame.kind === "event") {
        yield grpcFrame(toBinary(StreamResponseSchema, frame.logged.event));
        continue;
      }
      const fault = frame.fault;
      switch (fault.kind) {
        case "drop":
          throw new ConnectionCut(fault.how);
        case "hang":
          return await untilAborted(signal);
        case "httpStatus":
          return plainStatus(
            GRPC_CODES.INTERNAL,
            `the test agent's script sends HTTP ${fault.status} inside a gRPC stream, where no HTTP status can be sent`,
          );
        case "error":
          return errorStatus(fault.error, fault.message);
        case "raw":
          yield fault.body;
          break;
        case "malformed":
          yield CUT_MESSAGE;
          break;
      }
    }
    return okStatus();
  } finally {
    await frames.return?.();
  }
}
