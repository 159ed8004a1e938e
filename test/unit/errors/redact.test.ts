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
import { ErrorInfoSchema } from "../../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../../gen/google/rpc/status_pb.js";
import {
  A2AClient,
  A2AError,
  AgentCardVerificationError,
  AuthenticationError,
  InvalidAgentCardError,
  InvalidAgentResponseError,
  InvalidParamsError,
  MemoryCardStore,
  NoCompatibleInterfaceError,
  VersionNotSupportedError,
  apiKeyAuth,
  basicAuth,
  bearerAuth,
  clientCredentialsProvider,
  createGrpcWebTransport,
  createFetchHttpClient,
  discoveredTokenProvider,
  httpAuth,
  listAllTasks,
  resolveAgentCard,
  userMessage,
  type CardStore,
  type StoredCard,
} from "../../../src/index.js";
import { PassThrough } from "node:stream";
import { redactSecrets } from "../../../src/errors/redact.js";
import { Output } from "../../../src/cli/output.js";
import {
  createGrpcTransport,
  createGrpcTransportV03,
  createNodeHttpClient,
  createJsonRpcTransport,
  createJsonRpcTransportV03,
  createRestTransport,
  createRestTransportV03,
  connect,
} from "../../../src/node.js";
import { applyVerifyPolicy, verifyAgentCard } from "../../../src/trust.js";
import { cardJson, keyPair, signJson, type TestKeyPair } from "../../support/cards.js";
import { errorSurfaces } from "../../support/surfaces.js";
import { useFakeGrpcServer } from "../../support/fake-grpc-server.js";
import { sendJson, sseFrame, startFakeServer, startSse, type FakeServer } from "../../support/fake-server.js";

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
    // As Go writes JSON (HTML-safe) and PHP (slashes and non-ASCII escaped).
    JSON.stringify(secret)
      .slice(1, -1)
      .replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`),
    pythonJson(secret).slice(1, -1).replace(/\//g, "\\/"),
    // As protobuf-es quotes a value it cannot read: quotes escaped, backslashes not.
    secret.split('"').join('\\"'),
    b64(secret),
    b64(secret).replace(/=+$/, ""),
    b64url(secret),
  ];
}

/** No word of `text`, decoded from base64 or percent-encoding, holds `secret` as sent or as JSON writes it. */
function expectNothingDecodes(text: string, secret: string): void {
  const json = JSON.stringify(secret).slice(1, -1);
  for (const word of text.split(/\s+/)) {
    const decoded = [Buffer.from(word, "base64").toString("utf8")];
    try {
      decoded.push(decodeURIComponent(word));
    } catch {
      // Not percent-encoded.
    }
    for (const d of decoded)
      for (const f of [secret, json]) expect(d, `a word that decodes to a form of ${JSON.stringify(secret)}`).not.toContain(f);
  }
}

function expectClean(e: unknown, secrets: string[]): void {
  expect(e).toBeInstanceOf(Error);
  for (const text of errorSurfaces(e)) {
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

  it("a stack that is an accessor, as newer V8 makes it (Node 21+, Chromium), is masked through it or replaced", () => {
    // V8 from 11.8 keeps the stack, made with the message of the moment, behind an own getter and setter.
    const withSetter = new A2AError(`rejected ${SECRET}`, { cause: new TypeError(`echo ${b64(SECRET)}`) });
    const getterOnly = withSetter.cause as TypeError;
    let hidden = withSetter.stack!;
    Object.defineProperty(withSetter, "stack", {
      get: () => hidden,
      set: (v: string) => void (hidden = v),
      enumerable: false,
      configurable: true,
    });
    const frozenStack = getterOnly.stack!;
    Object.defineProperty(getterOnly, "stack", { get: () => frozenStack, enumerable: false, configurable: true });
    expect(withSetter.stack).toContain(SECRET);

    redactSecrets(withSetter, [SECRET]);
    expect(hidden).toMatch(/^A2AError: rejected \*\*\*\n/);
    expect(getterOnly.stack).toMatch(/^TypeError: echo \*\*\*\n/);
    expectClean(withSetter, [SECRET]);
    expect(inspect(getterOnly)).not.toContain(b64(SECRET));
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
      const echo = `${req.url} ${req.headers.authorization ?? ""} ${body} ${Buffer.from(body).toString("base64")}`;
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
      for (const text of errorSurfaces(e)) expect(text).not.toContain(basicValue.slice(0, 20));
    },
  );

  it("form fields given in params that are credentials (a client assertion, a subject token) appear nowhere; others stay readable", async () => {
    const assertion = "eyJhbGciOiJSUzI1NiJ9.ASSERTION-payload.signature-part";
    const subject = "subject-TOKEN-value-42";
    const provider = clientCredentialsProvider({
      tokenUrl: `${idp.url}/token`,
      clientId: "c",
      clientSecret: "another-secret",
      params: { client_assertion: assertion, subject_token: subject, audience: "https://api.example" },
    });
    const e = await provider.token().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expectClean(e, [assertion, subject]);
    expect((e as Error).message).toContain("audience=https");
  });

  it("a token type that echoes the request, cut to 40 characters, shows no part of the Basic value", async () => {
    const provider = clientCredentialsProvider({ tokenUrl: `${idp.url}/type`, clientId: "c", clientSecret: SECRET });
    const e = await provider.token().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as Error).message).toContain("only Bearer tokens");
    const basicValue = b64(`c:${form(SECRET)}`);
    for (const text of errorSurfaces(e)) expect(text).not.toContain(basicValue.slice(0, 12));
  });

  it("a key in the token URL's query is not on the error; a URL with user info is refused without it", async () => {
    const keyed = clientCredentialsProvider({
      tokenUrl: `${idp.url}/token?subscription-key=${encodeURIComponent(SECRET)}`,
      clientId: "c",
      clientSecret: "another-secret",
    });
    const e = await keyed.token().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as Error).message).toContain("subscription-key=***");
    expectClean(e, [SECRET]);
    const withUser = idp.url.replace("://", `://ann:${encodeURIComponent(SECRET)}@`);
    const providers = [
      clientCredentialsProvider({ tokenUrl: `${withUser}/token`, clientId: "c", clientSecret: "another-secret" }),
      discoveredTokenProvider({
        discoveryUrl: `${withUser}/.well-known/openid-configuration`,
        clientId: "c",
        clientSecret: "another-secret",
      }),
    ];
    for (const provider of providers) {
      const refused = await provider.token().catch((x: unknown) => x);
      expect(refused).toBeInstanceOf(AuthenticationError);
      expect((refused as Error).message).toContain("must not carry user info");
      expectClean(refused, [SECRET, `ann:${SECRET}`]);
    }
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

