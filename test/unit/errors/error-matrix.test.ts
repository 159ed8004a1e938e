/**
 * The error matrix: the same failure is the same error (class, code,
 * `transient`, `retryAfterMs`, `challenge`, and the HTTP status or gRPC
 * code it came with) on every binding, 1.0 and 0.3, on every operation,
 * before a stream's first event and after it, and in discovery. Fake
 * servers: these are answers a gateway or a misbehaving peer gives, or
 * statuses the official agent does not send on demand (its own errors are
 * the interop table's, test/interop/errors.test.ts).
 */
import type { ServerHttp2Stream } from "node:http2";
import { create, toBinary } from "@bufbuild/protobuf";
import { anyPack } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorInfoSchema, RetryInfoSchema } from "../../../gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../../gen/google/rpc/status_pb.js";
import { StreamResponseSchema, TaskState } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import {
  A2AClient,
  A2AError,
  type A2AErrorCode,
  AuthenticationError,
  type A2ATransport,
  createGrpcWebTransport,
  resolveAgentCard,
  UnsupportedOperationError,
  userMessage,
} from "../../../src/index.js";
import * as nodeEntry from "../../../src/node.js";
import {
  createGrpcTransport,
  createGrpcTransportV03,
  connect,
  createJsonRpcTransport,
  createJsonRpcTransportV03,
  createRestTransport,
  createRestTransportV03,
} from "../../../src/node.js";
import { collect } from "../../support/bindings.js";
import { failure } from "../../support/failure.js";
import { startFakeServer, type FakeServer } from "../../support/fake-server.js";
import { frame, useFakeGrpcServer } from "../../support/fake-grpc-server.js";

/** What the fakes answer; each test sets it before its calls. */
let answer: (path: string, body: string) => { status: number; headers: Record<string, string>; body: string | Buffer };
/** What the fake gRPC server answers. */
let grpcAnswer: (stream: ServerHttp2Stream) => void;

const h2 = useFakeGrpcServer();
let http: FakeServer;
beforeAll(async () => {
  http = await startFakeServer((req, res, body) => {
    const a = answer(req.url ?? "", body);
    res.writeHead(a.status, a.headers);
    res.end(a.body);
  });
  h2.handler = (stream) => grpcAnswer(stream);
});
afterAll(() => http.close());

type Wire = "jsonrpc" | "rest" | "grpc" | "grpc-web";
interface Subject {
  name: string;
  wire: Wire;
  v03: boolean;
  transport: () => A2ATransport;
}
const SUBJECTS: readonly Subject[] = [
  { name: "JSON-RPC", wire: "jsonrpc", v03: false, transport: () => createJsonRpcTransport({ baseUrl: `${http.url}/jsonrpc` }) },
  { name: "HTTP+JSON", wire: "rest", v03: false, transport: () => createRestTransport({ baseUrl: `${http.url}/rest` }) },
  { name: "gRPC", wire: "grpc", v03: false, transport: () => createGrpcTransport({ baseUrl: `127.0.0.1:${h2.port}` }) },
  { name: "gRPC-web", wire: "grpc-web", v03: false, transport: () => createGrpcWebTransport({ baseUrl: `${http.url}/grpc-web` }) },
  { name: "JSON-RPC 0.3", wire: "jsonrpc", v03: true, transport: () => createJsonRpcTransportV03({ baseUrl: `${http.url}/jsonrpc03` }) },
  { name: "HTTP+JSON 0.3", wire: "rest", v03: true, transport: () => createRestTransportV03({ baseUrl: `${http.url}/rest03` }) },
  { name: "gRPC 0.3", wire: "grpc", v03: true, transport: () => createGrpcTransportV03({ baseUrl: `127.0.0.1:${h2.port}` }) },
];

type Operation = [name: string, stream: boolean, call: (c: A2AClient) => Promise<unknown>];
// The 11 operations; streams without resumption, so that the first error ends them.
const OPERATIONS: readonly Operation[] = [
  ["SendMessage", false, (c) => c.sendMessage({ message: userMessage("hi") })],
  ["SendStreamingMessage", true, (c) => collect(c.sendStreamingMessage({ message: userMessage("hi") }, { resume: false }))],
  ["GetTask", false, (c) => c.getTask({ id: "t1" })],
  ["ListTasks", false, (c) => c.listTasks({ pageSize: 10, pageToken: "p2" })],
  ["CancelTask", false, (c) => c.cancelTask({ id: "t1" })],
  ["SubscribeToTask", true, (c) => collect(c.subscribeToTask({ id: "t1" }, { resume: false }))],
  ["CreateTaskPushNotificationConfig", false, (c) => c.createTaskPushNotificationConfig({ taskId: "t1", url: "https://hooks.example/x" })],
  ["GetTaskPushNotificationConfig", false, (c) => c.getTaskPushNotificationConfig({ taskId: "t1", id: "p1" })],
  ["ListTaskPushNotificationConfigs", false, (c) => c.listTaskPushNotificationConfigs({ taskId: "t1" })],
  ["DeleteTaskPushNotificationConfig", false, (c) => c.deleteTaskPushNotificationConfig({ taskId: "t1", id: "p1" })],
  ["GetExtendedAgentCard", false, (c) => c.getExtendedAgentCard()],
];
const STREAMS = OPERATIONS.filter(([, stream]) => stream);

