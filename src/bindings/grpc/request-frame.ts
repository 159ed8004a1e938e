/**
 * The request's one message frame, as both gRPC bindings send it (HTTP/2,
 * h2.ts; gRPC-web, web-transport.ts). Browser-safe, as gRPC-web runs in
 * browsers.
 */
import { toBinary, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { InvalidParamsError } from "../../errors/family.js";
import { failedField } from "../../protocol/proto-json.js";
import { encodeFrame } from "./frames.js";

/**
 * `message` in binary, framed. A request that cannot be written (a value of
 * the wrong type, an int32 of NaN) is the caller's: an InvalidParamsError
 * naming the field, never its value, before anything is sent, as on the
 * HTTP bindings.
 */
export function requestFrame<I extends DescMessage>(schema: I, message: MessageShape<I>): Uint8Array<ArrayBuffer> {
  let bytes: Uint8Array;
  try {
    bytes = toBinary(schema, message);
  } catch (e) {
    throw new InvalidParamsError(`the request cannot be written as protobuf (${failedField(e)})`, { binding: "GRPC" });
  }
  return encodeFrame(bytes);
}