it("an error of the application's own interceptor holding the request as URL, Map and Set objects shows no credential", async () => {
  // An interceptor that refuses the call before it is sent, describing it with objects rather than text.
  const refusing: Interceptor = () => async (req) => {
    throw Object.assign(new Error("refused by policy"), {
      url: new URL(req.url),
      sent: new Map(req.header),
      values: new Set(req.header.values()),
    });
  };
  const baseUrl = `${agent.url}/rpc?api_key=${encodeURIComponent(SECRET)}`;
  const client = new A2AClient(createJsonRpcTransport({ baseUrl, headers: { "X-API-Key": HEADER_SECRET }, interceptors: [refusing] }));
  const e = await client.getTask({ id: "t-1" }).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(A2AError);
  // The interceptor's error, down the cause chain (connect wraps it).
  let cause = e as { cause?: unknown; url?: URL; sent?: Map<string, string> };
  while (cause.url === undefined && cause.cause) cause = cause.cause as typeof cause;
  expect(cause.url?.searchParams.get("api_key")).toBe("***");
  expect(cause.sent?.get("x-api-key")).toBe("***");
  expectClean(e, [SECRET, HEADER_SECRET]);
});

it("a fetch wrapper whose error holds its Request and Response, as ky's HTTPError does: no credential on them, call or card", async () => {
  // A fetch that fails an answer it does not accept, describing it with the objects of the exchange.
  const failing: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const response = new Response("refused", { status: 401, headers: { "X-Echo": request.headers.get("x-api-key") ?? "" } });
    throw Object.assign(new Error(`Request failed with status code ${response.status}`), { request, response });
  };
  const query = `?api_key=${encodeURIComponent(SECRET)}`;
  const headers = { "X-API-Key": HEADER_SECRET };
  const transport = createJsonRpcTransport({ baseUrl: `${agent.url}/rpc${query}`, headers, httpClient: createFetchHttpClient(failing) });
  const errors = [
    await new A2AClient(transport).getTask({ id: "t-1" }).catch((x: unknown) => x),
    await resolveAgentCard(`${agent.url}/card.json${query}`, { headers, fetch: failing, cache: false }).catch((x: unknown) => x),
  ];
  expect(errors[0]).toBeInstanceOf(A2AError);
  for (const e of errors) {
    // The objects are kept, cleaned: the wrapper's error, down the cause chain.
    let cause = e as { cause?: unknown; request?: Request; response?: Response };
    while (cause.request === undefined && cause.cause) cause = cause.cause as typeof cause;
    expect(cause.request?.headers.get("x-api-key")).toBe("***");
    expect(cause.response?.headers.get("x-echo")).toBe("***");
    expectClean(e, [SECRET, HEADER_SECRET]);
  }
});

