/**
 * What a caller gives a transport, checked when it is given: a number
 * option that is not one would switch a limit or a deadline off without a
 * word, a base URL that is not an http(s) URL would fail every call as a
 * "connection" failure; and durations longer than a timer can wait.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  A2AClient,
  AgentCardSchema,
  InvalidParamsError,
  connect,
  createGrpcTransport,
  createGrpcTransportV03,
  createGrpcWebTransport,
  createJsonRpcTransport,
  createJsonRpcTransportV03,
  createRestTransport,
  createRestTransportV03,
  type A2ATransport,
  type ConnectTarget,
} from "../../../src/node.js";
import { grpcBaseUrl } from "../../../src/bindings/grpc/url.js";
import { checkPageSize } from "../../../src/client/paginate.js";
import { checkOptions as checkResumeOptions } from "../../../src/client/resume-policy.js";
import { checkRetryPolicy } from "../../../src/call/retry.js";
import { RETRY_KIT } from "../../../src/call/retry-kit.js";
import { waitForTask } from "../../../src/client/wait.js";
import { createPushReceiver } from "../../../src/push/receiver.js";
import { cardJson } from "../../support/cards.js";
import { sendJson, sseFrame, startFakeServer, startSse, type FakeServer } from "../../support/fake-server.js";

const TASK = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } };

const CREATORS: ReadonlyArray<[string, (options: { baseUrl: string }) => A2ATransport]> = [
  ["JSON-RPC", createJsonRpcTransport],
  ["HTTP+JSON", createRestTransport],
  ["JSON-RPC 0.3", createJsonRpcTransportV03],
  ["HTTP+JSON 0.3", createRestTransportV03],
  ["gRPC", createGrpcTransport],
  ["gRPC 0.3", createGrpcTransportV03],
  ["gRPC-web", createGrpcWebTransport],
];

describe("transport options are checked when the transport is made", () => {
  const badNumbers: ReadonlyArray<[string, unknown]> = [
    ["maxResponseBytes", Number.NaN],
    ["maxResponseBytes", "1048576"],
    ["maxResponseBytes", 0],
    ["maxEventBytes", Number.NaN],
    ["maxEventBytes", -1],
    ["readMaxBytes", Number.NaN],
    ["timeoutMs", Number.NaN],
    ["timeoutMs", "30000"],
    ["idleTimeoutMs", Number.NaN],
    ["pingIntervalMs", 0],
    ["pingTimeoutMs", Number.NaN],
  ];

  it.each(CREATORS)("%s: a number option that is not a usable number is InvalidParamsError naming it", (_name, make) => {
    for (const [option, value] of badNumbers) {
      const made = () => make({ baseUrl: "http://127.0.0.1:1", [option]: value } as { baseUrl: string });
      expect(made, `${option}: ${String(value)}`).toThrow(InvalidParamsError);
      expect(made).toThrow(new RegExp(`^${option} must be`));
    }
    // 0 and Infinity are "no limit" for a duration, as documented.
    expect(() => make({ baseUrl: "http://127.0.0.1:1", timeoutMs: 0, idleTimeoutMs: Infinity } as { baseUrl: string })).not.toThrow();
  });

  it.each(CREATORS)("%s: a base URL that is not an http(s) URL is InvalidParamsError, without quoting it", (name, make) => {
    const grpc = name.startsWith("gRPC");
    const bad = ["http://[::1", "http://exa mple.com/?key=SECRET-KEY", "javascript:alert('SECRET-KEY')", "", 5, undefined, null];
    // A path or a non-http scheme is not a URL the HTTP bindings can call; gRPC reads a bare name as host:port.
    if (!grpc) bad.push("/a2a?key=SECRET-KEY", "file:///SECRET-KEY", "ftp://a.example/SECRET-KEY");
    for (const baseUrl of bad) {
      let error: unknown;
      try {
        make({ baseUrl } as { baseUrl: string });
      } catch (e) {
        error = e;
      }
      expect(error, String(baseUrl)).toBeInstanceOf(InvalidParamsError);
      expect((error as Error).message).toMatch(/^baseUrl must be an (absolute )?http or https URL/);
      expect((error as Error).message).not.toContain("SECRET-KEY");
    }
  });
});

describe("a call's own timeoutMs", () => {
  let srv: FakeServer;
  beforeEach(async () => {
    srv = await startFakeServer((_req, res) => sendJson(res, 200, TASK));
  });
  afterEach(() => srv.close());

  it("that is not a number is InvalidParamsError, and nothing is sent", async () => {
    const client = new A2AClient(createRestTransport({ baseUrl: srv.url }));
    for (const timeoutMs of [Number.NaN, "5000"]) {
      const e = await client.getTask({ id: "t1" }, { timeoutMs: timeoutMs as number }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(InvalidParamsError);
      expect((e as Error).message).toMatch(/^timeoutMs must be a number of milliseconds/);
    }
    expect(srv.requests).toHaveLength(0);
  });

  it("connect() refuses its transport's wrong numbers before fetching the card", async () => {
    const e = await connect(srv.url, { transport: { maxResponseBytes: Number.NaN } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidParamsError);
    expect((e as Error).message).toMatch(/^transport\.maxResponseBytes must be a number above 0/);
    expect(srv.requests).toHaveLength(0);
  });

  it("connect() refuses a timeoutMs that is not a number before anything, also for a card already resolved", async () => {
    const card = cardJson({ supportedInterfaces: [{ url: srv.url, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }] });
    const resolved = { card: fromJson(AgentCardSchema, card as JsonValue), url: "", shape: "1.0", cache: "miss", warnings: [] } as const;
    for (const target of [srv.url, { ...resolved, verification: undefined }] as ConnectTarget[]) {
      const e = await connect(target, { timeoutMs: Number.NaN }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(InvalidParamsError);
      expect((e as Error).message).toMatch(/^timeoutMs must be a number of milliseconds, got NaN/);
    }
    expect(srv.requests).toHaveLength(0);
  });

  it("connect() refuses a negative timeoutMs before anything, saying that 0 means no limit for calls", async () => {
    const e = await connect(srv.url, { timeoutMs: -1 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidParamsError);
    expect((e as Error).message).toBe("timeoutMs must be 0 or more (0 or Infinity: no limit for calls), got -1");
    expect(srv.requests).toHaveLength(0);
  });
});

describe("a duration longer than a timer can wait (2^31 ms and more) is not taken as 1 ms", () => {
  let srv: FakeServer;
  beforeEach(async () => {
    srv = await startFakeServer();
  });
  afterEach(() => srv.close());

  /**
   * Holds each response until a timer of 1 ms set after the request arrived
   * has fired: a deadline the runtime shortened to 1 ms (set before the
   * request left) has fired by then, as timers of one duration fire in the
   * order they were set.
   */
  function holding(answer: (req: IncomingMessage, res: ServerResponse, body: string) => void): void {
    srv.handle((req, res, body) => void setTimeout(() => answer(req, res, body), 1));
  }

  const jsonRpcAnswer = (result: unknown) => (_req: IncomingMessage, res: ServerResponse, body: string) =>
    sendJson(res, 200, { jsonrpc: "2.0", id: (JSON.parse(body) as { id: number }).id, result });

  it.each([2 ** 31, 30 * 24 * 3600 * 1000, Infinity])("a unary deadline of %s ms, on the transport or the call", async (ms) => {
    holding(jsonRpcAnswer(TASK));
    const client = new A2AClient(createJsonRpcTransport({ baseUrl: srv.url, timeoutMs: ms }));
    expect((await client.getTask({ id: "t1" })).id).toBe("t1");
    const rest = new A2AClient(createRestTransport({ baseUrl: srv.url }));
    holding((_req, res) => sendJson(res, 200, TASK));
    expect((await rest.getTask({ id: "t1" }, { timeoutMs: ms })).id).toBe("t1");
  });

  it.each([2 ** 31, Infinity])("an idle timeout of %s ms on a stream", async (ms) => {
    holding((_req, res, body) => {
      const id = (JSON.parse(body) as { id: number }).id;
      startSse(res);
      res.end(sseFrame({ jsonrpc: "2.0", id, result: { task: { ...TASK, status: { state: "TASK_STATE_COMPLETED" } } } }));
    });
    const client = new A2AClient(createJsonRpcTransport({ baseUrl: srv.url, idleTimeoutMs: ms }));
    const seen: string[] = [];
    for await (const e of client.subscribeToTask({ id: "t1" }, { resume: false })) seen.push(e.payload.case ?? "");
    expect(seen).toEqual(["task"]);
  });
});

