/**
 * The events that one chunk of a stream completes reach the reader without
 * a turn of the microtask queue per layer they pass (the decoded events,
 * the call runner's ending, the lazy opening, the resumption): each layer
 * hands over what it holds at once, so the reader's `for await` is what
 * waits, once per event. What the layers do with each event stays: an
 * event that cannot be read still fails the stream, after those before it.
 */
import { describe, expect, it } from "vitest";
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import { A2AClient } from "../../../src/client/client.js";
import { createJsonRpcTransport } from "../../../src/bindings/jsonrpc/transport.js";
import { createRestTransport } from "../../../src/bindings/http-json/transport.js";
import { userMessage } from "../../../src/protocol/messages.js";
import { ProtocolError } from "../../../src/errors/family.js";

type Binding = "JSONRPC" | "HTTP+JSON";

const working = (n: number) => ({
  statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING", message: undefined }, metadata: { n } },
});
const COMPLETED = { statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } } };

/** An HTTP client answering with one chunk of SSE holding `results` (raw JSON text where a string is given). */
function streaming(binding: Binding, results: ReadonlyArray<unknown>): UniversalClientFn {
  return async (req) => {
    let text = "";
    for await (const chunk of req.body ?? []) text += new TextDecoder().decode(chunk);
    const id = binding === "JSONRPC" ? (JSON.parse(text) as { id: unknown }).id : undefined;
    const frame = (r: unknown) => {
      if (typeof r === "string") return `data: ${r}\n\n`;
      return `data: ${JSON.stringify(binding === "JSONRPC" ? { jsonrpc: "2.0", id, result: r } : r)}\n\n`;
    };
    return {
      status: 200,
      header: new Headers({ "Content-Type": "text/event-stream" }),
      trailer: new Headers(),
      body: (async function* () {
        yield new TextEncoder().encode(results.map(frame).join(""));
      })(),
    };
  };
}

function clientOf(binding: Binding, httpClient: UniversalClientFn): A2AClient {
  const options = { baseUrl: "http://127.0.0.1:9/a2a", httpClient };
  return new A2AClient(binding === "JSONRPC" ? createJsonRpcTransport(options) : createRestTransport(options));
}

/** Counts turns of the microtask queue until stopped. */
function turnCounter(): { readonly turns: number; stop(): void } {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    queueMicrotask(tick);
  };
  queueMicrotask(tick);
  return {
    get turns() {
      return turns;
    },
    stop: () => void (running = false),
  };
}

describe.each(["JSONRPC", "HTTP+JSON"] as const)("the events of one chunk, handed over at once (%s)", (binding) => {
  for (const resume of [undefined, false] as const) {
    it(`reaches the reader in at most two turns per event after the first (resume ${resume ?? "on"})`, async () => {
      const events = [working(1), working(2), working(3), working(4), working(5), COMPLETED];
      const client = clientOf(binding, streaming(binding, events));
      const seen: number[] = [];
      let counter: ReturnType<typeof turnCounter> | undefined;
      const got = [];
      for await (const e of client.sendStreamingMessage({ message: userMessage("hi") }, { resume })) {
        got.push(e);
        if (counter) seen.push(counter.turns);
        counter?.stop();
        counter = turnCounter();
      }
      counter?.stop();
      expect(got.map((e) => e.payload.case)).toEqual(Array(6).fill("statusUpdate"));
      // Between two events of the chunk: the reader's own wait, and one more at most.
      expect(seen.slice(0, 4)).toEqual(seen.slice(0, 4).map((t) => Math.min(t, 2)));
    });
  }

  it("fails on an event that cannot be read, after the events before it", async () => {
    const client = clientOf(binding, streaming(binding, [working(1), working(2), "{not json", working(3)]));
    const got: unknown[] = [];
    const error = await (async () => {
      for await (const e of client.sendStreamingMessage({ message: userMessage("hi") }, { resume: false })) got.push(e);
    })().catch((e: unknown) => e);
    expect(got).toHaveLength(2);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toMatch(/not valid JSON/);
  });
});
