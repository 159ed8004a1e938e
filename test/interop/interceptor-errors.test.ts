/**
 * What the caller's own interceptors do to a call is the same on every
 * binding, 1.0 and 0.3, against the real agent (one release: this is our
 * logic, not the peer's). An error one throws (before the request, on the
 * response, inside a stream) is an `A2AError` of a fault in the client,
 * quoting the thrown error and keeping it as `cause`: never the server's
 * error (`InternalError`), a malformed gRPC response (`ProtocolError`) or
 * the network's. A URL one sets on a gRPC call is where the call goes, and a
 * URL of another origin is refused, on 1.0 and 0.3 alike.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalAgent, type LocalAgent } from "../../demo/agent.js";
import {
  A2AClient,
  A2AError,
  AuthenticationError,
  InvalidParamsError,
  MethodNotFoundError,
  apiKeyAuth,
  createFetchHttpClient,
  userMessage,
  type A2ATransport,
  type Interceptor,
} from "../../src/index.js";
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import {
  createGrpcTransport,
  createGrpcTransportV03,
  createJsonRpcTransport,
  createJsonRpcTransportV03,
  createRestTransport,
  createRestTransportV03,
} from "../../src/node.js";
import { collect } from "../support/bindings.js";
import { failure } from "../support/failure.js";

let agent: LocalAgent;
beforeAll(async () => {
  agent = await startLocalAgent({ versions: ["1.0", "0.3"] });
});
afterAll(() => agent.close());

type Make = (interceptors: Interceptor[]) => A2ATransport;
const SUBJECTS: Array<[string, Make]> = [
  ["JSON-RPC", (interceptors) => createJsonRpcTransport({ baseUrl: agent.jsonRpcUrl, interceptors })],
  ["HTTP+JSON", (interceptors) => createRestTransport({ baseUrl: agent.restUrl, interceptors })],
  ["gRPC", (interceptors) => createGrpcTransport({ baseUrl: agent.grpcAddress, interceptors })],
  ["JSON-RPC 0.3", (interceptors) => createJsonRpcTransportV03({ baseUrl: agent.jsonRpcUrl, interceptors })],
  ["HTTP+JSON 0.3", (interceptors) => createRestTransportV03({ baseUrl: agent.restUrl, interceptors })],
  ["gRPC 0.3", (interceptors) => createGrpcTransportV03({ baseUrl: agent.grpcAddress, interceptors })],
];

class TokenError extends Error {
  override name = "TokenError";
}

/** Interceptors that throw an error of the application's own, each at another point of the call. */
const THROWING: Array<[string, (thrown: unknown) => Interceptor]> = [
  [
    "before the request",
    (thrown) => () => async () => {
      throw thrown;
    },
  ],
  [
    "on the response",
    (thrown) => (next) => async (req) => {
      await next(req);
      throw thrown;
    },
  ],
];

