/**
 * The call runner (http/run-call.ts) races what it awaits: the 0.3 wires'
 * calls settle by their timeouts as the 1.0 wires' do, an HTTP client that
 * never settles or ignores its signal holds no call past its deadline, its
 * idle timeout or its signal, and a reader that stops early is not held by
 * a body that never finishes closing.
 */
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import { describe, expect, it } from "vitest";
import {
  A2AClient,
  AbortedError,
  CallTimeoutError,
  createFetchHttpClient,
  createRestTransport,
  type HttpTransportOptions,
} from "../../../src/node.js";
import { within } from "../../support/fake-server.js";
import {
  BOUND_MS,
  timeoutFor,
  raw,
  useRawServer,
  transportOf,
  clientOf,
  settle,
  drain,
  noSocketLeft,
  withoutTimersLeft,
  expectFailure,
  WIRES_1_0,
} from "../../support/deadline-server.js";

useRawServer();

describe.each(["JSONRPC 0.3", "HTTP+JSON 0.3"] as const)("%s (the same runner)", (wire) => {
  it.each(["upgrade", "headers"] as const)("unary and stream, server %s: settle by their timeouts", async (behaviour) => {
    raw.behaviour = behaviour;
    const client = clientOf(wire, "node:http", { idleTimeoutMs: timeoutFor(behaviour) });
    const unary = await settle(client.getTask({ id: "t1" }, { timeoutMs: timeoutFor(behaviour) }));
    expectFailure(unary.error, behaviour, "node:http", "deadline", 60);
    expect(unary.ms).toBeLessThan(BOUND_MS);
    const stream = await settle(drain(client.subscribeToTask({ id: "t1" }, { resume: false })));
    expectFailure(stream.error, behaviour, "node:http", "idle", 60);
    expect(stream.ms).toBeLessThan(BOUND_MS);
    await noSocketLeft();
  });
});

/** A response whose body never yields and ignores every signal. */
function stuckBody(): AsyncIterable<Uint8Array> {
  return { [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<Uint8Array>>(() => {}) }) };
}

describe.each(WIRES_1_0)("%s with an HTTP client that ignores its signal", (wire) => {
  const never: UniversalClientFn = () => new Promise(() => {});
  const headersOnly =
    (type: string): UniversalClientFn =>
    async () => ({ status: 200, header: new Headers({ "Content-Type": type }), body: stuckBody(), trailer: new Headers() });
  const clientWith = (httpClient: UniversalClientFn, options: Partial<HttpTransportOptions> = {}) =>
    new A2AClient(transportOf(wire, { baseUrl: "http://127.0.0.1:9/a2a", httpClient, ...options }));

  it("a request that never settles: the deadline, or the signal, ends the call", async () => {
    await withoutTimersLeft(async () => {
      const timed = await settle(clientWith(never).getTask({ id: "t1" }, { timeoutMs: 30 }));
      expect(timed.error).toBeInstanceOf(CallTimeoutError);
      expect((timed.error as Error).message).toMatch(/http:\/\/127\.0\.0\.1:9\/a2a.* 30 ms/);
      expect(timed.ms).toBeLessThan(BOUND_MS);

      const controller = new AbortController();
      const stop = setTimeout(() => controller.abort(), 20);
      const aborted = await settle(clientWith(never).getTask({ id: "t1" }, { signal: controller.signal, timeoutMs: 0 }));
      clearTimeout(stop);
      expect(aborted.error).toBeInstanceOf(AbortedError);
    });
  });

  it("a user-supplied fetch that never settles, through createFetchHttpClient", async () => {
    const fetchNever = (() => new Promise<Response>(() => {})) as typeof fetch;
    const { error, ms } = await settle(clientWith(createFetchHttpClient(fetchNever)).getTask({ id: "t1" }, { timeoutMs: 30 }));
    expect(error).toBeInstanceOf(CallTimeoutError);
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it("a body whose reads never settle: unary by its deadline, streams by the idle timeout and the signal", async () => {
    await withoutTimersLeft(async () => {
      const unary = await settle(clientWith(headersOnly("application/json")).getTask({ id: "t1" }, { timeoutMs: 30 }));
      expect(unary.error).toBeInstanceOf(CallTimeoutError);
      expect((unary.error as CallTimeoutError).kind).toBe("deadline");

      const sse = headersOnly("text/event-stream");
      const idle = await settle(drain(clientWith(sse, { idleTimeoutMs: 30 }).subscribeToTask({ id: "t1" }, { resume: false })));
      expect(idle.error).toBeInstanceOf(CallTimeoutError);
      expect((idle.error as CallTimeoutError).kind).toBe("idle");
      expect(idle.ms).toBeLessThan(BOUND_MS);

      // No idle timeout: only the signal can end it.
      const controller = new AbortController();
      const stop = setTimeout(() => controller.abort(), 20);
      const aborted = await settle(
        drain(clientWith(sse, { idleTimeoutMs: 0 }).subscribeToTask({ id: "t1" }, { resume: false, signal: controller.signal })),
      );
      clearTimeout(stop);
      expect(aborted.error).toBeInstanceOf(AbortedError);

      const deadline = await settle(
        drain(clientWith(sse, { idleTimeoutMs: 0 }).subscribeToTask({ id: "t1" }, { resume: false, timeoutMs: 30 })),
      );
      expect(deadline.error).toBeInstanceOf(CallTimeoutError);
      expect((deadline.error as CallTimeoutError).kind).toBe("deadline");
    });
  });
});

it("a reader that stops early is not held by a body that never finishes closing", async () => {
  const event = new TextEncoder().encode(
    `data: ${JSON.stringify({ task: { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } } })}\n\n`,
  );
  const body: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => ({ done: false, value: event }),
      return: () => new Promise<IteratorResult<Uint8Array>>(() => {}),
    }),
  };
  const httpClient: UniversalClientFn = async () => ({
    status: 200,
    header: new Headers({ "Content-Type": "text/event-stream" }),
    body,
    trailer: new Headers(),
  });
  const client = new A2AClient(createRestTransport({ baseUrl: "http://127.0.0.1:9", httpClient }));
  let seen = 0;
  const read = (async () => {
    for await (const _ of client.subscribeToTask({ id: "t1" }, { resume: false })) {
      if (++seen === 2) break;
    }
  })();
  await within(read, BOUND_MS, "the reader's break");
  expect(seen).toBe(2);
});
