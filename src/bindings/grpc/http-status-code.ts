/**
 * The gRPC code of an HTTP status other than 2xx, for an answer that carries
 * no gRPC status of its own (gRPC's http-grpc-status-mapping.md): the one
 * mapping of both gRPC bindings.
 */
import { Code } from "@connectrpc/connect";

export function codeOfHttpStatus(status: number): Code {
  switch (status) {
    case 400:
      return Code.Internal;
    case 401:
      return Code.Unauthenticated;
    case 403:
      return Code.PermissionDenied;
    case 404:
      return Code.Unimplemented;
    case 429:
    case 502:
    case 503:
    case 504:
      return Code.Unavailable;
    default:
      return Code.Unknown;
  }
}
