/**
 * What the test agent saw: every request with its binding, version,
 * operation and request message as the specification's JSON, and the
 * credentials it carried masked (an Authorization keeps its scheme), on
 * every binding (gRPC's metadata too), in memory and on loopback.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { connect, userMessage } from "../../../src/index.js";
import { createTestAgent, MASK, type TestAgent } from "../../../src/testing.js";
import { agentOnAll, CASES, sessionWith } from "./ways.js";

let agent: TestAgent;
afterEach(() => agent?.close());

const TOKEN = "tok-3f9a-secret";
const KEY = "pass-8c1d-secret";

describe.each(CASES)("in %s, on %s", (way, binding) => {
  it("notes each request's binding, version, operation and message, with the credentials masked", async () => {
    agent = agentOnAll({
      card: {
        securitySchemes: {
          bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } },
          pass: { apiKeySecurityScheme: { location: "header", name: "X-Agent-Pass" } },
        },
        securityRequirements: [{ schemes: { bearer: { list: [] }, pass: { list: [] } } }],
      },
    });
    const { client } = await sessionWith(agent, way, binding, {
      auth: { bearer: { token: TOKEN }, pass: { value: KEY } },
      transport: { headers: { Cookie: `session=${TOKEN}`, "X-Tenant": "acme" } },
    });
    const message = userMessage("hello", { messageId: "m-1", contextId: "c-1" });
    const task = await client.sendMessage({ message });
    await client.getTask({ id: (task.payload.value as { id: string }).id, historyLength: 1 });

    expect(agent.requests.map((r) => [r.binding, r.method])).toEqual([
      [undefined, "AgentCard"],
      [binding, "SendMessage"],
      [binding, "GetTask"],
    ]);
    const [, send, get] = agent.requests;
    expect(send!.version).toBe("1.0");
    expect(send!.request).toEqual({ message: { messageId: "m-1", contextId: "c-1", role: "ROLE_USER", parts: [{ text: "hello" }] } });
    expect(get!.request).toEqual({ id: (task.payload.value as { id: string }).id, historyLength: 1 });
    expect(send!.headers.authorization).toBe(`Bearer ${MASK}`);
    expect(send!.headers["x-agent-pass"]).toBe(MASK);
    expect(send!.headers.cookie).toBe(MASK);
    expect(send!.headers["x-tenant"]).toBe("acme");
    // Nowhere in what was noted: not in a header, a path or a message.
    const noted = JSON.stringify(agent.requests);
    expect(noted).not.toContain(TOKEN);
    expect(noted).not.toContain(KEY);
  });
});

it("masks a credential in the query, and notes a request that names no operation", async () => {
  agent = createTestAgent();
  const unknown = await agent.fetch(`${agent.url}/rest/nothing/here?api_key=${KEY}&page=2`);
  expect(unknown.status).toBe(404);
  const [noted] = agent.requests;
  expect([noted!.binding, noted!.method, noted!.httpMethod]).toEqual(["HTTP+JSON", "", "GET"]);
  expect(noted!.path).toBe("/rest/nothing/here?api_key=***&page=2");
});

it("notes when each request arrived, on the test's clock, a fake one included", async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  try {
    vi.setSystemTime(1_000);
    agent = createTestAgent();
    const { client } = await connect(agent.url, agent.connectOptions());
    vi.setSystemTime(5_000);
    await client.listTasks({});
    expect(agent.requests.map((r) => [r.method, r.receivedAt])).toEqual([
      ["AgentCard", 1_000],
      ["ListTasks", 5_000],
    ]);
  } finally {
    vi.useRealTimers();
  }
});
