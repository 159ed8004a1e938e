/**
 * `npm run demo`: starts a local A2A agent (the official @a2a-js/sdk server,
 * all three bindings, on 127.0.0.1) and walks the client through it on each
 * binding, printing a transcript as things happen.
 */
import { startLocalAgent, type LocalAgent } from "./agent.js";
import { startChaosProxy } from "./chaos-proxy.js";
import {
  A2AClient,
  A2AError,
  BINDINGS,
  TaskTracker,
  createGrpcTransport,
  createJsonRpcTransport,
  createRestTransport,
  isResumeSnapshot,
  type Binding,
  TaskState,
  connect,
  resolveAgentCard,
  textOf,
  userMessage,
  type AgentSession,
  type StreamResponse,
} from "../src/node.js";

const color = process.stdout.isTTY ? (code: number, s: string) => `\x1b[${code}m${s}\x1b[0m` : (_: number, s: string) => s;
const bold = (s: string) => color(1, s);
const dim = (s: string) => color(2, s);
const say = (s = "") => console.log(s);

function describeEvent(e: StreamResponse): string {
  switch (e.payload.case) {
    case "task":
      return `task ${short(e.payload.value.id)} ${stateName(e.payload.value.status?.state)}`;
    case "statusUpdate":
      return `status -> ${stateName(e.payload.value.status?.state)}`;
    case "artifactUpdate": {
      const a = e.payload.value;
      return `artifact "${a.artifact?.artifactId}" ${a.append ? "+=" : "="} "${textOf(a.artifact!)}"${a.lastChunk ? " (last chunk)" : ""}`;
    }
    case "message":
      return `message "${textOf(e.payload.value)}"`;
    default:
      return "(empty event)";
  }
}

const stateName = (s: TaskState | undefined) => (s === undefined ? "?" : TaskState[s]);
const short = (id: string) => id.slice(0, 8);

async function tour(session: AgentSession): Promise<void> {
  const client = session.client;
  const chosen = session.interface!;
  say(bold(`\n== ${chosen.binding} ${chosen.version} ${dim(chosen.interface.url)}`));

  const direct = await client.sendMessage({ message: userMessage("echo hello from a2a-connect") });
  say(`send "echo ..."      -> ${direct.payload.case} "${direct.payload.case === "message" ? textOf(direct.payload.value) : ""}"`);

  const done = await client.sendMessage({ message: userMessage("count 2") });
  if (done.payload.case === "task") {
    const t = done.payload.value;
    say(`send "count 2"       -> task ${short(t.id)} ${stateName(t.status?.state)}, artifact "${textOf(t, " ")}"`);
  }

  say(`stream "count 4":`);
  const started = Date.now();
  for await (const event of client.sendStreamingMessage({ message: userMessage("count 4") })) {
    say(`  ${dim(`+${String(Date.now() - started).padStart(3)}ms`)} ${describeEvent(event)}`);
  }

  // A task's lifecycle: start it without waiting, watch it, cancel it.
  const held = await client.sendMessage({ message: userMessage("hold"), configuration: { returnImmediately: true } });
  const task = held.payload.case === "task" ? held.payload.value : undefined;
  if (!task) throw new Error("the agent did not start a task");
  say(`send "hold"          -> task ${short(task.id)} ${stateName(task.status?.state)} (returned immediately)`);
  const watch = client.subscribeToTask({ id: task.id })[Symbol.asyncIterator]();
  const snapshot = await watch.next();
  if (!snapshot.done) say(`subscribe            -> ${describeEvent(snapshot.value)}`);
  const canceled = await client.cancelTask({ id: task.id });
  say(`cancel               -> ${stateName(canceled.status?.state)}`);
  for (let r = await watch.next(); !r.done; r = await watch.next()) say(`  subscription       -> ${describeEvent(r.value)}`);
  const fetched = await client.getTask({ id: task.id, historyLength: 1 });
  say(`get (historyLength 1) -> ${stateName(fetched.status?.state)}, ${fetched.history.length} history message`);

  try {
    await client.getTask({ id: "no-such-task" });
  } catch (e) {
    if (!(e instanceof A2AError)) throw e;
    say(`get "no-such-task"   -> ${e.name} (reason ${e.reason})`);
  }
}

/**
 * Streams a slow task through a TCP proxy that cuts the first connection
 * after some bytes; the client resumes (GetTask, then SubscribeToTask) and
 * the accumulated artifact still equals the server's.
 */
