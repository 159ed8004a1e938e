/**
 * Redirects on A2A calls, with each HTTP client (fetch, the default of the
 * browser entry and of hand-built transports; node:http, the Node entry's):
 * never to another origin, whose server must receive nothing; within the
 * origin only when the request is repeated unchanged.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  A2AClient,
  AuthenticationError,
  RedirectRefusedError,
  bearerAuth,
  clientCredentialsProvider,
  createFetchHttpClient,
  createGrpcWebTransport,
  userMessage,
  type A2ATransport,
  type HttpTransportOptions,
} from "../../../src/index.js";
import {
  createNodeHttpClient,
  createJsonRpcTransport,
  createJsonRpcTransportV03,
  createRestTransport,
  createRestTransportV03,
} from "../../../src/node.js";
import { sendJson, startFakeServer, type FakeServer } from "../../support/fake-server.js";

const TOKEN = "redirect-test-token";
const TASK = { id: "task-1", contextId: "ctx-1", status: { state: "TASK_STATE_COMPLETED" } };

let agent: FakeServer;
/** Another origin (another port on 127.0.0.1): it must never be asked anything. */
let other: FakeServer;

beforeAll(async () => {
  agent = await startFakeServer();
  other = await startFakeServer((_req, res) => sendJson(res, 200, { task: TASK }));
});
afterAll(async () => {
  await agent.close();
  await other.close();
});
afterEach(() => {
  agent.requests.length = 0;
  other.requests.length = 0;
});

const CLIENTS: ReadonlyArray<[string, () => UniversalClientFn]> = [
  ["fetch client", () => createFetchHttpClient()],
  ["node:http client", () => createNodeHttpClient()],
];

type Make = (o: HttpTransportOptions) => A2ATransport;
const WIRES: ReadonlyArray<[string, Make, string]> = [
  ["JSON-RPC", createJsonRpcTransport, "/rpc"],
  ["HTTP+JSON", createRestTransport, "/rest"],
  ["JSON-RPC 0.3", createJsonRpcTransportV03, "/rpc03"],
  ["HTTP+JSON 0.3", createRestTransportV03, "/rest03"],
];

function redirectTo(status: number, location: (req: IncomingMessage) => string) {
  return (req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { Location: location(req), "Content-Type": "text/plain" });
    res.end("moved");
  };
}

/** The A2A answer of the agent's 1.0 interfaces. */
function answer(req: IncomingMessage, res: ServerResponse, body: string) {
  if (req.url!.startsWith("/rpc"))
    return sendJson(res, 200, { jsonrpc: "2.0", id: (JSON.parse(body) as { id: number }).id, result: { task: TASK } });
  return sendJson(res, 200, req.method === "GET" ? TASK : { task: TASK });
}

function client(make: Make, base: string, http: UniversalClientFn): A2AClient {
  return new A2AClient(make({ baseUrl: `${agent.url}${base}`, httpClient: http, interceptors: [bearerAuth(TOKEN)] }));
}