/** The facts of an error that must not depend on the binding. */
interface Facts {
  name: string;
  code: A2AErrorCode;
  transient: boolean;
  retryAfterMs?: number | undefined;
  challenge?: string | undefined;
  httpStatus?: number | undefined;
  grpcCode?: number | undefined;
  reason?: string | undefined;
}

function factsOf(e: A2AError, keys: readonly (keyof Facts)[]): Partial<Facts> {
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = (e as unknown as Record<string, unknown>)[k];
  return out as Partial<Facts>;
}

/**
 * Runs `operations` on every subject in `subjects`, and lists every call
 * whose error differs from `expected(subject)`: one readable diff for the
 * whole matrix instead of hundreds of tests.
 */
async function mismatches(
  subjects: readonly Subject[],
  operations: readonly Operation[],
  expected: (s: Subject, operation: string) => Partial<Facts>,
): Promise<string[]> {
  const out: string[] = [];
  for (const s of subjects) {
    for (const [op, , call] of operations) {
      // 0.3 has no ListTasks: refused before any request, whatever the server would say.
      if (s.v03 && op === "ListTasks") continue;
      const want = expected(s, op);
      const keys = Object.keys(want) as (keyof Facts)[];
      const e: unknown = await call(new A2AClient(s.transport())).then(
        () => undefined,
        (err: unknown) => err,
      );
      if (!(e instanceof A2AError)) {
        out.push(`${s.name} ${op}: ${e === undefined ? "succeeded" : String(e)}`);
        continue;
      }
      const got = factsOf(e, keys);
      if (JSON.stringify(got) !== JSON.stringify(factsOf(want as A2AError, keys)) || e.binding === undefined || e.message === "") {
        out.push(`${s.name} ${op}: ${JSON.stringify(got)} (${e.binding}: ${e.message})`);
      }
    }
  }
  return out;
}

// --- HTTP statuses without an A2A error body -----------------------------------

const RETRY_DATE = () => new Date(Date.now() + 120_000).toUTCString();
const BODIES: ReadonlyArray<[string, Record<string, string>, string]> = [
  ["an HTML page", { "content-type": "text/html" }, "<html><body>no</body></html>"],
  ["no body", {}, ""],
  ["JSON that is no A2A error", { "content-type": "application/json" }, JSON.stringify({ ok: false, status: "bad", message: "no" })],
];

/** The error of an HTTP status without an A2A error body, on every binding (docs/errors.md). */
function statusFacts(status: number): Facts {
  const name =
    status === 401 ? "AuthenticationError" : status === 403 ? "AuthorizationError" : status === 404 ? "MethodNotFoundError" : "ServerError";
  const code: A2AErrorCode =
    status === 401 ? "UNAUTHENTICATED" : status === 403 ? "PERMISSION_DENIED" : status === 404 ? "METHOD_NOT_FOUND" : "SERVER_ERROR";
  return { name, code, transient: [429, 502, 503, 504].includes(status), httpStatus: status, retryAfterMs: undefined, grpcCode: undefined };
}

