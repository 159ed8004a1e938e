/**
 * A bug or a refused value in code above the wire (an interceptor of the
 * application's) fails the call as what it is, a failure in the client: not
 * a transient network error that retries repeat and streams resume on. No
 * request is made for it; the port below is closed, so a call that went
 * out would fail differently.
 */
import { beforeAll, describe, expect, it } from "vitest";
import {
  A2AClient,
  A2AError,
  CallTimeoutError,
  ConnectionError,
  createGrpcWebTransport,
  InvalidParamsError,
  userMessage,
  type Interceptor,
} from "../../../src/index.js";
import {
  createGrpcTransport,
  createJsonRpcTransport,
  createJsonRpcTransportV03,
  createNodeHttpClient,
  createRestTransport,
  type A2ATransport,
} from "../../../src/node.js";
import { failure } from "../../support/failure.js";
import { errorSurfaces } from "../../support/surfaces.js";
import { deadPort } from "../../support/ports.js";

let origin: string;
beforeAll(async () => {
  origin = `http://127.0.0.1:${await deadPort()}`;
});

type Make = (interceptors: Interceptor[]) => A2ATransport;
const TRANSPORTS: Array<[string, Make]> = [
  ["JSON-RPC (fetch)", (interceptors) => createJsonRpcTransport({ baseUrl: `${origin}/a2a`, interceptors, httpClient: undefined })],
  [
    "JSON-RPC (node:http)",
    (interceptors) => createJsonRpcTransport({ baseUrl: `${origin}/a2a`, interceptors, httpClient: createNodeHttpClient() }),
  ],
  ["HTTP+JSON", (interceptors) => createRestTransport({ baseUrl: `${origin}/rest`, interceptors })],
  ["gRPC", (interceptors) => createGrpcTransport({ baseUrl: origin, interceptors })],
  ["gRPC-web", (interceptors) => createGrpcWebTransport({ baseUrl: origin, interceptors })],
  ["JSON-RPC 0.3", (interceptors) => createJsonRpcTransportV03({ baseUrl: `${origin}/a2a`, interceptors })],
];

/** Interceptors that fail before the request goes out, each its own way. */
const FAULTS: Array<[string, (count: () => void) => Interceptor]> = [
  [
    "a header value Headers refuses, thrown at once",
    (count) => (next) => (req) => {
      count();
      req.header.set("x-trace", "a\nb");
      return next(req);
    },
  ],
  [
    "the same from an async interceptor",
    (count) => (next) => async (req) => {
      count();
      req.header.set("x-trace", "a\nb");
      return next(req);
    },
  ],
  [
    "a bug: reading a property of undefined",
    (count) => (next) => (req) => {
      count();
      const missing = (req as unknown as { nothing?: { here: string } }).nothing;
      return next({ ...req, url: missing!.here });
    },
  ],
];

