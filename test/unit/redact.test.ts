/**
 * Secrets on errors: a server that echoes what it was sent (an agent over
 * JSON-RPC, HTTP+JSON or gRPC; a token endpoint) must not get any of the
 * client's secrets, in any encoding, onto any surface of the error the
 * caller receives: message, String(), stack, details, challenge, cause
 * (ConnectError metadata, rawMessage, binary details), JSON, inspect.
 */
import type { ServerHttp2Stream } from "node:http2";
import type { IncomingMessage, ServerResponse } from "node:http";
import { inspect } from "node:util";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { anyPack } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import {
  A2AClient,
  A2AError,
  AuthenticationError,
  InvalidParamsError,
  apiKeyAuth,
  basicAuth,
  bearerAuth,
  clientCredentialsProvider,
  createGrpcWebTransport,
  createJsonRpcTransport,
  createJsonRpcTransportV03,
  createRestTransport,
  createRestTransportV03,
  httpAuth,
  userMessage,
} from "../../src/index.js";
import { PassThrough } from "node:stream";
import { redactSecrets } from "../../src/auth/redact.js";
import { Output } from "../../src/cli/output.js";
import { createGrpcTransport, createGrpcTransportV03, createNodeHttpClient } from "../../src/node.js";
import { useFakeGrpcServer } from "../support/fake-grpc-server.js";
import { sendJson, startFakeServer, type FakeServer } from "../support/fake-server.js";

/** A secret with what encodings change: spaces, &, =, +, /, quotes, backslash, non-ASCII, an emoji. */
const SECRET = 's3cr t&k=y+/"q\\Ω😀-tail';
/** What a header can carry (no non-ASCII): the same specials. */
const HEADER_SECRET = 'h3ad r&k=y+/"q\\%-tail';

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const b64url = (s: string) => Buffer.from(s, "utf8").toString("base64url");
const form = (s: string) => new URLSearchParams({ s }).toString().slice(2);
const pythonJson = (s: string) =>
  JSON.stringify(s).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** Every form `secret` may take in an echo, to look for on the error. */
function forms(secret: string): string[] {
  return [
    secret,
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    encodeURI(secret),
    form(secret),
    JSON.stringify(secret).slice(1, -1),
    pythonJson(secret).slice(1, -1),
    b64(secret),
    b64(secret).replace(/=+$/, ""),
    b64url(secret),
  ];
}

/** Everything a caller, a log or a crash reporter may show of an error. */
function surfaces(e: unknown): string[] {
  const err = e as A2AError & { challenge?: string; cause?: unknown };
  return [
    err.message,
    String(err),
    err.stack ?? "",
    JSON.stringify(err),
    JSON.stringify(err.details),
    String(err.challenge),
    inspect(err, { depth: Infinity, showHidden: true }),
    inspect(err.cause, { depth: Infinity, showHidden: true }),
  ];
}

function expectClean(e: unknown, secrets: string[]): void {
  expect(e).toBeInstanceOf(Error);
  for (const text of surfaces(e)) {
    for (const secret of secrets) for (const f of forms(secret)) expect(text, `a form of ${JSON.stringify(secret)}`).not.toContain(f);
  }
}

