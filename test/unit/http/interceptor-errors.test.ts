/**
 * What an interceptor of the application's sees of a failed call: the same
 * A2AError the caller gets (its class, its code, the very instance), on
 * every binding, whether the agent answered with an error, the deadline
 * passed or the caller gave up. Fake peers on 127.0.0.1 answer as each test
 * says; a peer that never answers holds the request until the call ends.
 */
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  A2AClient,
  A2AError,
  AbortedError,
  CallTimeoutError,
  createFetchHttpClient,
  createGrpcWebTransport,
  TaskNotFoundError,
  type A2ATransport,
  type Interceptor,
} from "../../../src/index.js";
import { createGrpcTransport, createJsonRpcTransport, createRestTransport } from "../../../src/node.js";
import { collect } from "../../support/bindings.js";
import { failure } from "../../support/failure.js";
import { sendJson, startFakeServer, within, type FakeServer } from "../../support/fake-server.js";
import { useFakeGrpcServer } from "../../support/fake-grpc-server.js";

const grpc = useFakeGrpcServer();
let http: FakeServer;
/** How the peers answer the call under test: with TaskNotFound, or not at all. */
let answer: "not found" | "silence" = "not found";
/** Called once the peer has the request. */
let arrived: () => void = () => {};

const NOT_FOUND = "task t1 not found";

function answerHttp(path: string, body: string, res: ServerResponse): void {
  arrived();
  if (answer === "silence") return;
  if (path.startsWith("/rpc")) {
    const { id } = JSON.parse(body) as { id: unknown };
    sendJson(res, 200, { jsonrpc: "2.0", id, error: { code: -32001, message: NOT_FOUND } });
  } else if (path.startsWith("/rest")) {
    const info = { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" };
    sendJson(res, 404, { error: { code: 404, status: "NOT_FOUND", message: NOT_FOUND, details: [info] } });
  } else {
    // gRPC-web, trailers-only: the status in the headers.
    res.writeHead(200, { "Content-Type": "application/grpc-web+proto", "grpc-status": "5", "grpc-message": NOT_FOUND });
    res.end();
  }
}

beforeAll(async () => {
  http = await startFakeServer((req, res, body) => answerHttp(req.url ?? "", body, res));
  grpc.handler = (stream) => {
    arrived();
    if (answer === "silence") return;
    stream.respond(
      { ":status": 200, "content-type": "application/grpc", "grpc-status": "5", "grpc-message": NOT_FOUND },
      { endStream: true },
    );
  };
});
afterAll(() => http.close());
beforeEach(() => {
  answer = "not found";
  arrived = () => {};
});

type Make = (interceptors: Interceptor[], timeoutMs?: number) => A2ATransport;
const TRANSPORTS: Array<[string, Make]> = [
  ["JSON-RPC", (interceptors, timeoutMs) => createJsonRpcTransport({ baseUrl: `${http.url}/rpc`, interceptors, timeoutMs })],
  ["HTTP+JSON", (interceptors, timeoutMs) => createRestTransport({ baseUrl: `${http.url}/rest`, interceptors, timeoutMs })],
  ["gRPC", (interceptors, timeoutMs) => createGrpcTransport({ baseUrl: `http://127.0.0.1:${grpc.port}`, interceptors, timeoutMs })],
  ["gRPC-web", (interceptors, timeoutMs) => createGrpcWebTransport({ baseUrl: `${http.url}/grpc-web`, interceptors, timeoutMs })],
];

/**
 * An interceptor that notes what its call failed with, and passes it on.
 * The caller may hear of an abort before the interceptor does (the runner
 * fails the call at once, the request fails as its HTTP client notices):
 * `caught` waits for it.
 */
function watching(): { seen: unknown[]; caught: Promise<unknown>; interceptor: Interceptor } {
  const seen: unknown[] = [];
  let note: (e: unknown) => void = () => {};
  const caught = within(new Promise<unknown>((resolve) => (note = resolve)), 3000, "the interceptor seeing the failure");
  return {
    seen,
    caught,
    interceptor: (next) => async (req) => {
      try {
        return await next(req);
      } catch (e) {
        seen.push(e);
        note(e);
        throw e;
      }
    },
  };
}

describe.each(TRANSPORTS)("%s: an interceptor sees the caller's A2AError", (_name, make) => {
  it("the agent's TaskNotFound: TaskNotFoundError (TASK_NOT_FOUND), the one the caller gets", async () => {
    const { seen, caught, interceptor } = watching();
    const e = await failure(new A2AClient(make([interceptor])).getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(TaskNotFoundError);
    expect(e.message).toBe(NOT_FOUND);
    await caught;
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(A2AError);
    expect(seen[0]).toBeInstanceOf(TaskNotFoundError);
    expect((seen[0] as A2AError).code).toBe("TASK_NOT_FOUND");
    expect(seen[0]).toBe(e);
  });

  it("a stream the agent refuses with TaskNotFound: TaskNotFoundError, the one the caller gets", async () => {
    const { seen, caught, interceptor } = watching();
    const e = await failure(collect(new A2AClient(make([interceptor])).subscribeToTask({ id: "t1" })));
    expect(e).toBeInstanceOf(TaskNotFoundError);
    await caught;
    // The subscribe's error; the client then asks GetTask, refused the same way.
    expect(seen[0]).toBe(e);
    for (const x of seen) expect(x).toBeInstanceOf(TaskNotFoundError);
  });

  it("the deadline: CallTimeoutError, the one the caller gets", async () => {
    answer = "silence";
    const { seen, caught, interceptor } = watching();
    const e = await failure(new A2AClient(make([interceptor], 300)).getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(CallTimeoutError);
    expect(e.message).toMatch(/did not complete within 300 ms$/);
    await caught;
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(CallTimeoutError);
    expect((seen[0] as A2AError).code).toBe("CALL_TIMEOUT");
    expect(seen[0]).toBe(e);
  });

  it("the caller's abort: AbortedError with the caller's reason, the one the caller gets", async () => {
    answer = "silence";
    const { seen, caught, interceptor } = watching();
    const controller = new AbortController();
    const reason = new Error("the user gave up");
    arrived = () => controller.abort(reason);
    const e = await failure(new A2AClient(make([interceptor])).getTask({ id: "t1" }, { signal: controller.signal }));
    expect(e).toBeInstanceOf(AbortedError);
    expect(e.message).toBe("the call was aborted");
    expect(e.cause).toBe(reason);
    await caught;
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(AbortedError);
    expect((seen[0] as A2AError).code).toBe("ABORTED");
    expect(seen[0]).toBe(e);
  });
});

describe("an HTTP client that reports an abort its own way", () => {
  it("the interceptor still sees the call's AbortedError, the caller's reason as cause", async () => {
    // A fetch that fails with an error of its own once the request's signal aborts.
    const ownAbort: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(new Error("the client's own abort"))));
    const { seen, caught, interceptor } = watching();
    const controller = new AbortController();
    const reason = new Error("the user gave up");
    const client = new A2AClient(
      createJsonRpcTransport({ baseUrl: `${http.url}/rpc`, interceptors: [interceptor], httpClient: createFetchHttpClient(ownAbort) }),
    );
    const call = failure(client.getTask({ id: "t1" }, { signal: controller.signal }));
    controller.abort(reason);
    const e = await call;
    expect(e).toBeInstanceOf(AbortedError);
    expect(e.cause).toBe(reason);
    await caught;
    expect(seen[0]).toBe(e);
  });
});
