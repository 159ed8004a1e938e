/**
 * The test agent's wire, read raw through its in-memory fetch: an error
 * in each binding's shape (a JSON-RPC error object with an ErrorInfo; a
 * google.rpc.Status under the table's HTTP status), and a stream's SSE
 * events numbered with the ids a resumption sends back.
 */
import { afterEach, expect, it } from "vitest";
import { createTestAgent, steps, type TestAgent } from "../../../src/testing.js";

let agent: TestAgent;
afterEach(() => agent?.close());

const ERROR_INFO = { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" };
const MESSAGE = { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "hi" }] };

function post(path: string, body: unknown): Promise<Response> {
  return agent.fetch(`${agent.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    body: JSON.stringify(body),
  });
}

it("JSON-RPC: an error is a response object with the request's id, its code and an ErrorInfo, under HTTP 200", async () => {
  agent = createTestAgent({ script: [steps.error("TASK_NOT_FOUND", "gone")] });
  const res = await post("/jsonrpc", { jsonrpc: "2.0", id: 7, method: "SendMessage", params: { message: MESSAGE } });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32001, message: "gone", data: [ERROR_INFO] } });
});

it("HTTP+JSON: an error is a google.rpc.Status with an ErrorInfo, under the table's HTTP status", async () => {
  agent = createTestAgent({ script: [steps.error("TASK_NOT_FOUND", "gone")] });
  const res = await post("/rest/message:send", { message: MESSAGE });
  expect(res.status).toBe(404);
  expect(await res.json()).toEqual({ error: { code: 404, status: "NOT_FOUND", message: "gone", details: [ERROR_INFO] } });
});

it("a stream is SSE whose events carry their number as id: JSON-RPC response objects, or bare StreamResponses", async () => {
  agent = createTestAgent({ script: [steps.working(), steps.complete()] });
  const rpc = await (
    await post("/jsonrpc", { jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: { message: MESSAGE } })
  ).text();
  const rest = await (await post("/rest/message:stream", { message: MESSAGE })).text();
  for (const [text, wrapped] of [
    [rpc, true],
    [rest, false],
  ] as const) {
    const events = text.split("\n\n").filter((e) => e !== "");
    expect(events.map((e) => e.split("\n")[0])).toEqual(["id: 1", "id: 2", "id: 3"]);
    const data = events.map((e) => JSON.parse(e.split("\n")[1]!.replace(/^data: /, "")) as Record<string, unknown>);
    const payloads = data.map((d) => (wrapped ? (d.result as Record<string, unknown>) : d));
    expect(payloads.map((p) => Object.keys(p)[0])).toEqual(["task", "statusUpdate", "statusUpdate"]);
    if (wrapped) expect(data.every((d) => d.jsonrpc === "2.0" && d.id === 1)).toBe(true);
  }
});

it("serves SubscribeToTask on GET, as the proto routes it, and on POST, as the specification's table does", async () => {
  agent = createTestAgent({ script: [steps.untilCancelled()] });
  const started = (await (await post("/rest/message:send", { message: MESSAGE })).json()) as { task: { id: string } };
  const id = started.task.id;
  const byGet = await agent.fetch(`${agent.url}/rest/tasks/${id}:subscribe`);
  const byPost = await post(`/rest/tasks/${id}:subscribe`, {});
  expect([byGet.status, byPost.status]).toEqual([200, 200]);
  expect(byGet.headers.get("content-type")).toBe("text/event-stream");
  await post(`/rest/tasks/${id}:cancel`, {});
  // Both end with the task's end, the cancel's event after the task as it stood.
  for (const res of [byGet, byPost]) expect((await res.text()).split("\n\n").filter((e) => e !== "")).toHaveLength(2);
});