describe("redactSecrets", () => {
  it("masks every encoding of a secret with special characters, on every surface, down the causes", () => {
    const basicHeader = `Basic ${b64(`client:${SECRET}`)}`;
    // A base64 blob with the secret at each of the three alignments.
    const blobs = ["", "x", "xy"].map((p) => b64(`${p}${SECRET}trailing`));
    const echo = [...forms(SECRET), basicHeader, ...blobs].join(" | ");
    const info = create(ErrorInfoSchema, { reason: "ECHO", domain: "x", metadata: { sent: SECRET } });
    const status = toBinary(StatusSchema, create(StatusSchema, { code: 16, message: echo, details: [anyPack(ErrorInfoSchema, info)] }));
    const metadata = new Headers({
      "x-echo": encodeURIComponent(echo),
      "x-echo-b64": b64(echo),
      "grpc-status-details-bin": Buffer.from(status).toString("base64"),
    });
    const grpc = new ConnectError(echo, Code.Unauthenticated, metadata, [
      { type: ErrorInfoSchema.typeName, value: toBinary(ErrorInfoSchema, info), debug: { echo } },
    ] as never);
    const inner = new AggregateError([new TypeError(echo)], echo);
    const details = Object.freeze([Object.freeze({ "@type": "x", echo, [SECRET]: [echo, { deeper: echo }] })]);
    const e = new AuthenticationError(echo, { details, challenge: `Bearer error="${echo}"`, cause: grpc, httpStatus: 401 });
    (grpc as { cause?: unknown }).cause = inner;
    // A cycle does not stop it.
    (inner as { again?: unknown }).again = e;

    const same = redactSecrets(e, [SECRET]);
    expect(same).toBe(e);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect(e.message).toContain("***");
    expectClean(e, [SECRET]);
    for (const text of [inspect(inner, { depth: Infinity, showHidden: true }), JSON.stringify(grpc.details), inspect(grpc.metadata)]) {
      for (const f of forms(SECRET)) expect(text).not.toContain(f);
    }
    for (const blob of blobs) expect(inspect(e, { depth: Infinity })).not.toContain(blob.slice(8, -12));
    // Binary details keep their framing: they still decode, with the secret masked.
    const decoded = grpc.findDetails(ErrorInfoSchema)[0]!;
    expect(decoded.reason).toBe("ECHO");
    expect(decoded.metadata.sent).toMatch(/^\*+$/);
    expect(fromBinary(ErrorInfoSchema, grpc.details[0]!.value as Uint8Array).metadata.sent).not.toContain(SECRET);
  });

  it("a hostile shape does not hide a secret: deep nesting, a frozen object met twice, a secret as a header name", () => {
    let deep: unknown = { echo: SECRET };
    for (let i = 0; i < 100; i++) deep = { deeper: deep };
    const shared = Object.freeze({ echo: SECRET });
    const headers = new Headers({ [encodeURIComponent(HEADER_SECRET).replace(/%/g, "x")]: "1" });
    headers.append("x-token", HEADER_SECRET);
    const e = new A2AError("boom", { details: [deep, shared, { again: shared }] });
    (e as { headers?: unknown }).headers = headers;
    const hidden = encodeURIComponent(HEADER_SECRET).replace(/%/g, "x");
    redactSecrets(e, [SECRET, HEADER_SECRET, hidden]);
    const text = JSON.stringify(e.details) + inspect(e, { depth: Infinity });
    for (const f of [...forms(SECRET), ...forms(HEADER_SECRET), hidden]) expect(text).not.toContain(f);
    expect(JSON.stringify(e.details[1])).toBe(JSON.stringify({ echo: "***" }));
    expect(JSON.stringify(e.details[2])).toBe(JSON.stringify({ again: { echo: "***" } }));
  });

  it("leaves errors without secrets, short values and other text alone", () => {
    const e = new A2AError("task t-1 failed: quota", { details: [{ reason: "QUOTA" }] });
    redactSecrets(e, ["ab", undefined, "not-in-it"]);
    expect(e.message).toBe("task t-1 failed: quota");
    expect(e.details).toEqual([{ reason: "QUOTA" }]);
  });
});

describe("the CLI's output", () => {
  it("masks every form of its --token and --header values, as errors are masked", () => {
    const stderr = new PassThrough();
    const out = new Output({ stdout: new PassThrough(), stderr, secrets: [HEADER_SECRET] });
    out.error(`failed: ${forms(HEADER_SECRET).join(" ")}`);
    const printed = String(stderr.read());
    expect(printed).toContain("failed: ***");
    for (const f of forms(HEADER_SECRET)) expect(printed).not.toContain(f);
  });
});

// --- Agents that echo what they were sent -------------------------------------------

const CREDENTIALS: ReadonlyArray<[string, () => Interceptor, string[]]> = [
  ["bearer", () => bearerAuth(HEADER_SECRET), [HEADER_SECRET]],
  ["bearer from a function", () => bearerAuth(async () => HEADER_SECRET), [HEADER_SECRET]],
  ["another HTTP scheme", () => httpAuth("Token", HEADER_SECRET), [HEADER_SECRET]],
  ["API key in a header", () => apiKeyAuth({ location: "header", name: "X-API-Key", value: HEADER_SECRET }), [HEADER_SECRET]],
  ["API key in the query", () => apiKeyAuth({ location: "query", name: "key", value: SECRET }), [SECRET]],
  ["API key in a cookie", () => apiKeyAuth({ location: "cookie", name: "session", value: async () => SECRET }), [SECRET]],
  ["basic", () => basicAuth({ username: "ann", password: SECRET }), [SECRET, `ann:${SECRET}`]],
];

