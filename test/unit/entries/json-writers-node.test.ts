/**
 * The Node entry's JSON-RPC and HTTP+JSON transports write requests with
 * the generated writers, and the reflective `writeJson`
 * (protocol/json-write.ts) only writes what a writer gives up on, with its
 * own error. `writeJson` is counted through a module mock that calls the
 * real one; protobuf-es `toJson` is the reference for what is sent.
 */
import { create } from "@bufbuild/protobuf";
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import { beforeEach, describe, expect, it, vi } from "vitest";

const calls = vi.hoisted(() => ({ writeJson: 0 }));
vi.mock("../../../src/protocol/json-write.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../src/protocol/json-write.js")>();
  return {
    ...real,
    writeJson: (...args: Parameters<typeof real.writeJson>) => {
      calls.writeJson++;
      return real.writeJson(...args);
    },
  };
});

const { toJson } = await import("@bufbuild/protobuf");
const { A2AClient, createJsonRpcTransport, createRestTransport, userMessage } = await import("../../../src/node.js");
const { SendMessageRequestSchema, TaskSchema } = await import("../../../gen/lf/a2a/v1/a2a_pb.js");
const { messageToJson } = await import("../../../src/protocol/proto-json.js");
const { jsonWriters } = await import("../../../gen/lf/a2a/v1/a2a_json_writers.js");

const TASK = { id: "t-1", contextId: "c-1", status: { state: "TASK_STATE_COMPLETED" } };

/** An HTTP client that answers every request with TASK and keeps each request's body. */
function recording(bodies: string[]): UniversalClientFn {
  return async (req) => {
    let text = "";
    for await (const chunk of req.body ?? []) text += new TextDecoder().decode(chunk);
    bodies.push(text);
    const rpc = req.url.endsWith("/jsonrpc") ? (JSON.parse(text) as { id: unknown; method: string }) : undefined;
    const send = rpc ? rpc.method === "SendMessage" : req.url.endsWith("/message:send");
    const result = send ? { task: TASK } : TASK;
    const answer = rpc ? { jsonrpc: "2.0", id: rpc.id, result } : result;
    return {
      status: 200,
      header: new Headers({ "content-type": "application/json" }),
      body: (async function* () {
        yield new TextEncoder().encode(JSON.stringify(answer));
      })(),
      trailer: new Headers(),
    };
  };
}

beforeEach(() => {
  calls.writeJson = 0;
});

describe("the Node entry's transports write requests with the generated writers", () => {
  it.each([
    ["JSON-RPC", (httpClient: UniversalClientFn) => createJsonRpcTransport({ baseUrl: "http://127.0.0.1:1/jsonrpc", httpClient })],
    ["HTTP+JSON", (httpClient: UniversalClientFn) => createRestTransport({ baseUrl: "http://127.0.0.1:1/rest", httpClient })],
  ])("%s sends what toJson writes, without calling writeJson", async (_, transport) => {
    const bodies: string[] = [];
    const client = new A2AClient(transport(recording(bodies)));
    const message = { ...userMessage("hello"), metadata: { n: 1, nested: { list: [true, null, "x"] } } };
    await client.sendMessage({ message });
    await client.getTask({ id: "t-1", historyLength: 2 });
    expect(calls.writeJson).toBe(0);
    const sent = JSON.parse(bodies[0]!) as { params?: unknown };
    const expected = toJson(SendMessageRequestSchema, create(SendMessageRequestSchema, { message }));
    expect(sent.params ?? sent).toEqual(expected);
  });

  it("gives what a writer does not take on to writeJson, whose error the call reports (the field, not its value), before sending", async () => {
    const bodies: string[] = [];
    const client = new A2AClient(createJsonRpcTransport({ baseUrl: "http://127.0.0.1:1/jsonrpc", httpClient: recording(bodies) }));
    const message = userMessage("hello");
    // A Value holding NaN: the writer gives up, writeJson refuses it.
    const bad = { ...message, metadata: { n: Number.NaN } };
    await expect(client.sendMessage({ message: bad })).rejects.toThrow(
      /the request cannot be written as ProtoJSON \(at google\.protobuf\.Value: cannot be NaN or Infinity\)/,
    );
    expect(calls.writeJson).toBeGreaterThan(0);
    expect(bodies).toEqual([]);
  });

  it("writes a message of a type without a writer with writeJson", () => {
    const task = create(TaskSchema, { id: "t-1" });
    expect(messageToJson(TaskSchema, task, jsonWriters)).toEqual({ id: "t-1" });
    expect(calls.writeJson).toBe(1);
  });
});
