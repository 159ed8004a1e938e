/**
 * Error codes and the transient fact against the real peer, on every
 * binding: what a server reports and what the network does arrive with the
 * same `code` and `transient` whatever carried the call.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalAgent, type LocalAgent } from "../../demo/agent.js";
import { userMessage, type Binding } from "../../src/index.js";
import { BINDINGS, clientFor } from "../support/bindings.js";
import { deadPort } from "../support/ports.js";
import { failure } from "../support/failure.js";

let agent: LocalAgent;
beforeAll(async () => {
  agent = await startLocalAgent();
});
afterAll(() => agent?.close());

describe.each(BINDINGS)("%s", (binding: Binding) => {
  it("an unknown task is TASK_NOT_FOUND, not transient", async () => {
    const e = await failure(clientFor(binding, agent).getTask({ id: "no-such-task" }));
    expect({ code: e.code, transient: e.transient, binding: e.binding }).toEqual({ code: "TASK_NOT_FOUND", transient: false, binding });
  });

  it("canceling a task that has ended is TASK_NOT_CANCELABLE, not transient", async () => {
    const client = clientFor(binding, agent);
    const res = await client.sendMessage({ message: userMessage("count 1") });
    const id = res.payload.case === "task" ? res.payload.value.id : "";
    const e = await failure(client.cancelTask({ id }));
    expect({ code: e.code, transient: e.transient }).toEqual({ code: "TASK_NOT_CANCELABLE", transient: false });
  });

  it("a refused connection is CONNECTION_FAILED, transient", async () => {
    const port = await deadPort();
    const dead: LocalAgent = {
      ...agent,
      jsonRpcUrl: `http://127.0.0.1:${port}/a2a/jsonrpc`,
      restUrl: `http://127.0.0.1:${port}/a2a/rest`,
      grpcAddress: `http://127.0.0.1:${port}`,
    };
    const e = await failure(clientFor(binding, dead, { timeoutMs: 5_000 }).getTask({ id: "t" }));
    expect({ code: e.code, transient: e.transient }).toEqual({ code: "CONNECTION_FAILED", transient: true });
  });
});
