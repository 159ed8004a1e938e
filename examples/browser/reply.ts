/** What the chat shows of a task: its answer, and what the agent says of where it stands. */
import { textOf, type Task } from "a2a-connect";

/**
 * The text of the task's artifacts, then its status message (a question, a
 * note, why it failed), each once, one per line. `textOf(task)` alone would
 * give the status message where the artifacts have no text, so adding the
 * status message to it would show that text twice.
 */
export function replyText(task: Task): string {
  const artifacts = task.artifacts.map((artifact) => textOf(artifact, "\n")).filter(Boolean);
  const status = task.status?.message ? textOf(task.status.message) : "";
  return [...artifacts, status].filter(Boolean).join("\n");
}
