// A user's test of code built on a2a-connect, in Node's own runner: `node --test node.test.mjs`.
// The agent runs in memory (no socket). vitest.test.mjs and jest.test.mjs are the
// same three tests in vitest and jest, in memory and on a loopback server.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { connect, replyTo, TaskState, textOf, userMessage } from "a2a-connect";
import { createTestAgent, steps } from "a2a-connect/testing";

let agent;
afterEach(() => agent?.close());

// The agent in memory: its connect() options give the client its fetch.
const session = (options) => connect(agent.url, { ...agent.connectOptions(), timeoutMs: 5_000, ...options });

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
  assert.deepEqual(chunks, ["one", " two"]);
  assert.equal(last.payload.value.status.state, TaskState.CANCELED);
  assert.equal(agent.requests.filter((r) => r.method === "SubscribeToTask").length, 1);
});

test("an input-required turn is continued with replyTo", async () => {
  agent = createTestAgent({ script: [steps.inputRequired("which city?"), steps.artifact("sunny in Lyon"), steps.complete()] });
  const { client } = await session();
  const asked = (await client.sendMessage({ message: userMessage("weather?") })).payload.value;
  assert.equal(asked.status.state, TaskState.INPUT_REQUIRED);
  assert.equal(textOf(asked), "which city?");
  const done = (await client.sendMessage({ message: replyTo(asked, "Lyon") })).payload.value;
  assert.equal(done.id, asked.id);
  assert.equal(done.status.state, TaskState.COMPLETED);
  assert.equal(textOf(done), "sunny in Lyon");
});

test("a 503 with Retry-After is retried by the retry policy", async () => {
  agent = createTestAgent({
    script: [steps.once(steps.httpStatus(503, { "Retry-After": "0.01" })), steps.artifact("done"), steps.complete()],
  });
  // maxAttempts: 1, so that the retry policy, not failover to the card's other interface, answers the 503.
  const { client } = await session({ retry: { attempts: 2, initialDelayMs: 1, maxDelayMs: 100 }, maxAttempts: 1 });
  const answer = (await client.sendMessage({ message: userMessage("again") })).payload.value;
  assert.equal(textOf(answer), "done");
  assert.equal(agent.requests.filter((r) => r.method === "SendMessage").length, 2);
});