describe("an HTTP status without an A2A error body is the same error on every binding and operation", () => {
  const STATUSES = [400, 401, 403, 404, 405, 408, 409, 413, 415, 429, 500, 502, 503, 504];
  it.each(STATUSES)("HTTP %i, with an HTML page, no body and JSON that is no A2A error", async (status) => {
    for (const [, headers, body] of BODIES) {
      answer = () => ({ status, headers, body });
      grpcAnswer = (stream) => {
        stream.respond({ ":status": status, ...headers });
        stream.end(body);
      };
      expect(await mismatches(SUBJECTS, OPERATIONS, () => statusFacts(status))).toEqual([]);
    }
  });

  it("401 with and without a WWW-Authenticate challenge", async () => {
    for (const challenge of ['Bearer realm="agents", error="invalid_token"', undefined]) {
      const headers: Record<string, string> = challenge === undefined ? {} : { "www-authenticate": challenge };
      answer = () => ({ status: 401, headers, body: "" });
      grpcAnswer = (stream) => {
        stream.respond({ ":status": 401, ...headers });
        stream.end();
      };
      expect(await mismatches(SUBJECTS, OPERATIONS, () => ({ ...statusFacts(401), challenge }))).toEqual([]);
    }
  });

  it.each([429, 503])("%i with Retry-After in seconds and as an HTTP date", async (status) => {
    for (const [retryAfter, ms] of [
      ["7", (v: number) => v === 7000],
      [RETRY_DATE(), (v: number) => v > 100_000 && v <= 120_000],
    ] as const) {
      answer = () => ({ status, headers: { "retry-after": retryAfter, "content-type": "text/html" }, body: "<p>later</p>" });
      grpcAnswer = (stream) => {
        stream.respond({ ":status": status, "retry-after": retryAfter });
        stream.end();
      };
      const out: string[] = [];
      for (const s of SUBJECTS) {
        for (const [op, , call] of OPERATIONS) {
          if (s.v03 && op === "ListTasks") continue;
          const e = await call(new A2AClient(s.transport())).then(
            () => undefined,
            (err: unknown) => err,
          );
          const ok =
            e instanceof A2AError && e.name === "ServerError" && e.transient && e.httpStatus === status && ms(e.retryAfterMs ?? -1);
          if (!ok) out.push(`${s.name} ${op}: ${e instanceof A2AError ? `${e.name} ${e.retryAfterMs}` : String(e)}`);
        }
      }
      expect(out).toEqual([]);
    }
  });
});

// --- gRPC statuses, and the google.rpc.Status of the HTTP bindings ----------------

const STATUS_NAMES = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
] as const;
// The HTTP status each gRPC code is sent with over HTTP+JSON (google.rpc.Code's mapping).
const HTTP_OF_CODE = [200, 499, 500, 400, 504, 404, 409, 403, 429, 400, 409, 400, 501, 500, 503, 500, 401];
// What each code is without an ErrorInfo reason (docs/errors.md: the stated status).
const CLASS_OF_CODE: Record<number, [string, A2AErrorCode, boolean]> = {
  1: ["AbortedError", "ABORTED", false],
  2: ["InternalError", "INTERNAL_ERROR", false],
  3: ["InvalidParamsError", "INVALID_PARAMS", false],
  4: ["CallTimeoutError", "CALL_TIMEOUT", true],
  5: ["TaskNotFoundError", "TASK_NOT_FOUND", false],
  6: ["ServerError", "SERVER_ERROR", false],
  7: ["AuthorizationError", "PERMISSION_DENIED", false],
  8: ["ServerError", "SERVER_ERROR", true],
  9: ["ServerError", "SERVER_ERROR", false],
  10: ["ServerError", "SERVER_ERROR", false],
  11: ["ServerError", "SERVER_ERROR", false],
  12: ["MethodNotFoundError", "METHOD_NOT_FOUND", false],
  13: ["InternalError", "INTERNAL_ERROR", false],
  14: ["ConnectionError", "CONNECTION_FAILED", true],
  15: ["ServerError", "SERVER_ERROR", false],
  16: ["AuthenticationError", "UNAUTHENTICATED", false],
};
// FAILED_PRECONDITION is six A2A errors' status (spec 5.4): without ErrorInfo, the
// operation names the one that is about it; any other operation's is a ServerError.
const PRECONDITION_OF_OPERATION: Readonly<Record<string, [string, A2AErrorCode]>> = {
  CancelTask: ["TaskNotCancelableError", "TASK_NOT_CANCELABLE"],
  SubscribeToTask: ["UnsupportedOperationError", "UNSUPPORTED_OPERATION"],
  CreateTaskPushNotificationConfig: ["PushNotificationNotSupportedError", "PUSH_NOTIFICATION_NOT_SUPPORTED"],
  GetTaskPushNotificationConfig: ["PushNotificationNotSupportedError", "PUSH_NOTIFICATION_NOT_SUPPORTED"],
  ListTaskPushNotificationConfigs: ["PushNotificationNotSupportedError", "PUSH_NOTIFICATION_NOT_SUPPORTED"],
  DeleteTaskPushNotificationConfig: ["PushNotificationNotSupportedError", "PUSH_NOTIFICATION_NOT_SUPPORTED"],
  GetExtendedAgentCard: ["ExtendedAgentCardNotConfiguredError", "EXTENDED_AGENT_CARD_NOT_CONFIGURED"],
};

