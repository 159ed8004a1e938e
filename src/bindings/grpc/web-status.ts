/**
 * The status of a gRPC-web answer, from its headers (a trailers-only
 * answer, or a status other than 2xx) or its trailers frame, as connect's
 * gRPC-web client reads it: `grpc-status-details-bin` first, else
 * `grpc-status` and `grpc-message`. Read here with our google.rpc.Status
 * schema, whose descriptor is an object literal: connect's own is built at
 * start from an embedded descriptor (fileDesc), which loads descriptor.proto's
 * schemas, some 25 KB minified, into the app. The fields arrive made
 * readable (status-fields.ts): details that disagree with `grpc-status` are
 * gone and `grpc-message` decodes.
 */
import { Code, ConnectError, decodeBinaryHeader } from "@connectrpc/connect";
import { StatusSchema } from "../../../gen/google/rpc/status_pb.js";
import { codeOfHttpStatus } from "./http-status-code.js";

/** The server's error in `fields`, or undefined for none (OK, or no status at all). */
export function statusError(fields: Headers): ConnectError | undefined {
  const details = fields.get("grpc-status-details-bin");
  if (details !== null) {
    const status = decodeBinaryHeader(details, StatusSchema);
    if (status.code === 0) return undefined;
    const error = new ConnectError(status.message, status.code, fields);
    error.details = status.details.map((any) => ({ type: any.typeUrl.slice(any.typeUrl.lastIndexOf("/") + 1), value: any.value }));
    return error;
  }
  const stated = fields.get("grpc-status");
  if (stated === null || stated === "0") return undefined;
  // As connect reads it: the leading digits, a code of 1 to 16.
  const code = Number.parseInt(stated, 10);
  if (code in Code) return new ConnectError(decodeURIComponent(fields.get("grpc-message") ?? ""), code, fields);
  return new ConnectError(`invalid grpc-status: ${stated}`, Code.Internal, fields);
}

/**
 * What the answer's HTTP status and headers say: an error to fail the call
 * with, or whether the headers hold its status (a trailers-only answer,
 * after which no frame may follow). Any 2xx is an answer, as for the
 * grpc-web package; another status is the call's error, coded by
 * http-grpc-status-mapping.md.
 */
export function answerStatus(httpStatus: number, headers: Headers): { error: ConnectError | undefined; trailersOnly: boolean } {
  if (httpStatus >= 200 && httpStatus < 300) return { error: statusError(headers), trailersOnly: headers.has("grpc-status") };
  const message = decodeURIComponent(headers.get("grpc-message") ?? `HTTP ${httpStatus}`);
  return { error: new ConnectError(message, codeOfHttpStatus(httpStatus), headers), trailersOnly: false };
}

/**
 * Throws the server's error in a trailers frame, with the answer's headers
 * added to its metadata; or a protocol error when neither holds a status.
 */
export function checkTrailer(trailer: Headers, header: Headers): void {
  const error = statusError(trailer);
  if (error !== undefined) {
    header.forEach((value, key) => error.metadata.append(key, value));
    throw error;
  }
  if (!trailer.has("grpc-status") && !header.has("grpc-status")) {
    throw new ConnectError("protocol error: missing status", Code.Internal);
  }
}
