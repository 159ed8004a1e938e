/**
 * Content survives the trip to the official @a2a-js/sdk server and back, on
 * every binding of each release: file parts (bytes and URL, with and without
 * name and media type), data parts (nested, null, large numbers, empty),
 * metadata at every level, a message's extensions and referenced tasks.
 * What the server parsed and what its task store holds are compared with
 * what the client sent and what it returned, field by field, as ProtoJSON.
 */
import type { JsonValue } from "@bufbuild/protobuf";
import { timestampDate, timestampFromMs } from "@bufbuild/protobuf/wkt";
import { Message as SdkMessage, Role as SdkRole, TaskState as SdkTaskState } from "@a2a-js/sdk";
import type { Message as SdkMessageType } from "@a2a-js/sdk";
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import { beforeAll, describe, expect, it } from "vitest";
import {
  Role,
  TaskState,
  data,
  fileBytes,
  fileUrl,
  text,
  toProtoJson,
  userMessage,
  type A2AClient,
  type Message,
  type Task,
} from "../../src/index.js";
import { BINDINGS, clientFor, collect } from "../support/bindings.js";
import { SDK_1_0_BETA, agentsOfPeers, peerCases } from "../support/peers.js";

/**
 * Answers with what it was sent: a message whose first text is "direct" gets
 * that message back (as the agent's); any other starts a task whose history
 * is the message, whose metadata is the message's, whose one artifact holds
 * its parts, metadata and extensions, and whose final status carries it back.
 */
class MirrorExecutor implements AgentExecutor {
  /** Each message as the server parsed it, by message id, as ProtoJSON. */
  readonly received = new Map<string, unknown>();

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const sent = ctx.userMessage;
    this.received.set(sent.messageId, SdkMessage.toJSON(sent));
    const first = sent.parts[0]?.content;
    const mirrored = (taskId: string): SdkMessageType => ({
      ...sent,
      messageId: `${sent.messageId}-mirrored`,
      role: SdkRole.ROLE_AGENT,
      taskId,
      contextId: ctx.contextId,
    });
    if (first?.$case === "text" && first.value === "direct") {
      bus.publish(AgentEvent.message(mirrored("")));
      return;
    }
    const { taskId, contextId } = ctx;
    const timestamp = new Date().toISOString();
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: { state: SdkTaskState.TASK_STATE_WORKING, message: undefined, timestamp },
        history: [sent],
        artifacts: [],
        metadata: sent.metadata,
      }),
    );
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: "mirror",
          name: "mirror",
          description: "",
          parts: sent.parts,
          metadata: sent.metadata,
          extensions: sent.extensions,
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state: SdkTaskState.TASK_STATE_COMPLETED, message: mirrored(taskId), timestamp },
        metadata: undefined,
      }),
    );
  }

  async cancelTask(): Promise<void> {}
}

const mirror = new MirrorExecutor();
const agentOf = agentsOfPeers({ executor: mirror });

/**
 * @a2a-js/sdk 1.0.0-beta.0's gRPC service turns a JSON null in a Struct or
 * Value into the number 0 (its own JSON bindings and the installed release's
 * gRPC keep it): against it over gRPC, the content holds no null.
 */
let nullable: null | "null" = null;

const nestedMetadata = () => ({ trace: { id: "abc", depth: 2, flags: [true, false, nullable], empty: {} }, none: nullable, list: [] });

/** Every kind of part, with and without its optional fields. */
function richMessage(first: string): Message {
  return userMessage(
    [
      text(first),
      text("annotated", { mediaType: "text/markdown" }),
      fileBytes(new Uint8Array([0, 1, 2, 127, 128, 250, 255]), { filename: "blob.bin", mediaType: "application/octet-stream" }),
      fileBytes(new Uint8Array([0xfb, 0xff, 0xfe])),
      fileUrl("https://files.example.com/a%20b/report.pdf?sig=x%2By&v=2#page=3", { filename: "report.pdf", mediaType: "application/pdf" }),
      fileUrl("https://files.example.com/plain"),
      data({
        nested: { list: [1, nullable, { deeper: [] }, "é中𝄞"], flag: false },
        big: 1e21,
        maxSafe: Number.MAX_SAFE_INTEGER,
        tiny: -1.5e-7,
        empty: {},
        nothing: nullable,
      }),
      data({}),
      data([1, "two", nullable]),
      data("just a string"),
    ],
    { extensions: ["https://ext.example/one", "https://ext.example/two"], referenceTaskIds: ["ref-task-1", "ref-task-2"] },
  );
}

/** `message` with metadata on it and on its first part. */
function withMetadata(message: Message): Message {
  message.metadata = nestedMetadata();
  message.parts[0]!.metadata = { note: { kind: "first", weights: [0.5, 2] } };
  return message;
}

const json = (message: Message) => toProtoJson(message) as Record<string, JsonValue>;

function taskOf(res: { payload: { case: string | undefined; value?: unknown } }): Task {
  if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
  return res.payload.value as Task;
}