/** What status `code` without ErrorInfo is, answered to `operation`. */
function classOfCode(code: number, operation: string): [string, A2AErrorCode, boolean] {
  const precondition = code === 9 ? PRECONDITION_OF_OPERATION[operation] : undefined;
  return precondition ? [...precondition, false] : CLASS_OF_CODE[code]!;
}
// Every reason the spec and JSON-RPC define, and its class: one per code below, so each meets every kind of status.
const REASONS: ReadonlyArray<[string, string]> = [
  ["TASK_NOT_FOUND", "TaskNotFoundError"],
  ["TASK_NOT_CANCELABLE", "TaskNotCancelableError"],
  ["PUSH_NOTIFICATION_NOT_SUPPORTED", "PushNotificationNotSupportedError"],
  ["UNSUPPORTED_OPERATION", "UnsupportedOperationError"],
  ["CONTENT_TYPE_NOT_SUPPORTED", "ContentTypeNotSupportedError"],
  ["INVALID_AGENT_RESPONSE", "InvalidAgentResponseError"],
  ["EXTENDED_AGENT_CARD_NOT_CONFIGURED", "ExtendedAgentCardNotConfiguredError"],
  ["EXTENSION_SUPPORT_REQUIRED", "ExtensionSupportRequiredError"],
  ["VERSION_NOT_SUPPORTED", "VersionNotSupportedError"],
  ["PARSE_ERROR", "JsonRpcParseError"],
  ["INVALID_REQUEST", "InvalidRequestError"],
  ["METHOD_NOT_FOUND", "MethodNotFoundError"],
  ["INVALID_PARAMS", "InvalidParamsError"],
  ["INTERNAL_ERROR", "InternalError"],
  ["TASK_NOT_FOUND", "TaskNotFoundError"],
  ["TASK_NOT_CANCELABLE", "TaskNotCancelableError"],
];

const MESSAGE = "the agent said no";

/** grpc-status-details-bin: a google.rpc.Status with the ErrorInfo of `reason`. */
function statusDetails(code: number, reason: string): string {
  const info = create(ErrorInfoSchema, { reason, domain: "a2a-protocol.org" });
  return Buffer.from(
    toBinary(StatusSchema, create(StatusSchema, { code, message: MESSAGE, details: [anyPack(ErrorInfoSchema, info)] })),
  ).toString("base64");
}

const TASK_1_0 = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } };
const TASK_0_3 = { kind: "task", id: "t1", contextId: "c1", status: { state: "working" } };
const taskFrame = () =>
  frame(
    toBinary(
      StreamResponseSchema,
      create(StreamResponseSchema, {
        payload: { case: "task", value: { id: "t1", contextId: "c1", status: { state: TaskState.WORKING } } },
      }),
    ),
  );

/** gRPC-web's trailers frame (flag 0x80). */
function trailersFrame(fields: Record<string, string>): Buffer {
  const text = Buffer.from(
    Object.entries(fields)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join(""),
  );
  const head = Buffer.alloc(5);
  head[0] = 0x80;
  head.writeUInt32BE(text.length, 1);
  return Buffer.concat([head, text]);
}

/**
 * Every binding answering with gRPC status `code` (and `reason` in an
 * ErrorInfo): gRPC in its status fields, the HTTP bindings with a
 * google.rpc.Status error body (in an `event: error` after a first event
 * when `afterEvent`), as the official agent writes them.
 */
function answerWithStatus(code: number, reason: string | undefined, afterEvent: boolean): void {
  const fields: Record<string, string> = { "grpc-status": String(code), "grpc-message": encodeURIComponent(MESSAGE) };
  if (reason !== undefined) fields["grpc-status-details-bin"] = statusDetails(code, reason);
  const status = {
    error: {
      code: HTTP_OF_CODE[code],
      status: STATUS_NAMES[code],
      message: MESSAGE,
      details: reason === undefined ? [] : [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "a2a-protocol.org" }],
    },
  };
  answer = (path, body) => {
    if (path.startsWith("/grpc-web")) {
      if (!afterEvent) return { status: 200, headers: { "content-type": "application/grpc-web+proto", ...fields }, body: "" };
      return {
        status: 200,
        headers: { "content-type": "application/grpc-web+proto" },
        body: Buffer.concat([taskFrame(), trailersFrame(fields)]),
      };
    }
    if (!afterEvent) return { status: HTTP_OF_CODE[code]!, headers: { "content-type": "application/json" }, body: JSON.stringify(status) };
    const v03 = path.includes("03");
    const first = path.startsWith("/jsonrpc")
      ? { jsonrpc: "2.0", id: (JSON.parse(body) as { id: number }).id, result: v03 ? TASK_0_3 : { task: TASK_1_0 } }
      : { task: TASK_1_0 };
    return {
      status: 200,
      headers: { "content-type": "text/event-stream" },
      body: `data: ${JSON.stringify(first)}\n\nevent: error\ndata: ${JSON.stringify(status)}\n\n`,
    };
  };
  grpcAnswer = (stream) => {
    if (!afterEvent) {
      stream.respond({ ":status": 200, "content-type": "application/grpc", ...fields });
      stream.end();
      return;
    }
    stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
    stream.on("wantTrailers", () => stream.sendTrailers(fields));
    stream.end(taskFrame());
  };
}