let agent: FakeServer;
beforeAll(async () => {
  // Echoes the whole request (headers, URL) into the message, the details
  // and the challenge of a 401, as a careless agent might.
  agent = await startFakeServer((req: IncomingMessage, res: ServerResponse, body: string) => {
    const echo = JSON.stringify({ url: req.url, headers: req.headers });
    const details = [
      { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "ECHO", domain: "x", metadata: { echo, py: pythonJson(echo) } },
    ];
    const challenge = `Bearer realm="${encodeURIComponent(echo)}" error="${b64(echo)}"`;
    if (req.url!.startsWith("/rpc")) {
      const id = (JSON.parse(body) as { id: number }).id;
      return sendJson(res, 200, { jsonrpc: "2.0", id, error: { code: -32603, message: `rejected ${echo}`, data: details } });
    }
    return sendJson(
      res,
      401,
      { error: { code: 16, status: "UNAUTHENTICATED", message: `rejected ${echo}`, details } },
      { "WWW-Authenticate": challenge },
    );
  });
});
afterAll(() => agent.close());

describe.each([
  [
    "JSON-RPC",
    (i: Interceptor, http?: ReturnType<typeof createNodeHttpClient>) =>
      createJsonRpcTransport({ baseUrl: `${agent.url}/rpc`, interceptors: [i], httpClient: http }),
  ],
  [
    "HTTP+JSON",
    (i: Interceptor, http?: ReturnType<typeof createNodeHttpClient>) =>
      createRestTransport({ baseUrl: `${agent.url}/rest`, interceptors: [i], httpClient: http }),
  ],
] as const)("an agent echoing the request over %s", (_binding, transport) => {
  it.each(CREDENTIALS)("%s: no form of the secret on the error, unary or stream", async (_name, credential, secrets) => {
    for (const http of [undefined, createNodeHttpClient()]) {
      const client = new A2AClient(transport(credential(), http));
      const unary = await client.getTask({ id: "t-1" }).catch((x: unknown) => x);
      expect(unary).toBeInstanceOf(A2AError);
      // The agent did echo it: the error carries what it said, masked.
      expect((unary as A2AError).message).toContain("rejected");
      expect((unary as A2AError).details.length).toBeGreaterThan(0);
      expectClean(unary, secrets);
      const stream = await (async () => {
        for await (const _ of client.sendStreamingMessage({ message: userMessage("hi") }, { resume: false })) break;
      })().catch((x: unknown) => x);
      expectClean(stream, secrets);
    }
  });
});

/** A gRPC agent that refuses the call, quoting the request headers in every place a status can carry text. */
function echoAll(stream: ServerHttp2Stream, headers: Record<string, unknown>): void {
  const echo = JSON.stringify(headers);
  const info = create(ErrorInfoSchema, { reason: "ECHO", domain: "x", metadata: { echo } });
  const status = create(StatusSchema, { code: 16, message: echo, details: [anyPack(ErrorInfoSchema, info)] });
  stream.respond(
    {
      ":status": 200,
      "content-type": "application/grpc",
      "grpc-status": "16",
      "grpc-message": encodeURIComponent(`rejected ${echo}`),
      "grpc-status-details-bin": Buffer.from(toBinary(StatusSchema, status)).toString("base64"),
      "x-echo": encodeURIComponent(echo),
      "x-echo-bin": Buffer.from(echo).toString("base64"),
    },
    { endStream: true },
  );
}

