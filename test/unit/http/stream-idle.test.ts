/**
 * The idle timeout of a stream call, the one rule the HTTP bindings and
 * gRPC share: a call gone silent is cut with a CallTimeoutError of kind
 * "idle", naming what did not come and where (without the URL's user
 * info), and that error is the call's.
 */
import { describe, expect, it } from "vitest";
import { CallTimeoutError } from "../../../src/errors/family.js";
import { cutIdle } from "../../../src/http/idle.js";

describe("cutIdle", () => {
  it("aborts the call with an idle CallTimeoutError naming what did not come and where, and returns it", () => {
    const controller = new AbortController();
    const error = cutIdle(controller, "no response", "https://user:secret@agent.example.com/a2a", 500, "GRPC");
    expect(error).toBeInstanceOf(CallTimeoutError);
    expect(error).toMatchObject({ kind: "idle", binding: "GRPC", code: "CALL_TIMEOUT", transient: true });
    expect(error.message).toBe("no response from https://agent.example.com/a2a for 500 ms");
    expect(controller.signal.reason).toBe(error);
  });

  it("names the silence it is given: the stream's data on the HTTP bindings, its messages on gRPC", () => {
    const http = cutIdle(new AbortController(), "no data on the stream", "http://127.0.0.1:1/tasks", 300, "HTTP+JSON");
    const grpc = cutIdle(new AbortController(), "no message on the stream", "http://127.0.0.1:1/", 300, "GRPC");
    expect(http.message).toBe("no data on the stream from http://127.0.0.1:1/tasks for 300 ms");
    expect(grpc.message).toBe("no message on the stream from http://127.0.0.1:1/ for 300 ms");
  });
});
