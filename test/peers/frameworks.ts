/**
 * The interop suite of the framework servers (FastA2A, Google ADK; see
 * test/support/sdk-peers.ts): what an app that calls one through `connect()`
 * meets, on each interface it serves. These agents run a model, not our
 * script, so a test asserts what any caller may rely on (the task ends, its
 * text is the agent's answer, the client's view of a stream is the agent's
 * task) rather than the script's exact events; what a framework does not
 * offer (its card says so, or it cannot act it) is named in `limits` and
 * asserted where the client has something to do about it, and a departure
 * from the specification is a deviation (deviations.ts), as for the SDKs.
 * Titles start with the feature, as the matrix (docs/interop.md) reads them.
 */
import type { Interceptor } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startChaosProxy } from "../../demo/chaos-proxy.js";
import {
  A2AClient,
  MemoryCardStore,
  PushNotificationNotSupportedError,
  TaskNotFoundError,
  TaskState,
  TaskTracker,
  UnsupportedOperationError,
  isTerminal,
  textOf,
  userMessage,
  waitForTask,
  type AgentSession,
  type SendMessageResponse,
  type Task,
} from "../../src/node.js";
import { connect } from "../../src/node.js";
import { registeredTransports } from "../../src/toolkit.js";
import { collect } from "../support/bindings.js";
import { afterFirstEvent } from "../support/first-event.js";
import type { PeerSpec, RunningPeer, Served } from "../support/sdk-peers.js";
import { deviationsOf, titled, type Feature } from "./deviations.js";

const START_MS = 90_000;
const RESUME = { backoff: { initialMs: 20, maxMs: 100 }, maxElapsedMs: 10_000 };

/** What a framework cannot do, by feature: the reason, which the matrix shows. */
export type Limits = Partial<Record<Feature, string>>;

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected the call to fail");
}

