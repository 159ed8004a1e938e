/**
 * HTTP+JSON puts ids and the tenant into the URL path, where URL resolution
 * drops an empty segment's meaning and collapses `.` and `..`: such a value
 * would take the call to another route of the real server (GetTask to
 * ListTasks, a tenant's call to the default tenant). Each peer, and the 0.3
 * wire, with the official server.
 */
import type { Interceptor } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalAgent, type LocalAgent } from "../../demo/agent.js";
import { A2AClient, InvalidParamsError, TaskNotFoundError, userMessage, type Task } from "../../src/index.js";
import { createRestTransport } from "../../src/node.js";
import { createRestTransportV03 } from "../../src/bindings/http-json/v0_3.js";
import { V03_KIT } from "../../src/bindings/v0_3-kit.js";
import { GENERATED_JSON, onNodeHttp } from "../../src/node-runtime.js";
import { clientFor } from "../support/bindings.js";
import { PEERS, agentsOfPeers } from "../support/peers.js";

const agentOf = agentsOfPeers();

/** A client of the agent's HTTP+JSON interface that records the URL of every request it sends. */
function recording(baseUrl: string, tenant?: string): { client: A2AClient; sent: string[] } {
  const sent: string[] = [];
  const record: Interceptor = (next) => (req) => {
    sent.push(req.url);
    return next(req);
  };
  return { client: new A2AClient(createRestTransport({ baseUrl, interceptors: [record] }), { tenant }), sent };
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe.each(PEERS)("HTTP+JSON path values ($label)", (sdk) => {
  let agent: LocalAgent;
  let finished: Task;
  beforeAll(async () => {
    agent = agentOf(sdk);
    const res = await clientFor("HTTP+JSON", agent).sendMessage({ message: userMessage("count 1") });
    if (res.payload.case !== "task") throw new Error("expected a task");
    finished = res.payload.value;
  });

  it.each(["", ".", ".."])("GetTask of id %j is InvalidParamsError naming the field, and nothing is sent", async (id) => {
    const { client, sent } = recording(agent.restUrl);
    const e = await failure(client.getTask({ id }));
    expect(e).toBeInstanceOf(InvalidParamsError);
    expect((e as InvalidParamsError).binding).toBe("HTTP+JSON");
    expect((e as Error).message).toMatch(/^id /);
    expect(sent).toEqual([]);
  });

  it('a push config id of "" or "." is refused: GET .../pushNotificationConfigs/ is the list route', async () => {
    const { client, sent } = recording(agent.restUrl);
    for (const id of ["", "."]) {
      await expect(client.getTaskPushNotificationConfig({ taskId: finished.id, id })).rejects.toBeInstanceOf(InvalidParamsError);
      await expect(client.deleteTaskPushNotificationConfig({ taskId: finished.id, id })).rejects.toBeInstanceOf(InvalidParamsError);
    }
    expect(sent).toEqual([]);
  });

  it('a tenant of "." is refused instead of sending the message to the default tenant', async () => {
    const { client, sent } = recording(agent.restUrl, ".");
    const contextId = `dot-tenant-${Date.now()}`;
    const e = await failure(client.sendMessage({ message: userMessage("count 1", { contextId }) }));
    expect(e).toBeInstanceOf(InvalidParamsError);
    expect((e as Error).message).toMatch(/^tenant /);
    expect(sent).toEqual([]);
  });

  it('dots inside a segment are an ordinary id: CancelTask of ".." reaches the server (/tasks/..:cancel)', async () => {
    const { client, sent } = recording(agent.restUrl);
    await expect(client.cancelTask({ id: ".." })).rejects.toBeInstanceOf(TaskNotFoundError);
    expect(sent).toHaveLength(1);
  });
});

describe("HTTP+JSON path values over A2A 0.3", () => {
  let agent: LocalAgent;
  beforeAll(async () => {
    agent = await startLocalAgent({ versions: ["0.3"] });
  });
  afterAll(() => agent?.close());

  it.each(["", ".."])("GetTask of id %j: the resource name tasks/<id> is refused before anything is sent", async (id) => {
    const client = new A2AClient(createRestTransportV03(V03_KIT, onNodeHttp({ baseUrl: agent.restUrl }), GENERATED_JSON));
    const e = await failure(client.getTask({ id }));
    expect(e).toBeInstanceOf(InvalidParamsError);
    expect((e as Error).message).toMatch(/^name \("tasks\/\.?\.?"\) would make a path segment/);
  });
});
