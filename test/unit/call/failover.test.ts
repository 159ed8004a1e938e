/**
 * Which failures move a call to the next interface, over scripted
 * transports: an interface that is away (a failed connection, a gateway's
 * 502/503/504 without an A2A error) is left, but a request goes to the next
 * one only where it may be sent again, by the rule retries follow too
 * (call/attempt-rules.ts): a read always, a write only where the agent
 * cannot have acted on it.
 */
import { create, type DescMethodUnary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { A2AService, AgentInterfaceSchema, TaskSchema } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { FailoverTransport } from "../../../src/call/failover.js";
import type { A2ATransport } from "../../../src/call/transport.js";
import { type A2AError, ConnectionError, ServerError } from "../../../src/errors/family.js";
import type { Candidate } from "../../../src/base/bindings.js";

const candidate = (n: number): Candidate => ({
  interface: create(AgentInterfaceSchema, { url: `http://127.0.0.1:1/${n}`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }),
  binding: "JSONRPC",
  version: "1.0",
});

/** Two interfaces: the first fails with `failure`, the second answers. Which ones each call reached. */
function twoInterfaces(failure: A2AError) {
  const reached: number[] = [];
  const transport = (n: number): A2ATransport => ({
    binding: "JSONRPC",
    unary: async (method) => {
      reached.push(n);
      if (n === 0) throw failure;
      return {
        stream: false,
        service: A2AService,
        method,
        header: new Headers(),
        trailer: new Headers(),
        message: create(TaskSchema, { id: "t1" }),
      } as never;
    },
    stream: () => Promise.reject(new Error("no streams here")),
  });
  const failover = new FailoverTransport({
    candidates: [candidate(0), candidate(1)],
    create: (c) => transport(Number(c.interface.url.slice(-1))),
    versionFallback: "off",
    maxAttempts: 2,
  });
  const call = async (method: DescMethodUnary) => {
    reached.length = 0;
    await failover.unary(method, undefined, undefined, undefined, {}).catch(() => undefined);
    return [...reached];
  };
  return { call };
}

const reset = () => new ConnectionError("connection reset", { kind: "reset" });
const refused = () => new ConnectionError("connection refused", { kind: "refused" });
const gateway = (status: number) => new ServerError(`HTTP ${status} without an A2A error body`, { httpStatus: status });

describe("failover moves a request only where it may be sent again", () => {
  it("a read moves after any failure that says the interface is away", async () => {
    for (const failure of [reset(), refused(), gateway(502), gateway(503), gateway(504)]) {
      expect(await twoInterfaces(failure).call(A2AService.method.getTask)).toEqual([0, 1]);
    }
  });

  it("CancelTask and the push config create and delete are writes: they move after a refusal or a 503, not after a reset or a 502/504", async () => {
    for (const method of [
      A2AService.method.cancelTask,
      A2AService.method.createTaskPushNotificationConfig,
      A2AService.method.deleteTaskPushNotificationConfig,
    ] as DescMethodUnary[]) {
      expect(await twoInterfaces(refused()).call(method)).toEqual([0, 1]);
      expect(await twoInterfaces(gateway(503)).call(method)).toEqual([0, 1]);
      expect(await twoInterfaces(reset()).call(method)).toEqual([0]);
      expect(await twoInterfaces(gateway(502)).call(method)).toEqual([0]);
      expect(await twoInterfaces(gateway(504)).call(method)).toEqual([0]);
    }
  });

  it("SendMessage moves after a refusal or a gateway's 503 (the agent did not act on it), not after a reset or a 502/504", async () => {
    const send = A2AService.method.sendMessage as DescMethodUnary;
    expect(await twoInterfaces(refused()).call(send)).toEqual([0, 1]);
    expect(await twoInterfaces(gateway(503)).call(send)).toEqual([0, 1]);
    expect(await twoInterfaces(reset()).call(send)).toEqual([0]);
    expect(await twoInterfaces(gateway(502)).call(send)).toEqual([0]);
  });

  it("a server error naming an A2A error is the agent's answer: no move", async () => {
    const named = new ServerError("overloaded", { httpStatus: 503, reason: "OVERLOADED" });
    expect(await twoInterfaces(named).call(A2AService.method.getTask as DescMethodUnary)).toEqual([0]);
  });
});