describe.each(CLIENTS)("%s", (_name, http) => {
  describe.each(WIRES)("%s", (_wire, make, base) => {
    it.each([301, 302, 303, 307, 308])(
      "HTTP %i to another origin: RedirectRefusedError naming both origins; the other origin gets nothing",
      async (status) => {
        agent.handle(redirectTo(status, (req) => `${other.url}${req.url}`));
        const e = await client(make, base, http())
          .sendMessage({ message: userMessage("hi") })
          .catch((x: unknown) => x);
        expect(e).toBeInstanceOf(RedirectRefusedError);
        const err = e as RedirectRefusedError;
        expect(err.message).toContain(agent.url);
        expect(err.message).toContain(other.url);
        expect(err.httpStatus).toBe(status);
        expect(agent.requests).toHaveLength(1);
        expect(other.requests).toHaveLength(0);
      },
    );
  });

  it.each([307, 308])("HTTP %i within the origin: followed with the same method, body and credentials", async (status) => {
    agent.handle((req, res, body) =>
      req.url!.endsWith("/moved") ? answer(req, res, body) : redirectTo(status, (r) => `${r.url}/moved`)(req, res),
    );
    for (const [make, base] of [
      [createJsonRpcTransport, "/rpc"],
      [createRestTransport, "/rest"],
    ] as const) {
      agent.requests.length = 0;
      const res = await client(make, base, http()).sendMessage({ message: userMessage("hi") });
      expect(res.payload.case).toBe("task");
      const [first, second] = agent.requests;
      expect(agent.requests).toHaveLength(2);
      expect(second!.method).toBe("POST");
      expect(second!.url).toBe(`${first!.url}/moved`);
      expect(second!.body).toBe(first!.body);
      expect(second!.body).toContain("hi");
      expect(second!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    }
  });

  it.each([301, 302, 303])("HTTP %i within the origin for a POST: RedirectRefusedError, not a body-less GET", async (status) => {
    agent.handle((req, res, body) =>
      req.url!.endsWith("/moved") ? answer(req, res, body) : redirectTo(status, (r) => `${r.url}/moved`)(req, res),
    );
    const e = await client(createJsonRpcTransport, "/rpc", http())
      .sendMessage({ message: userMessage("hi") })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RedirectRefusedError);
    expect((e as Error).message).toMatch(/POST/);
    expect(agent.requests).toHaveLength(1);
  });

  it("a GET within the origin follows 302; more than 5 redirects are refused", async () => {
    agent.handle((req, res, body) =>
      req.url!.startsWith("/new") ? answer(req, res, body) : redirectTo(302, (r) => `/new${r.url}`)(req, res),
    );
    const task = await client(createRestTransport, "/rest", http()).getTask({ id: "task-1" });
    expect(task.id).toBe("task-1");
    expect(agent.requests.map((r) => [r.method, r.url])).toEqual([
      ["GET", "/rest/tasks/task-1"],
      ["GET", "/new/rest/tasks/task-1"],
    ]);

    agent.requests.length = 0;
    agent.handle(redirectTo(307, (r) => `${r.url}x`));
    const e = await client(createRestTransport, "/rest", http())
      .getTask({ id: "t" })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RedirectRefusedError);
    expect((e as Error).message).toContain("more than 5 redirects");
    expect(agent.requests).toHaveLength(6);
  });

  it("a Location that is not a URL is refused", async () => {
    agent.handle(redirectTo(307, () => "http://[::1"));
    const e = await client(createJsonRpcTransport, "/rpc", http())
      .sendMessage({ message: userMessage("hi") })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RedirectRefusedError);
    expect(other.requests).toHaveLength(0);
  });
});

it("the fetch client asks fetch not to follow, and refuses the opaque redirect a browser gives then", async () => {
  const inits: RequestInit[] = [];
  const browserFetch = (async (_url: string, init: RequestInit) => {
    inits.push(init);
    return { type: "opaqueredirect", status: 0, headers: new Headers(), body: null } as unknown as Response;
  }) as typeof fetch;
  const c = new A2AClient(createJsonRpcTransport({ baseUrl: `${agent.url}/rpc`, httpClient: createFetchHttpClient(browserFetch) }));
  const e = await c.sendMessage({ message: userMessage("hi") }).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(RedirectRefusedError);
  expect((e as Error).message).toContain(agent.url);
  expect(inits).toHaveLength(1);
  expect(inits[0]!.redirect).toBe("manual");
});

it.each([302, 307, 308])(
  "a token endpoint answering HTTP %i: AuthenticationError saying so; the client secret goes nowhere else",
  async (status) => {
    agent.handle(redirectTo(status, () => `${other.url}/token`));
    const provider = clientCredentialsProvider({ tokenUrl: `${agent.url}/token`, clientId: "c", clientSecret: "redirect-secret" });
    const e = await provider.token().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as Error).message).toContain(`could not get an access token from ${agent.url}/token`);
    expect((e as Error).message).toContain(`redirect (HTTP ${status})`);
    expect(agent.requests).toHaveLength(1);
    expect(other.requests).toHaveLength(0);
  },
);

it.each([302, 307, 308])(
  "gRPC-web answered HTTP %i to another origin: RedirectRefusedError, not followed, not 'fetch failed'",
  async (status) => {
    agent.handle(redirectTo(status, (req) => `${other.url}${req.url}`));
    const c = new A2AClient(createGrpcWebTransport({ baseUrl: agent.url, interceptors: [bearerAuth(TOKEN)] }));
    const e = await c.getTask({ id: "t" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RedirectRefusedError);
    expect((e as Error).message).toContain(agent.url);
    expect((e as Error).message).toContain(other.url);
    expect((e as RedirectRefusedError).binding).toBe("GRPC");
    expect(agent.requests).toHaveLength(1);
    expect(other.requests).toHaveLength(0);
  },
);
