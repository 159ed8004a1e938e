/**
 * `npm run demo`: starts a local A2A agent (the official @a2a-js/sdk server,
 * all three bindings, on 127.0.0.1) and walks the client through it on each
 * binding, printing a transcript as things happen.
 */
import { startLocalAgent } from "./agent.js";
import {
  A2AError,
  BINDINGS,
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

  // The extended card comes through the session's transport and is verified
  // before it replaces the public card.
  const extended = await session.extendedCard();
  say(bold("\n== extended card"));
  say(`extended card       -> ${extended.skills.length} skills (public: ${session.publicCard.skills.length}), kid "${session.extendedCardVerification?.kid}"`);
  // An agent still on A2A 0.3: same calls, same 1.0 types.
  const legacy = await startLocalAgent({ versions: ["0.3"] });
  try {
    const old = await connect(legacy.origin, { verification: { keys: legacy.jwks } });
    say(bold(`\n== an agent on A2A 0.3 ${dim(legacy.origin)}`));
    say(`connect             -> ${old.interface!.binding} ${old.interface!.version} (the card offers only 0.3)`);
    const res = await old.client.sendMessage({ message: userMessage("count 2") });
    if (res.payload.case === "task") {
      say(`send "count 2"       -> task ${short(res.payload.value.id)} ${stateName(res.payload.value.status?.state)}, artifact "${textOf(res.payload.value, " ")}"`);
    }
  } finally {
    await legacy.close();
  }
  say(bold("\ndone"));
} finally {
  await agent.close();
}