describe("a gRPC agent echoing the request", () => {
  const srv = useFakeGrpcServer();

  it.each(CREDENTIALS.filter(([name]) => name !== "API key in the query"))(
    "%s: not in the message, details, cause metadata or binary details",
    async (_name, credential, secrets) => {
      srv.handler = (stream, call) => echoAll(stream, call.headers as Record<string, unknown>);
      const client = new A2AClient(createGrpcTransport({ baseUrl: `127.0.0.1:${srv.port}`, interceptors: [credential()] }));
      const e = await client.getTask({ id: "t-1" }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(AuthenticationError);
      expect((e as A2AError).reason).toBe("ECHO");
      expect(srv.calls).toHaveLength(1);
      expectClean(e, secrets);
      const cause = (e as A2AError).cause as ConnectError;
      expect(cause).toBeInstanceOf(ConnectError);
      const shown = [inspect(cause.metadata), JSON.stringify([...cause.metadata]), JSON.stringify(cause.findDetails(ErrorInfoSchema))];
      for (const text of shown) for (const s of secrets) for (const f of forms(s)) expect(text).not.toContain(f);
      const stream = await (async () => {
        for await (const _ of client.sendStreamingMessage({ message: userMessage("hi") }, { resume: false })) break;
      })().catch((x: unknown) => x);
      expectClean(stream, secrets);
    },
  );

  it("a stream whose status in the trailers echoes the token", async () => {
    srv.handler = (stream, call) => {
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.on("wantTrailers", () =>
        stream.sendTrailers({
          "grpc-status": "13",
          "grpc-message": encodeURIComponent(`boom ${String(call.headers.authorization)}`),
          "x-echo": String(call.headers.authorization),
        }),
      );
      stream.end();
    };
    const client = new A2AClient(createGrpcTransport({ baseUrl: `127.0.0.1:${srv.port}`, interceptors: [bearerAuth(HEADER_SECRET)] }));
    const e = await (async () => {
      for await (const _ of client.sendStreamingMessage({ message: userMessage("hi") }, { resume: false }));
    })().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(A2AError);
    expect((e as Error).message).toContain("boom");
    expectClean(e, [HEADER_SECRET]);
  });
});

// --- Token endpoints that echo the request -----------------------------------------

describe("a token endpoint echoing the request", () => {
  let idp: FakeServer;
  beforeAll(async () => {
    idp = await startFakeServer((req, res, body) => {
      const echo = `${req.headers.authorization ?? ""} ${body} ${Buffer.from(body).toString("base64")}`;
      const [, basic] = /^Basic (.+)$/.exec(req.headers.authorization ?? "") ?? [];
      const decoded = basic ? Buffer.from(basic, "base64").toString("utf8") : "";
      if (req.url === "/type") {
        // A token of the wrong type, whose name echoes the request.
        return sendJson(res, 200, { access_token: "tok", token_type: `${req.headers.authorization} ${body}` });
      }
      sendJson(res, 401, { error: `invalid_client ${echo} ${decoded}`, error_description: `${basic ?? body} ${echo}`, echo });
    });
  });
  afterAll(() => idp.close());

  it.each(["basic", "body"] as const)(
    "clientAuth %s: the secret, its form encoding and the Basic value appear nowhere",
    async (clientAuth) => {
      const provider = clientCredentialsProvider({
        tokenUrl: `${idp.url}/token`,
        clientId: "client 1&=",
        clientSecret: SECRET,
        clientAuth,
      });
      const e = await provider.token().catch((x: unknown) => x);
      expect(e).toBeInstanceOf(AuthenticationError);
      expect((e as Error).message).toContain("invalid_client");
      const basicValue = b64(`${form("client 1&=")}:${form(SECRET)}`);
      expectClean(e, [SECRET, `${form("client 1&=")}:${form(SECRET)}`]);
      for (const text of surfaces(e)) expect(text).not.toContain(basicValue.slice(0, 20));
    },
  );

  it("a token type that echoes the request, cut to 40 characters, shows no part of the Basic value", async () => {
    const provider = clientCredentialsProvider({ tokenUrl: `${idp.url}/type`, clientId: "c", clientSecret: SECRET });
    const e = await provider.token().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as Error).message).toContain("only Bearer tokens");
    const basicValue = b64(`c:${form(SECRET)}`);
    for (const text of surfaces(e)) expect(text).not.toContain(basicValue.slice(0, 12));
  });

  it("through an agent's bearer interceptor too", async () => {
    const provider = clientCredentialsProvider({ tokenUrl: `${idp.url}/token`, clientId: "c", clientSecret: SECRET });
    const client = new A2AClient(createJsonRpcTransport({ baseUrl: `${agent.url}/rpc`, interceptors: [bearerAuth(provider)] }));
    agent.requests.length = 0;
    const e = await client.getTask({ id: "t" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expectClean(e, [SECRET, `c:${form(SECRET)}`]);
    // No call went to the agent without a token.
    expect(agent.requests.filter((r) => r.url.startsWith("/rpc"))).toHaveLength(0);
  });
});

// --- Credentials the application sets itself ---------------------------------------

/**
 * What an application may send on its own, outside the auth interceptors:
 * transport headers, call headers, its own interceptor, user info or a key
 * in the URL. Each case: the transport options it adds, the call options,
 * the base URL's suffix (user info goes in front of the host), the secrets.
 */
interface AppCredential {
  transport?: { headers?: HeadersInit; interceptors?: Interceptor[] };
  call?: { headers?: HeadersInit };
  userInfo?: string;
  query?: string;
  secrets: string[];
}

/** An interceptor of the application's that puts a credential on the request as it likes. */
const appInterceptor =
  (style: "in place" | "new request"): Interceptor =>
  (next) =>
  (req) => {
    if (style === "in place") {
      req.header.set("Authorization", `Bearer ${HEADER_SECRET}`);
      return next(req);
    }
    const header = new Headers(req.header);
    header.set("X-Custom-Credential", HEADER_SECRET);
    return next({ ...req, header } as typeof req);
  };

const APP_CREDENTIALS: ReadonlyArray<[string, AppCredential]> = [
  ["transport headers: Authorization", { transport: { headers: { Authorization: `Bearer ${HEADER_SECRET}` } }, secrets: [HEADER_SECRET] }],
  ["transport headers: X-API-Key", { transport: { headers: { "X-API-Key": HEADER_SECRET } }, secrets: [HEADER_SECRET] }],
  [
    "transport headers: a Cookie",
    { transport: { headers: { Cookie: `theme=dark; sid=${encodeURIComponent(SECRET)}` } }, secrets: [SECRET] },
  ],
  [
    "transport headers: Basic",
    { transport: { headers: { Authorization: `Basic ${b64(`ann:${SECRET}`)}` } }, secrets: [SECRET, `ann:${SECRET}`] },
  ],
  ["call headers: Authorization", { call: { headers: { Authorization: `Token ${HEADER_SECRET}` } }, secrets: [HEADER_SECRET] }],
  ["call headers: a header of any name", { call: { headers: { "X-Org-Passphrase": HEADER_SECRET } }, secrets: [HEADER_SECRET] }],
  [
    "an interceptor of the application's, in place",
    { transport: { interceptors: [appInterceptor("in place")] }, secrets: [HEADER_SECRET] },
  ],
  [
    "an interceptor of the application's, new headers",
    { transport: { interceptors: [appInterceptor("new request")] }, secrets: [HEADER_SECRET] },
  ],
];

/** Cases for the bindings that have URLs with user info and queries. */
const URL_CREDENTIALS: ReadonlyArray<[string, AppCredential]> = [
  ["user info in the base URL", { userInfo: `ann:${encodeURIComponent(SECRET)}`, secrets: [SECRET, `ann:${SECRET}`] }],
  ["an API key in the base URL's query", { query: `api_key=${encodeURIComponent(SECRET)}`, secrets: [SECRET] }],
];

/** The base URL `path` on `server` with the case's user info and query. */
function baseUrlOf(server: string, path: string, c: AppCredential): string {
  const u = new URL(path, server);
  const href = c.query ? `${u.href}?${c.query}` : u.href;
  return c.userInfo ? href.replace("://", `://${c.userInfo}@`) : href;
}

async function failures(client: A2AClient, c: AppCredential): Promise<[unknown, unknown]> {
  const unary = await client.getTask({ id: "t-1" }, c.call).catch((x: unknown) => x);
  const stream = await (async () => {
    for await (const _ of client.sendStreamingMessage({ message: userMessage("hi") }, { ...c.call, resume: false })) break;
  })().catch((x: unknown) => x);
  return [unary, stream];
}

describe.each([
  ["JSON-RPC", "/rpc", createJsonRpcTransport],
  ["HTTP+JSON", "/rest", createRestTransport],
  ["JSON-RPC 0.3", "/rpc", createJsonRpcTransportV03],
  ["HTTP+JSON 0.3", "/rest", createRestTransportV03],
] as const)("an agent echoing what the application sent over %s", (_binding, path, create) => {
  it.each([...APP_CREDENTIALS, ...URL_CREDENTIALS])(
    "%s: no form of it on the error, unary or stream, fetch or node:http",
    async (_name, c) => {
      for (const httpClient of [undefined, createNodeHttpClient()]) {
        const transport = create({ baseUrl: baseUrlOf(agent.url, path, c), httpClient, ...c.transport });
        for (const e of await failures(new A2AClient(transport), c)) {
          expect(e).toBeInstanceOf(A2AError);
          expectClean(e, c.secrets);
        }
      }
    },
  );
});

it("the echo does reach the error, masked: the agent's own words stay", async () => {
  const c = APP_CREDENTIALS[0]![1];
  const client = new A2AClient(createJsonRpcTransport({ baseUrl: `${agent.url}/rpc`, ...c.transport }));
  const [e] = await failures(client, c);
  expect((e as A2AError).message).toMatch(/rejected .*"authorization":"\*\*\*"/);
  expect((e as A2AError).message).toContain("a2a-version");
  expect(JSON.stringify((e as A2AError).details)).toContain("***");
  expectClean(e, c.secrets);
});

it("the query parameters HTTP+JSON makes of the request's own fields stay readable; the application's key does not", async () => {
  const c = URL_CREDENTIALS[1]![1];
  const client = new A2AClient(createRestTransport({ baseUrl: baseUrlOf(agent.url, "/rest", c) }));
  const e = await client.getTask({ id: "t-1", historyLength: 1234 }).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(A2AError);
  expect((e as A2AError).message).toContain("historyLength=1234");
  expect((e as A2AError).message).toContain("api_key=***");
  expectClean(e, c.secrets);
});

describe("a gRPC agent echoing what the application sent", () => {
  const srv = useFakeGrpcServer();
  it.each(APP_CREDENTIALS)("%s: not in the message, details, cause metadata or binary details", async (_name, c) => {
    srv.handler = (stream, call) => echoAll(stream, call.headers as Record<string, unknown>);
    for (const v03 of [false, true]) {
      const options = { baseUrl: `127.0.0.1:${srv.port}`, ...c.transport };
      const client = new A2AClient(v03 ? createGrpcTransportV03(options) : createGrpcTransport(options));
      for (const e of await failures(client, c)) {
        expect(e).toBeInstanceOf(A2AError);
        expect((e as Error).message).toContain("rejected");
        expectClean(e, c.secrets);
        const cause = (e as A2AError).cause as ConnectError;
        const shown = [inspect(cause.metadata), JSON.stringify([...cause.metadata]), JSON.stringify(cause.findDetails(ErrorInfoSchema))];
        for (const text of shown) for (const s of c.secrets) for (const f of forms(s)) expect(text).not.toContain(f);
      }
    }
  });
});

describe("a gRPC-web proxy echoing what the application sent", () => {
  let proxy: FakeServer;
  beforeAll(async () => {
    // A trailers-only answer: the status in the headers, echoing the request.
    proxy = await startFakeServer((req, res) => {
      const echo = JSON.stringify({ url: req.url, headers: req.headers });
      res.writeHead(200, {
        "Content-Type": "application/grpc-web+proto",
        "grpc-status": "16",
        "grpc-message": encodeURIComponent(`rejected ${echo}`),
        "x-echo": encodeURIComponent(echo),
      });
      res.end();
    });
  });
  afterAll(() => proxy.close());

  it.each([...APP_CREDENTIALS, URL_CREDENTIALS[1]!])("%s: not on the error, unary or stream", async (_name, c) => {
    const client = new A2AClient(createGrpcWebTransport({ baseUrl: baseUrlOf(proxy.url, "/", c), ...c.transport }));
    for (const e of await failures(client, c)) {
      expect(e).toBeInstanceOf(A2AError);
      expect((e as Error).message).toContain("rejected");
      expectClean(e, c.secrets);
    }
  });
});

describe("a header value the Headers class refuses", () => {
  const bad = `Bearer ${HEADER_SECRET}\u0000more`;
  const shows = (e: unknown) => surfaces(e).some((t = "") => t.includes(HEADER_SECRET) || t.includes("more"));

  it("in the transport's headers: the error names the header, not the value", () => {
    const e = (() => {
      try {
        createJsonRpcTransport({ baseUrl: `${agent.url}/rpc`, headers: { Authorization: bad } });
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(InvalidParamsError);
    expect((e as Error).message).toContain('"Authorization"');
    expect(shows(e)).toBe(false);
  });

  it("in a call's headers: the call fails without the value on its error", async () => {
    const client = new A2AClient(createRestTransport({ baseUrl: `${agent.url}/rest` }));
    const e = await client.getTask({ id: "t-1" }, { headers: [["X-API-Key", bad]] }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidParamsError);
    expect((e as Error).message).toContain('"X-API-Key"');
    expect(shows(e)).toBe(false);
  });
});
