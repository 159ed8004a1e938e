// A user's test of code built on a2a-connect, in jest:
// `node --experimental-vm-modules node_modules/jest/bin/jest.js jest.test.mjs`.
// Plain ESM, which jest loads as it is (`transform: {}`, jest.config.mjs) under Node's
// --experimental-vm-modules: no compiler (ts-jest, @swc/jest) stands between the test and
// the package, whose entries resolve by its "exports" map as they do in Node.
// The agent runs on a loopback server: connect() reaches it over HTTP, as it would an agent.
// vitest.test.mjs and node.test.mjs are the same three tests in vitest and node:test.
import { afterEach, expect, test } from "@jest/globals";
import { connect, replyTo, TaskState, textOf, userMessage } from "a2a-connect";
import { createTestAgent, steps } from "a2a-connect/testing";

let agent;
afterEach(() => agent?.close());

// The agent on 127.0.0.1: connect() takes its URL alone; close() stops the server.
const session = async (options) => connect((await agent.listen()).url, { timeoutMs: 5_000, ...options });

test("a stream dropped mid-way is resumed: the reader sees every chunk once", async () => {
  agent = createTestAgent({
    script: [
      steps.working(),
      steps.artifact("one"),
      steps.once(steps.drop()),
      steps.artifact(" two", { append: true }),
      steps.untilCancelled(),
    ],
  });
  const { client } = await session();
  const chunks = [];
  let last;
  for await (const event of client.sendStreamingMessage(
    { message: userMessage("count") },
    { resume: { backoff: { initialMs: 1, maxMs: 10 } } },
  )) {
    if (event.payload.case === "artifactUpdate") chunks.push(textOf(event));
    // " two" came after the drop, through the resumption: the task may end now.
    if (textOf(event) === " two") await client.cancelTask({ id: event.payload.value.taskId });
    last = event;
  }
  expect(chunks).toEqual(["one", " two"]);
  expect(last.payload.value.status.state).toBe(TaskState.CANCELED);
  expect(agent.requests.filter((r) => r.method === "SubscribeToTask")).toHaveLength(1);
});

test("an input-required turn is continued with replyTo", async () => {
  agent = createTestAgent({ script: [steps.inputRequired("which city?"), steps.artifact("sunny in Lyon"), steps.complete()] });
  const { client } = await session();
  const asked = (await client.sendMessage({ message: userMessage("weather?") })).payload.value;
  expect(asked.status.state).toBe(TaskState.INPUT_REQUIRED);
  expect(textOf(asked)).toBe("which city?");
  const done = (await client.sendMessage({ message: replyTo(asked, "Lyon") })).payload.value;
  expect(done.id).toBe(asked.id);
  expect(done.status.state).toBe(TaskState.COMPLETED);
  expect(textOf(done)).toBe("sunny in Lyon");
});

test("a 503 with Retry-After is retried by the retry policy", async () => {
  agent = createTestAgent({
    script: [steps.once(steps.httpStatus(503, { "Retry-After": "0.01" })), steps.artifact("done"), steps.complete()],
  });
  // maxAttempts: 1, so that the retry policy, not failover to the card's other interface, answers the 503.
  const { client } = await session({ retry: { attempts: 2, initialDelayMs: 1, maxDelayMs: 100 }, maxAttempts: 1 });
  const answer = (await client.sendMessage({ message: userMessage("again") })).payload.value;
  expect(textOf(answer)).toBe("done");
  expect(agent.requests.filter((r) => r.method === "SendMessage")).toHaveLength(2);
});
