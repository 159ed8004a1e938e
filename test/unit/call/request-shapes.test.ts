/**
 * Every operation takes its request in the two shapes the runtime reads
 * (call/plain-input.ts), and TypeScript takes both: the generated init
 * shape (`role: Role.USER`, parts as `{ content: { case: "text", value } }`)
 * and the spec's JSON shape (`role: "ROLE_USER"`, parts as `{ text }`, the
 * generated `...Json` types such as `SendMessageRequestJson`).
 *
 * Checked twice. `npm run typecheck` compiles both shapes of every request
 * below, and fails on any `@ts-expect-error` line that compiles: a typo in
 * either shape (a field, an enum name, a oneof case) must not. At run time,
 * both shapes send the same request, and each typo, as untyped code would
 * send it, is refused by the path of the field before anything is sent.
 */
import { create, type DescMessage, type MessageShape, toJson } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import {
  A2AService,
  type CancelTaskRequestJson,
  type DeleteTaskPushNotificationConfigRequestJson,
  type GetExtendedAgentCardRequestJson,
  type GetTaskPushNotificationConfigRequestJson,
  type GetTaskRequestJson,
  type ListTaskPushNotificationConfigsRequestJson,
  type ListTasksRequestJson,
  Role,
  type SendMessageRequestJson,
  type SubscribeToTaskRequestJson,
  type TaskPushNotificationConfigJson,
  TaskState,
} from "../../../gen/lf/a2a/v1/a2a_pb.js";
import type { A2ATransport } from "../../../src/call/transport.js";
import {
  A2AClient,
  followUp,
  InvalidParamsError,
  listAllTaskPushNotificationConfigs,
  listAllTasks,
  listTaskPushNotificationConfigsPages,
  listTasksPages,
  replyTo,
  text,
  userMessage,
} from "../../../src/index.js";
import { unaryAnswer } from "../../support/unary-answer.js";

/** A transport that records each request as the transports build it (`create`), as JSON, and answers with an empty result. */
function recording() {
  const sent: unknown[] = [];
  const record = (method: { input: DescMessage }, input: unknown) =>
    sent.push(toJson(method.input, create(method.input, input as never) as MessageShape<DescMessage>));
  const transport = {
    binding: "JSONRPC",
    async unary(method, _signal, _timeoutMs, _header, input) {
      record(method, input);
      return unaryAnswer(method, create(method.output) as never);
    },
    async stream(method, _signal, _timeoutMs, _header, input) {
      for await (const m of input) record(method, m);
      throw new Error("no stream here");
    },
  } satisfies A2ATransport;
  return { client: new A2AClient(transport), sent };
}

/** The first read of a stream (or a listing), which sends its request; what it sends is what the tests look at. */
const firstRead = (stream: AsyncIterable<unknown>) => stream[Symbol.asyncIterator]().next();

/** Sends a stream's request, whose answer (this transport has none) does not matter here. */
const opened = (stream: AsyncIterable<unknown>) => firstRead(stream).catch(() => undefined);

/** A call refused before anything is sent, naming the path of the field that is wrong. */
async function refused(call: Promise<unknown>, path: string): Promise<void> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidParamsError);
  expect((error as Error).message).toContain(`the request's ${path} `);
}

/** Every request recorded is the same one: the shapes it was written in made no difference. */
function allSame(sent: unknown[], count: number): void {
  expect(sent).toHaveLength(count);
  for (const s of sent) expect(s).toEqual(sent[0]);
}

