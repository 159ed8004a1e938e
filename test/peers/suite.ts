/**
 * The interop suite every SDK peer runs (test/support/sdk-peers.ts): each
 * interface the peer serves, reached through `connect()` as an app would
 * (discovery, verification, selection by binding and version), through all
 * eleven operations, streams, resubscription, resumption after a cut, push
 * delivery into `createPushReceiver`, the error classes, pagination and
 * extensions. Each test's title starts with the feature it proves
 * (`feature: ...`), which the interop matrix (docs/interop.md) is built from.
 *
 * Where a peer departs from the spec, the test looks its deviation up
 * (test/peers/deviations.ts, which names peer, release, behaviour and spec
 * section) and asserts what this client does about it; its title says so.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Interceptor } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startChaosProxy } from "../../demo/chaos-proxy.js";
import {
  A2AClient,
  ConnectionError,
  InternalError,
  InvalidParamsError,
  MemoryCardStore,
  MethodNotFoundError,
  Role,
  TaskNotCancelableError,
  TaskNotFoundError,
  TaskState,
  TaskTracker,
  UnsupportedOperationError,
  VersionNotSupportedError,
  createPushReceiver,
  listAllTasks,
  textOf,
  userMessage,
  type AgentSession,
  type Message,
  type PushReceiver,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
} from "../../src/node.js";
import { connect, createNodePushHandler, registeredTransports } from "../../src/node.js";
import { collect } from "../support/bindings.js";
import { afterFirstEvent } from "../support/first-event.js";
import type { PeerSpec, RunningPeer, Served } from "../support/sdk-peers.js";
import { deviationsOf, noTenantRoutesId, titled, type Feature } from "./deviations.js";

const RESUME = { backoff: { initialMs: 20, maxMs: 100 }, maxElapsedMs: 10_000 };
const START_MS = 90_000;

function taskOf(res: SendMessageResponse): Task {
  if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
  return res.payload.value;
}

async function failure(p: Promise<unknown> | (() => Promise<unknown>)): Promise<Error> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected the call to fail");
}

/** A webhook on 127.0.0.1 that hands every delivery to our push receiver. */
async function startWebhook(): Promise<{ url: string; receiver: PushReceiver; server: Server }> {
  const receiver = createPushReceiver({ token: "peer-push-token" });
  const handler = createNodePushHandler(receiver);
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`, receiver, server };
}

const caseTitle = (spec: PeerSpec, s: Served) => `${spec.label} · ${s.binding} ${s.version}`;

/** What an event is, to compare streams by: "task", a status update's state (WORKING), an artifact update's text. */
function eventLabel(e: StreamResponse): string {
  const p = e.payload;
  if (p.case === "statusUpdate") return TaskState[p.value.status!.state];
  return p.case === "artifactUpdate" ? textOf(p.value.artifact!) : String(p.case);
}

/** Registers the suite for one peer: started once for the file, every interface it serves. */
export function interopSuite(spec: PeerSpec): void {
  const reason = spec.unavailable();
  if (reason !== undefined) {
    // Only where the peer's build recorded that its SDK cannot be had here.
    describe(spec.label, () => it.skip(`not run: ${reason}`, () => {}));
    return;
  }
  describe(spec.label, () => {
    let peer: RunningPeer;
    let webhook: Awaited<ReturnType<typeof startWebhook>>;
    beforeAll(async () => {
      // Some SDKs' push senders log each delivery on the console.
      vi.spyOn(console, "info").mockImplementation(() => {});
      webhook = await startWebhook();
      peer = await spec.start();
    }, START_MS);
    afterAll(async () => {
      vi.restoreAllMocks();
      await peer?.close();
      webhook?.server.closeAllConnections();
      await new Promise((resolve) => webhook?.server.close(resolve));
    });

    it("discovery: the card lists every interface the peer serves", async () => {
      const session = await connect(peer.cardUrl, { cache: new MemoryCardStore() });
      // By Major.Minor, as the client selects them (a 0.3 card says "0.3.0").
      const listed = session.card.supportedInterfaces.map(
        (i) => `${i.protocolBinding} ${i.protocolVersion.split(".").slice(0, 2).join(".")}`,
      );
      expect(listed.sort()).toEqual(spec.serves.map((s) => `${s.binding} ${s.version}`).sort());
      if (spec.signsCard) {
        expect(session.card.signatures.length).toBeGreaterThan(0);
        expect(session.verification?.verified).toBe(true);
      }
    });

    for (const { binding, version } of spec.serves)
      describe(caseTitle(spec, { binding, version }), () => {
        const served: Served = { binding, version };
        const deviations = (feature: Feature | "surface") => deviationsOf(spec.id, served, feature);
        const has = (feature: Feature, id: string) => deviations(feature).some((d) => d.id === id);
        /** `feature: what`, with the names of the peer's deviations here. */
        const title = (feature: Feature | "surface", what: string) => titled(feature, what, deviations(feature));
        let session: AgentSession;
        let client: A2AClient;
        beforeAll(async () => {
          session = await connect(peer.cardUrl, {
            cache: new MemoryCardStore(),
            bindings: [binding],
            protocolVersions: [version],
            verify: spec.signsCard ? "required" : "if-present",
            transport: { timeoutMs: 10_000 },
          });
          client = session.client;
        });

        const surface = deviations("surface");
        if (surface.length > 0) {
          // An interface this client cannot speak to: its refusal is what is asserted, once.
          it(title("surface", "the first call fails with the agent's own error, naming what it missed"), async () => {
            const e = await failure(client.sendMessage({ message: userMessage("echo hi") }));
            expect(e).toBeInstanceOf(InvalidParamsError);
            expect(e.message).toMatch(/message parts is required/);
          });
          return;
        }

        /**
         * A client of this interface on `port` (the agent's, or a TCP relay's
         * for cuts), with interceptors and a tenant of the test's.
         */
        function via(port: number, interceptors: Interceptor[] = [], idle = true, tenant?: string): A2AClient {
          const iface = session.interface!.interface;
          const url = iface.url.replace(/127\.0\.0\.1:\d+/, `127.0.0.1:${port}`);
          const create = registeredTransports()[`${binding}@${version}`]!;
          const settings = { timeoutMs: 10_000, interceptors, ...(idle ? { idleTimeoutMs: 10_000 } : {}) };
          return new A2AClient(create({ interface: { ...iface, url }, binding, version }, settings), { tenant });
        }
        const targetPort = () => (binding === "GRPC" ? peer.grpcPort : Number(new URL(peer.origin).port));
        /**
         * A client of this interface whose streams keep in `sent` the labels (see `eventLabel`) of
         * the messages the binding read, in its order: what the client got, before its own steps.
         */
        function tapped(sent: string[]): A2AClient {
          const tap: Interceptor = (next) => async (req) => {
            const res = await next(req);
            if (!res.stream) return res;
            const read = async function* () {
              for await (const m of res.message) {
                sent.push(eventLabel(m as StreamResponse));
                yield m;
              }
            };
            return { ...res, message: read() };
          };
          return via(targetPort(), [tap]);
        }

        it(title("discovery", "connect() picks the interface, verified where the SDK signs its card"), () => {
          expect(session.interface?.binding).toBe(binding);
          expect(session.interface?.version).toBe(version);
          if (spec.signsCard) expect(session.verification?.verified).toBe(true);
        });

        it(title("send", "SendMessage returns the completed task with its artifact and history"), async () => {
          const sent = userMessage("count 2");
          const task = taskOf(await client.sendMessage({ message: sent }));
          expect(task.id).not.toBe("");
          expect(task.status?.state).toBe(TaskState.COMPLETED);
          expect(task.artifacts.map((a) => a.artifactId)).toEqual(["result"]);
          expect(textOf(task, ",")).toBe("chunk-1,chunk-2");
          expect(task.history.some((m) => m.messageId === sent.messageId && m.role === Role.USER)).toBe(true);
        });

        it(title("message", "SendMessage returns the agent's direct message"), async () => {
          const res = await client.sendMessage({ message: userMessage("echo hello there") });
          expect(res.payload.case).toBe("message");
          const reply = res.payload.value as Message;
          expect(reply.role).toBe(Role.AGENT);
          expect(textOf(reply)).toBe("hello there");
        });

        it(title("stream", "SendStreamingMessage delivers the events in order and ends at the terminal state"), async () => {
          if (has("stream", "java03-stream-order")) {
            // The events in the order the binding read them from the peer, which may not be its
            // agent's: the client's are those, up to the final state, where it ends the stream (a
            // chunk sent after the final state is not passed on).
            const sent: string[] = [];
            const events = await collect(tapped(sent).sendStreamingMessage({ message: userMessage("count 3") }));
            expect(sent.slice(0, sent.indexOf("COMPLETED") + 1)).toEqual(events.map(eventLabel));
            expect(events[0]?.payload.case).toBe("task");
            expect(events.at(-1)?.payload.value).toMatchObject({ status: { state: TaskState.COMPLETED } });
            // Each chunk passed on keeps its own append and lastChunk.
            const flags = { "chunk-1": [false, false], "chunk-2": [true, false], "chunk-3": [true, true] } as Record<string, boolean[]>;
            for (const e of events) {
              if (e.payload.case === "artifactUpdate")
                expect([e.payload.value.append, e.payload.value.lastChunk]).toEqual(flags[eventLabel(e)]);
            }
            return;
          }
          const events = await collect(client.sendStreamingMessage({ message: userMessage("count 3") }));
          expect(events[0]?.payload.case).toBe("task");
          const chunks = events.flatMap((e) => (e.payload.case === "artifactUpdate" ? [e.payload.value] : []));
          expect(chunks.map((a) => textOf(a.artifact!))).toEqual(["chunk-1", "chunk-2", "chunk-3"]);
          expect(chunks.map((a) => a.append)).toEqual([false, true, true]);
          expect(chunks.map((a) => a.lastChunk)).toEqual([false, false, true]);
          const states = events.flatMap((e) => (e.payload.case === "statusUpdate" ? [e.payload.value.status!.state] : []));
          expect(states.at(-1)).toBe(TaskState.COMPLETED);
          const tracker = new TaskTracker();
          for (const e of events) tracker.apply(e);
          expect(textOf(tracker.task!, ",")).toBe("chunk-1,chunk-2,chunk-3");
        });

        it(title("get-task", "GetTask returns the task and honours historyLength"), async () => {
          const created = taskOf(await client.sendMessage({ message: userMessage("count 1") }));
          const full = await client.getTask({ id: created.id });
          expect(full.id).toBe(created.id);
          expect(full.status?.state).toBe(TaskState.COMPLETED);
          expect(full.history.length).toBeGreaterThan(0);
          const trimmed = await client.getTask({ id: created.id, historyLength: 1 });
          expect(trimmed.history).toHaveLength(1);
        });

        it(title("input-required", "an input-required turn continues on the next message to the task"), async () => {
          const first = taskOf(await client.sendMessage({ message: userMessage("input") }));
          expect(first.status?.state).toBe(TaskState.INPUT_REQUIRED);
          expect(textOf(first.status!.message!)).toBe("need more");
          const next = taskOf(
            await client.sendMessage({ message: userMessage("count 1", { taskId: first.id, contextId: first.contextId }) }),
          );
          expect(next.id).toBe(first.id);
          expect(next.status?.state).toBe(TaskState.COMPLETED);
        });

        it(title("fail", "a task that fails or is rejected ends in that state, with the agent's message"), async () => {
          const failed = taskOf(await client.sendMessage({ message: userMessage("fail") }));
          expect(failed.status?.state).toBe(TaskState.FAILED);
          expect(textOf(failed.status!.message!)).toBe("failed on purpose");
          expect(taskOf(await client.sendMessage({ message: userMessage("reject") })).status?.state).toBe(TaskState.REJECTED);
        });

        it(title("cancel", "CancelTask cancels a running task"), async () => {
          const task = taskOf(await client.sendMessage({ message: userMessage("hold"), configuration: { returnImmediately: true } }));
          expect(task.status?.state).toBe(TaskState.WORKING);
          const canceled = await client.cancelTask({ id: task.id });
          expect(canceled.id).toBe(task.id);
          expect(canceled.status?.state).toBe(TaskState.CANCELED);
          expect((await client.getTask({ id: task.id })).status?.state).toBe(TaskState.CANCELED);
        });

        it(title("subscribe", "SubscribeToTask starts with the task and follows it to its end"), async () => {
          if (has("subscribe", "java03-subscribe-no-task")) {
            // Nothing comes before the task changes, so nothing says when the subscription is in
            // place: a task that runs on for two seconds leaves it time, where a held task
            // canceled too soon would end before the server tapped it.
            const running = taskOf(
              await client.sendMessage({ message: userMessage("count 3 every 700"), configuration: { returnImmediately: true } }),
            );
            const events = await collect(client.subscribeToTask({ id: running.id }));
            expect(events.length).toBeGreaterThan(0);
            expect(events.some((e) => e.payload.case === "task")).toBe(false);
            expect(events.at(-1)?.payload.value).toMatchObject({ taskId: running.id, status: { state: TaskState.COMPLETED } });
            return;
          }
          const task = taskOf(await client.sendMessage({ message: userMessage("hold"), configuration: { returnImmediately: true } }));
          const stream = client.subscribeToTask({ id: task.id })[Symbol.asyncIterator]();
          const first = await stream.next();
          expect(first.done).toBe(false);
          expect(first.value?.payload.case).toBe("task");
          const tracker = new TaskTracker();
          tracker.apply(first.value as StreamResponse);
          await client.cancelTask({ id: task.id });
          for (let r = await stream.next(); !r.done; r = await stream.next()) tracker.apply(r.value);
          expect(tracker.task?.id).toBe(task.id);
          expect(tracker.task?.status?.state).toBe(TaskState.CANCELED);
        });

        it(title("resume", "a stream cut after its first event resumes and ends with every chunk once"), async () => {
          // A clean end, not a reset: a reset can take the first event from the client's socket
          // before it is read, and a drop before the task id is the lookup's case, not this one's.
          const proxy = await startChaosProxy(targetPort(), (i) => (i === 0 ? { cutWhen: afterFirstEvent(binding), fault: "end" } : {}));
          const tracker = new TaskTracker();
          let chunks = 0;
          try {
            const stream = via(proxy.port).sendStreamingMessage({ message: userMessage("count 4 every 150") }, { resume: RESUME });
            for await (const e of stream) {
              if (e.payload.case === "artifactUpdate") chunks++;
              tracker.apply(e);
            }
          } finally {
            await proxy.close();
          }
          expect(proxy.faults).toBe(1);
          expect(tracker.task?.status?.state).toBe(TaskState.COMPLETED);
          expect(textOf(tracker.task!, ",")).toBe("chunk-1,chunk-2,chunk-3,chunk-4");
          // Chunks emitted while the stream was down come back in the resubscribe's snapshot, not as events.
          expect(chunks).toBeLessThanOrEqual(4);
        });

        it(title("list-tasks", "ListTasks filters by context and pages with nextPageToken"), async () => {
          const contextId = `ctx-${spec.id}-${binding}-${version}-${Date.now()}`;
          const ids: string[] = [];
          for (let i = 0; i < 3; i++) ids.push(taskOf(await client.sendMessage({ message: userMessage("count 1", { contextId }) })).id);
          if (version === "0.3") {
            // A2A 0.3 has no ListTasks: the client says so before sending anything.
            expect(await failure(client.listTasks({ contextId }))).toBeInstanceOf(UnsupportedOperationError);
            return;
          }
          const page1 = await client.listTasks({ contextId, pageSize: 2 });
          expect(page1.tasks).toHaveLength(2);
          expect(page1.nextPageToken).not.toBe("");
          const page2 = await client.listTasks({ contextId, pageSize: 2, pageToken: page1.nextPageToken });
          expect(page2.tasks).toHaveLength(1);
          expect(page2.nextPageToken).toBe("");
          expect([...page1.tasks, ...page2.tasks].map((t) => t.id).sort()).toEqual([...ids].sort());
          const all: string[] = [];
          for await (const t of listAllTasks(client, { contextId, pageSize: 1 })) all.push(t.id);
          expect(all.sort()).toEqual([...ids].sort());
        });

        it(title("push-config", "push notification configs are created, read, listed and deleted"), async () => {
          const task = taskOf(await client.sendMessage({ message: userMessage("hold"), configuration: { returnImmediately: true } }));
          try {
            const created = await client.createTaskPushNotificationConfig({ taskId: task.id, url: webhook.url, token: "peer-push-token" });
            expect(created.id).not.toBe("");
            expect(created.taskId).toBe(task.id);
            expect(created.url).toBe(webhook.url);
            if (has("push-config", "java03-grpc-push-parent")) {
              // Named tasks/{id}/pushNotificationConfigs without an id, the config takes the task's id there.
              expect(created.id).toBe(task.id);
            }
            if (has("push-config", "java03-rest-push-body")) {
              // The body the client tried first, the config's fields beside the request, is still refused; the
              // config above came from the request alone, sent once more.
              const res = await fetch(
                `${session.interface!.interface.url.replace(/\/+$/, "")}/v1/tasks/${task.id}/pushNotificationConfigs`,
                {
                  method: "POST",
                  headers: { "Content-Type": "application/json" },
                  body: JSON.stringify({
                    name: `tasks/${task.id}/pushNotificationConfigs`,
                    pushNotificationConfig: { url: webhook.url },
                    parent: `tasks/${task.id}`,
                    config: { name: `tasks/${task.id}/pushNotificationConfigs`, pushNotificationConfig: { url: webhook.url } },
                  }),
                },
              );
              expect(res.status).toBe(422);
              expect(await res.json()).toMatchObject({
                error: "io.a2a.spec.InvalidParamsError",
                message: expect.stringContaining("Cannot find field: name"),
              });
            }
            const read = await client.getTaskPushNotificationConfig({ taskId: task.id, id: created.id });
            expect(read.url).toBe(webhook.url);
            expect((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs.map((c) => c.id)).toEqual([created.id]);
            if (has("push-config", "py-rest03-no-delete")) {
              const e = await failure(client.deleteTaskPushNotificationConfig({ taskId: task.id, id: created.id }));
              expect(e).toBeInstanceOf(VersionNotSupportedError);
              expect(e.message).toContain("/a2a/rest");
              expect((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs).toHaveLength(1);
              return;
            }
            await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: created.id });
            expect((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs).toEqual([]);
            if (has("push-config", "java03-jsonrpc-push-set-id")) {
              // What the create above was answered with, and read as its answer: the request's id as a string.
              const res = await fetch(session.interface!.interface.url, {
                method: "POST",
                headers: { "Content-Type": "application/json" },
                body: JSON.stringify({
                  jsonrpc: "2.0",
                  id: 7,
                  method: "tasks/pushNotificationConfig/set",
                  params: { taskId: task.id, pushNotificationConfig: { url: webhook.url } },
                }),
              });
              expect(await res.json()).toMatchObject({ id: "7", result: { taskId: task.id } });
            }
          } finally {
            await client.cancelTask({ id: task.id });
          }
        });

        it(
          title("push-delivery", "the peer's push sender delivers into createPushReceiver, whose view ends as the server's task"),
          async () => {
            const res = await client.sendMessage({
              message: userMessage("count 2 every 50"),
              configuration: { returnImmediately: true, taskPushNotificationConfig: { url: webhook.url, token: "peer-push-token" } },
            });
            const { id } = taskOf(res);
            if (has("push-delivery", "java03-send-push-config")) {
              await vi.waitFor(async () => expect((await client.getTask({ id })).status?.state).toBe(TaskState.COMPLETED), {
                timeout: 10_000,
                interval: 25,
              });
              expect((await client.listTaskPushNotificationConfigs({ taskId: id })).configs).toEqual([]);
              expect(webhook.receiver.task(id)).toBeUndefined();
              return;
            }
            await vi.waitFor(() => expect(webhook.receiver.task(id)?.status?.state).toBe(TaskState.COMPLETED), {
              timeout: 10_000,
              interval: 25,
            });
            const server = await client.getTask({ id });
            expect(server.status?.state).toBe(TaskState.COMPLETED);
            expect(textOf(webhook.receiver.task(id)!, ",")).toBe(textOf(server, ","));
          },
        );

        it(title("extended-card", "GetExtendedAgentCard returns the extended card"), async () => {
          const card = await client.getExtendedAgentCard();
          if (has("extended-card", "java03-grpc-extended-card")) {
            expect(card.skills.map((s) => s.id)).toEqual(["echo", "count", "lifecycle"]);
            return;
          }
          expect(card.skills.map((s) => s.id)).toContain("secret-skill");
        });

        it(title("errors", "the same error classes as every other peer: not found, not cancelable, finished"), async () => {
          if (has("errors", "java03-rest-error-body")) {
            // Read by the class the body names: the server's message and HTTP status, and no A2A code, which it sends none of.
            const unknown = await failure(client.getTask({ id: "no-such-task" }));
            expect(unknown).toBeInstanceOf(TaskNotFoundError);
            expect(unknown).toMatchObject({ httpStatus: 404, jsonRpcCode: undefined, reason: undefined });
            const done = taskOf(await client.sendMessage({ message: userMessage("count 1") }));
            const notCancelable = await failure(client.cancelTask({ id: done.id }));
            expect(notCancelable).toBeInstanceOf(TaskNotCancelableError);
            expect(notCancelable).toMatchObject({ httpStatus: 409, jsonRpcCode: undefined });
            expect(notCancelable.message).toContain("Task cannot be canceled");
            // And as a stream's only event (a 200): then as on every interface below.
            const unknownStream = await failure(collect(client.subscribeToTask({ id: "no-such-task" })));
            expect(unknownStream).toMatchObject({ httpStatus: 200, jsonRpcCode: undefined });
          }
          expect(await failure(client.getTask({ id: "no-such-task" }))).toBeInstanceOf(TaskNotFoundError);
          expect(await failure(client.cancelTask({ id: "no-such-task" }))).toBeInstanceOf(TaskNotFoundError);
          const unknown = await failure(collect(client.subscribeToTask({ id: "no-such-task" })));
          if (has("errors", "ts03-rest-subscribe-500")) {
            expect(unknown).toBeInstanceOf(InternalError);
            expect(unknown.message).toContain("toJson serializer");
          } else expect(unknown).toBeInstanceOf(TaskNotFoundError);
          const done = taskOf(await client.sendMessage({ message: userMessage("count 1") }));
          const notCancelable = await failure(client.cancelTask({ id: done.id }));
          if (has("errors", "java03-grpc-not-cancelable")) {
            expect(notCancelable).toBeInstanceOf(MethodNotFoundError);
            expect(notCancelable.message).toContain("TaskNotCancelableError");
          } else expect(notCancelable).toBeInstanceOf(TaskNotCancelableError);
          if (has("errors", "ts03-subscribe-ended")) {
            // A2A 0.3 defines no error here: the task as it ended, and the stream closes.
            const events = await collect(client.subscribeToTask({ id: done.id }));
            expect(events.map((e) => e.payload.case)).toEqual(["task"]);
            expect(events[0]?.payload.value).toMatchObject({ id: done.id, status: { state: TaskState.COMPLETED } });
            return;
          }
          if (has("errors", "py-rest03-subscribe-ended")) {
            // A drop like any other: resumed, GetTask finds the task ended, and the stream ends with it.
            const events = await collect(client.subscribeToTask({ id: done.id }, { resume: RESUME }));
            expect(events.at(-1)?.payload.value).toMatchObject({ id: done.id, status: { state: TaskState.COMPLETED } });
            expect(await failure(collect(client.subscribeToTask({ id: done.id }, { resume: false })))).toBeInstanceOf(ConnectionError);
            return;
          }
          const ended = await failure(collect(client.subscribeToTask({ id: done.id })));
          expect(ended).toBeInstanceOf(UnsupportedOperationError);
          // The agent said "not found": GetTask found the task ended, and the error says which it is.
          if (has("errors", "go-subscribe-ended") || has("errors", "java03-subscribe-ended"))
            expect(ended.cause).toBeInstanceOf(TaskNotFoundError);
        });

        it(title("version", "every request names the interface's protocol version, which the agent serves"), async () => {
          const versions: (string | null)[] = [];
          const seeing = via(targetPort(), [(next) => (req) => (versions.push(req.header.get("A2A-Version")), next(req))], false);
          const task = taskOf(await seeing.sendMessage({ message: userMessage("count 1") }));
          await seeing.getTask({ id: task.id });
          await collect(seeing.sendStreamingMessage({ message: userMessage("count 1") }));
          expect(versions).toEqual([version, version, version]);
        });

        it(title("tenant", "a tenant travels with every request, on the path for HTTP+JSON, and finds its tasks"), async () => {
          const urls: string[] = [];
          const seeing: Interceptor = (next) => (req) => (urls.push(req.url), next(req));
          if (version === "0.3") {
            // A2A 0.3 has no tenant: none is sent, and the call is served.
            const c = via(targetPort(), [seeing], false, "acme");
            expect(taskOf(await c.sendMessage({ message: userMessage("count 1") })).status?.state).toBe(TaskState.COMPLETED);
            expect(urls.every((u) => !u.includes("acme"))).toBe(true);
            return;
          }
          const tenant = `acme-${spec.id}`;
          const c = via(targetPort(), [seeing], false, tenant);
          if (has("tenant", noTenantRoutesId(spec.id))) {
            const e = await failure(c.sendMessage({ message: userMessage("count 1") }));
            expect(e).toBeInstanceOf(MethodNotFoundError);
            expect(e.message).toContain(`/a2a/rest/${tenant}/message:send`);
            return;
          }
          const task = taskOf(await c.sendMessage({ message: userMessage("count 1") }));
          expect((await c.getTask({ id: task.id })).id).toBe(task.id);
          if (binding === "HTTP+JSON") expect(urls.every((u) => u.includes(`/${tenant}/`))).toBe(true);
        });

        it(title("extensions", "a call that activates an extension the agent does not know is served"), async () => {
          const res = await client.sendMessage(
            { message: userMessage("echo ext") },
            { extensions: ["https://example.com/ext/unknown/v1"] },
          );
          expect(textOf(res.payload.value as Message)).toBe("ext");
        });
      });
  });
}
