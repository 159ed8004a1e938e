import { decodeBinaryHeader } from "@connectrpc/connect";
import { StatusSchema } from "../../../gen/google/rpc/status_pb.js";

/**
 * The status fields of a gRPC answer read leniently, the same way over
 * HTTP/2 (wire.ts) and gRPC-web (web.ts): what a peer or proxy gets wrong
 * in `grpc-message` or `grpc-status-details-bin` must not hide the status
 * code, which classifies the error.
 */

/** grpc-message is percent-encoded; a malformed escape is kept as it is rather than losing the message. */
export function decodeGrpcMessage(raw: string): string {
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw.replace(/(%[0-9a-f]{2})+/gi, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
}

/**
 * Makes the status fields of a gRPC-web answer (its trailers, or the
 * headers of a trailers-only answer) read as HTTP/2 gRPC reads them, in
 * place; returns whether anything changed. The gRPC-web wire reads a
 * status as connect's gRPC-web client does (web-status.ts), which fails on
 * a `grpc-message` with a malformed escape (a bare URIError, the status
 * lost), and takes the status from `grpc-status-details-bin` over
 * `grpc-status`: undecodable details failed the call as DATA_LOSS, and
 * details of code 0 beside `grpc-status: 5` passed it as a success. Such
 * details are dropped, the status is `grpc-status`'s, as over HTTP/2.
 */
export function readableStatusFields(fields: Headers): boolean {
  let changed = false;
  const message = fields.get("grpc-message");
  if (message !== null && decodeGrpcMessage(message) !== safeDecode(message)) {
    fields.set("grpc-message", encodeURIComponent(decodeGrpcMessage(message)));
    changed = true;
  }
  const details = fields.get("grpc-status-details-bin");
  if (details !== null) {
    let agrees = false;
    try {
      agrees = String(decodeBinaryHeader(details, StatusSchema).code) === fields.get("grpc-status");
    } catch {
      // Not base64 or not a google.rpc.Status: dropped below.
    }
    if (!agrees) {
      fields.delete("grpc-status-details-bin");
      changed = true;
    }
  }
  return changed;
}

/** decodeURIComponent, or undefined where it throws. */
function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
