/**
 * What gRPC puts on an HTTP/2 stream (gRPC over HTTP/2, PROTOCOL-HTTP2.md):
 * length-prefixed message frames, and a status in the trailers (or in the
 * headers of a response without messages). Errors are `ConnectError`s shaped
 * for the binding's classification (transport.ts, errors/classify.ts): a status from the
 * server carries `grpc-status` in its metadata; nothing else does.
 */
import { fromBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import type { IncomingHttpHeaders, IncomingHttpStatusHeader } from "node:http2";
import { StatusSchema } from "../../../gen/google/rpc/status_pb.js";
import { codeOfHttpStatus } from "./http-status-code.js";
import { httpAnswerError } from "./http-answer.js";
import { parseRetryAfter } from "../../errors/retry-after.js";
import { decodeGrpcMessage } from "./status-fields.js";

const GRPC_CONTENT_TYPE = /^application\/grpc(\+proto)?\s*(;|$)/i;

/**
 * Why the response headers show this is not a gRPC answer we can read, or
 * that it is an error status without messages; undefined when the messages
 * may follow. A status other than 200 is gRPC's code for it, with the
 * response headers as metadata and, as the cause, the error the call
 * reports (http-answer.ts): what was said, by the HTTP status.
 */
export function responseError(headers: IncomingHttpHeaders & IncomingHttpStatusHeader, url: string): ConnectError | undefined {
  const status = headers[":status"] ?? 0;
  if (status !== 200) {
    // gRPC reads a non-200 answer by its HTTP status alone (PROTOCOL-HTTP2.md), whatever status it names.
    const metadata = metadataOf(headers);
    metadata.delete("grpc-status");
    return new ConnectError(
      `HTTP ${status}`,
      codeOfHttpStatus(status),
      metadata,
      undefined,
      httpAnswerError(status, metadata, url, parseRetryAfter(metadata.get("retry-after"))),
    );
  }
  // A status in the headers is the server's answer, whatever the content type.
  if (headers["grpc-status"] !== undefined) return statusError(headers);
  const type = headers["content-type"];
  if (type === undefined || !GRPC_CONTENT_TYPE.test(type)) {
    return new ConnectError(`unsupported content type ${type ?? "(none)"}`, Code.Internal);
  }
  return undefined;
}

/**
 * The call's status from trailers, or from the headers when they carried it:
 * undefined for OK, else the server's error, with these fields (and the
 * response headers before trailers) as metadata and the details of
 * `grpc-status-details-bin`.
 */
export function statusError(fields: IncomingHttpHeaders, header?: IncomingHttpHeaders): ConnectError | undefined {
  const status = one(fields["grpc-status"]);
  if (status === "0") return undefined;
  if (status === undefined) return new ConnectError("protocol error: missing grpc-status", Code.Internal);
  const code = /^\d{1,2}$/.test(status) ? Number(status) : NaN;
  const metadata = metadataOf(fields);
  if (header) metadataOf(header).forEach((value, key) => metadata.append(key, value));
  if (!(code > 0 && code <= Code.Unauthenticated)) return new ConnectError(`invalid grpc-status: ${status}`, Code.Internal, metadata);
  const error = new ConnectError(decodeGrpcMessage(one(fields["grpc-message"]) ?? ""), code, metadata);
  const details = one(fields["grpc-status-details-bin"]);
  if (details !== undefined) {
    try {
      for (const any of fromBinary(StatusSchema, new Uint8Array(Buffer.from(details, "base64"))).details) {
        error.details.push({ type: any.typeUrl.slice(any.typeUrl.lastIndexOf("/") + 1), value: any.value });
      }
    } catch {
      // Undecodable details leave the status as grpc-status and grpc-message give it.
    }
  }
  return error;
}

/** Response headers or trailers as connect's Headers, without HTTP/2 pseudo-headers. */
export function metadataOf(fields: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const key in fields) {
    if (key.startsWith(":")) continue;
    const value = fields[key];
    if (Array.isArray(value)) for (const v of value) out.append(key, v);
    else if (value !== undefined) out.append(key, String(value));
  }
  return out;
}

/**
 * A call that ended without a status because its stream or connection went
 * away (reset, closed, destroyed): `Unavailable`, with the Node error as the
 * cause. Our own errors (a PING that timed out) pass through.
 */
export function connectionLost(cause: unknown): ConnectError {
  if (cause instanceof ConnectError) return cause;
  const why = cause instanceof Error ? `: ${cause.message}` : "";
  return new ConnectError(`the HTTP/2 stream closed before the call's status${why}`, Code.Unavailable, undefined, undefined, cause);
}

/** A field that should occur once; Node gives a repeated one as an array. */
function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