it("an agent that hands the credential back as a page token, twice: the error that stops the listing does not quote it", async () => {
  const lister = await startFakeServer((req, res, body) => {
    const { id } = JSON.parse(body) as { id: number };
    sendJson(res, 200, {
      jsonrpc: "2.0",
      id,
      result: { tasks: [], nextPageToken: String(req.headers["x-api-key"]), pageSize: 1, totalSize: 2 },
    });
  });
  try {
    const client = new A2AClient(createJsonRpcTransport({ baseUrl: `${lister.url}/rpc`, headers: { "X-API-Key": HEADER_SECRET } }));
    const e = await (async () => {
      for await (const _ of listAllTasks(client));
    })().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidAgentResponseError);
    expectClean(e, [HEADER_SECRET]);
  } finally {
    await lister.close();
  }
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

describe("a gRPC agent echoing binary metadata the application sent (-bin)", () => {
  const srv = useFakeGrpcServer();
  it("what the base64 decodes to is not on the error", async () => {
    // The server reads binary metadata as the bytes it decodes to, and quotes those.
    srv.handler = (stream, call) => {
      const bytes = Buffer.from(String(call.headers["x-credential-bin"]), "base64");
      stream.respond(
        {
          ":status": 200,
          "content-type": "application/grpc",
          "grpc-status": "16",
          "grpc-message": encodeURIComponent(`rejected ${bytes.toString("utf8")}`),
          "x-echo-bin": bytes.toString("base64"),
        },
        { endStream: true },
      );
    };
    const headers = { "x-credential-bin": b64(SECRET) };
    const client = new A2AClient(createGrpcTransport({ baseUrl: `127.0.0.1:${srv.port}`, headers }));
    for (const e of await failures(client, { secrets: [SECRET] })) {
      expect(e).toBeInstanceOf(A2AError);
      expect((e as Error).message).toContain("rejected");
      expectClean(e, [SECRET]);
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
  const shows = (e: unknown) => errorSurfaces(e).some((t = "") => t.includes(HEADER_SECRET) || t.includes("more"));

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

  it("in the headers of a card request (resolveAgentCard, connect): a rejection naming the header, not the value; nothing is fetched", async () => {
    let fetched = 0;
    const options = {
      headers: { Authorization: bad },
      cache: false as const,
      fetch: () => Promise.reject(new Error(`fetched ${++fetched}`)),
    };
    const url = "https://agent.example.com";
    for (const pending of [resolveAgentCard(url, options), connect(url, options)]) {
      const e = await pending.catch((x: unknown) => x);
      expect(e).toBeInstanceOf(InvalidParamsError);
      expect((e as Error).message).toContain('"Authorization"');
      expect(shows(e)).toBe(false);
    }
    expect(fetched).toBe(0);
  });
});

// --- Credentials the request message hands the agent: a push config's ----------------

/** The webhook's token, the credentials the agent is to send it (Basic), and a key in the webhook URL. */
const PUSH_TOKEN = `push ${SECRET}`;
const HOOK_PASSWORD = `hook-${SECRET}`;
const HOOK_KEY = "hook-query-key-1234";
const pushConfig = (taskId?: string) => ({
  ...(taskId === undefined ? {} : { taskId }),
  url: `https://hooks.example.com/a2a?key=${HOOK_KEY}`,
  token: PUSH_TOKEN,
  authentication: { scheme: "Basic", credentials: b64(`hook:${HOOK_PASSWORD}`) },
});
const PUSH_SECRETS = [PUSH_TOKEN, HOOK_PASSWORD, `hook:${HOOK_PASSWORD}`, HOOK_KEY];

/** The three calls that carry a push config, each failing as the agent echoes its request; and the events the stream gave first. */
async function pushConfigFailures(client: A2AClient): Promise<{ errors: unknown[]; events: number }> {
  const created = await client.createTaskPushNotificationConfig(pushConfig("t-1")).catch((x: unknown) => x);
  const sent = await client
    .sendMessage({ message: userMessage("hi"), configuration: { taskPushNotificationConfig: pushConfig() } })
    .catch((x: unknown) => x);
  let events = 0;
  const streamed = await (async () => {
    const stream = client.sendStreamingMessage(
      { message: userMessage("hi"), configuration: { taskPushNotificationConfig: pushConfig() } },
      { resume: false },
    );
    for await (const _ of stream) events++;
  })().catch((x: unknown) => x);
  return { errors: [created, sent, streamed], events };
}

describe("an agent echoing the push config a request hands it", () => {
  let echo: FakeServer;
  beforeAll(async () => {
    // Refuses every call quoting the whole body: as sent, as a Go server and a PHP one would
    // write it again, in base64 and percent-encoded, in the message and the details; a stream
    // first sends an event, then the refusal.
    echo = await startFakeServer((req, res, body) => {
      const go = body.replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
      const php = body.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).replace(/\//g, "\\/");
      const quoted = `${body} ${go} ${php} ${b64(body)} ${encodeURIComponent(body)}`;
      const details = [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "ECHO", domain: "x", metadata: { body } }];
      if (req.url!.startsWith("/rpc")) {
        const { id, method } = JSON.parse(body) as { id: number; method: string };
        const error = { jsonrpc: "2.0", id, error: { code: -32602, message: `invalid ${quoted}`, data: details } };
        if (!/stream/i.test(method)) return sendJson(res, 200, error);
        startSse(res);
        const task = { id: "t-1", contextId: "c-1", status: { state: "TASK_STATE_WORKING" } };
        res.write(
          sseFrame({
            jsonrpc: "2.0",
            id,
            result: /message\/stream/.test(method) ? { kind: "task", ...task, status: { state: "working" } } : { task },
          }),
        );
        res.end(sseFrame(error));
        return;
      }
      sendJson(res, 400, { error: { code: 3, status: "INVALID_ARGUMENT", message: `invalid ${quoted}`, details } });
    });
  });
  afterAll(() => echo.close());

  it.each([
    ["JSON-RPC", "/rpc", createJsonRpcTransport],
    ["HTTP+JSON", "/rest", createRestTransport],
    ["JSON-RPC 0.3", "/rpc", createJsonRpcTransportV03],
    ["HTTP+JSON 0.3", "/rest", createRestTransportV03],
  ] as const)("over %s: the token, the credentials and the webhook URL's key appear nowhere", async (_binding, path, create) => {
    for (const interceptors of [undefined, [bearerAuth(HEADER_SECRET)]]) {
      const client = new A2AClient(create({ baseUrl: `${echo.url}${path}`, interceptors }));
      const { errors, events } = await pushConfigFailures(client);
      // JSON-RPC streams fail after an event: the error comes in the middle of the stream.
      expect(events).toBe(path === "/rpc" ? 1 : 0);
      for (const e of errors) {
        expect(e).toBeInstanceOf(A2AError);
        // The agent did echo the request: what it said is there, masked.
        expect((e as Error).message).toContain("invalid");
        expectClean(e, [...PUSH_SECRETS, HEADER_SECRET]);
        for (const s of [PUSH_TOKEN, HOOK_PASSWORD]) expectNothingDecodes((e as Error).message, s);
      }
    }
  });

  describe("over gRPC", () => {
    const srv = useFakeGrpcServer();
    it.each([false, true])("0.3 %s: the token and the credentials appear nowhere", async (v03) => {
      // The request as received (protobuf), quoted in the status message and metadata.
      srv.handler = (stream, call) => {
        const body = call.body.toString("latin1");
        stream.respond(
          {
            ":status": 200,
            "content-type": "application/grpc",
            "grpc-status": "3",
            "grpc-message": encodeURIComponent(`invalid ${body}`),
            "x-echo-bin": call.body.toString("base64"),
          },
          { endStream: true },
        );
      };
      const options = { baseUrl: `127.0.0.1:${srv.port}`, interceptors: [bearerAuth(HEADER_SECRET)] };
      const client = new A2AClient(v03 ? createGrpcTransportV03(options) : createGrpcTransport(options));
      for (const e of (await pushConfigFailures(client)).errors) {
        expect(e).toBeInstanceOf(A2AError);
        expect((e as Error).message).toContain("invalid");
        expectClean(e, PUSH_SECRETS);
        const cause = (e as A2AError).cause as ConnectError;
        for (const s of PUSH_SECRETS) for (const f of forms(s)) expect(inspect(cause.metadata)).not.toContain(f);
      }
    });
  });

  it("through a gRPC-web proxy: the token and the credentials appear nowhere", async () => {
    const proxy = await startFakeServer((_req, res, body) => {
      res.writeHead(200, {
        "Content-Type": "application/grpc-web+proto",
        "grpc-status": "3",
        "grpc-message": encodeURIComponent(`invalid ${Buffer.from(body, "latin1").toString("base64")} ${body}`),
      });
      res.end();
    });
    try {
      const client = new A2AClient(createGrpcWebTransport({ baseUrl: proxy.url }));
      for (const e of (await pushConfigFailures(client)).errors) {
        expect(e).toBeInstanceOf(A2AError);
        expect((e as Error).message).toContain("invalid");
        expectClean(e, PUSH_SECRETS);
      }
    } finally {
      await proxy.close();
    }
  });
});

it("a base URL's query parameter named as a request field is masked on a call whose fields go in the body", async () => {
  const client = new A2AClient(createJsonRpcTransport({ baseUrl: `${agent.url}/rpc?token=${encodeURIComponent(SECRET)}` }));
  const e = await client.createTaskPushNotificationConfig({ taskId: "t-1", url: "https://hooks.example.com/a2a" }).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(A2AError);
  expect((e as Error).message).toContain("token=***");
  expectClean(e, [SECRET]);
});

// --- Resolving an Agent Card with credentials ---------------------------------------

describe("resolving an Agent Card with credentials", () => {
  let cards: FakeServer;
  let signing = false;
  let key: TestKeyPair;
  beforeAll(async () => {
    key = await keyPair("ES256", "k1");
    // /echo: the request's credentials quoted where a card is expected, in a body that does not
    // parse and in a field of the wrong type; /signed: a signed card, then (signing off) the same unsigned.
    cards = await startFakeServer(async (req, res) => {
      const url = new URL(req.url!, "http://x");
      if (url.pathname === "/signed.json") return sendJson(res, 200, signing ? await signJson(cardJson(), key) : cardJson());
      if (url.pathname === "/cached.json") return sendJson(res, 200, cardJson(), { "Cache-Control": "max-age=600" });
      const echoed = req.headers["x-api-key"] ?? req.headers.authorization ?? url.searchParams.get("key") ?? "";
      if (url.pathname === "/echo.json") return sendJson(res, 200, cardJson({ capabilities: echoed }));
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(`${echoed} was refused`);
    });
  });
  afterAll(() => cards.close());

  /** Every surface of `e`, and no part of `secret` as long as 8 characters (a parser quotes text cut short). */
  function expectNoneOf(e: unknown, secret: string): void {
    expectClean(e, [secret]);
    for (const text of errorSurfaces(e)) for (let i = 0; i + 8 <= secret.length; i++) expect(text).not.toContain(secret.slice(i, i + 8));
  }

  it.each([
    ["a body that is not JSON", "/card.json"],
    ["a card with the key in a field", "/echo.json"],
  ])("an agent echoing the header sent, in %s: no part of it on the error", async (_case, path) => {
    const e = await resolveAgentCard(`${cards.url}${path}`, { headers: { "X-API-Key": HEADER_SECRET }, cache: false }).catch(
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(InvalidAgentCardError);
    expectNoneOf(e, HEADER_SECRET);
  });

  it("an agent echoing the key in the card URL's query: not on the error", async () => {
    const e = await resolveAgentCard(`${cards.url}/echo.json?key=${encodeURIComponent(SECRET)}`, { cache: false }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidAgentCardError);
    expectClean(e, [SECRET]);
  });

  it("a card URL with user info, sent as Basic credentials: neither the password, the user info nor the Basic value on the error", async () => {
    const withUser = cards.url.replace("://", `://ann:${encodeURIComponent(SECRET)}@`);
    const basic = btoa(String.fromCharCode(...new TextEncoder().encode(`ann:${SECRET}`)));
    for (const target of [`${withUser}/card.json`, `${withUser}/card.json`.replace(/:\d+\//, ":99999/")]) {
      const e = await resolveAgentCard(target, { cache: false }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(A2AError);
      expectClean(e, [SECRET, `ann:${SECRET}`, basic]);
    }
    // The card server echoed the Basic value it got.
    expect(cards.requests.at(-1)!.headers.authorization).toBe(`Basic ${basic}`);
  });

  it("a card store's keys hold no credential sent (headers, the URL's key), and the memory store shows no header sent", async () => {
    const headers = { "X-API-Key": HEADER_SECRET, Authorization: `Bearer ${HEADER_SECRET}-token` };
    const url = `${cards.url}/cached.json?key=${encodeURIComponent(SECRET)}`;
    const keys: string[] = [];
    const kept = new Map<string, StoredCard>();
    const recording: CardStore = {
      get: (k) => (keys.push(k), kept.get(k)),
      set: (k, v) => void (keys.push(k), kept.set(k, v)),
      delete: (k) => void kept.delete(k),
    };
    const memory = new MemoryCardStore();
    for (const cache of [recording, memory]) {
      expect((await resolveAgentCard(url, { cache, headers })).cache).toBe("miss");
      // The same request is told apart from another's as before: the same entry for it, none for other headers.
      expect((await resolveAgentCard(url, { cache, headers })).cache).toBe("hit");
      expect((await resolveAgentCard(url, { cache, headers: { "X-API-Key": "another" } })).cache).toBe("miss");
    }
    expect(new Set(keys).size).toBe(2);
    for (const k of keys) {
      for (const secret of [SECRET, HEADER_SECRET]) for (const f of forms(secret)) expect(k).not.toContain(f);
      expect(k.startsWith(`${cards.url}/cached.json `)).toBe(true);
    }
    const shown = [inspect(memory, { depth: Infinity, showHidden: true }), JSON.stringify([...keys])];
    for (const text of shown) for (const f of forms(HEADER_SECRET)) expect(text).not.toContain(f);
  });

  it("an unsigned card after signed ones, at a URL with a key: the refusal names the URL without it", async () => {
    const url = `${cards.url}/signed.json?key=${encodeURIComponent(SECRET)}`;
    signing = true;
    const first = await resolveAgentCard(url, { cache: false, verification: { keys: { keys: [key.jwk] } } });
    expect(first.verification?.verified).toBe(true);
    signing = false;
    const e = await resolveAgentCard(url, { cache: false }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AgentCardVerificationError);
    expect((e as Error).message).toContain(`${cards.url}/signed.json is unsigned`);
    expectClean(e, [SECRET]);
  });
});

describe("connecting through a card whose interface URLs carry a key", () => {
  const KEY = "interface-key-5678";

  it("no usable interface: the error names each interface without its key", async () => {
    const card = cardJson({
      supportedInterfaces: [{ url: `https://agent.example.com/a2a?key=${KEY}`, protocolBinding: "CARRIER-PIGEON", protocolVersion: "1.0" }],
    });
    const e = await connect(card as never).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NoCompatibleInterfaceError);
    expect((e as Error).message).toContain("at https://agent.example.com/a2a:");
    expectClean(e, [KEY]);
  });

  it("a version the agent rejects: the error names the interface without its key", async () => {
    const agentV = await startFakeServer((_req, res, body) => {
      const { id } = JSON.parse(body) as { id: number };
      sendJson(res, 200, { jsonrpc: "2.0", id, error: { code: -32009, message: "version not supported" } });
    });
    try {
      const card = cardJson({
        supportedInterfaces: [
          { url: `${agentV.url}/a2a?key=${KEY}`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
          { url: `${agentV.url}/v03`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
        ],
      });
      const { client } = await connect(card as never);
      const e = await client.getTask({ id: "t-1" }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(VersionNotSupportedError);
      expect((e as Error).message).toContain(`at ${agentV.url}/a2a (`);
      expectClean(e, [KEY]);
    } finally {
      await agentV.close();
    }
  });
});

it("a base URL that does not parse: its user info and key are not on the error, whichever binding", async () => {
  const bad = `http://ann:${encodeURIComponent(SECRET)}@127.0.0.1:99999/a2a?key=${encodeURIComponent(SECRET)}`;
  // Refused when the transport is made, by the option's name, never its text.
  for (const make of [createJsonRpcTransport, createRestTransport, createGrpcTransport]) {
    const created = (() => {
      try {
        make({ baseUrl: bad });
      } catch (x) {
        return x;
      }
    })();
    expect(created).toBeInstanceOf(InvalidParamsError);
    expectClean(created, [SECRET, `ann:${SECRET}`]);
  }
  for (const e of [await resolveAgentCard(bad).catch((x: unknown) => x), await connect(bad).catch((x: unknown) => x)]) {
    expect(e).toBeInstanceOf(InvalidParamsError);
    expectClean(e, [SECRET, `ann:${SECRET}`]);
  }
});

it("verification options naming a URL that does not parse or has no origin: its user info and key are not on the error", async () => {
  const info = `ann:${encodeURIComponent(SECRET)}@`;
  const query = `?key=${encodeURIComponent(SECRET)}`;
  const card = await signJson(cardJson(), await keyPair("ES256", "k1"));
  for (const url of [
    `https://${info}agent.example.com:99999/card.json${query}`,
    `agent+card://${info}agent.example.com/card.json${query}`,
  ]) {
    const options = [{ cardUrl: url }, { jku: { allowedOrigins: [url] } }];
    const errors = [
      ...(await Promise.all(options.map((o) => verifyAgentCard(card as never, o).catch((x: unknown) => x)))),
      await applyVerifyPolicy(cardJson() as never, "if-present", { cardUrl: url }).catch((x: unknown) => x),
    ];
    for (const e of errors) {
      expect(e).toBeInstanceOf(TypeError);
      expect((e as Error).message).toMatch(/^(cardUrl|jku\.allowedOrigins): /);
      expectClean(e, [SECRET, `ann:${SECRET}`]);
    }
  }
});

describe("a request with a value of the wrong type in a message made by create()", () => {
  const grpc = useFakeGrpcServer();
  /** A role that is a short secret instead of a number: protobuf-es quotes such a value in its error. */
  const badMessage = () => Object.assign(userMessage("hi"), { role: "role-key-4321" as never });

  it.each([
    ["JSON-RPC", () => createJsonRpcTransport({ baseUrl: `${agent.url}/rpc` })],
    ["HTTP+JSON", () => createRestTransport({ baseUrl: `${agent.url}/rest` })],
    ["JSON-RPC 0.3", () => createJsonRpcTransportV03({ baseUrl: `${agent.url}/rpc` })],
    ["gRPC", () => createGrpcTransport({ baseUrl: `127.0.0.1:${grpc.port}` })],
  ] as const)("over %s: InvalidParamsError naming the field, never the value; nothing is sent", async (_binding, transport) => {
    agent.requests.length = 0;
    const client = new A2AClient(transport());
    const unary = await client.sendMessage({ message: badMessage() }).catch((x: unknown) => x);
    const stream = await (async () => {
      for await (const _ of client.sendStreamingMessage({ message: badMessage() }, { resume: false }));
    })().catch((x: unknown) => x);
    for (const e of [unary, stream]) {
      expect(e).toBeInstanceOf(InvalidParamsError);
      expect((e as Error).message).toMatch(/cannot be written as (ProtoJSON|protobuf) \(at lf\.a2a\.v1\.(Role|Message\.role)\)/);
      expectClean(e, ["role-key-4321"]);
    }
    expect(agent.requests).toHaveLength(0);
    expect(grpc.calls).toHaveLength(0);
  });

  it("over gRPC, an error an interceptor names before any status stays that error", async () => {
    const client = new A2AClient(createGrpcTransport({ baseUrl: `127.0.0.1:${grpc.port}`, interceptors: [bearerAuth(() => "")] }));
    const e = await client.getTask({ id: "t-1" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as Error).message).toContain("no token to send");
    expect(grpc.calls).toHaveLength(0);
  });
});
