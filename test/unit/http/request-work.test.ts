/**
 * The per-request step of the HTTP bindings (http/binding-transport.ts and
 * its runner) does no work that a step above it already did: it takes the
 * call's record as the A2AClient made it, reads the timeout its
 * deadline chose (a stream's too: the kind is the record's), and parses a
 * Retry-After only when the answer has one.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import { A2AClient } from "../../../src/client/client.js";
import { createJsonRpcTransport } from "../../../src/bindings/jsonrpc/transport.js";
import { createRestTransport } from "../../../src/bindings/http-json/transport.js";
import { userMessage } from "../../../src/protocol/messages.js";
import { ServerError } from "../../../src/errors/family.js";
import { recordFor } from "../../../src/call/record.js";
import { timeoutFor } from "../../../src/call/timeouts.js";
import { parseRetryAfter } from "../../../src/errors/retry-after.js";

vi.mock("../../../src/call/record.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../src/call/record.js")>();
  return { ...real, recordFor: vi.fn(real.recordFor) };
});
vi.mock("../../../src/call/timeouts.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../src/call/timeouts.js")>();
  return { ...real, timeoutFor: vi.fn(real.timeoutFor) };
});
vi.mock("../../../src/errors/retry-after.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../src/errors/retry-after.js")>();
  return { ...real, parseRetryAfter: vi.fn(real.parseRetryAfter) };
});

const TASK = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } };

/** An HTTP client answering every request with `status`, `headers` and the task (or a JSON-RPC error for a failure). */
function answering(binding: "JSONRPC" | "HTTP+JSON", status = 200, headers: Record<string, string> = {}): UniversalClientFn {
  return async (req) => {
    let text = "";
    for await (const chunk of req.body ?? []) text += new TextDecoder().decode(chunk);
    const id = binding === "JSONRPC" ? (JSON.parse(text) as { id: unknown }).id : undefined;
    const result = binding === "JSONRPC" ? { jsonrpc: "2.0", id, result: { task: TASK } } : { task: TASK };
    const body = status === 200 ? result : { error: "busy" };
    return {
      status,
      header: new Headers({ "Content-Type": "application/json", ...headers }),
      trailer: new Headers(),
      body: (async function* () {
        yield new TextEncoder().encode(JSON.stringify(body));
      })(),
    };
  };
}

/** An HTTP client answering every request with an event stream of one completed task. */
function streaming(binding: "JSONRPC" | "HTTP+JSON"): UniversalClientFn {
  return async (req) => {
    let text = "";
    for await (const chunk of req.body ?? []) text += new TextDecoder().decode(chunk);
    const id = binding === "JSONRPC" ? (JSON.parse(text) as { id: unknown }).id : undefined;
    const result = binding === "JSONRPC" ? { jsonrpc: "2.0", id, result: { task: TASK } } : { task: TASK };
    return {
      status: 200,
      header: new Headers({ "Content-Type": "text/event-stream" }),
      trailer: new Headers(),
      body: (async function* () {
        yield new TextEncoder().encode(`data: ${JSON.stringify(result)}\n\n`);
      })(),
    };
  };
}

function clientOf(binding: "JSONRPC" | "HTTP+JSON", httpClient: UniversalClientFn): A2AClient {
  const options = { baseUrl: "http://127.0.0.1:9/a2a", httpClient };
  return new A2AClient(binding === "JSONRPC" ? createJsonRpcTransport(options) : createRestTransport(options));
}

afterEach(() => {
  vi.mocked(recordFor).mockClear();
  vi.mocked(timeoutFor).mockClear();
  vi.mocked(parseRetryAfter).mockClear();
});

describe.each(["JSONRPC", "HTTP+JSON"] as const)("one request's work, once (%s)", (binding) => {
  it("takes the A2AClient's record as it is and chooses the timeout once per call", async () => {
    const client = clientOf(binding, answering(binding));
    for (const timeoutMs of [undefined, 5_000]) {
      vi.mocked(recordFor).mockClear();
      vi.mocked(timeoutFor).mockClear();
      const answer = await client.sendMessage({ message: userMessage("hi") }, { timeoutMs });
      expect(answer.payload).toMatchObject({ case: "task", value: { id: "t1" } });
      // The client's record is the call's values: the request takes them as its record, without a lookup.
      expect(recordFor).not.toHaveBeenCalled();
      // Chosen where the record was made; the request reads it from there.
      expect(timeoutFor).toHaveBeenCalledTimes(1);
    }
  });

  it("gives a stream the deadline of its record, its limit chosen once", async () => {
    const client = clientOf(binding, streaming(binding));
    for (const resume of [false, undefined] as const) {
      for (const timeoutMs of [undefined, 5_000]) {
        vi.mocked(recordFor).mockClear();
        vi.mocked(timeoutFor).mockClear();
        const events = [];
        for await (const e of client.sendStreamingMessage({ message: userMessage("hi") }, { timeoutMs, resume })) events.push(e);
        expect(events).toHaveLength(1);
        expect(recordFor).toHaveBeenCalledTimes(1);
        expect(timeoutFor).toHaveBeenCalledTimes(1);
      }
    }
  });

  it("reads Retry-After only from an answer that has one", async () => {
    await clientOf(binding, answering(binding)).sendMessage({ message: userMessage("hi") });
    expect(parseRetryAfter).not.toHaveBeenCalled();
    const busy = clientOf(binding, answering(binding, 503, { "Retry-After": "3" }));
    const e = await busy.sendMessage({ message: userMessage("hi") }, { retry: false }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ServerError);
    expect((e as ServerError).retryAfterMs).toBe(3_000);
    expect(parseRetryAfter).toHaveBeenCalledTimes(1);
  });
});
