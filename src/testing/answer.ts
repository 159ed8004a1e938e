/**
 * A reply of the agent's operations written as an HTTP answer, the parts
 * that depend on the binding given by its surface: a result as JSON, an
 * error in the binding's shape, a stream as SSE (each event with its `id`,
 * the number a resumption sends back as `Last-Event-ID`), and the faults
 * of the script. A stream's status is chosen at its first frame, so a
 * fault before any event (a drop, a 503, an error) answers as it would a
 * unary call; after it, a drop cuts the stream, an error is its last
 * event, raw bytes and a malformed event go into it, and an HTTP status
 * (which can no longer be sent) ends it.
 */
import type { DescMessage, JsonValue, Message as ProtoMessage } from "@bufbuild/protobuf";
import type { StreamResponse } from "../../gen/lf/a2a/v1/a2a_pb.js";
import type { TestErrorKind } from "./errors.js";
import { bodyOf, ConnectionCut, untilAborted, type AgentResponse } from "./exchange.js";
import type { Frame, Reply } from "./operations.js";
import type { Fault } from "./run.js";

/** How a binding writes results, errors and events. */
export interface BindingWriter {
  result(schema: DescMessage, message: ProtoMessage): JsonValue;
  error(kind: TestErrorKind, message: string): { status: number; body: JsonValue };
  event(event: StreamResponse): JsonValue;
  errorEvent(kind: TestErrorKind, message: string): JsonValue;
  /** The SSE `event` name of an error event, where the binding names one (0.3's HTTP+JSON: `error`). */
  readonly errorEventName?: string;
}

const encoder = new TextEncoder();

/** JSON that ends in the middle of a string: what a `malformed` step sends. */
const CUT_JSON = '{"result": {"task": {"id": "cut sh';

function json(status: number, body: JsonValue, headers: HeadersInit = {}): AgentResponse {
  const h = new Headers(headers);
  h.set("content-type", "application/json");
  return { status, headers: h, body: bodyOf(encoder.encode(JSON.stringify(body))) };
}

/** One SSE event; JSON has no line breaks, so one `data:` line holds it. */
function sseEvent(data: string, id?: number, event?: string): Uint8Array {
  return encoder.encode(`${event ? `event: ${event}\n` : ""}${id ? `id: ${id}\n` : ""}data: ${data}\n\n`);
}

/** The answer of a fault where no stream has started. */
async function faultAnswer(fault: Fault, writer: BindingWriter, signal: AbortSignal): Promise<AgentResponse> {
  switch (fault.kind) {
    case "drop":
      throw new ConnectionCut(fault.how);
    case "hang":
      return untilAborted(signal);
    case "httpStatus":
      return { status: fault.status, headers: new Headers(fault.headers), body: bodyOf(encoder.encode(fault.body)) };
    case "error": {
      const { status, body } = writer.error(fault.error, fault.message);
      return json(status, body);
    }
    case "raw":
      return { status: fault.status, headers: new Headers({ "content-type": fault.contentType }), body: bodyOf(fault.body) };
    case "malformed":
      return { status: 200, headers: new Headers({ "content-type": "application/json" }), body: bodyOf(encoder.encode(CUT_JSON)) };
  }
}

/** An A2A error of `kind` written as the binding writes errors. */
export function writeError(kind: TestErrorKind, message: string, writer: BindingWriter, signal: AbortSignal): Promise<AgentResponse> {
  return writeReply({ kind: "fault", fault: { kind: "error", error: kind, message } }, writer, signal);
}

/** The HTTP answer of `reply`; `signal` ends what waits on the caller (a hang). */
export async function writeReply(reply: Reply, writer: BindingWriter, signal: AbortSignal): Promise<AgentResponse> {
  if (reply.kind === "result") return json(200, writer.result(reply.schema, reply.message));
  if (reply.kind === "fault") return faultAnswer(reply.fault, writer, signal);
  const frames = reply.frames[Symbol.asyncIterator]();
  const first = await frames.next();
  if (!first.done && first.value.kind === "fault" && first.value.fault.kind !== "malformed") {
    await frames.return?.();
    return faultAnswer(first.value.fault, writer, signal);
  }
  const headers = new Headers({ "content-type": "text/event-stream", "cache-control": "no-cache" });
  return { status: 200, headers, body: streamBody(first, frames, writer, signal) };
}

async function* streamBody(
  first: IteratorResult<Frame>,
  frames: AsyncIterator<Frame>,
  writer: BindingWriter,
  signal: AbortSignal,
): AsyncGenerator<Uint8Array> {
  try {
    for (let next = first; !next.done; next = await frames.next()) {
      const frame = next.value;
      if (frame.kind === "event") {
        yield sseEvent(JSON.stringify(writer.event(frame.logged.event)), frame.logged.id);
        continue;
      }
      const fault = frame.fault;
      switch (fault.kind) {
        case "drop":
          throw new ConnectionCut(fault.how);
        case "hang":
          await untilAborted(signal);
          return;
        case "httpStatus":
          return;
        case "error":
          yield sseEvent(JSON.stringify(writer.errorEvent(fault.error, fault.message)), undefined, writer.errorEventName);
          return;
        case "raw":
          yield fault.body;
          break;
        case "malformed":
          yield encoder.encode(`data: ${CUT_JSON}\n\n`);
          break;
      }
    }
  } finally {
    await frames.return?.();
  }
}
