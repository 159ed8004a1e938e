/**
 * The test agent's 0.3 wire, read raw through its in-memory fetch: the
 * card as a 0.3 agent publishes it (and beside a 1.0 card), JSON-RPC 0.3's
 * methods with `kind` discriminators, 0.3's part shapes and lowercase
 * states, `final` on a stream's last status update, errors as `{code,
 * message}` in 0.3's codes; HTTP+JSON 0.3's routes under `/v1` with the
 * 0.3 proto's JSON, and its errors under the HTTP status of the error.
 */
import { afterEach, describe, expect, it } from "vitest";
import { connect, TaskState, TaskStateSchema } from "../../../src/index.js";
import { V03_CALLS } from "../../../src/bindings/jsonrpc/v0_3-shapes.js";
import { createTestAgent, steps, type TestAgent } from "../../../src/testing.js";
import { stateJsonV03, V03_METHODS } from "../../../src/testing/v0_3-json.js";

let agent: TestAgent;
afterEach(() => agent?.close());

type Json = Record<string, unknown>;

function post(path: string, body: unknown): Promise<Response> {
  return agent.fetch(`${agent.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

const rpc = async (method: string, params: unknown, id = 1) => (await post("/v0.3/jsonrpc", { jsonrpc: "2.0", id, method, params })).json();

/** The `data` of each SSE event of a response. */
const events = async (res: Response) =>
  (await res.text())
    .split("\n\n")
    .filter((e) => e !== "")
    .map((e) => ({ event: /^event: (.*)$/m.exec(e)?.[1], data: JSON.parse(/^data: (.*)$/m.exec(e)![1]!) as Json }));

const MESSAGE_V03 = {
  kind: "message",
  messageId: "m-1",
  role: "user",
  parts: [
    { kind: "text", text: "hi" },
    { kind: "file", file: { uri: "https://example.com/a.png", mimeType: "image/png", name: "a.png" } },
    { kind: "data", data: { n: 1 } },
  ],
};

describe("the card", () => {
  const card = async () => (await agent.fetch(`${agent.url}/.well-known/agent-card.json`)).json() as Promise<Json>;
  const SCHEMES = { key: { apiKeySecurityScheme: { location: "header", name: "x-api-key" } } };
  const REQUIRED = [{ schemes: { key: { list: [] } } }];

  it("of a 0.3 agent names its main interface and lists them all, with 0.3's security members", async () => {
    agent = createTestAgent({
      versions: ["0.3"],
      bindings: ["HTTP+JSON", "JSONRPC"],
      card: { securitySchemes: SCHEMES, securityRequirements: REQUIRED },
    });
    const served = await card();
    expect(served).not.toHaveProperty("supportedInterfaces");
    expect(served).toMatchObject({
      protocolVersion: "0.3.0",
      url: "http://localhost/v0.3/rest",
      preferredTransport: "HTTP+JSON",
      additionalInterfaces: [
        { url: "http://localhost/v0.3/rest", transport: "HTTP+JSON" },
        { url: "http://localhost/v0.3/jsonrpc", transport: "JSONRPC" },
      ],
      capabilities: { streaming: true },
      supportsAuthenticatedExtendedCard: false,
      securitySchemes: { key: { type: "apiKey", in: "header", name: "x-api-key" } },
      security: [{ key: [] }],
    });
  });

  it("of a 0.3 agent reads, through the client, as the 1.0 agent's card with the same members", async () => {
    const members = { card: { securitySchemes: SCHEMES, securityRequirements: REQUIRED } };
    agent = createTestAgent({ ...members, versions: ["0.3"] });
    const v03 = (await connect(agent.url, agent.connectOptions())).card;
    const v1Agent = createTestAgent(members);
    const v1 = (await connect(v1Agent.url, v1Agent.connectOptions())).card;
    await v1Agent.close();
    expect([v03.securitySchemes, v03.securityRequirements, v03.skills]).toEqual([v1.securitySchemes, v1.securityRequirements, v1.skills]);
  });

  it("of an agent on both versions is the 1.0 card, listing both, with the 0.3 members beside", async () => {
    agent = createTestAgent({ versions: ["1.0", "0.3"], bindings: ["JSONRPC"] });
    expect(await card()).toMatchObject({
      supportedInterfaces: [
        { url: "http://localhost/jsonrpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        { url: "http://localhost/v0.3/jsonrpc", protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      ],
      protocolVersion: "0.3.0",
      url: "http://localhost/v0.3/jsonrpc",
      preferredTransport: "JSONRPC",
    });
  });
});

describe("JSON-RPC 0.3", () => {
  it("names its methods as the client sends them, one for each method 0.3 carries", () => {
    expect([...V03_METHODS.keys()].sort()).toEqual(
      Object.values(V03_CALLS)
        .map((c) => c.method)
        .sort(),
    );
  });

  it("spells every 1.0 task state in 0.3's words", () => {
    const spelled = TaskStateSchema.values.filter((v) => v.number !== TaskState.UNSPECIFIED).map((v) => stateJsonV03(v.name));
    expect(spelled).not.toContain("unknown");
    expect(new Set(spelled).size).toBe(spelled.length);
  });

  it("message/send reads a 0.3 message and answers a task in 0.3's shape", async () => {
    agent = createTestAgent({ versions: ["0.3"], script: [steps.artifact("forty-two"), steps.complete("done")] });
    const res = (await rpc("message/send", { message: MESSAGE_V03, configuration: { blocking: true } }, 9)) as Json;
    expect(res).toMatchObject({ jsonrpc: "2.0", id: 9 });
    const task = res.result as Json;
    expect(task).toMatchObject({
      kind: "task",
      status: { state: "completed", message: { kind: "message", role: "agent", parts: [{ kind: "text", text: "done" }] } },
      artifacts: [{ artifactId: "artifact-1", parts: [{ kind: "text", text: "forty-two" }] }],
    });
    expect((task.history as Json[])[0]).toMatchObject({ ...MESSAGE_V03, taskId: task.id, contextId: task.contextId });
    expect(agent.requests.at(-1)).toMatchObject({
      binding: "JSONRPC",
      method: "SendMessage",
      request: {
        message: {
          role: "ROLE_USER",
          parts: [{ text: "hi" }, { url: "https://example.com/a.png", mediaType: "image/png", filename: "a.png" }, { data: { n: 1 } }],
        },
      },
    });
  });

  it("a send without `blocking: true` answers at once, as 0.3 has it", async () => {
    agent = createTestAgent({ versions: ["0.3"], script: [steps.untilCancelled()] });
    const res = (await rpc("message/send", { message: MESSAGE_V03 })) as { result: Json };
    expect(res.result).toMatchObject({ kind: "task", status: { state: "working" } });
  });

  it("message/stream sends 0.3 events, the last status update `final`", async () => {
    agent = createTestAgent({ versions: ["0.3"], script: [steps.working(), steps.artifact("a"), steps.complete()] });
    const sent = await events(
      await post("/v0.3/jsonrpc", { jsonrpc: "2.0", id: 2, method: "message/stream", params: { message: MESSAGE_V03 } }),
    );
    const results = sent.map((e) => e.data.result as Json);
    expect(results.map((r) => [r.kind, r.final])).toEqual([
      ["task", undefined],
      ["status-update", false],
      ["artifact-update", undefined],
      ["status-update", true],
    ]);
    expect(sent.every((e) => e.data.id === 2)).toBe(true);
  });

  it("answers errors as `{code, message}` in 0.3's codes, without 1.0's ErrorInfo", async () => {
    agent = createTestAgent({ versions: ["0.3"] });
    expect(await rpc("tasks/get", { id: "nope" })).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32001, message: "no task nope" } });
    expect(
      await rpc("tasks/pushNotificationConfig/set", { taskId: "t", pushNotificationConfig: { url: "https://example.com/hook" } }),
    ).toMatchObject({
      error: { code: -32003 },
    });
    // A 1.0 method name is no method on the 0.3 wire.
    expect(await rpc("SendMessage", { message: MESSAGE_V03 })).toMatchObject({ error: { code: -32601 } });
  });
});

describe("HTTP+JSON 0.3", () => {
  const MESSAGE_PROTO = { messageId: "m-1", role: "ROLE_USER", content: [{ text: "hi" }] };

  it("message:send reads the 0.3 proto's JSON and answers in it", async () => {
    agent = createTestAgent({ versions: ["0.3"], script: [steps.artifact("forty-two"), steps.complete("done")] });
    const res = await post("/v0.3/rest/v1/message:send", { message: MESSAGE_PROTO, configuration: { blocking: true } });
    expect(res.status).toBe(200);
    const { task } = (await res.json()) as { task: Json };
    expect(task).toMatchObject({
      status: { state: "TASK_STATE_COMPLETED", message: { role: "ROLE_AGENT", content: [{ text: "done" }] } },
      artifacts: [{ artifactId: "artifact-1", parts: [{ text: "forty-two" }] }],
      history: [{ ...MESSAGE_PROTO, taskId: task.id }, {}],
    });
    const got = await agent.fetch(`${agent.url}/v0.3/rest/v1/tasks/${String(task.id)}?historyLength=1`);
    expect(((await got.json()) as { history: unknown[] }).history).toHaveLength(1);
  });

  it("serves tasks:subscribe on GET, as the 0.3 proto routes it, and on POST, as 0.3's table does", async () => {
    agent = createTestAgent({ versions: ["0.3"], script: [steps.untilCancelled()] });
    const { task } = (await (await post("/v0.3/rest/v1/message:send", { message: MESSAGE_PROTO })).json()) as { task: { id: string } };
    const path = `/v0.3/rest/v1/tasks/${task.id}:subscribe`;
    // Each answer starts with the task as it stands: the cancel comes after both have it.
    const subscribed = await Promise.all([agent.fetch(`${agent.url}${path}`), post(path, {})]);
    await agent.fetch(`${agent.url}/v0.3/rest/v1/tasks/${task.id}:cancel`, { method: "POST" });
    for (const res of subscribed) {
      expect((await events(res)).map((e) => (e.data.statusUpdate as Json | undefined)?.final ?? Object.keys(e.data)[0])).toEqual([
        "task",
        true,
      ]);
    }
  });

  it("answers errors as `{code, message}` under the error's HTTP status, and in a stream as an `event: error`", async () => {
    agent = createTestAgent({ versions: ["0.3"], script: [steps.working(), steps.error("TASK_NOT_FOUND", "gone")] });
    const missing = await agent.fetch(`${agent.url}/v0.3/rest/v1/tasks/nope`);
    expect([missing.status, await missing.json()]).toEqual([404, { code: -32001, message: "no task nope" }]);
    const sent = await events(await post("/v0.3/rest/v1/message:stream", { message: MESSAGE_PROTO }));
    expect(sent.map((e) => e.event ?? Object.keys(e.data)[0])).toEqual(["task", "statusUpdate", "error"]);
    expect(sent.at(-1)!.data).toEqual({ code: -32001, message: "gone" });
  });
});