export function frameworkSuite(spec: PeerSpec, limits: Limits): void {
  describe(spec.label, () => {
    let peer: RunningPeer;
    beforeAll(async () => {
      peer = await spec.start();
    }, START_MS);
    afterAll(() => peer?.close());

    for (const { binding, version } of spec.serves) {
      describe(`${spec.label} · ${binding} ${version}`, () => {
        const served: Served = { binding, version };
        const deviations = (feature: Feature) => deviationsOf(spec.id, served, feature);
        const title = (feature: Feature, what: string) => titled(feature, what, deviations(feature));
        /** A feature the framework does not offer: its test asserts what the client does, and says why. */
        const limited = (feature: Feature, what: string, why = limits[feature]) => `${feature}: ${what} [not offered: ${why}]`;
        let session: AgentSession;
        let sent = 0;
        const counting: Interceptor = (next) => (req) => {
          sent++;
          return next(req);
        };
        beforeAll(async () => {
          session = await connect(peer.cardUrl, {
            cache: new MemoryCardStore(),
            bindings: [binding],
            protocolVersions: [version],
            transport: { timeoutMs: 15_000, interceptors: [counting] },
          });
        });
        const client = () => session.client;

        /** The task a send started, once it has ended (some frameworks answer before they have). */
        async function ended(res: SendMessageResponse): Promise<Task> {
          if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
          const task = res.payload.value;
          return isTerminal(task.status!.state) ? task : waitForTask(client(), task.id, { timeoutMs: 10_000 });
        }

        it(title("discovery", "connect() finds the card and picks the interface"), () => {
          expect(session.interface?.binding).toBe(binding);
          expect(session.interface?.version).toBe(version);
        });

        it(title("send", "a task ends COMPLETED, its artifacts holding the agent's answer"), async () => {
          const task = await ended(await client().sendMessage({ message: userMessage("count 2") }));
          expect(task.status?.state).toBe(TaskState.COMPLETED);
          expect(textOf(task, "")).toContain("chunk-2");
        });

        it(
          limits.message ? limited("message", "echo is answered, as a task") : title("message", "echo is answered with a message"),
          async () => {
            const res = await client().sendMessage({ message: userMessage("echo hello there") });
            if (limits.message) expect(textOf(await ended(res))).toBe("hello there");
            else expect(textOf(res.payload.value as Task)).toBe("hello there");
          },
        );

        it(title("stream", "the tracker's view of a streamed task ends as the agent's task"), async () => {
          const tracker = new TaskTracker();
          for (const e of await collect(client().sendStreamingMessage({ message: userMessage("count 3") }))) tracker.apply(e);
          expect(tracker.task?.status?.state).toBe(TaskState.COMPLETED);
          const server = await client().getTask({ id: tracker.task!.id });
          expect(textOf(tracker.task!, "|")).toBe(textOf(server, "|"));
          expect(textOf(server, "")).toContain("chunk-3");
        });

        it(title("get-task", "GetTask returns the task by its id"), async () => {
          const task = await ended(await client().sendMessage({ message: userMessage("count 1") }));
          expect((await client().getTask({ id: task.id })).id).toBe(task.id);
        });

        it(
          limits["input-required"]
            ? limited("input-required", "an input turn ends the task instead")
            : title("input-required", "an input-required turn continues on the next message"),
          async () => {
            const first = await ended(await client().sendMessage({ message: userMessage("input") }));
            if (limits["input-required"]) {
              expect(isTerminal(first.status!.state)).toBe(true);
              return;
            }
            expect(first.status?.state).toBe(TaskState.INPUT_REQUIRED);
            const next = await ended(
              await client().sendMessage({ message: userMessage("count 1", { taskId: first.id, contextId: first.contextId }) }),
            );
            expect(next.id).toBe(first.id);
            expect(next.status?.state).toBe(TaskState.COMPLETED);
          },
        );

        it(title("fail", "a failing agent's task ends FAILED"), async () => {
          expect((await ended(await client().sendMessage({ message: userMessage("fail") }))).status?.state).toBe(TaskState.FAILED);
        });

        it(
          limits.cancel
            ? limited("cancel", "CancelTask returns the task as the agent has it: ended, not canceled")
            : title("cancel", "CancelTask cancels a running task"),
          async () => {
            const res = await client().sendMessage({
              message: userMessage(limits.cancel ? "hold 300" : "hold"),
              configuration: { returnImmediately: true },
            });
            const id = (res.payload.value as Task).id;
            const canceled = await client().cancelTask({ id });
            expect(canceled.id).toBe(id);
            expect(canceled.status?.state).toBe(limits.cancel ? TaskState.COMPLETED : TaskState.CANCELED);
          },
        );

        it(
          limits.subscribe
            ? limited("subscribe", "SubscribeToTask follows a running task to the end it reaches by itself")
            : title("subscribe", "SubscribeToTask follows a running task to its end"),
          async () => {
            const res = await client().sendMessage({
              message: userMessage(limits.subscribe ? "hold 300" : "hold"),
              configuration: { returnImmediately: true },
            });
            const id = (res.payload.value as Task).id;
            const stream = client().subscribeToTask({ id })[Symbol.asyncIterator]();
            const tracker = new TaskTracker();
            const first = await stream.next();
            if (!first.done) tracker.apply(first.value);
            if (!limits.subscribe) await client().cancelTask({ id });
            for (let r = await stream.next(); !r.done; r = await stream.next()) tracker.apply(r.value);
            expect(tracker.task?.id).toBe(id);
            expect(tracker.task?.status?.state).toBe(limits.subscribe ? TaskState.COMPLETED : TaskState.CANCELED);
          },
        );

        it(title("resume", "a stream cut after its first event resumes and ends as the agent's task"), async () => {
          const port = Number(new URL(peer.origin).port);
          const proxy = await startChaosProxy(port, (i) => (i === 0 ? { cutWhen: afterFirstEvent(binding), fault: "reset" } : {}));
          const iface = session.interface!.interface;
          const url = iface.url.replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${proxy.port}`);
          const create = registeredTransports()[`${binding}@${version}`]!;
          const via = new A2AClient(create({ interface: { ...iface, url }, binding, version }, { timeoutMs: 15_000 }));
          const tracker = new TaskTracker();
          try {
            for await (const e of via.sendStreamingMessage({ message: userMessage("count 4 every 150") }, { resume: RESUME }))
              tracker.apply(e);
          } finally {
            await proxy.close();
          }
          expect(proxy.faults).toBe(1);
          expect(tracker.task?.status?.state).toBe(TaskState.COMPLETED);
          expect(textOf(tracker.task!, "|")).toBe(textOf(await client().getTask({ id: tracker.task!.id }), "|"));
        });

        it(
          limits["list-tasks"]
            ? limited("list-tasks", "ListTasks fails with UnsupportedOperationError")
            : version === "0.3"
              ? title("list-tasks", "A2A 0.3 has no ListTasks: UnsupportedOperationError")
              : title("list-tasks", "ListTasks pages"),
          async () => {
            if (limits["list-tasks"] || version === "0.3") {
              expect(await failure(client().listTasks({ pageSize: 1 }))).toBeInstanceOf(UnsupportedOperationError);
              return;
            }
            const page = await client().listTasks({ pageSize: 1 });
            expect(page.tasks).toHaveLength(1);
            expect(page.nextPageToken).not.toBe("");
          },
        );

        it(limited("push-config", "config calls are refused before any request", "its card declares no push notifications"), async () => {
          const before = sent;
          const e = await failure(client().createTaskPushNotificationConfig({ taskId: "t", url: "https://hooks.example.com/a2a" }));
          expect(e).toBeInstanceOf(PushNotificationNotSupportedError);
          expect(sent).toBe(before);
        });

        it(title("errors", "an unknown task is TaskNotFoundError"), async () => {
          expect(await failure(client().getTask({ id: "no-such-task" }))).toBeInstanceOf(TaskNotFoundError);
        });
      });
    }
  });
}
