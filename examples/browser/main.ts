/**
 * A chat with an A2A agent: connects to the agent at the URL typed in
 * (discovering and verifying its card), sends each message as a stream and
 * shows the reply as it arrives. Later messages go on in the same
 * conversation: an answer to a task that asked for input continues that
 * task (`replyTo`), anything else starts a new task in the same context that
 * points back at the previous one (`followUp`).
 */
import {
  A2AError,
  TaskState,
  TaskTracker,
  connect,
  followUp,
  isInterrupted,
  isResumeSnapshot,
  replyTo,
  textOf,
  userMessage,
  type AgentSession,
  type Message,
  type Task,
} from "a2a-connect";
import { replyText } from "./reply.js";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const form = $<HTMLFormElement>("form");
const urlInput = $<HTMLInputElement>("url");
const textInput = $<HTMLInputElement>("text");
const sendButton = $<HTMLButtonElement>("send");
const agentInfo = $("agent-info");
const status = $("status");
const log = $("log");

let session: AgentSession | undefined;
let sessionUrl = "";
/** Where the conversation stands: the last task, or the context of a direct reply. */
let lastTask: Task | undefined;
let contextId: string | undefined;

/** One session per agent URL; a new URL connects again and starts a new conversation. */
async function sessionFor(url: string): Promise<AgentSession> {
  if (session && sessionUrl === url) return session;
  // Local agents are served over plain http, and so is the key set their cards are signed with.
  const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(new URL(url).hostname);
  session = await connect(url, { verification: { jku: { allowHttp: loopback } } });
  sessionUrl = url;
  lastTask = undefined;
  contextId = undefined;
  log.replaceChildren();
  const chosen = session.interface!;
  const signed = session.verification ? `signed by ${session.verification.kid}` : "unsigned";
  agentInfo.textContent = `${session.card.name} (card ${signed}), over ${chosen.binding} ${chosen.version} at ${chosen.interface.url}`;
  return session;
}

/** Adds a turn to the conversation and returns its element, to fill in as the reply streams. */
function turn(who: "user" | "agent", text = ""): HTMLElement {
  const el = document.createElement("p");
  el.className = who;
  el.textContent = text;
  log.append(el);
  el.scrollIntoView({ block: "end" });
  return el;
}

/** The next message of the conversation. */
function nextMessage(text: string): Message {
  if (lastTask && isInterrupted(lastTask.status?.state ?? TaskState.UNSPECIFIED)) return replyTo(lastTask, text);
  if (lastTask) return followUp(lastTask, text);
  return userMessage(text, contextId ? { contextId } : {});
}

async function send(text: string): Promise<void> {
  status.textContent = "connecting...";
  const { client } = await sessionFor(urlInput.value.trim());
  turn("user", text);
  const reply = turn("agent");

  const tracker = new TaskTracker();
  status.textContent = "sending...";
  try {
    // Read to its end: once the task has ended or asks for input, the client
    // reads the end the agent sends right after, so DevTools lists the
    // request as finished. One the agent keeps open is closed by the client
    // after a moment, and listed as canceled (net::ERR_ABORTED).
    for await (const event of client.sendStreamingMessage({ message: nextMessage(text) })) {
      if (isResumeSnapshot(event)) status.textContent = "reconnected";
      const task = tracker.apply(event);
      if (task) {
        status.textContent = `task ${task.id.slice(0, 8)}: ${TaskState[task.status?.state ?? TaskState.UNSPECIFIED]}`;
        reply.textContent = replyText(task);
      } else if (tracker.message) {
        status.textContent = "direct reply";
        reply.textContent = textOf(tracker.message);
      }
    }
  } catch (err) {
    reply.remove();
    throw err;
  }
  lastTask = tracker.task;
  contextId = tracker.task?.contextId ?? (tracker.message?.contextId || contextId);
}

form.addEventListener("submit", (e) => {
  e.preventDefault();
  const text = textInput.value.trim();
  if (!text) return;
  textInput.value = "";
  sendButton.disabled = true;
  send(text)
    .catch((err: unknown) => {
      status.textContent = "";
      turn("agent", err instanceof A2AError ? `${err.name}: ${err.message}` : String(err)).classList.add("error");
    })
    .finally(() => {
      sendButton.disabled = false;
      textInput.focus();
    });
});
