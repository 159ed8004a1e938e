/**
 * Error codes are public API: every exported A2AError class with its code,
 * listed here so that a rename is a visible change, and the `transient` fact
 * that failover, resumption and the CLI read.
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import * as api from "../../../src/index.js";
import {
  A2AError,
  AbortedError,
  AgentCardNotFoundError,
  AgentCardVerificationError,
  AuthenticationError,
  AuthorizationError,
  CallTimeoutError,
  ConnectionError,
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  InternalError,
  InvalidAgentCardError,
  InvalidAgentResponseError,
  InvalidParamsError,
  InvalidRequestError,
  JsonRpcParseError,
  MethodNotFoundError,
  NoCompatibleInterfaceError,
  ProtocolError,
  PushNotificationNotSupportedError,
  RedirectRefusedError,
  ServerError,
  StreamResumeError,
  TaskNotCancelableError,
  TaskNotFoundError,
  TaskTerminalError,
  UnsupportedOperationError,
  VersionNotSupportedError,
  type A2AErrorCode,
} from "../../../src/index.js";
import { errorFromServer, toA2AError } from "../../../src/errors/classify.js";
import { exitCodeOf } from "../../../src/cli/classify.js";
import { EXIT_CODE_TABLE } from "../../../src/cli/exit-codes.js";

// A record over the code union: a code added to the union without a class
// here does not compile; a class whose code changes fails below.
const CLASS_OF: Record<A2AErrorCode, typeof A2AError> = {
  TASK_NOT_FOUND: TaskNotFoundError,
  TASK_NOT_CANCELABLE: TaskNotCancelableError,
  PUSH_NOTIFICATION_NOT_SUPPORTED: PushNotificationNotSupportedError,
  UNSUPPORTED_OPERATION: UnsupportedOperationError,
  CONTENT_TYPE_NOT_SUPPORTED: ContentTypeNotSupportedError,
  INVALID_AGENT_RESPONSE: InvalidAgentResponseError,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: ExtendedAgentCardNotConfiguredError,
  EXTENSION_SUPPORT_REQUIRED: ExtensionSupportRequiredError,
  VERSION_NOT_SUPPORTED: VersionNotSupportedError,
  PARSE_ERROR: JsonRpcParseError,
  INVALID_REQUEST: InvalidRequestError,
  METHOD_NOT_FOUND: MethodNotFoundError,
  INVALID_PARAMS: InvalidParamsError,
  INTERNAL_ERROR: InternalError,
  UNAUTHENTICATED: AuthenticationError,
  PERMISSION_DENIED: AuthorizationError,
  CONNECTION_FAILED: ConnectionError,
  CALL_TIMEOUT: CallTimeoutError,
  ABORTED: AbortedError,
  PROTOCOL_ERROR: ProtocolError,
  SERVER_ERROR: ServerError,
  AGENT_CARD_NOT_FOUND: AgentCardNotFoundError,
  INVALID_AGENT_CARD: InvalidAgentCardError,
  REDIRECT_REFUSED: RedirectRefusedError,
  AGENT_CARD_VERIFICATION_FAILED: AgentCardVerificationError,
  NO_COMPATIBLE_INTERFACE: NoCompatibleInterfaceError,
  STREAM_RESUME_FAILED: StreamResumeError,
  TASK_TERMINAL: TaskTerminalError,
  UNKNOWN: A2AError,
};

const CODES = Object.keys(CLASS_OF) as A2AErrorCode[];

/** An instance of each class, with the fields its constructor requires. */
function instanceOf(cls: typeof A2AError): A2AError {
  const Any = cls as unknown as new (message: string, init: object) => A2AError;
  return new Any("boom", {
    kind: "reset",
    tried: [],
    problem: "malformed-json",
    result: { verified: false, failures: [] },
    passedOver: [],
    taskId: "t-1",
    attempts: 0,
    state: 4,
  });
}

