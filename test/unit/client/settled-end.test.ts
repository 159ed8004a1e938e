/**
 * A stream whose task has settled is read to its end when the agent ends it
 * right after, as the specification has it, rather than cut: the agent sees
 * its response complete (a browser lists a cut one as a failed request), on
 * the fetch client and on node:http, resuming or not. An agent that keeps
 * the stream open is not waited for past the grace.
 */
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SETTLED_END_GRACE_MS } from "../../../src/client/settled-end.js";
import { A2AClient, createFetchHttpClient, userMessage, type StreamResponse } from "../../../src/index.js";
import { createNodeHttpClient, createJsonRpcTransport } from "../../../src/node.js";
import { sseFrame, startFakeServer, startSse, type FakeServer } from "../../support/fake-server.js";

/** How each stream the agent served ended: its response complete, or its connection closed before. */
const endings: Array<"complete" | "cut"> = [];
let agent: FakeServer;

/** Watches how `res` ends: completed by the agent, or cut by the client before. */
function watch(res: ServerResponse): void {
  res.once("close", () => endings.push(res.writableFinished ? "complete" : "cut"));
}

beforeAll(async () => {
  agent = await startFakeServer((req, res, body) => {
    const { id } = JSON.parse(body) as { id: number };
    const frame = (result: unknown) => sseFrame({ jsonrpc: "2.0", id, result });
    startSse(res);
    watch(res);
    res.write(frame({ task: { id: "task-1", contextId: "ctx-1", status: { state: "TASK_STATE_WORKING" } } }));
    res.write(frame({ statusUpdate: { taskId: "task-1", contextId: "ctx-1", status: { state: "TASK_STATE_COMPLETED" } } }));
    // The end comes a moment after the final state, in a packet of its own; /open never ends it.
    if (!req.url!.startsWith("/open")) setTimeout(() => res.end(), 20);
  });
});
afterAll(() => agent?.close());

const clients = {
  fetch: () => createFetchHttpClient(),
  "node:http": () => createNodeHttpClient(),
};

async function streamed(path: string, httpClient: keyof typeof clients, resume: boolean): Promise<StreamResponse[]> {
  const client = new A2AClient(createJsonRpcTransport({ baseUrl: `${agent.url}${path}`, httpClient: clients[httpClient]() }));
  const events: StreamResponse[] = [];
  for await (const event of client.sendStreamingMessage({ message: userMessage("hi") }, resume ? {} : { resume: false }))
    events.push(event);
  return events;
}

describe("a stream whose task has settled", () => {
  it.each([
    ["fetch", true],
    ["fetch", false],
    ["node:http", true],
    ["node:http", false],
  ] as const)("is read to the end the agent sends at once (%s, resume: %s): the agent's response completes", async (httpClient, resume) => {
    endings.length = 0;
    const events = await streamed("/rpc", httpClient, resume);
    expect(events.map((e) => e.payload.case)).toEqual(["task", "statusUpdate"]);
    await expect.poll(() => endings).toEqual(["complete"]);
  });

  it("is closed when the agent keeps it open, within the grace", async () => {
    endings.length = 0;
    const started = performance.now();
    const events = await streamed("/open", "fetch", true);
    const took = performance.now() - started;
    expect(events.map((e) => e.payload.case)).toEqual(["task", "statusUpdate"]);
    expect(took).toBeGreaterThanOrEqual(SETTLED_END_GRACE_MS - 5);
    expect(took).toBeLessThan(SETTLED_END_GRACE_MS + 2000);
    await expect.poll(() => endings).toEqual(["cut"]);
  });
});
