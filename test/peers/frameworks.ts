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
  InternalError,
  MemoryCardStore,
  MethodNotFoundError,
  ProtocolError,
  StreamResumeError,
  PushNotificationNotSupportedError,
  TaskNotFoundError,
  TaskState,
  TaskTracker,
  UnsupportedOperationError,
  isTerminal,
  taskIdOf,
  textOf,
  userMessage,
  waitForTask,
  type AgentSession,
  type SendMessageResponse,
  type Task,
} from "../../src/node.js";
import { connect, registeredTransports } from "../../src/node.js";
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
        const has = (feature: Feature, id: string) => deviations(feature).some((d) => d.id === id);
        /** A feature the framework does not offer: its test asserts what the client does, and says why. */
        const limited = (feature: Feature, what: string, why = limits[feature]) => `${feature}: ${what} [not offered: ${why}]`;
        let session: AgentSession;
        let sent = 0;
        const counting: Interceptor = (next) => (req) => {
          sent++;
          return next(req);
        };
        beforeAll(async () => {
          // Where an app would point it: the agent's URL where its card is not at the origin's well-known place.
          session = await connect(spec.agentPath === undefined ? peer.cardUrl : peer.origin + spec.agentPath, {
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

        const surface = deviationsOf(spec.id, served, "surface");
        if (surface.length > 0) {
          // An interface this client cannot speak to: its refusal is what is asserted, once.
          it(titled("surface", "every call is refused, saying why", surface), async () => {
            const e = await failure(client().sendMessage({ message: userMessage("echo hi") }));
            expect(e).toBeInstanceOf(ProtocolError);
            expect(e.message).toMatch(/^the JSON-RPC response id "[^"]+" does not match the request id \d+/);
            const streamed = await failure(collect(client().sendStreamingMessage({ message: userMessage("count 1") })));
            expect(streamed).toBeInstanceOf(ProtocolError);
            expect(streamed.message).toContain('got content type "text/plain');
          });
          return;
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
          const res = client().sendMessage({ message: userMessage("fail") });
          if (has("fail", "voltagent-fail-as-error")) {
            const e = await failure(res);
            expect(e).toBeInstanceOf(InternalError);
            expect(e.message).toBe("failed on purpose");
            return;
          }
          expect((await ended(await res)).status?.state).toBe(TaskState.FAILED);
        });

        /**
         * A task that runs until canceled (bounded to `ms` where the framework
         * cannot cancel), started by a stream, as an app does where the agent
         * answers a send only once the run ends: its id, and the rest of its stream.
         */
        async function held(ms?: number): Promise<{ id: string; rest: () => Promise<unknown> }> {
          const it = client()
            .sendStreamingMessage({ message: userMessage(ms === undefined ? "hold" : `hold ${ms}`) })
            [Symbol.asyncIterator]();
          const first = await it.next();
          if (first.done) throw new Error("the stream ended before naming its task");
          const id = taskIdOf(first.value);
          if (!id) throw new Error(`the stream opened with a ${first.value.payload.case}, not the task`);
          return { id, rest: async () => collect({ [Symbol.asyncIterator]: () => it }) };
        }

        it(
          limits.cancel
            ? limited("cancel", "CancelTask returns the task as the agent has it: ended, not canceled")
            : title("cancel", "CancelTask cancels a running task"),
          async () => {
            const { id, rest } = await held(limits.cancel ? 300 : undefined);
            const canceled = await client().cancelTask({ id });
            expect(canceled.id).toBe(id);
            await rest();
            if (limits.cancel) {
              expect(canceled.status?.state).toBe(TaskState.COMPLETED);
              return;
            }
            expect(canceled.status?.state).toBe(TaskState.CANCELED);
            const after = (await client().getTask({ id })).status?.state;
            expect(after).toBe(has("cancel", "voltagent-cancel-overwritten") ? TaskState.COMPLETED : TaskState.CANCELED);
          },
        );

        it(
          limits.subscribe
            ? limited("subscribe", "SubscribeToTask is answered as the framework can")
            : title("subscribe", "SubscribeToTask follows a running task to its end"),
          async () => {
            const { id, rest } = await held(limits.cancel ? 300 : undefined);
            try {
              const subscribed = client().subscribeToTask({ id }, { resume: false });
              if (limits.subscribe && !limits.cancel) {
                // No resubscribe at all: the agent's answer, as it gave it.
                expect(await failure(collect(subscribed))).toBeInstanceOf(MethodNotFoundError);
                return;
              }
              const stream = subscribed[Symbol.asyncIterator]();
              const tracker = new TaskTracker();
              const first = await stream.next();
              if (!first.done) tracker.apply(first.value);
              if (!limits.cancel) await client().cancelTask({ id });
              for (let r = await stream.next(); !r.done; r = await stream.next()) tracker.apply(r.value);
              expect(tracker.task?.id).toBe(id);
              expect(tracker.task?.status?.state).toBe(limits.cancel ? TaskState.COMPLETED : TaskState.CANCELED);
            } finally {
              if (!limits.cancel)
                await client()
                  .cancelTask({ id })
                  .catch(() => undefined);
              await rest().catch(() => undefined);
            }
          },
        );

        it(title("resume", "a stream cut after its first event resumes and ends as the agent's task"), async () => {
          // A run that stops with its stream never ends: the resumption's budget does, kept short here.
          const stops = has("resume", "voltagent-run-bound-to-stream");
          const port = Number(new URL(peer.origin).port);
          // A clean end, not a reset: a reset can take the first event from the client's socket before it is read.
          const proxy = await startChaosProxy(port, (i) => (i === 0 ? { cutWhen: afterFirstEvent(binding), fault: "end" } : {}));
          const iface = session.interface!.interface;
          const url = iface.url.replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${proxy.port}`);
          const create = registeredTransports()[`${binding}@${version}`]!;
          const via = new A2AClient(create({ interface: { ...iface, url }, binding, version }, { timeoutMs: 15_000 }));
          const tracker = new TaskTracker();
          const reading = (async () => {
            const resume = stops ? { ...RESUME, maxElapsedMs: 1_500 } : RESUME;
            for await (const e of via.sendStreamingMessage({ message: userMessage("count 4 every 150") }, { resume })) {
              tracker.apply(e);
            }
          })();
          try {
            if (stops) {
              // Followed by GetTask (it has no SubscribeToTask), the task stays WORKING until the budget runs out.
              const e = await failure(reading);
              expect(e).toBeInstanceOf(StreamResumeError);
              expect((e as StreamResumeError).state).toBe(TaskState.WORKING);
              return;
            }
            await reading;
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