function exportedErrorClasses(): Array<typeof A2AError> {
  return Object.values(api).filter(
    (v): v is typeof A2AError => typeof v === "function" && (v === A2AError || v.prototype instanceof A2AError),
  );
}

describe("error codes", () => {
  it("every exported error class has its code, on the class and on its instances", () => {
    for (const code of CODES) {
      const cls = CLASS_OF[code];
      expect(cls.code, cls.name).toBe(code);
      expect(instanceOf(cls).code, cls.name).toBe(code);
    }
    // Nothing exported is missing from the list above.
    expect(new Set(exportedErrorClasses())).toEqual(new Set(Object.values(CLASS_OF)));
  });

  it("codes are unique: no two classes share one, a subclass included", () => {
    const classes = exportedErrorClasses();
    expect(new Set(classes.map((c) => c.code)).size).toBe(classes.length);
    expect(TaskTerminalError.code).not.toBe(UnsupportedOperationError.code);
    expect(new TaskTerminalError("ended", { taskId: "t", state: 3 })).toBeInstanceOf(UnsupportedOperationError);
  });

  it("a subclass without a code of its own has its parent's", () => {
    class GatewayDown extends ConnectionError {}
    const e = new GatewayDown("down", { kind: "refused" });
    expect(e.code).toBe("CONNECTION_FAILED");
    expect(e.transient).toBe(true);
    expect(e.name).toBe("GatewayDown");
  });

  it("codes are typed: only the union's names are codes", () => {
    // @ts-expect-error not a code
    const wrong: A2AErrorCode = "TASK_MISSING";
    const literal: "TASK_NOT_FOUND" = TaskNotFoundError.code;
    expect([wrong, literal]).toEqual(["TASK_MISSING", "TASK_NOT_FOUND"]);
  });

  it("the spec's and JSON-RPC's errors are named by the ErrorInfo reason a server sends, which classifies them", () => {
    const byReason: A2AErrorCode[] = [
      "TASK_NOT_FOUND",
      "TASK_NOT_CANCELABLE",
      "PUSH_NOTIFICATION_NOT_SUPPORTED",
      "UNSUPPORTED_OPERATION",
      "CONTENT_TYPE_NOT_SUPPORTED",
      "INVALID_AGENT_RESPONSE",
      "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
      "EXTENSION_SUPPORT_REQUIRED",
      "VERSION_NOT_SUPPORTED",
      "PARSE_ERROR",
      "INVALID_REQUEST",
      "METHOD_NOT_FOUND",
      "INVALID_PARAMS",
      "INTERNAL_ERROR",
    ];
    for (const reason of byReason) {
      const e = errorFromServer({ message: "no", reason, httpStatus: 400 });
      expect(e).toBeInstanceOf(CLASS_OF[reason]);
      expect(e.code).toBe(reason);
    }
  });

  it("code and transient show in JSON and in inspect", () => {
    const e = new ConnectionError("connection refused", { kind: "refused" });
    expect(JSON.parse(JSON.stringify(e))).toMatchObject({
      name: "ConnectionError",
      code: "CONNECTION_FAILED",
      transient: true,
      kind: "refused",
    });
    const shown = inspect(new TaskNotFoundError("gone"));
    expect(shown).toContain("code: 'TASK_NOT_FOUND'");
    expect(shown).toContain("transient: false");
  });
});

