/**
 * A call is one record (src/call/record.ts): the A2AClient makes it once
 * per operation and it travels as the call's context values, so that every
 * step below (interceptors included) finds the one deadline and the stream's
 * position on it; a transport called directly makes it from its arguments.
 */
import { A2AService, TaskSchema } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { create, toJson } from "@bufbuild/protobuf";
import { createContextKey, createContextValues, type ContextValues, type Interceptor } from "@connectrpc/connect";
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import { describe, expect, it } from "vitest";
import { CallRecord, callRecordKey } from "../../../src/call/record.js";
import {
  A2AClient,
  createGrpcWebTransport,
  createJsonRpcTransport,
  createJsonRpcTransportV03,
  createRestTransport,
  type A2ATransport,
} from "../../../src/index.js";
import { createGrpcTransport } from "../../../src/node.js";

/** An agent that answers every JSON-RPC request with task t1. */
const answering: UniversalClientFn = async (req) => {
  let text = "";
  for await (const chunk of req.body ?? []) text += new TextDecoder().decode(chunk);
  const id = (JSON.parse(text) as { id: unknown }).id;
  const task = toJson(TaskSchema, create(TaskSchema, { id: "t1", contextId: "c1", status: { state: 1 } }));
  const body = new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id, result: task }));
  return {
    status: 200,
    header: new Headers({ "Content-Type": "application/json" }),
    trailer: new Headers(),
    body: (async function* () {
      yield body;
    })(),
  };
};

/** A transport whose interceptor hands each request's context values to `seen`. */
function transportSeeing(seen: ContextValues[]) {
  const look: Interceptor = (next) => (req) => {
    seen.push(req.contextValues);
    return next(req);
  };
  return createJsonRpcTransport({ baseUrl: "http://127.0.0.1:9/rpc", httpClient: answering, interceptors: [look], timeoutMs: 5_000 });
}

describe("the call record", () => {
  it("the A2AClient makes one per operation, and it is the context values its requests carry", async () => {
    const seen: ContextValues[] = [];
    const client = new A2AClient(transportSeeing(seen), { timeoutMs: 700 });
    await client.getTask({ id: "t1" });
    await client.getTask({ id: "t1" }, { timeoutMs: 300 });
    expect(seen).toHaveLength(2);
    const [first, second] = seen.map((v) => v.get(callRecordKey));
    expect(first).toBeInstanceOf(CallRecord);
    expect(seen[0]).toBe(first);
    // Its deadline is the call's: the call's own timeout, else the client's.
    expect(first!.limitMs).toBe(700);
    expect(second!.limitMs).toBe(300);
    expect(second).not.toBe(first);
  });

  it("a transport called directly makes it from its arguments, into the context values it was given", async () => {
    const seen: ContextValues[] = [];
    const transport = transportSeeing(seen);
    await transport.unary(A2AService.method.getTask, undefined, 250, undefined, { id: "t1" });
    const made = seen[0]!.get(callRecordKey);
    expect(made).toBeInstanceOf(CallRecord);
    expect(made!.limitMs).toBe(250);

    const mine = createContextValues();
    const key = createContextKey("none");
    mine.set(key, "kept");
    await transport.unary(A2AService.method.getTask, undefined, undefined, undefined, { id: "t1" }, mine);
    expect(seen[1]).toBe(mine);
    expect(seen[1]!.get(key)).toBe("kept");
    // A call that gave no timeout: the default holds while the transport's own is not known.
    expect(mine.get(callRecordKey)).toBeInstanceOf(CallRecord);
  });

  it("as context values, it keeps what interceptors set, and gives each key its default otherwise", () => {
    const record = new CallRecord("unary", 100);
    const key = createContextKey<string>("default");
    expect(record.get(key)).toBe("default");
    expect(record.set(key, "set").get(key)).toBe("set");
    expect(record.delete(key).get(key)).toBe("default");
    expect(record.get(callRecordKey)).toBe(record);
    expect(record.deadline).toBe(record);
  });

  /** A transport of every binding, whose interceptor notes the call's record and ends the call before any request. */
  const BINDINGS: ReadonlyArray<[string, (interceptors: Interceptor[]) => A2ATransport]> = [
    ["JSON-RPC", (interceptors) => createJsonRpcTransport({ baseUrl: "http://127.0.0.1:9/rpc", interceptors })],
    ["HTTP+JSON", (interceptors) => createRestTransport({ baseUrl: "http://127.0.0.1:9/rest", interceptors })],
    ["JSON-RPC 0.3", (interceptors) => createJsonRpcTransportV03({ baseUrl: "http://127.0.0.1:9/rpc03", interceptors })],
    ["gRPC", (interceptors) => createGrpcTransport({ baseUrl: "http://127.0.0.1:9", interceptors })],
    ["gRPC-web", (interceptors) => createGrpcWebTransport({ baseUrl: "http://127.0.0.1:9", interceptors })],
  ];

  it.each(BINDINGS)(
    "%s: a unary call and a stream called directly each carry a record of their own, with the call's deadline",
    async (_, make) => {
      const records: unknown[] = [];
      const stop: Interceptor = () => (req) => {
        records.push(req.contextValues.get(callRecordKey));
        throw new Error("stop before the request");
      };
      const transport = make([stop]);
      // Deadlines long enough for a loaded machine to load the 0.3 wire on demand within them.
      await expect(transport.unary(A2AService.method.getTask, undefined, 2500, undefined, { id: "t1" })).rejects.toThrow();
      const events = await transport
        .stream(
          A2AService.method.subscribeToTask,
          undefined,
          4000,
          undefined,
          (async function* () {
            yield { id: "t1" };
          })(),
        )
        .catch((e: unknown) => e);
      expect(events).toBeInstanceOf(Error);
      expect(records).toHaveLength(2);
      const [unary, stream] = records as CallRecord[];
      expect(unary).toBeInstanceOf(CallRecord);
      expect(unary!.limitMs).toBe(2500);
      expect(stream).toBeInstanceOf(CallRecord);
      expect(stream!.limitMs).toBe(4000);
    },
  );
});