async function streamThroughCut(agent: LocalAgent, binding: Binding): Promise<void> {
  const grpc = binding === "GRPC";
  const target = Number(grpc ? agent.grpcAddress.split(":")[1] : new URL(agent.origin).port);
  // Far enough for the first events, well before the last one.
  const proxy = await startChaosProxy(target, (i) => (i === 0 ? { cutAfter: grpc ? 600 : 1400, fault: "reset" } : {}));
  const base = `http://127.0.0.1:${proxy.port}`;
  const settings = { idleTimeoutMs: 2_000 };
  const transport =
    binding === "JSONRPC"
      ? createJsonRpcTransport({ ...settings, baseUrl: `${base}/a2a/jsonrpc` })
      : binding === "HTTP+JSON"
        ? createRestTransport({ ...settings, baseUrl: `${base}/a2a/rest` })
        : createGrpcTransport({ ...settings, baseUrl: `127.0.0.1:${proxy.port}` });
  const client = new A2AClient(transport);
  const tracker = new TaskTracker();
  say(`${binding} stream "count 6 every 50" through a proxy that cuts the first connection:`);
  const started = Date.now();
  try {
    for await (const event of client.sendStreamingMessage(
      { message: userMessage("count 6 every 50") },
      { resume: { backoff: { initialMs: 50 } } },
    )) {
      if (isResumeSnapshot(event)) {
        say(`  ${dim("-- connection cut by the proxy; resumed with GetTask + SubscribeToTask --")}`);
      }
      tracker.apply(event);
      const mark = isResumeSnapshot(event)
        ? ` ${dim("(resume snapshot: " + (tracker.task ? textOf(tracker.task, " ") || "no chunks" : "") + ")")}`
        : "";
      say(`  ${dim(`+${String(Date.now() - started).padStart(3)}ms`)} ${describeEvent(event)}${mark}`);
    }
  } finally {
    await proxy.close();
  }
  const server = await new A2AClient(createJsonRpcTransport({ baseUrl: agent.jsonRpcUrl })).getTask({ id: tracker.task!.id });
  const same = textOf(server, " ") === textOf(tracker.task!, " ") && server.status?.state === tracker.task!.status?.state;
  say(
    `  accumulated "${textOf(tracker.task!, " ")}" ${stateName(tracker.task!.status?.state)}: ${same ? "equals the server's task" : "DIFFERS from the server's task"}`,
  );
  if (!same) throw new Error("the resumed stream lost or repeated events");
}

const agent = await startLocalAgent();
try {
  say(bold("a2a-connect demo"));
  say(`local agent (official @a2a-js/sdk server) at ${agent.origin}`);

  // Discovery and trust: find the card, check its signature against the key
  // set its jku names (loopback serves http, so http is allowed here only).
  const trust = { verify: "required", verification: { jku: { allowHttp: true } } } as const;
  const resolved = await resolveAgentCard(agent.origin, trust);
  say(`\ndiscover            -> ${resolved.url} (${resolved.cache}, ${resolved.shape} card "${resolved.card.name}")`);
  const v = resolved.verification!;
  say(`verify              -> signature valid: kid "${v.kid}", ${v.alg}, key from ${v.keySource === "jku" ? v.jku : "trusted store"}`);
  const again = await resolveAgentCard(agent.origin, trust);
  say(`discover again      -> ${again.cache} (HTTP cache, no request)`);

  // connect() resolves (from the cache now), verifies and chooses.
  const session = await connect(agent.origin, trust);
  const chosen = session.interface!;
  say(`connect             -> ${chosen.binding} ${chosen.version} at ${chosen.interface.url}: first usable interface in the card's order`);
  say(`  candidates        -> ${session.candidates.map((c) => `${c.binding} ${c.version}`).join(", ")}`);
  for (const p of session.passedOver) say(`  passed over       -> ${p.binding} ${p.version}: ${p.reason}`);

  // The same tour on each binding, chosen with preferredBindings.
  for (const binding of BINDINGS) await tour(await connect(agent.origin, { ...trust, preferredBindings: [binding] }));

  // A stream cut mid-way by a proxy, and resumed by the client.
  say(bold("\n== streams through a forced disconnect"));
  for (const binding of BINDINGS) await streamThroughCut(agent, binding);

  // The extended card comes through the session's transport and is verified
  // before it replaces the public card.
  const extended = await session.extendedCard();
  say(bold("\n== extended card"));
  say(
    `extended card       -> ${extended.skills.length} skills (public: ${session.publicCard.skills.length}), kid "${session.extendedCardVerification?.kid}"`,
  );
  // An agent still on A2A 0.3: same calls, same 1.0 types.
  const legacy = await startLocalAgent({ versions: ["0.3"] });
  try {
    const old = await connect(legacy.origin, { verification: { keys: legacy.jwks } });
    say(bold(`\n== an agent on A2A 0.3 ${dim(legacy.origin)}`));
    say(`connect             -> ${old.interface!.binding} ${old.interface!.version} (the card offers only 0.3)`);
    const res = await old.client.sendMessage({ message: userMessage("count 2") });
    if (res.payload.case === "task") {
      say(
        `send "count 2"       -> task ${short(res.payload.value.id)} ${stateName(res.payload.value.status?.state)}, artifact "${textOf(res.payload.value, " ")}"`,
      );
    }
  } finally {
    await legacy.close();
  }
  say(bold("\ndone"));
} finally {
  await agent.close();
}