/** What each binding says the status was: the gRPC code, or the HTTP status. */
function statedStatus(s: Subject, code: number): Partial<Facts> {
  return s.wire === "grpc" || s.wire === "grpc-web" ? { grpcCode: code } : { httpStatus: HTTP_OF_CODE[code] };
}

const CODES = Array.from({ length: 16 }, (_, i) => i + 1);

describe("a status the server states is the same error on every binding and operation", () => {
  it.each(CODES.map((c) => [STATUS_NAMES[c], c] as const))("%s without ErrorInfo", async (_name, code) => {
    answerWithStatus(code, undefined, false);
    expect(
      await mismatches(SUBJECTS, OPERATIONS, (s, op) => {
        const [name, errorCode, transient] = classOfCode(code, op);
        return { name, code: errorCode, transient, reason: undefined, ...statedStatus(s, code) };
      }),
    ).toEqual([]);
  });

  it.each(CODES.map((c) => [STATUS_NAMES[c], REASONS[c - 1]![0], c] as const))(
    "%s with the ErrorInfo reason %s: the reason decides",
    async (_n, reason, code) => {
      answerWithStatus(code, reason, false);
      const name = REASONS[code - 1]![1];
      expect(
        await mismatches(SUBJECTS, OPERATIONS, (s) => ({
          name,
          code: reason as A2AErrorCode,
          transient: false,
          reason,
          ...statedStatus(s, code),
        })),
      ).toEqual([]);
    },
  );

  it.each(CODES.map((c) => [STATUS_NAMES[c], c] as const))(
    "%s after a stream's first event, with and without ErrorInfo",
    async (_name, code) => {
      answerWithStatus(code, undefined, true);
      expect(
        await mismatches(SUBJECTS, STREAMS, (s, op) => {
          const [name, errorCode, transient] = classOfCode(code, op);
          return { name, code: errorCode, transient, ...statedStatus(s, code) };
        }),
      ).toEqual([]);
      const [reason, reasonClass] = REASONS[code - 1]!;
      answerWithStatus(code, reason, true);
      expect(
        await mismatches(SUBJECTS, STREAMS, (s) => ({
          name: reasonClass,
          code: reason as A2AErrorCode,
          transient: false,
          reason,
          ...statedStatus(s, code),
        })),
      ).toEqual([]);
    },
  );
});

describe("gRPC FAILED_PRECONDITION without ErrorInfo: the method says which error, on 1.0 and 0.3", () => {
  const grpc = SUBJECTS.filter((s) => s.wire === "grpc");
  it.each(grpc.map((s) => [s.name, s] as const))("%s", async (_name, s) => {
    grpcAnswer = (stream) => {
      stream.respond({ ":status": 200, "content-type": "application/grpc", "grpc-status": "9", "grpc-message": "not now" });
      stream.end();
    };
    const c = new A2AClient(s.transport());
    const cancel = await failure(c.cancelTask({ id: "t1" }));
    expect([cancel.name, cancel.code, cancel.grpcCode, cancel.message]).toEqual([
      "TaskNotCancelableError",
      "TASK_NOT_CANCELABLE",
      9,
      "not now",
    ]);
    const push = await failure(c.createTaskPushNotificationConfig({ taskId: "t1", url: "https://hooks.example/x" }));
    expect([push.name, push.code, push.grpcCode]).toEqual(["PushNotificationNotSupportedError", "PUSH_NOTIFICATION_NOT_SUPPORTED", 9]);
    const list = await failure(c.listTaskPushNotificationConfigs({ taskId: "t1" }));
    expect(list.name).toBe("PushNotificationNotSupportedError");
    // A subscribe refused: the task is in a final state (the Python SDK's 0.3 gRPC surface sends no details).
    const subscribe = await failure(
      (async () => {
        for await (const _ of c.subscribeToTask({ id: "t1" }, { resume: false })) break;
      })(),
    );
    expect([subscribe.name, subscribe.grpcCode]).toEqual(["UnsupportedOperationError", 9]);
    // A method none of the six errors is about: the status alone, a ServerError.
    const get = await failure(c.getTask({ id: "t1" }));
    expect([get.name, get.grpcCode]).toEqual(["ServerError", 9]);
    const service = s.v03 ? "a2a.v1.A2AService" : "lf.a2a.v1.A2AService";
    expect(h2.calls.map((call) => call.path)).toEqual(
      [
        "CancelTask",
        "CreateTaskPushNotificationConfig",
        s.v03 ? "ListTaskPushNotificationConfig" : "ListTaskPushNotificationConfigs",
        s.v03 ? "TaskSubscription" : "SubscribeToTask",
        "GetTask",
      ].map((m) => `/${service}/${m}`),
    );
  });
});