describe.each(TRANSPORTS)("%s", (_name, make) => {
  it.each(FAULTS)("%s: an A2AError from the client, not transient, not retried, with the fault as its cause", async (_what, fault) => {
    let calls = 0;
    const client = new A2AClient(make([fault(() => calls++)]), { retry: { attempts: 3, initialDelayMs: 1, maxDelayMs: 1 } });
    const e = await failure(client.getTask({ id: "t1" }));
    expect(e).not.toBeInstanceOf(ConnectionError);
    expect(e.code).toBe("UNKNOWN");
    expect(e.transient).toBe(false);
    expect(e.message).toMatch(/^the call failed in the client, not on the network: TypeError: /);
    expect(e.cause).toBeInstanceOf(TypeError);
    expect(calls).toBe(1);
  });

  it("an error of the application's own (no bug), thrown by an interceptor: the same class, quoting it, itself the cause", async () => {
    const thrown = new RangeError("quota of the day used");
    for (const fault of [thrown, new Error("no token"), "no token"]) {
      const client = new A2AClient(make([() => () => Promise.reject(fault)]));
      const e = await failure(client.getTask({ id: "t1" }));
      expect([e.constructor, e.code, e.transient, e.cause]).toEqual([A2AError, "UNKNOWN", false, fault]);
      expect(e.message).toMatch(
        /^the call failed in the client, not on the network: (RangeError: quota of the day used|Error: no token|no token)$/,
      );
    }
  });

  it("a credential Headers refuses (Node quotes it in its TypeError) shows on no surface of the error", async () => {
    const secret = "refused-SECRET-77";
    const client = new A2AClient(
      make([
        (next) => (req) => {
          req.header.set("authorization", `Bearer ${secret}\nX-Injected: 1`);
          return next(req);
        },
      ]),
    );
    const e = await failure(client.getTask({ id: "t1" }));
    expect(e.code).toBe("UNKNOWN");
    expect(e.message).toMatch(/invalid header value/);
    for (const text of errorSurfaces(e)) expect(text).not.toContain(secret);
  });

  it.each([
    ["a line break", "urn:ext\nX-Injected: 1"],
    ["a space", "urn:ext one"],
    ["a comma, which would split it", "urn:a,urn:b"],
    ["a character outside ASCII", "urn:\u00e9t\u00e9"],
  ])("an extension URI with %s: InvalidParamsError naming it, on the call and on the transport, and nothing sent", async (_what, uri) => {
    let calls = 0;
    const counting: Interceptor = (next) => (req) => {
      calls++;
      return next(req);
    };
    const client = new A2AClient(make([counting]));
    for (const run of [
      () => client.getTask({ id: "t1" }, { extensions: [uri] }),
      async () => {
        for await (const _ of client.sendStreamingMessage({ message: userMessage("hi") }, { extensions: [uri] })) {
          // no event can come
        }
      },
    ]) {
      const e = await failure(run());
      expect(e).toBeInstanceOf(InvalidParamsError);
      expect(e.message).toMatch(/^extensions: ".*" is not an extension URI/);
    }
    expect(calls).toBe(0);
  });

  it("a stream whose interceptor fails: the same error, and no resumption", async () => {
    let calls = 0;
    const client = new A2AClient(make([FAULTS[0]![1](() => calls++)]));
    const e = await failure(
      (async () => {
        for await (const _ of client.sendStreamingMessage({ message: userMessage("hi") })) {
          // no event can come
        }
      })(),
    );
    expect(e).toBeInstanceOf(A2AError);
    expect(e.code).toBe("UNKNOWN");
    expect(calls).toBe(1);
  });
});

describe("an extension URI a header cannot carry, given to a transport", () => {
  it.each([
    ["JSON-RPC", () => createJsonRpcTransport({ baseUrl: `${origin}/a2a`, extensions: ["urn:a b"] })],
    ["HTTP+JSON", () => createRestTransport({ baseUrl: `${origin}/rest`, extensions: ["urn:a b"] })],
    ["gRPC", () => createGrpcTransport({ baseUrl: origin, extensions: ["urn:a b"] })],
    ["gRPC-web", () => createGrpcWebTransport({ baseUrl: origin, extensions: ["urn:a b"] })],
    ["JSON-RPC 0.3", () => createJsonRpcTransportV03({ baseUrl: `${origin}/a2a`, extensions: ["urn:a b"] })],
  ])("%s: InvalidParamsError when it is made", (_name, make) => {
    expect(make).toThrow(InvalidParamsError);
    expect(make).toThrow(/^extensions: "urn:a b" is not an extension URI/);
  });
});

describe("a failure an interceptor's own work meets, thrown by it, is classified as any other (not wrapped first)", () => {
  // The bindings whose calls run through our call runner; gRPC-web's run through connect's.
  const RUNNER_TRANSPORTS = TRANSPORTS.filter(([name]) => name !== "gRPC-web");
  const refused = () =>
    Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });
  const timedOut = () => Object.assign(new Error("the token request timed out"), { name: "TimeoutError" });

  it.each(RUNNER_TRANSPORTS)(
    "%s: a request of its own refused is a ConnectionError (refused); a TimeoutError is CallTimeoutError",
    async (_name, make) => {
      const thrown = refused();
      const e = await failure(new A2AClient(make([() => () => Promise.reject(thrown)])).getTask({ id: "t1" }));
      expect(e).toBeInstanceOf(ConnectionError);
      expect([(e as ConnectionError).kind, e.cause]).toEqual(["refused", thrown]);
      const late = await failure(new A2AClient(make([() => () => Promise.reject(timedOut())])).getTask({ id: "t1" }));
      expect(late).toBeInstanceOf(CallTimeoutError);
    },
  );
});
