/**
 * HTTP+JSON SubscribeToTask has two verbs in circulation: the proto routes
 * it as GET, the specification's table and the official clients use POST,
 * and servers accept one or the other or both. A server without a route
 * for the verb tried says so in several ways: 405, 501, a bare 404, or,
 * where `GET /tasks/{id}` swallows the path, `404 TASK_NOT_FOUND` about a
 * task called `<id>:subscribe`. This module decides, from the answer to one
 * verb, whether to try the other (once per call) and which verb the server
 * routes, so that later calls use it directly.
 */
import type { UniversalClientResponse } from "@connectrpc/connect/protocol";
import type { A2AError } from "../../errors/family.js";
import type { HttpPlan, VerbChoice, VerbExchangeIo } from "../../http/codec.js";

/** Statuses with which a server may be saying it has no route for the verb. */
const MAYBE_UNROUTED: ReadonlySet<number> = new Set([404, 405, 501]);

/**
 * What an unsuccessful answer says about the verb: `unrouted` (no route for
 * it), `handler` (the method's own handler answered: the task really does
 * not exist), or `ambiguous` (a task-not-found that another route of the
 * same verb may have given).
 */
type Verdict = "unrouted" | "handler" | "ambiguous";

function verdict(status: number, error: A2AError, plan: HttpPlan, learned: boolean): Verdict {
  if (status !== 404) return "unrouted";
  // Only the agent's own task-not-found, never a bare 404 from a router or proxy.
  const taskNotFound = error.reason === "TASK_NOT_FOUND" || error.jsonRpcCode === -32001;
  if (!taskNotFound || namesLastSegment(error.message, plan.url)) return "unrouted";
  // `GET /tasks/{id}` (GetTask) matches `/tasks/<id>:subscribe` too, on a
  // server that has no GET subscribe route; no other A2A route takes the
  // POST. A verb that worked before is the subscribe route itself.
  return learned || plan.method !== "GET" ? "handler" : "ambiguous";
}

/** Whether `message` names the URL's last path segment (`<id>:subscribe`) as if it were a task id. */
function namesLastSegment(message: string, url: string): boolean {
  const path = url.replace(/[?#].*$/, "");
  const raw = path.slice(path.lastIndexOf("/") + 1);
  if (!raw.includes(":")) return false;
  let segment: string;
  try {
    segment = decodeURIComponent(raw);
  } catch {
    segment = raw;
  }
  return message.includes(segment) || message.includes(raw);
}

function ok(res: UniversalClientResponse): boolean {
  return res.status >= 200 && res.status < 300;
}

/**
 * Settles the verb of a call whose first answer `res` was unsuccessful (a
 * success needs only `choice.remember`): returns the response to read (a
 * success, or an error the caller reads as usual), or throws the error that
 * ends the call. At most one more request is sent.
 */
export async function settleVerb(
  choice: VerbChoice,
  plan: HttpPlan,
  res: UniversalClientResponse,
  io: VerbExchangeIo,
): Promise<{ res: UniversalClientResponse; plan: HttpPlan }> {
  if (!MAYBE_UNROUTED.has(res.status)) return { res, plan };
  const firstError = await io.rejection(res);
  const first = verdict(res.status, firstError, plan, choice.learned);
  if (first === "handler") {
    if (!choice.learned) choice.remember(plan.method);
    throw firstError;
  }
  if (choice.learned) choice.forget();

  const other = choice.other();
  const second = await io.send(other);
  if (ok(second)) {
    choice.remember(other.method);
    return { res: second, plan: other };
  }
  if (!MAYBE_UNROUTED.has(second.status)) return { res: second, plan: other };
  const secondError = await io.rejection(second);
  const then = verdict(second.status, secondError, other, false);
  // One of the two verbs is routed on an agent that has the method at all.
  if (then === "handler" || (then === "ambiguous" && first === "unrouted")) {
    choice.remember(other.method);
    throw secondError;
  }
  if (then === "unrouted" && first === "ambiguous") {
    choice.remember(plan.method);
    throw firstError;
  }
  throw secondError;
}