describe("a google.rpc.RetryInfo among a status's details says when to try again, as Retry-After does", () => {
  // UNAVAILABLE with a retry delay of 2.5 s: in the binary status details over gRPC, in the JSON details over HTTP+JSON.
  const binary = Buffer.from(
    toBinary(
      StatusSchema,
      create(StatusSchema, {
        code: 14,
        message: MESSAGE,
        details: [anyPack(RetryInfoSchema, create(RetryInfoSchema, { retryDelay: { seconds: 2n, nanos: 500_000_000 } }))],
      }),
    ),
  ).toString("base64");
  const fields = { "grpc-status": "14", "grpc-message": encodeURIComponent(MESSAGE), "grpc-status-details-bin": binary };
  const json = {
    error: {
      code: 503,
      status: "UNAVAILABLE",
      message: MESSAGE,
      details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "2.500s" }],
    },
  };
  const subjects = SUBJECTS.filter((s) => ["HTTP+JSON", "gRPC", "gRPC-web", "gRPC 0.3"].includes(s.name));

  it("on HTTP+JSON, gRPC and gRPC-web, every operation: transient, retryAfterMs 2500", async () => {
    answer = (path) =>
      path.startsWith("/grpc-web")
        ? { status: 200, headers: { "content-type": "application/grpc-web+proto", ...fields }, body: "" }
        : { status: 503, headers: { "content-type": "application/json" }, body: JSON.stringify(json) };
    grpcAnswer = (stream) => {
      stream.respond({ ":status": 200, "content-type": "application/grpc", ...fields });
      stream.end();
    };
    expect(await mismatches(subjects, OPERATIONS, () => ({ transient: true, retryAfterMs: 2500 }))).toEqual([]);
  });

  it("a Retry-After header wins over the details", async () => {
    answer = () => ({ status: 503, headers: { "content-type": "application/json", "retry-after": "7" }, body: JSON.stringify(json) });
    expect(
      await mismatches(
        subjects.filter((s) => s.wire === "rest"),
        OPERATIONS,
        () => ({ retryAfterMs: 7000 }),
      ),
    ).toEqual([]);
  });
});

describe("an error without an A2A error object says where it came from and what the server said", () => {
  const overHttp = SUBJECTS.filter((s) => s.wire === "jsonrpc" || s.wire === "rest");
  it.each(overHttp.map((s) => [s.name, s] as const))(
    "%s: an error event inside a stream, and a JSON error body",
    async (_name, subject) => {
      const client = () => new A2AClient(subject.transport());
      for (const [data, said] of [
        ["upstream timed out", ""],
        [JSON.stringify({ message: "quota exceeded" }), ": quota exceeded"],
      ] as const) {
        answer = () => ({ status: 200, headers: { "content-type": "text/event-stream" }, body: `event: error\ndata: ${data}\n\n` });
        const e = await failure(collect(client().subscribeToTask({ id: "t1" }, { resume: false })));
        expect(e.name).toBe("ServerError");
        expect(e.message).toMatch(
          new RegExp(`^the stream from http://127\\.0\\.0\\.1:\\d+/\\S+ sent an error event without an A2A error${said}$`),
        );
      }
      answer = () => ({ status: 401, headers: { "content-type": "application/json" }, body: JSON.stringify({ message: "token expired" }) });
      const e = await failure(client().getTask({ id: "t1" }));
      expect([e.name, e.message]).toEqual(["AuthenticationError", "HTTP 401: token expired"]);
    },
  );
});

// --- JSON-RPC error objects ------------------------------------------------------------

const JSON_RPC_CODES: ReadonlyArray<[number, string, A2AErrorCode]> = [
  [-32001, "TaskNotFoundError", "TASK_NOT_FOUND"],
  [-32002, "TaskNotCancelableError", "TASK_NOT_CANCELABLE"],
  [-32003, "PushNotificationNotSupportedError", "PUSH_NOTIFICATION_NOT_SUPPORTED"],
  [-32004, "UnsupportedOperationError", "UNSUPPORTED_OPERATION"],
  [-32005, "ContentTypeNotSupportedError", "CONTENT_TYPE_NOT_SUPPORTED"],
  [-32006, "InvalidAgentResponseError", "INVALID_AGENT_RESPONSE"],
  [-32007, "ExtendedAgentCardNotConfiguredError", "EXTENDED_AGENT_CARD_NOT_CONFIGURED"],
  [-32008, "ExtensionSupportRequiredError", "EXTENSION_SUPPORT_REQUIRED"],
  [-32009, "VersionNotSupportedError", "VERSION_NOT_SUPPORTED"],
  [-32700, "JsonRpcParseError", "PARSE_ERROR"],
  [-32600, "InvalidRequestError", "INVALID_REQUEST"],
  [-32601, "MethodNotFoundError", "METHOD_NOT_FOUND"],
  [-32602, "InvalidParamsError", "INVALID_PARAMS"],
  [-32603, "InternalError", "INTERNAL_ERROR"],
  [-32050, "ServerError", "SERVER_ERROR"],
];