describe("transient", () => {
  const cases: Array<[string, A2AError, boolean]> = [
    ["ConnectionError refused", new ConnectionError("x", { kind: "refused" }), true],
    ["ConnectionError reset", new ConnectionError("x", { kind: "reset" }), true],
    ["ConnectionError dns", new ConnectionError("x", { kind: "dns" }), true],
    ["ConnectionError network", new ConnectionError("x", { kind: "network" }), true],
    ["CallTimeoutError deadline", new CallTimeoutError("x", { kind: "deadline" }), true],
    ["CallTimeoutError idle", new CallTimeoutError("x", { kind: "idle" }), true],
    ["StreamResumeError", new StreamResumeError("x", { taskId: "t", attempts: 3 }), true],
    ["ServerError 429", new ServerError("x", { httpStatus: 429 }), true],
    ["ServerError 502", new ServerError("x", { httpStatus: 502 }), true],
    ["ServerError 503", new ServerError("x", { httpStatus: 503 }), true],
    ["ServerError 504", new ServerError("x", { httpStatus: 504 }), true],
    ["ServerError gRPC RESOURCE_EXHAUSTED", new ServerError("x", { grpcCode: 8 }), true],
    ["ServerError 500", new ServerError("x", { httpStatus: 500 }), false],
    ["ServerError 400", new ServerError("x", { httpStatus: 400 }), false],
    ["ServerError without status", new ServerError("x"), false],
    ["TaskNotFoundError", new TaskNotFoundError("x", { httpStatus: 404 }), false],
    ["TaskNotFoundError 503 with Retry-After", new TaskNotFoundError("x", { httpStatus: 503, retryAfterMs: 1000 }), true],
    ["InternalError 429 with Retry-After", new InternalError("x", { httpStatus: 429, retryAfterMs: 0 }), true],
    ["InternalError 503 without Retry-After", new InternalError("x", { httpStatus: 503 }), false],
    ["InternalError 502 with Retry-After", new InternalError("x", { httpStatus: 502, retryAfterMs: 1000 }), false],
    ["AbortedError", new AbortedError("x"), false],
    ["AbortedError 503 with Retry-After", new AbortedError("x", { httpStatus: 503, retryAfterMs: 1000 }), false],
    ["InvalidParamsError", new InvalidParamsError("x", { httpStatus: 400 }), false],
    ["VersionNotSupportedError", new VersionNotSupportedError("x"), false],
    ["AuthenticationError", new AuthenticationError("x", { httpStatus: 401 }), false],
    ["ProtocolError", new ProtocolError("x"), false],
    ["TaskTerminalError", new TaskTerminalError("x", { taskId: "t", state: 3 }), false],
    ["A2AError", new A2AError("x"), false],
  ];
  it.each(cases)("%s", (_label, e, transient) => {
    expect(e.transient).toBe(transient);
  });

  it("classification sets it: a refused socket, a gateway's 503, an unknown task", () => {
    const refused = toA2AError(Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } }), "JSONRPC");
    expect([refused.code, refused.transient]).toEqual(["CONNECTION_FAILED", true]);
    const gateway = errorFromServer({ message: "Service Unavailable", httpStatus: 503, binding: "HTTP+JSON" });
    expect([gateway.code, gateway.transient]).toEqual(["SERVER_ERROR", true]);
    const missing = errorFromServer({ message: "no task", jsonRpcCode: -32001, binding: "JSONRPC" });
    expect([missing.code, missing.transient]).toEqual(["TASK_NOT_FOUND", false]);
  });
});

describe("the CLI's exit codes, by error code", () => {
  it("each class listed in the exit code table exits with that code, and every code has an exit code", () => {
    const listed = new Map<string, number>();
    for (const [exit, meaning] of EXIT_CODE_TABLE) for (const name of meaning.match(/\b[A-Z]\w+Error\b/g) ?? []) listed.set(name, exit);
    const byName = new Map(CODES.map((c) => [CLASS_OF[c].name, CLASS_OF[c]]));
    expect(listed.size).toBeGreaterThan(10);
    for (const [name, exit] of listed) expect(exitCodeOf(instanceOf(byName.get(name)!)), name).toBe(exit);
    for (const code of CODES) {
      const exit = exitCodeOf(instanceOf(CLASS_OF[code]));
      // Not listed by name: "any other A2A error".
      expect(listed.get(CLASS_OF[code].name) ?? 7, code).toBe(exit);
    }
  });
});