describe("gRPC's tls: where a URL goes, and the TLS options", () => {
  it("a URL that names TLS (https://, grpcs://) keeps it whatever tls says; tls decides for the others", () => {
    const cases: ReadonlyArray<[string, boolean | object | undefined, string]> = [
      ["grpcs://127.0.0.1:50051", undefined, "https://127.0.0.1:50051"],
      ["grpcs://localhost:50051", false, "https://localhost:50051"],
      ["GRPCS://agent.example:443", false, "https://agent.example:443"],
      ["https://127.0.0.1:50051/a2a", false, "https://127.0.0.1:50051/a2a"],
      ["127.0.0.1:50051", undefined, "http://127.0.0.1:50051"],
      ["127.0.0.1:50051", { ca: "pem" }, "https://127.0.0.1:50051"],
      ["agent.example:443", undefined, "https://agent.example:443"],
      ["agent.example:443", false, "http://agent.example:443"],
      ["grpc://agent.example:443", undefined, "https://agent.example:443"],
      ["grpc://[::1]:50051", undefined, "http://[::1]:50051"],
      ["http://agent.example:80", undefined, "http://agent.example:80"],
      ["http://agent.example:80", true, "https://agent.example:80"],
    ];
    for (const [url, tls, expected] of cases) expect(grpcBaseUrl(url, tls), `${url} tls=${JSON.stringify(tls)}`).toBe(expected);
  });

  const GRPC_CREATORS = CREATORS.filter(([name]) => name.startsWith("gRPC"));

  it.each(GRPC_CREATORS)(
    "%s: a tls that is not a boolean or TLS options of the right kinds is InvalidParamsError naming it",
    (_name, make) => {
      const bad: ReadonlyArray<[unknown, RegExp]> = [
        ["yes", /^tls must be true, false or TLS options .* got a string$/],
        [null, /^tls must be true, false or TLS options .* got null$/],
        [{ rejectUnauthorized: false }, /^tls\.rejectUnauthorized is not a TLS option/],
        [{ ca: 5 }, /^tls\.ca must be PEM text or bytes/],
        [{ key: ["SECRET-KEY", 1] }, /^tls\.key must be PEM text or bytes/],
        [{ servername: 1 }, /^tls\.servername must be a string/],
      ];
      for (const [tls, message] of bad) {
        const made = () => make({ baseUrl: "127.0.0.1:1", tls } as { baseUrl: string });
        expect(made, JSON.stringify(tls)).toThrow(InvalidParamsError);
        expect(made).toThrow(message);
        expect(made).not.toThrow(/SECRET-KEY/);
      }
    },
  );

  it("gRPC over HTTP/2: a certificate or key that cannot be read fails when the transport is made, without quoting it", () => {
    for (const make of [createGrpcTransport, createGrpcTransportV03]) {
      const made = () =>
        make({ baseUrl: "127.0.0.1:1", tls: { key: "-----BEGIN PRIVATE KEY-----\nSECRET-KEY\n-----END PRIVATE KEY-----\n" } });
      expect(made).toThrow(InvalidParamsError);
      expect(made).toThrow(/^tls: the certificates or key cannot be used/);
      expect(made).not.toThrow(/SECRET-KEY/);
    }
  });

  it("gRPC-web refuses TLS options: what it trusts is its fetch's to decide", () => {
    expect(() => createGrpcWebTransport({ baseUrl: "https://127.0.0.1:1", tls: { ca: "pem" } })).toThrow(
      /^tls: TLS options .* are for gRPC over HTTP\/2/,
    );
  });

  it("connect(): a wrong transport.tls fails the first gRPC call with InvalidParamsError naming it, before any connection", async () => {
    const card = cardJson({ supportedInterfaces: [{ url: "127.0.0.1:1", protocolBinding: "GRPC", protocolVersion: "1.0" }] });
    const session = await connect(card as ConnectTarget, { transport: { tls: { rejectUnauthorized: false } as object } });
    const e = await session.client.getTask({ id: "t1" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidParamsError);
    expect((e as Error).message).toMatch(/^tls\.rejectUnauthorized is not a TLS option/);
  });
});

describe("a string where a number belongs, in the options beside the transports, is named by its kind, never quoted", () => {
  // A string in a number's place may be a secret pasted into the wrong field.
  const SECRET = "sk-live-0123456789";
  const checks: ReadonlyArray<[string, () => unknown, RegExp]> = [
    ["retry.attempts", () => checkRetryPolicy({ attempts: SECRET as never }, RETRY_KIT), /^retry\.attempts must be .*, got a string$/],
    ["resume.maxElapsedMs", () => checkResumeOptions({ maxElapsedMs: SECRET as never }), /^resume\.maxElapsedMs must be .*, got a string$/],
    ["pageSize", () => checkPageSize(SECRET as never), /^pageSize must be .*, got a string$/],
    ["createPushReceiver maxBytes", () => createPushReceiver({ maxBytes: SECRET as never }), /maxBytes must be .*, got a string$/],
    [
      "createPushReceiver bodyTimeoutMs",
      () => createPushReceiver({ bodyTimeoutMs: SECRET as never }),
      /bodyTimeoutMs must be .*, got a string$/,
    ],
    [
      "waitForTask pollMs",
      () => waitForTask({ getTask: async () => TASK as never } as never, "t1", { pollMs: SECRET as never }),
      /pollMs must be .*, got a string$/,
    ],
  ];
  it.each(checks)("%s", async (_name, check, message) => {
    const e = await (async () => check())().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(InvalidParamsError);
    expect((e as Error).message).toMatch(message);
    expect((e as Error).message).not.toContain(SECRET);
  });

  it("an option whose values are words shows the word it refuses", () => {
    expect(() => checkRetryPolicy({ jitter: "equal" as never }, RETRY_KIT)).toThrow(/^retry\.jitter must be one of .*, got "equal"$/);
  });
});