type Placement = "response" | "stream data" | "stream event: error" | "stream bare error object" | "after the first event";

/** JSON-RPC answering with error `code`, where `placement` says. */
function answerJsonRpcError(code: number, placement: Placement): void {
  answer = (path, body) => {
    const id = (JSON.parse(body) as { id: number }).id;
    const error = { code, message: MESSAGE };
    const envelope = { jsonrpc: "2.0", id, error };
    if (placement === "response") return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(envelope) };
    const first = { jsonrpc: "2.0", id, result: path.includes("03") ? TASK_0_3 : { task: TASK_1_0 } };
    const frames = {
      "stream data": `data: ${JSON.stringify(envelope)}\n\n`,
      "stream event: error": `event: error\ndata: ${JSON.stringify(envelope)}\n\n`,
      "stream bare error object": `event: error\ndata: ${JSON.stringify(error)}\n\n`,
      "after the first event": `data: ${JSON.stringify(first)}\n\ndata: ${JSON.stringify(envelope)}\n\n`,
    };
    return { status: 200, headers: { "content-type": "text/event-stream" }, body: frames[placement] };
  };
}

describe("a JSON-RPC error object is its class on 1.0 and 0.3, in a response and anywhere in a stream", () => {
  const jsonRpc = SUBJECTS.filter((s) => s.wire === "jsonrpc");
  const placements: Placement[] = ["stream data", "stream event: error", "stream bare error object", "after the first event"];
  it.each(JSON_RPC_CODES)("%i", async (code, name, errorCode) => {
    const want = { name, code: errorCode, transient: false, httpStatus: 200 } as Partial<Facts>;
    answerJsonRpcError(code, "response");
    expect(await mismatches(jsonRpc, OPERATIONS, () => want)).toEqual([]);
    for (const placement of placements) {
      answerJsonRpcError(code, placement);
      expect(await mismatches(jsonRpc, STREAMS, () => want), placement).toEqual([]);
    }
  });
});

describe("what A2A 0.3 cannot carry is refused before any request", () => {
  it.each(SUBJECTS.filter((s) => s.v03 && s.wire !== "jsonrpc").map((s) => [s.name, s] as const))(
    "%s: UnsupportedOperationError naming the call's binding, unary and stream",
    async (_name, subject) => {
      answer = () => ({ status: 500, headers: {}, body: "" });
      grpcAnswer = (stream) => stream.close();
      const client = new A2AClient(subject.transport());
      const sent = http.requests.length + h2.calls.length;
      for (const p of [client.getTask({ id: "a/b" }), collect(client.subscribeToTask({ id: "a/b" }, { resume: false }))]) {
        const e = await failure(p);
        expect(e).toBeInstanceOf(UnsupportedOperationError);
        expect(e.binding).toBe(subject.wire === "rest" ? "HTTP+JSON" : "GRPC");
        expect(e.message).toMatch(/task id containing "\/"/);
      }
      expect(http.requests.length + h2.calls.length).toBe(sent);
    },
  );
});

// --- Discovery -------------------------------------------------------------------------------

