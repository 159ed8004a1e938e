/**
 * An orchestrator that fans one request out to several agents and merges
 * their work: starts three local agents, connects to each (over a different
 * binding, to show that the calls look the same on all three), streams the
 * same request to all of them at once, follows each task with a TaskTracker
 * and prints one report with every agent's artifacts.
 *
 *   node --import tsx examples/orchestrator.ts
 */
import { startLocalAgent } from "../demo/agent.js";
// In an app: from "a2a-connect/node".
import { TaskState, TaskTracker, connect, textOf, userMessage, type Artifact, type Binding } from "../src/node.js";

const request = "count 3 every 50";
const bindings: Binding[] = ["JSONRPC", "HTTP+JSON", "GRPC"];
const agents = await Promise.all(bindings.map(() => startLocalAgent()));

/** Sends the request to one agent as a stream and returns the task it ends with. */
async function ask(agent: (typeof agents)[number], binding: Binding) {
  const session = await connect(agent.cardUrl, { preferredBindings: [binding], verification: { keys: agent.jwks } });
  const tracker = new TaskTracker();
  for await (const event of session.client.sendStreamingMessage({ message: userMessage(request) })) {
    const task = tracker.apply(event);
    if (event.payload.case === "artifactUpdate") console.log(`${agent.origin} (${binding}): ${textOf(event.payload.value.artifact!)}`);
    else if (task && event.payload.case === "statusUpdate") console.log(`${agent.origin} (${binding}): ${TaskState[task.status!.state]}`);
  }
  if (!tracker.task) throw new Error(`${agent.origin} answered without a task`);
  return { agent: `${session.card.name} at ${agent.origin}`, binding: session.interface!.binding, task: tracker.task };
}

try {
  console.log(`sending "${request}" to ${agents.length} agents`);
  const results = await Promise.allSettled(agents.map((agent, i) => ask(agent, bindings[i]!)));

  // The merged report: every artifact, named after the agent that made it.
  const merged: Array<{ from: string; artifact: Artifact }> = [];
  const failures: string[] = [];
  for (const result of results) {
    if (result.status === "rejected") failures.push(String(result.reason));
    else if (result.value.task.status?.state !== TaskState.COMPLETED)
      failures.push(`${result.value.agent}: ${TaskState[result.value.task.status!.state]}`);
    else
      for (const artifact of result.value.task.artifacts)
        merged.push({ from: `${result.value.agent} (${result.value.binding})`, artifact });
  }

  console.log(`\nreport: ${merged.length} artifacts from ${results.length - failures.length} of ${results.length} agents`);
  for (const { from, artifact } of merged) console.log(`- ${from}, "${artifact.name}": ${textOf(artifact, " ")}`);
  for (const failure of failures) console.log(`! ${failure}`);
  if (failures.length > 0) process.exitCode = 1;
} finally {
  await Promise.all(agents.map((agent) => agent.close()));
}