describe("sending a message: the init shape and the spec's JSON shape compile and send the same request", () => {
  it("sendMessage", async () => {
    const { client, sent } = recording();
    await client.sendMessage({ message: { messageId: "m", role: Role.USER, parts: [{ content: { case: "text", value: "hi" } }] } });
    await client.sendMessage({ message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hi" }] } });
    const json: SendMessageRequestJson = { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hi" }] } };
    await client.sendMessage(json);
    // Written `as const`, so that "ROLE_USER" stays a literal: readonly arrays at any depth.
    const constant = { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hi" }] } } as const;
    await client.sendMessage(constant);
    allSame(sent, 4);
    expect(sent[0]).toEqual(json);
    // @ts-expect-error txt is not a field of a part, as const either
    await refused(client.sendMessage({ message: { role: "ROLE_USER", parts: [{ txt: "hi" }] } } as const), "message.parts[0].txt");

    // @ts-expect-error txt is not a field of a part
    await refused(client.sendMessage({ message: { role: "ROLE_USER", parts: [{ txt: "hi" }] } }), "message.parts[0].txt");
    // @ts-expect-error ROLE_USR is not a role
    await refused(client.sendMessage({ message: { role: "ROLE_USR", parts: [{ text: "hi" }] } }), "message.role");
    // @ts-expect-error rol is not a field of a message
    await refused(client.sendMessage({ message: { rol: "ROLE_USER", parts: [{ text: "hi" }] } }), "message.rol");
    // @ts-expect-error filenam is not a field of a part, beside a text that is
    await refused(client.sendMessage({ message: { parts: [{ text: "hi", filenam: "a.txt" }] } }), "message.parts[0].filenam");
    await refused(
      // @ts-expect-error txt is not a case of a part's content
      client.sendMessage({ message: { role: Role.USER, parts: [{ content: { case: "txt", value: "hi" } }] } }),
      "message.parts[0].content.case",
    );
    // @ts-expect-error rol is not a field of a message, in the init shape either
    await refused(client.sendMessage({ message: { rol: Role.USER, parts: [] } }), "message.rol");
    expect(sent).toHaveLength(4);
  });

  it("sendMessage with a configuration and metadata in either shape", async () => {
    const { client, sent } = recording();
    const configuration = {
      acceptedOutputModes: ["text/plain"],
      returnImmediately: true,
      taskPushNotificationConfig: { url: "https://hooks.example/a2a", authentication: { scheme: "Bearer" } },
    };
    await client.sendMessage({ message: { messageId: "m", role: Role.USER, parts: [] }, configuration, metadata: { k: "v" } });
    await client.sendMessage({ message: { messageId: "m", role: "ROLE_USER", parts: [] }, configuration, metadata: { k: "v" } });
    allSame(sent, 2);

    await refused(
      // @ts-expect-error returnImmediatly is not a field of the configuration
      client.sendMessage({ message: { parts: [] }, configuration: { acceptedOutputModes: [], returnImmediatly: true } }),
      "configuration.returnImmediatly",
    );
    await refused(
      client.sendMessage({
        message: { parts: [] },
        // @ts-expect-error schem is not a field of the push config's authentication
        configuration: { taskPushNotificationConfig: { url: "u", authentication: { schem: "Bearer" } } },
      }),
      "configuration.taskPushNotificationConfig.authentication.schem",
    );
    expect(sent).toHaveLength(2);
  });

  it("the example of docs/operations.md compiles as written", async () => {
    const { client, sent } = recording();
    await client.sendMessage({ message: { role: "ROLE_USER", parts: [{ text: "hi" }] } }); // = userMessage("hi")
    expect(sent[0]).toMatchObject({ message: { role: "ROLE_USER", parts: [{ text: "hi" }] } });
  });

  it("sendStreamingMessage", async () => {
    const { client, sent } = recording();
    await opened(
      client.sendStreamingMessage(
        { message: { messageId: "m", role: Role.USER, parts: [{ content: { case: "text", value: "hi" } }] } },
        { resume: false },
      ),
    );
    await opened(
      client.sendStreamingMessage({ message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hi" }] } }, { resume: false }),
    );
    const json: SendMessageRequestJson = { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hi" }] } };
    await opened(client.sendStreamingMessage(json, { resume: false }));
    allSame(sent, 3);

    await refused(
      // @ts-expect-error txt is not a field of a part
      firstRead(client.sendStreamingMessage({ message: { role: "ROLE_USER", parts: [{ txt: "hi" }] } })),
      "message.parts[0].txt",
    );
    // @ts-expect-error ROLE_USR is not a role
    await refused(firstRead(client.sendStreamingMessage({ message: { role: "ROLE_USR", parts: [{ text: "hi" }] } })), "message.role");
    // @ts-expect-error rol is not a field of a message
    await refused(firstRead(client.sendStreamingMessage({ message: { rol: "ROLE_USER", parts: [{ text: "hi" }] } })), "message.rol");
    expect(sent).toHaveLength(3);
  });
});

describe("the other operations: both shapes compile and send the same request, and a typo in either does not compile", () => {
  it("getTask", async () => {
    const { client, sent } = recording();
    await client.getTask({ id: "t", historyLength: 2 });
    const json: GetTaskRequestJson = { id: "t", historyLength: 2 };
    await client.getTask(json);
    allSame(sent, 2);
    // @ts-expect-error historyLenght is not a field of GetTaskRequest
    await refused(client.getTask({ id: "t", historyLenght: 2 }), "historyLenght");
    expect(sent).toHaveLength(2);
  });

  it("listTasks, with a state and a timestamp in each shape", async () => {
    const { client, sent } = recording();
    const after = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
    await client.listTasks({ status: TaskState.WORKING, statusTimestampAfter: timestampFromDate(after), pageSize: 5 });
    await client.listTasks({ status: "TASK_STATE_WORKING", statusTimestampAfter: "2026-01-02T03:04:05Z", pageSize: 5 });
    const json: ListTasksRequestJson = { status: "TASK_STATE_WORKING", statusTimestampAfter: "2026-01-02T03:04:05Z", pageSize: 5 };
    await client.listTasks(json);
    allSame(sent, 3);
    // @ts-expect-error TASK_STATE_WORKIN is not a task state
    await refused(client.listTasks({ status: "TASK_STATE_WORKIN", pageSize: 5 }), "status");
    // @ts-expect-error pageSise is not a field of ListTasksRequest
    await refused(client.listTasks({ status: "TASK_STATE_WORKING", pageSise: 5 }), "pageSise");
    expect(sent).toHaveLength(3);
  });

  it("cancelTask", async () => {
    const { client, sent } = recording();
    await client.cancelTask({ id: "t", metadata: { why: "done" } });
    const json: CancelTaskRequestJson = { id: "t", metadata: { why: "done" } };
    await client.cancelTask(json);
    allSame(sent, 2);
    // @ts-expect-error metadta is not a field of CancelTaskRequest
    await refused(client.cancelTask({ id: "t", metadta: { why: "done" } }), "metadta");
    expect(sent).toHaveLength(2);
  });

  it("subscribeToTask", async () => {
    const { client, sent } = recording();
    await opened(client.subscribeToTask({ id: "t" }, { resume: false }));
    const json: SubscribeToTaskRequestJson = { id: "t" };
    await opened(client.subscribeToTask(json, { resume: false }));
    allSame(sent, 2);
    // @ts-expect-error taskID is not a field of SubscribeToTaskRequest
    await refused(firstRead(client.subscribeToTask({ id: "t", taskID: "t" }, { resume: false })), "taskID");
    expect(sent).toHaveLength(2);
  });

  it("createTaskPushNotificationConfig", async () => {
    const { client, sent } = recording();
    await client.createTaskPushNotificationConfig({ taskId: "t", url: "https://hooks.example/a2a", authentication: { scheme: "Bearer" } });
    const json: TaskPushNotificationConfigJson = { taskId: "t", url: "https://hooks.example/a2a", authentication: { scheme: "Bearer" } };
    await client.createTaskPushNotificationConfig(json);
    allSame(sent, 2);
    await refused(
      // @ts-expect-error schema is not a field of AuthenticationInfo
      client.createTaskPushNotificationConfig({ taskId: "t", url: "u", authentication: { schema: "Bearer" } }),
      "authentication.schema",
    );
    expect(sent).toHaveLength(2);
  });

  it("getTaskPushNotificationConfig", async () => {
    const { client, sent } = recording();
    await client.getTaskPushNotificationConfig({ taskId: "t", id: "c" });
    const json: GetTaskPushNotificationConfigRequestJson = { taskId: "t", id: "c" };
    await client.getTaskPushNotificationConfig(json);
    allSame(sent, 2);
    // @ts-expect-error taskID is not a field of GetTaskPushNotificationConfigRequest
    await refused(client.getTaskPushNotificationConfig({ taskID: "t", id: "c" }), "taskID");
    expect(sent).toHaveLength(2);
  });

  it("listTaskPushNotificationConfigs", async () => {
    const { client, sent } = recording();
    await client.listTaskPushNotificationConfigs({ taskId: "t", pageSize: 10 });
    const json: ListTaskPushNotificationConfigsRequestJson = { taskId: "t", pageSize: 10 };
    await client.listTaskPushNotificationConfigs(json);
    allSame(sent, 2);
    // @ts-expect-error pagesize is not a field of ListTaskPushNotificationConfigsRequest
    await refused(client.listTaskPushNotificationConfigs({ taskId: "t", pagesize: 10 }), "pagesize");
    expect(sent).toHaveLength(2);
  });

  it("deleteTaskPushNotificationConfig", async () => {
    const { client, sent } = recording();
    await client.deleteTaskPushNotificationConfig({ taskId: "t", id: "c" });
    const json: DeleteTaskPushNotificationConfigRequestJson = { taskId: "t", id: "c" };
    await client.deleteTaskPushNotificationConfig(json);
    allSame(sent, 2);
    // @ts-expect-error ids is not a field of DeleteTaskPushNotificationConfigRequest
    await refused(client.deleteTaskPushNotificationConfig({ taskId: "t", ids: "c" }), "ids");
    expect(sent).toHaveLength(2);
  });

  it("getExtendedAgentCard", async () => {
    const { client, sent } = recording();
    await client.getExtendedAgentCard({ tenant: "x" });
    const json: GetExtendedAgentCardRequestJson = { tenant: "x" };
    await client.getExtendedAgentCard(json);
    allSame(sent, 2);
    // @ts-expect-error tennant is not a field of GetExtendedAgentCardRequest
    await refused(client.getExtendedAgentCard({ tennant: "x" }), "tennant");
    expect(sent).toHaveLength(2);
  });

  it("a request of another operation does not compile, in either shape", async () => {
    const { client, sent } = recording();
    const sendRequest = create(A2AService.method.sendMessage.input, { message: { messageId: "m" } });
    // @ts-expect-error getTask takes a GetTaskRequest, not a SendMessageRequest
    await refused(client.getTask(sendRequest), "value");
    expect(sent).toEqual([]);
  });
});

describe("the listing helpers take the list requests in either shape", () => {
  it("listTasksPages and listAllTasks", async () => {
    const { client, sent } = recording();
    await firstRead(listTasksPages(client, { status: TaskState.WORKING, pageSize: 5 }));
    await firstRead(listTasksPages(client, { status: "TASK_STATE_WORKING", pageSize: 5 }));
    await firstRead(listAllTasks(client, { status: "TASK_STATE_WORKING", pageSize: 5 }));
    const json: ListTasksRequestJson = { status: "TASK_STATE_WORKING", pageSize: 5 };
    await firstRead(listAllTasks(client, json));
    allSame(sent, 4);
    // @ts-expect-error TASK_STATE_WORKIN is not a task state
    await refused(firstRead(listAllTasks(client, { status: "TASK_STATE_WORKIN" })), "status");
    // @ts-expect-error pageSise is not a field of ListTasksRequest
    await refused(firstRead(listTasksPages(client, { pageSise: 5 })), "pageSise");
    expect(sent).toHaveLength(4);
  });

  it("listTaskPushNotificationConfigsPages and listAllTaskPushNotificationConfigs", async () => {
    const { client, sent } = recording();
    await firstRead(listTaskPushNotificationConfigsPages(client, { taskId: "t", pageSize: 10 }));
    const json: ListTaskPushNotificationConfigsRequestJson = { taskId: "t", pageSize: 10 };
    await firstRead(listAllTaskPushNotificationConfigs(client, json));
    allSame(sent, 2);
    // @ts-expect-error taskID is not a field of ListTaskPushNotificationConfigsRequest
    await refused(firstRead(listAllTaskPushNotificationConfigs(client, { taskID: "t" })), "taskID");
    expect(sent).toHaveLength(2);
  });
});

describe("the message helpers take strings and made parts; a part in the spec's JSON shape is refused, not sent empty", () => {
  const task = { id: "t", contextId: "c" };
  const SECRET = "s3cr3t-T0KEN";

  it("userMessage, replyTo and followUp refuse it by its place in the content, never its value", () => {
    const refusals: Array<[() => unknown, RegExp]> = [
      // @ts-expect-error a part in the spec's JSON shape is not a Part
      [() => userMessage({ text: SECRET }), /^content is not a Part: /],
      // @ts-expect-error a part in the spec's JSON shape is not a Part
      [() => userMessage(["a", { text: SECRET }]), /^content\[1\] is not a Part: /],
      // @ts-expect-error a part in the spec's JSON shape is not a Part
      [() => replyTo(task, [text("a"), { url: SECRET, mediaType: "image/png" }]), /^content\[1\] is not a Part: /],
      // @ts-expect-error a part in the spec's JSON shape is not a Part
      [() => followUp(task, ["a", "b", { data: { token: SECRET } }]), /^content\[2\] is not a Part: /],
    ];
    for (const [refusal, where] of refusals) {
      expect(refusal).toThrow(InvalidParamsError);
      expect(refusal).toThrow(where);
      expect(refusal).not.toThrow(SECRET);
    }
  });

  it("strings, made parts and parts in the init shape are taken as before", () => {
    const init = { content: { case: "text" as const, value: "c" }, mediaType: "text/plain" };
    const message = userMessage(["a", text("b"), init as never]);
    expect(message.parts.map((p) => [p.content.value, p.mediaType])).toEqual([
      ["a", ""],
      ["b", ""],
      ["c", "text/plain"],
    ]);
    expect(replyTo(task, "d").parts[0]?.content.value).toBe("d");
  });
});