describe("connect(): what the card's URL answers is the error a call would get", () => {
  const cases: ReadonlyArray<[string, number, Record<string, string>, Partial<Facts>]> = [
    [
      "401 with a challenge",
      401,
      { "www-authenticate": 'Bearer realm="cards"' },
      { name: "AuthenticationError", challenge: 'Bearer realm="cards"' },
    ],
    ["401 without one", 401, {}, { name: "AuthenticationError", challenge: undefined }],
    ["403", 403, { "content-type": "text/html" }, { name: "AuthorizationError", transient: false }],
    ["429 with Retry-After", 429, { "retry-after": "4" }, { name: "ServerError", transient: true, retryAfterMs: 4000 }],
    [
      "503 with Retry-After",
      503,
      { "retry-after": "2", "content-type": "text/html" },
      { name: "ServerError", transient: true, retryAfterMs: 2000 },
    ],
    ["502", 502, {}, { name: "ServerError", transient: true }],
    ["500", 500, { "content-type": "application/json" }, { name: "ServerError", transient: false }],
    ["400", 400, {}, { name: "ServerError", transient: false }],
  ];
  it.each(cases)("%s", async (_what, status, headers, facts) => {
    answer = () => ({ status, headers, body: headers["content-type"] === "text/html" ? "<p>no</p>" : "" });
    const e = await connect(http.url).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(A2AError);
    expect(e).toMatchObject({ ...facts, httpStatus: status });
    expect((e as A2AError).message).toBe(`fetching the Agent Card at ${http.url}/.well-known/agent-card.json failed with HTTP ${status}`);
    // The same class as an interface URL answering so.
    const call = await failure(new A2AClient(createJsonRpcTransport({ baseUrl: `${http.url}/jsonrpc` })).getTask({ id: "t1" }));
    expect(factsOf(e as A2AError, ["name", "code", "transient", "retryAfterMs"])).toEqual(
      factsOf(call, ["name", "code", "transient", "retryAfterMs"]),
    );
  });

  it("a 401 whose challenge echoes the key the resolve sent: AuthenticationError, the key on no surface of it", async () => {
    const key = "card-key-5f1d2c7a9e";
    answer = () => ({ status: 401, headers: { "www-authenticate": `ApiKey realm="cards", rejected="${key}"` }, body: "" });
    const e = await resolveAgentCard(`${http.url}/card.json`, { headers: { "X-API-Key": key }, cache: false }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as AuthenticationError).challenge).toBe('ApiKey realm="cards", rejected="***"');
    expect(JSON.stringify(e)).not.toContain(key);
  });

  it("a card that is missing, HTML, not JSON or too large is the documented class", async () => {
    const documents: ReadonlyArray<[number, Record<string, string>, string, Partial<Facts> & { problem?: string }]> = [
      [
        404,
        { "content-type": "text/html" },
        "<p>not found</p>",
        { name: "AgentCardNotFoundError", code: "AGENT_CARD_NOT_FOUND", httpStatus: 404 },
      ],
      [200, { "content-type": "text/html" }, "<html></html>", { name: "InvalidAgentCardError", problem: "content-type" }],
      [200, { "content-type": "application/json" }, "{not json", { name: "InvalidAgentCardError", problem: "malformed-json" }],
      [
        200,
        { "content-type": "application/json" },
        JSON.stringify({ name: "x".repeat(2048) }),
        { name: "InvalidAgentCardError", problem: "too-large" },
      ],
      [200, { "content-type": "application/json" }, "[]", { name: "InvalidAgentCardError", problem: "not-an-object" }],
    ];
    for (const [status, headers, body, facts] of documents) {
      answer = () => ({ status, headers, body });
      const e = await connect(http.url, { maxBytes: 1024 }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(e, body.slice(0, 20)).toMatchObject({ ...facts, transient: false });
    }
  });
});

// --- The error object itself -------------------------------------------------------------------

describe("the error object", () => {
  it("JSON.stringify(err) names the class, the code and the message, with the error's facts", async () => {
    answer = () => ({ status: 429, headers: { "retry-after": "3" }, body: "" });
    const e = await failure(new A2AClient(createRestTransport({ baseUrl: `${http.url}/rest` })).getTask({ id: "t1" }));
    const json = JSON.parse(JSON.stringify(e)) as Record<string, unknown>;
    expect(json).toMatchObject({
      name: "ServerError",
      code: "SERVER_ERROR",
      message: e.message,
      transient: true,
      binding: "HTTP+JSON",
      httpStatus: 429,
      retryAfterMs: 3000,
    });
    expect(json.message).toMatch(/HTTP 429/);
    // And through a wrapper that logs its cause as JSON.
    expect(JSON.parse(JSON.stringify({ error: e })).error.message).toBe(e.message);
  });

  it("errors thrown by the node entry's transports are instances of the classes of the browser entry, named as they are", async () => {
    grpcAnswer = (stream) => {
      stream.respond({ ":status": 200, "content-type": "application/grpc", "grpc-status": "5", "grpc-message": "gone" });
      stream.end();
    };
    const e = await new nodeEntry.A2AClient(createGrpcTransport({ baseUrl: `127.0.0.1:${h2.port}` }))
      .getTask({ id: "t1" })
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(A2AError);
    expect(nodeEntry.TaskNotFoundError).toBeDefined();
    expect(e).toBeInstanceOf(nodeEntry.TaskNotFoundError);
    expect((e as A2AError).name).toBe("TaskNotFoundError");
    expect(String(e)).toBe("TaskNotFoundError: gone");
  });
});
