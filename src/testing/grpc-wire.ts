/**
 * What the test agent puts on the wire as a gRPC server (gRPC over HTTP/2,
 * PROTOCOL-HTTP2.md; specification section 10.6): length-prefixed message
 * frames, and a call's status as `grpc-status`, `grpc-message` and, for an
 * A2A error, `grpc-status-details-bin`: a binary `google.rpc.Status` whose
 * details hold a `google.rpc.ErrorInfo` naming the error, under the gRPC
 * code of the specification's table (section 5.4). Plain bytes: the entry
 * stays browser-safe (no Buffer).
 */
import { create, toBinary } from "@bufbuild/protobuf";
import { anyPack } from "@bufbuild/protobuf/wkt";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import { base64 } from "../base/base64.js";
import { grpcStatusName, type TestErrorKind } from "./errors.js";

/** The content type of the agent's gRPC answers. */
export const GRPC_CONTENT_TYPE = "application/grpc+proto";

/** gRPC's status codes by name, for the names the specification's table uses (and OK). */
export const GRPC_CODES = {
  OK: 0,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
} as const satisfies { readonly [K in ReturnType<typeof grpcStatusName>]: number } & { readonly OK: 0 };

/** One uncompressed message frame: flag byte 0, big-endian length, the message. */
export function grpcFrame(message: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + message.byteLength);
  new DataView(out.buffer).setUint32(1, message.byteLength);
  out.set(message, 5);
  return out;
}

/** The one message of a request's body, or why it is not one uncompressed frame holding all of it. */
export function requestMessage(body: Uint8Array): { message: Uint8Array } | { wrong: string } {
  if (body.byteLength < 5) return { wrong: "the request is not a gRPC message frame" };
  if (body[0] !== 0) return { wrong: `the request's frame has flags 0x${body[0]!.toString(16)}; the test agent takes no compression` };
  const length = new DataView(body.buffer, body.byteOffset + 1, 4).getUint32(0);
  if (length !== body.byteLength - 5) return { wrong: "the request is not one gRPC message frame" };
  return { message: body.subarray(5) };
}

/** `grpc-message` as gRPC writes it: percent-encoded outside printable ASCII, and `%` itself. */
function grpcMessage(text: string): string {
  return text.replace(/[^\x20-\x24\x26-\x7e]+/gu, (run) => encodeURIComponent(run));
}

/** The status fields of a call that succeeded. */
export function okStatus(): Headers {
  return new Headers({ "grpc-status": String(GRPC_CODES.OK) });
}

/** The status fields of a call that failed with `code`, without details (not an A2A error). */
export function plainStatus(code: number, message: string): Headers {
  return new Headers({ "grpc-status": String(code), "grpc-message": grpcMessage(message) });
}

/** The status fields of an A2A error: its code in the table, and a google.rpc.Status with its ErrorInfo. */
export function errorStatus(kind: TestErrorKind, message: string): Headers {
  const code = GRPC_CODES[grpcStatusName(kind)];
  const info = create(ErrorInfoSchema, { reason: kind, domain: "a2a-protocol.org" });
  const status = create(StatusSchema, { code, message, details: [anyPack(ErrorInfoSchema, info)] });
  const fields = plainStatus(code, message);
  fields.set("grpc-status-details-bin", base64(toBinary(StatusSchema, status)));
  return fields;
}