describe.each(SUBJECTS)("%s", (_name, make) => {
  it.each(THROWING)(
    "an Error thrown %s: an A2AError from the client, the thrown error its cause and quoted, not retried",
    async (_when, interceptor) => {
      const thrown = new TokenError("no token for the agent");
      let calls = 0;
      const counting: Interceptor = (next) => (req) => {
        calls++;
        return next(req);
      };
      const client = new A2AClient(make([counting, interceptor(thrown)]), {
        retry: { attempts: 3, initialDelayMs: 1, maxDelayMs: 1 },
      });
      for (const call of [
        () => client.sendMessage({ message: userMessage("echo hi") }),
        () => collect(client.sendStreamingMessage({ message: userMessage("count 1") })),
      ]) {
        const e = await failure(call());
        expect(e.constructor).toBe(A2AError);
        expect([e.code, e.transient]).toEqual(["UNKNOWN", false]);
        expect(e.message).toBe("the call failed in the client, not on the network: TokenError: no token for the agent");
        expect(e.cause).toBe(thrown);
      }
      expect(calls).toBe(2);
    },
  );

  it("a value that is no Error, thrown: the same class, the value its cause", async () => {
    const client = new A2AClient(make([THROWING[0]![1]("no token")]));
    const e = await failure(client.sendMessage({ message: userMessage("echo hi") }));
    expect([e.constructor, e.code, e.message, e.cause]).toEqual([
      A2AError,
      "UNKNOWN",
      "the call failed in the client, not on the network: no token",
      "no token",
    ]);
  });

  it("an Error thrown inside a stream, after its first event: the same, and no resumption", async () => {
    const thrown = new TokenError("stream refused");
    const stopping: Interceptor = (next) => async (req) => {
      const res = await next(req);
      if (!res.stream) return res;
      const messages = res.message;
      async function* first() {
        for await (const m of messages) {
          yield m;
          throw thrown;
        }
      }
      return { ...res, message: first() };
    };
    const events: unknown[] = [];
    const e = await failure(
      (async () => {
        for await (const event of new A2AClient(make([stopping])).sendStreamingMessage({ message: userMessage("count 2") })) {
          events.push(event);
        }
      })(),
    );
    expect(events).toHaveLength(1);
    expect([e.constructor, e.code, e.cause]).toEqual([A2AError, "UNKNOWN", thrown]);
    expect(e.message).toBe("the call failed in the client, not on the network: TokenError: stream refused");
  });

  it("an A2AError thrown is the call's error as it is", async () => {
    const thrown = new AuthenticationError("no credentials for this agent");
    const client = new A2AClient(make([THROWING[0]![1](thrown)]));
    expect(await failure(client.sendMessage({ message: userMessage("echo hi") }))).toBe(thrown);
  });
});

describe.each(SUBJECTS.filter(([name]) => name.startsWith("gRPC")))("a URL an interceptor sets on %s", (name, make) => {
  const service = name.endsWith("0.3") ? "a2a.v1.A2AService" : "lf.a2a.v1.A2AService";
  const rewrite =
    (to: (url: string) => string): Interceptor =>
    (next) =>
    (req) =>
      next({ ...req, url: to(req.url) });

  it("is where the call goes", async () => {
    const client = new A2AClient(make([rewrite((url) => `${url}/elsewhere`)]));
    const e = await failure(client.getTask({ id: "t1" }));
    expect(e).toBeInstanceOf(MethodNotFoundError);
    expect(e.message).toContain(`/${service}/GetTask/elsewhere`);
  });

  it("of another origin is refused: InvalidParamsError naming both, unary and stream", async () => {
    const client = new A2AClient(make([rewrite((url) => url.replace("127.0.0.1", "localhost"))]));
    const port = agent.grpcAddress.split(":").at(-1);
    for (const [method, call] of [
      ["GetTask", () => client.getTask({ id: "t1" })],
      ["SendStreamingMessage", () => collect(client.sendStreamingMessage({ message: userMessage("count 1") }))],
    ] as const) {
      const e = await failure(call());
      expect(e).toBeInstanceOf(InvalidParamsError);
      expect(e.message).toBe(`cannot call http://localhost:${port}/${service}/${method}: the transport is for http://127.0.0.1:${port}`);
    }
  });
});

describe.each([
  ["HTTP+JSON", createRestTransport],
  ["HTTP+JSON 0.3", createRestTransportV03],
  ["JSON-RPC", createJsonRpcTransport],
  ["JSON-RPC 0.3", createJsonRpcTransportV03],
] as const)("a query parameter an interceptor adds on %s", (_name, create) => {
  it("reaches the agent on every call, unary and stream (an API key in the query)", async () => {
    const sent: string[] = [];
    const inner = createFetchHttpClient();
    const httpClient: UniversalClientFn = (req) => (sent.push(req.url), inner(req));
    const base = create === createRestTransport || create === createRestTransportV03 ? agent.restUrl : agent.jsonRpcUrl;
    const client = new A2AClient(
      create({ baseUrl: base, httpClient, interceptors: [apiKeyAuth({ location: "query", name: "api_key", value: "k-1" })] }),
    );
    const res = await client.sendMessage({ message: userMessage("count 1") });
    expect(res.payload.case).toBe("task");
    await collect(client.sendStreamingMessage({ message: userMessage("count 1") }));
    expect(sent).toHaveLength(2);
    for (const url of sent) expect(new URL(url).searchParams.get("api_key")).toBe("k-1");
  });
});
