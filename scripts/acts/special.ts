/**
 * What the runner checks of a "runner-special" test beyond its parsed
 * payloads (the spec leaves these to the runner): what the session does with
 * the card it holds, asserted on the requests the client makes, or does not.
 */
import { type A2AError, PushNotificationNotSupportedError, UnsupportedOperationError, toProtoJson, userMessage } from "../../src/index.js";
import type { AgentSession } from "../../src/index.js";
import { isDeepStrictEqual } from "node:util";
import type { MemoryAgent } from "./memory-agent.js";

/** What a test's steps left for the checks: the agent, the session, the parsed result of each step. */
export interface TestContext {
  agent: MemoryAgent;
  session: AgentSession | undefined;
  parsed: Map<string, unknown>;
}

/** A check: its failures, empty when it holds. */
type Check = (ctx: TestContext) => Promise<string[]>;

export interface Special {
  /** What is asserted, in words, for the report. */
  asserts: readonly string[];
  /** Checks run before the step of that id. */
  before?: Readonly<Record<string, Check>>;
  /** Checks run after the last step. */
  after: Check;
}

function sessionOf(ctx: TestContext): AgentSession {
  if (ctx.session === undefined) throw new Error("no session: the test has no get_agent_card step before this check");
  return ctx.session;
}

/** The requests `act` makes, and what it threw (undefined when it did not). */
async function requestsOf(ctx: TestContext, act: () => Promise<unknown>): Promise<{ made: string[]; thrown: unknown }> {
  const before = ctx.agent.requests.length;
  let thrown: unknown;
  try {
    await act();
  } catch (e) {
    thrown = e;
  }
  return { made: ctx.agent.requests.slice(before).map((r) => r.summary), thrown };
}

async function firstEvent(events: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of events) return;
}

/** `act` fails with `kind` before any request. */
async function refusedUnsent(ctx: TestContext, what: string, kind: typeof A2AError, act: () => Promise<unknown>): Promise<string[]> {
  const { made, thrown } = await requestsOf(ctx, act);
  const out: string[] = [];
  if (!(thrown instanceof kind)) out.push(`${what}: expected ${kind.name}, got ${thrown instanceof Error ? thrown.name : "no error"}`);
  if (made.length > 0) out.push(`${what}: expected no request, the client made ${made.join(", ")}`);
  return out;
}

/** `act` makes requests, every one of them matching `route` (`count` of them when given), whatever the agent answers. */
async function sends(ctx: TestContext, what: string, route: RegExp, act: () => Promise<unknown>, count?: number): Promise<string[]> {
  const { made } = await requestsOf(ctx, act);
  const ok = made.length > 0 && made.every((r) => route.test(r)) && (count === undefined || made.length === count);
  const wanted = count === undefined ? `requests to ${route}` : `${count} request(s) to ${route}`;
  return ok ? [] : [`${what}: expected ${wanted}, the client made ${made.join(", ") || "none"}`];
}

const subscribe = (ctx: TestContext) => () => firstEvent(sessionOf(ctx).client.subscribeToTask({ id: "acts-task" }));

export const SPECIAL: Readonly<Record<string, Special>> = {
  "CLIENT-AUTH-001": {
    asserts: [
      "before the extended card is fetched, the session holds the public card (streaming false): SubscribeToTask fails with UnsupportedOperationError and no request",
      "after, the session's card is the extended card as parsed, and SubscribeToTask is sent (to /tasks/{id}:subscribe, the client's verb fallback included): the extended card's `streaming: true` is in force",
    ],
    before: {
      "parse-extended-card": (ctx) => refusedUnsent(ctx, "SubscribeToTask on the public card", UnsupportedOperationError, subscribe(ctx)),
    },
    after: async (ctx) => {
      const session = sessionOf(ctx);
      const out: string[] = [];
      if (!isDeepStrictEqual(toProtoJson(session.card), ctx.parsed.get("parse-extended-card")))
        out.push("the session's card is not the extended card it fetched");
      out.push(...(await sends(ctx, "SubscribeToTask on the extended card", / \/.*\/tasks\/acts-task:subscribe$/, subscribe(ctx))));
      return out;
    },
  },
  "CLIENT-CAP-001": {
    asserts: [
      "CreateTaskPushNotificationConfig fails with PushNotificationNotSupportedError and no request (pushNotifications false)",
      "SubscribeToTask fails with UnsupportedOperationError and no request (streaming false)",
      "SendStreamingMessage falls back to SendMessage: one request, POST /message:send, and none to /message:stream (streaming false)",
    ],
    after: async (ctx) => {
      const { client } = sessionOf(ctx);
      return [
        ...(await refusedUnsent(ctx, "CreateTaskPushNotificationConfig", PushNotificationNotSupportedError, () =>
          client.createTaskPushNotificationConfig({ taskId: "acts-task", url: "https://example.com/webhook" }),
        )),
        ...(await refusedUnsent(ctx, "SubscribeToTask", UnsupportedOperationError, subscribe(ctx))),
        ...(await sends(
          ctx,
          "SendStreamingMessage",
          /^POST \/.*\/message:send$/,
          () => firstEvent(client.sendStreamingMessage({ message: userMessage("ACTS client test") })),
          1,
        )),
      ];
    },
  },
};