describe.each(peerCases(BINDINGS))("$label", ({ sdk, binding }) => {
  let client: A2AClient;
  beforeAll(() => {
    client = clientFor(binding, agentOf(sdk));
    nullable = sdk === SDK_1_0_BETA && binding === "GRPC" ? "null" : null;
  });

  it("the server parses a message with every kind of part exactly as sent", async () => {
    const sent = withMetadata(richMessage("direct"));
    await client.sendMessage({ message: sent });
    expect(mirror.received.get(sent.messageId)).toEqual({ ...json(sent), taskId: expect.any(String), contextId: expect.any(String) });
  });

  it("a direct message comes back with its parts, metadata, extensions and referenced tasks unchanged", async () => {
    const sent = withMetadata(richMessage("direct"));
    const reply = await client.sendMessage({ message: sent });
    expect(reply.payload.case).toBe("message");
    const got = reply.payload.value as Message;
    expect(got.role).toBe(Role.AGENT);
    expect(json(got)).toEqual({ ...json(sent), messageId: `${sent.messageId}-mirrored`, role: "ROLE_AGENT", contextId: got.contextId });
  });

  it("a task's artifact, history, status message and metadata come back as sent, and as the server's store holds them", async () => {
    const sent = withMetadata(richMessage("task"));
    const task = taskOf(await client.sendMessage({ message: sent }));
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(task.metadata).toEqual(nestedMetadata());
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts[0]!.parts).toEqual(sent.parts);
    // Plain Uint8Arrays on every binding: not Node Buffers over the memory a gRPC response was read into.
    for (const part of task.artifacts[0]!.parts) {
      if (part.content.case === "raw") expect(Object.getPrototypeOf(part.content.value)).toBe(Uint8Array.prototype);
    }
    expect(task.artifacts[0]!.metadata).toEqual(nestedMetadata());
    expect(task.artifacts[0]!.extensions).toEqual(sent.extensions);
    expect(json(task.history[0]!)).toEqual({ ...json(sent), taskId: task.id, contextId: task.contextId });
    expect(task.status?.message?.parts).toEqual(sent.parts);

    const read = await client.getTask({ id: task.id });
    expect(toProtoJson(read)).toEqual(await agentOf(sdk).storedTask(task.id));
    expect(read.artifacts).toEqual(task.artifacts);
    expect(read.metadata).toEqual(nestedMetadata());
  });

  it("streamed artifact updates and the first snapshot carry every part unchanged", async () => {
    const sent = richMessage("stream");
    const events = await collect(client.sendStreamingMessage({ message: sent }));
    const artifacts = events.flatMap((e) => (e.payload.case === "artifactUpdate" ? [e.payload.value.artifact!] : []));
    expect(artifacts).toHaveLength(1);
    expect(artifacts[0]!.parts).toEqual(sent.parts);
    const id = taskOf(events[0]!).id;
    expect(toProtoJson(await client.getTask({ id }))).toEqual(await agentOf(sdk).storedTask(id));
  });

  it("GetTask with historyLength 0, 1 and large returns as much history as the store holds, no more", async () => {
    const task = taskOf(await client.sendMessage({ message: richMessage("task") }));
    const stored = (await agentOf(sdk).storedTask(task.id)) as { history: unknown[] };
    expect(toProtoJson(await client.getTask({ id: task.id, historyLength: 1000 }))).toMatchObject({ history: stored.history });
    expect((await client.getTask({ id: task.id, historyLength: 1 })).history).toHaveLength(1);
    expect((await client.getTask({ id: task.id, historyLength: 0 })).history).toEqual([]);
  });
  it("ListTasks returns artifacts only when asked, and filters on statusTimestampAfter, as the store holds the task", async () => {
    const contextId = `ctx-list-${binding}-${Date.now()}`;
    const task = taskOf(await client.sendMessage({ message: userMessage("task", { contextId }) }));
    const stored = (await agentOf(sdk).storedTask(task.id)) as { artifacts: unknown[] };
    const at = timestampDate(task.status!.timestamp!).getTime();
    const filter = { contextId, status: TaskState.COMPLETED };

    const bare = await client.listTasks(filter);
    expect(bare.tasks.map((t) => t.id)).toEqual([task.id]);
    expect(bare.tasks[0]!.artifacts).toEqual([]);
    const full = await client.listTasks({ ...filter, includeArtifacts: true });
    expect((toProtoJson(full.tasks[0]!) as { artifacts: unknown[] }).artifacts).toEqual(stored.artifacts);

    const earlier = await client.listTasks({ ...filter, statusTimestampAfter: timestampFromMs(at - 60_000) });
    expect(earlier.tasks.map((t) => t.id)).toEqual([task.id]);
    const later = await client.listTasks({ ...filter, statusTimestampAfter: timestampFromMs(at + 60_000) });
    expect(later.tasks).toEqual([]);
  });
});
