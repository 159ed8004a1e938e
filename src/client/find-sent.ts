/**
 * After a SendStreamingMessage dropped before its task id was seen: did the
 * message reach the agent and start (or continue) a task? The agent is asked
 * rather than the message sent blindly again, because an agent that does not
 * de-duplicate by messageId would run the work twice.
 *
 * A message that names its task is looked for in that task's history
 * (GetTask). Otherwise ListTasks is asked for the caller's most recently
 * updated tasks, filtered by the message's contextId when it has one (never
 * an invented one: spec 3.4.1), and each task's history is searched for the
 * messageId. The search is bounded: LOOKUP_PAGES pages of LOOKUP_PAGE_SIZE
 * tasks, LOOKUP_HISTORY messages of history each. The answer is conclusive
 * only when the agent showed it keeps history and every matching task was
 * seen; otherwise nobody can tell, and the caller decides.
 *
 * An empty listing is not taken at its word: some agents (@a2a-js/sdk
 * 1.0.0-beta.0) read a ListTasks without a status filter as "status
 * UNSPECIFIED" and list nothing, which would read as "never received" and
 * run the work twice. So an empty listing is asked again state by state,
 * in lifecycle order (a task that only moves forward is met by one of the
 * listings); absence is concluded only when every state's listing agrees.
 */
// Types only: a value import would tie this lazily loaded chunk to the core's
// chunks and cost the core bundle the exports between them.
import type { ListTasksResponse, Task, TaskState } from "../../gen/lf/a2a/v1/a2a_pb.js";

/** What the agent said about the message. */
export type SentLookup =
  /** The task the message started or continued. */
  | { found: Task; conclusive?: undefined }
  /** No such task: conclusive when the agent could have shown it and did not. */
  | { found?: undefined; conclusive: boolean };

/** The message as sent: its id, and the task and context it named, if any. */
export interface SentMessage {
  messageId: string;
  taskId?: string | undefined;
  contextId?: string | undefined;
}

/** The two reads the lookup makes. */
export interface LookupCalls {
  listTasks(request: {
    contextId: string;
    status: TaskState;
    pageSize: number;
    pageToken: string;
    historyLength: number;
  }): Promise<ListTasksResponse>;
  getTask(request: { id: string; historyLength: number }): Promise<Task>;
}

/** Pages of ListTasks read at most: the task sought is among the most recently updated. */
export const LOOKUP_PAGES = 3;
/** Tasks per page asked for (the spec allows 1 to 100). */
export const LOOKUP_PAGE_SIZE = 50;
/** Messages of history asked for per task: the message sought is among the latest. */
export const LOOKUP_HISTORY = 50;
/**
 * The states an empty listing is asked again for, in lifecycle order:
 * forward moves (submitted, working, interrupted, final) go from a state
 * not yet listed to a later one, so a task cannot slip between listings
 * unless it moves back (an interrupted task resumed meanwhile).
 */
export const LOOKUP_STATES: readonly TaskState[] = [
  1, // SUBMITTED
  2, // WORKING
  6, // INPUT_REQUIRED
  8, // AUTH_REQUIRED
  3, // COMPLETED
  4, // FAILED
  5, // CANCELED
  7, // REJECTED
];
/** TASK_STATE_UNSPECIFIED: no status filter. */
const ANY_STATE = 0 as TaskState;

/** Asks the agent whether `message` started or continued a task. Errors are the calls' own. */
export async function findSentTask(message: SentMessage, calls: LookupCalls): Promise<SentLookup> {
  const has = (task: Task) => task.id !== "" && task.history.some((m) => m.messageId === message.messageId);
  // History cut at the length asked for may hide the message: no proof of absence.
  const whole = (task: Task) => task.history.length > 0 && task.history.length < LOOKUP_HISTORY;
  if (message.taskId) {
    const task = await calls.getTask({ id: message.taskId, historyLength: LOOKUP_HISTORY });
    // A task with history but not this message has not received it.
    return has(task) ? { found: task } : { conclusive: whole(task) };
  }
  const listed = await search(message, calls, ANY_STATE, has);
  if (listed !== EMPTY) return listed;
  // Nothing listed at all: no task, or an agent that lists only by state.
  let undecided = false;
  for (const status of LOOKUP_STATES) {
    const byState = await search(message, calls, status, has);
    if (byState.found) return byState;
    if (!byState.conclusive) undecided = true;
  }
  return { conclusive: !undecided };
}

/** A listing with no task in it at all. */
const EMPTY: SentLookup = { conclusive: true };

/** The paged search of one listing (one state, or all when UNSPECIFIED). */
async function search(message: SentMessage, calls: LookupCalls, status: TaskState, has: (task: Task) => boolean): Promise<SentLookup> {
  let pageToken = "";
  /** Some task showed a history: the agent keeps them. */
  let keepsHistory = false;
  /** Some task's history may be cut at the length asked for. */
  let cut = false;
  for (let page = 0; page < LOOKUP_PAGES; page++) {
    const res = await calls.listTasks({
      contextId: message.contextId ?? "",
      status,
      pageSize: LOOKUP_PAGE_SIZE,
      pageToken,
      historyLength: LOOKUP_HISTORY,
    });
    for (const task of res.tasks) {
      if (has(task)) return { found: task };
      if (task.history.length > 0) keepsHistory = true;
      if (task.history.length >= LOOKUP_HISTORY) cut = true;
    }
    if (page === 0 && res.tasks.length === 0 && !res.nextPageToken) return EMPTY;
    // A repeated token would go round in circles: stop, undecided.
    if (!res.nextPageToken || res.nextPageToken === pageToken) {
      // Tasks without history: cannot tell.
      return { conclusive: !res.nextPageToken && !cut && keepsHistory };
    }
    pageToken = res.nextPageToken;
  }
  return { conclusive: false };
}
