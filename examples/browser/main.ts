/**
 * Connects to the agent at the URL typed in (discovering and verifying its
 * card), sends the message as a stream and shows the reply as it arrives.
 */
import { A2AError, TaskState, TaskTracker, connect, isResumeSnapshot, textOf, userMessage, type AgentSession } from "a2a-connect";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const form = $<HTMLFormElement>("form");
const urlInput = $<HTMLInputElement>("url");
const textInput = $<HTMLInputElement>("text");
const sendButton = $<HTMLButtonElement>("send");
const agentInfo = $("agent-info");
const status = $("status");
const reply = $("reply");

let session: AgentSession | undefined;
let sessionUrl = "";

/** One session per agent URL; connecting again when the URL changes. */
async function sessionFor(url: string): Promise<AgentSession> {
  if (session && sessionUrl === url) return session;
  // Local agents are served over plain http, and so is the key set their cards are signed with.
  const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(new URL(url).hostname);
  session = await connect(url, { verification: { jku: { allowHttp: loopback } } });
  sessionUrl = url;
  const chosen = session.interface!;
  const signed = session.verification ? `signed by ${session.verification.kid}` : "unsigned";
  agentInfo.textContent = `${session.card.name} (card ${signed}), over ${chosen.binding} ${chosen.version} at ${chosen.interface.url}`;
  return session;
}

async function send(): Promise<void> {
  reply.textContent = "";
  reply.classList.remove("error");
  status.textContent = "connecting...";
  const { client } = await sessionFor(urlInput.value.trim());

  const tracker = new TaskTracker();
  status.textContent = "sending...";
  for await (const event of client.sendStreamingMessage({ message: userMessage(textInput.value) })) {
    if (isResumeSnapshot(event)) status.textContent = "reconnected";
    const task = tracker.apply(event);
    if (task) {
      status.textContent = `task ${task.id.slice(0, 8)}: ${TaskState[task.status?.state ?? TaskState.UNSPECIFIED]}`;
      const note = task.status?.message ? textOf(task.status.message) : "";
      reply.textContent = [textOf(task, "\n"), note].filter(Boolean).join("\n");
    } else if (tracker.message) {
      status.textContent = "direct reply";
      reply.textContent = textOf(tracker.message);
    }
  }
}

form.addEventListener("submit", (e) => {
  e.preventDefault();
  sendButton.disabled = true;
  send()
    .catch((err: unknown) => {
      status.textContent = "";
      reply.classList.add("error");
      reply.textContent = err instanceof A2AError ? `${err.name}: ${err.message}` : String(err);
    })
    .finally(() => {
      sendButton.disabled = false;
    });
});
