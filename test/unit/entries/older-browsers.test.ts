/**
 * The root entry in the oldest browsers the README names: what they lack
 * is taken away here (Safari cannot iterate a ReadableStream with
 * `for await`; `AbortSignal.any`, `AbortSignal.timeout`,
 * `Promise.withResolvers`, `findLast`, `structuredClone` and
 * `TextDecoderStream` came later to some of them; `crypto.randomUUID` is
 * missing from pages in an insecure context), and every fetch path runs
 * over the fetch client: calls and streams on JSON-RPC and HTTP+JSON, a
 * stream let go early, card discovery, gRPC-web.
 */
import { create, toBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskSchema, TaskState } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import {
  A2AClient,
  createFetchHttpClient,
  createGrpcWebTransport,
  createJsonRpcTransport,
  createRestTransport,
  resolveAgentCard,
  userMessage,
} from "../../../src/index.js";
import { cardJson } from "../../support/cards.js";

/** [owner, name] of each API taken away; what was there is kept in `saved` and put back after. */
const missing: [object, PropertyKey][] = [
  [ReadableStream.prototype, Symbol.asyncIterator],
  [ReadableStream.prototype, "values"],
  [AbortSignal, "any"],
  [AbortSignal, "timeout"],
  [Promise, "withResolvers"],
  [Array.prototype, "findLast"],
  [Array.prototype, "findLastIndex"],
  [globalThis, "structuredClone"],
  [globalThis, "TextDecoderStream"],
  [globalThis.crypto, "randomUUID"],
];
const saved = new Map<[object, PropertyKey], PropertyDescriptor>();

beforeAll(() => {
  for (const entry of missing) {
    const [owner, name] = entry;
    const descriptor = Object.getOwnPropertyDescriptor(owner, name) ?? Object.getOwnPropertyDescriptor(Object.getPrototypeOf(owner), name);
    if (descriptor === undefined) continue;
    saved.set(entry, descriptor);
    // On the object itself, shadowing one its prototype has (crypto's methods are on Crypto.prototype).
    Object.defineProperty(owner, name, { value: undefined, configurable: true, writable: true });
  }
});

afterAll(() => {
  for (const [[owner, name], descriptor] of saved) {
    if (Object.getOwnPropertyDescriptor(owner, name)?.value === undefined) delete (owner as Record<PropertyKey, unknown>)[name];
    if (!(name in owner)) Object.defineProperty(owner, name, descriptor);
  }
});

const AGENT = "https://agent.example";
const task = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } };
const encoder = new TextEncoder();

/** A body of `chunks`, then silence (a stream kept open) or its end; notes whether it was cancelled. */
function bodyOf(chunks: string[], end: boolean) {
  const state = { cancelled: false };
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) return controller.enqueue(encoder.encode(chunks[i++]));
      if (end) return controller.close();
      return new Promise<void>(() => {});
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

