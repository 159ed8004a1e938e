/**
 * Push notifications end to end: starts the local agent, serves a webhook
 * receiver on 127.0.0.1, runs a task that pushes its progress there, prints
 * each event as it arrives, then the task as the receiver saw it.
 *
 *   node --import tsx examples/webhook-receiver.ts
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { startLocalAgent } from "../demo/agent.js";
// In an app: from "a2a-connect/node" (the receiver alone is in "a2a-connect" too).
import { TaskState, connect, createNodePushHandler, createPushReceiver, isTerminal, textOf, userMessage } from "../src/node.js";

console.info = () => {}; // the local agent logs every delivery it makes

const agent = await startLocalAgent();
const token = crypto.randomUUID();

let finished!: () => void;
const done = new Promise<void>((resolve) => (finished = resolve));
const receiver = createPushReceiver({
  token,
  onEvent(event, task) {
    const detail = event.payload.case === "artifactUpdate" ? textOf(event.payload.value.artifact!) : TaskState[task?.status?.state ?? 0];
    console.log(`pushed ${event.payload.case}: ${detail}`);
    if (task?.status && isTerminal(task.status.state)) finished();
  },
});
const server = createServer(createNodePushHandler(receiver));
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;

const session = await connect(agent.cardUrl, { verification: { keys: agent.jwks } });
const res = await session.client.sendMessage({
  message: userMessage("count 3 every 100"),
  configuration: { returnImmediately: true, taskPushNotificationConfig: { url, token } },
});
if (res.payload.case !== "task") throw new Error("expected a task");
const id = res.payload.value.id;
console.log(`task ${id} is running; its updates go to ${url}`);

await done;
const task = receiver.task(id)!;
console.log(`as pushed: ${TaskState[task.status!.state]}, "${textOf(task, ",")}"`);

// Lets the last answer go out, then closes the idle connections.
await new Promise((resolve) => server.close(resolve));
await agent.close();
