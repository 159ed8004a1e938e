/**
 * The gRPC code both gRPC bindings give an answer whose HTTP status is not
 * 2xx and which carries no gRPC status: gRPC's http-grpc-status-mapping.md.
 */
import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { codeOfHttpStatus } from "../../../src/bindings/grpc/http-status-code.js";

describe("the gRPC code of an HTTP status", () => {
  it.each([
    [400, Code.Internal],
    [401, Code.Unauthenticated],
    [403, Code.PermissionDenied],
    [404, Code.Unimplemented],
    [429, Code.Unavailable],
    [502, Code.Unavailable],
    [503, Code.Unavailable],
    [504, Code.Unavailable],
    [500, Code.Unknown],
    [418, Code.Unknown],
  ])("HTTP %i is %s", (status, code) => {
    expect(codeOfHttpStatus(status)).toBe(code);
  });
});