/** An agent over fetch: the card, then calls and streams as the binding asks, each body a ReadableStream. */
function agentFetch(keepStreamsOpen: boolean) {
  const streams: { cancelled: boolean }[] = [];
  const fetchFn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    if (url.endsWith("/agent-card.json")) {
      const { stream } = bodyOf(
        [JSON.stringify(cardJson({ supportedInterfaces: [{ url: `${AGENT}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }] }))],
        true,
      );
      return new Response(stream, { headers: { "Content-Type": "application/json" } });
    }
    const rpc = url.endsWith("/rpc") ? JSON.parse(new TextDecoder().decode(init?.body as Uint8Array)) : undefined;
    const wrap = (result: unknown) => (rpc ? { jsonrpc: "2.0", id: rpc.id, result } : result);
    if (url.endsWith(":stream") || rpc?.method === "SendStreamingMessage") {
      const events = [wrap({ task }), wrap({ statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } } })];
      // Split inside an event, as the network may.
      const text = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");
      const { stream, state } = bodyOf([text.slice(0, 25), text.slice(25)], !keepStreamsOpen);
      streams.push(state);
      return new Response(stream, { headers: { "Content-Type": "text/event-stream" } });
    }
    const { stream } = bodyOf([JSON.stringify(wrap(task))], true);
    return new Response(stream, { headers: { "Content-Type": "application/json" } });
  }) as typeof fetch;
  return { fetchFn, streams };
}

const bindings = [
  [
    "JSON-RPC",
    (f: typeof fetch) => createJsonRpcTransport({ baseUrl: `${AGENT}/rpc`, httpClient: createFetchHttpClient(f), idleTimeoutMs: 60_000 }),
  ],
  [
    "HTTP+JSON",
    (f: typeof fetch) => createRestTransport({ baseUrl: `${AGENT}/rest`, httpClient: createFetchHttpClient(f), idleTimeoutMs: 60_000 }),
  ],
] as const;

describe("without the APIs older browsers lack", () => {
  it("they are gone: a response body cannot be read with for await", async () => {
    // Those this runtime has (Node 20 has no Promise.withResolvers) are taken away.
    expect(saved.size).toBeGreaterThanOrEqual(missing.length - 1);
    for (const [owner, name] of missing) expect((owner as Record<PropertyKey, unknown>)[name], String(name)).toBeUndefined();
    const body = new Response("x").body as unknown as AsyncIterable<Uint8Array>;
    const iterate = async () => {
      for await (const _ of body) break;
    };
    await expect(iterate()).rejects.toThrow(TypeError);
    expect(AbortSignal.any).toBeUndefined();
    expect(crypto.randomUUID).toBeUndefined();
  });

  describe.each(bindings)("%s over fetch", (_name, transport) => {
    it("a call, and a stream read to its end", async () => {
      const { fetchFn, streams } = agentFetch(false);
      const client = new A2AClient(transport(fetchFn));
      expect((await client.getTask({ id: "t1" })).id).toBe("t1");
      const kinds: string[] = [];
      for await (const event of client.sendStreamingMessage({ message: userMessage("hi") })) kinds.push(event.payload.case ?? "");
      expect(kinds).toEqual(["task", "statusUpdate"]);
      expect(streams).toHaveLength(1);
    });

    it("a stream let go after its first event cancels its body", async () => {
      const { fetchFn, streams } = agentFetch(true);
      const client = new A2AClient(transport(fetchFn));
      for await (const event of client.sendStreamingMessage({ message: userMessage("hi") }, { resume: false })) {
        expect(event.payload.case).toBe("task");
        break;
      }
      expect(streams.map((s) => s.cancelled)).toEqual([true]);
    });
  });

  it("card discovery", async () => {
    const { fetchFn } = agentFetch(false);
    const resolved = await resolveAgentCard(AGENT, { fetch: fetchFn, cache: false });
    expect(resolved.card.name).toBe("Test Agent");
  });

  it("gRPC-web", async () => {
    const message = toBinary(TaskSchema, create(TaskSchema, { id: "t1", contextId: "c1", status: { state: TaskState.WORKING } }));
    const trailers = encoder.encode("grpc-status: 0\r\n");
    const frame = (flags: number, payload: Uint8Array) => {
      const out = new Uint8Array(5 + payload.length);
      out[0] = flags;
      new DataView(out.buffer).setUint32(1, payload.length);
      out.set(payload, 5);
      return out;
    };
    const bytes = [frame(0, message), frame(0x80, trailers)];
    const fetchFn = (async () => {
      let i = 0;
      const body = new ReadableStream<Uint8Array>({
        pull: (controller) => (i < bytes.length ? controller.enqueue(bytes[i++]!) : controller.close()),
      });
      return new Response(body, { headers: { "Content-Type": "application/grpc-web+proto" } });
    }) as typeof fetch;
    const client = new A2AClient(createGrpcWebTransport({ baseUrl: `${AGENT}/grpc`, fetch: fetchFn }));
    expect((await client.getTask({ id: "t1" })).id).toBe("t1");
  });
});
