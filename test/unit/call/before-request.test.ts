/**
 * Code a call loads before its request (the retry loop, the plain-JSON
 * request reader) is part of the call: a chunk whose fetch stalls, as a
 * browser's dynamic import may, holds no call past its signal or deadline.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { settled } from "../../support/failure.js";
import { startFakeServer, startSse } from "../../support/fake-server.js";
import { trackTimers } from "../../support/timers.js";
import type { A2ATransport } from "../../../src/call/transport.js";

afterEach(() => {
  vi.doUnmock("../../../src/client/find-sent.js");
  vi.doUnmock("../../../src/call/retry.js");
  vi.doUnmock("../../../src/call/plain-input.js");
  vi.doUnmock("../../../src/auth/plan.js");
  vi.resetModules();
});

/** The client's entry, loaded afresh with `module` never loading; `asked` is told when it is first imported. */
async function withStalled(module: string, asked: () => void = () => {}) {
  vi.resetModules();
  vi.doMock(module, () => {
    asked();
    return new Promise(() => {});
  });
  return import("../../../src/index.js");
}

describe.each([
  ["the retry loop", "../../../src/call/retry.js"],
  ["the plain-JSON request reader", "../../../src/call/plain-input.js"],
] as const)("%s never loads", (_name, module) => {
  it("a unary call ends by its timeoutMs with CallTimeoutError, and by its signal with AbortedError, leaving no timer", async () => {
    const a2a = await withStalled(module);
    const timers = trackTimers(/[/\\]src[/\\]/);
    try {
      // Nothing listens here: the call must end before its request.
      const client = new a2a.A2AClient(a2a.createJsonRpcTransport({ baseUrl: "http://127.0.0.1:9" }), { retry: { attempts: 2 } });
      // A plain-JSON request (a string part) is read by the plain-JSON reader.
      const request = { message: { role: "ROLE_USER", messageId: "m1", parts: [{ text: "hi" }] } } as never;
      const started = performance.now();
      const timedOut = await settled(client.sendMessage(request, { timeoutMs: 50 }));
      expect(timedOut).toBeInstanceOf(a2a.CallTimeoutError);
      expect(timedOut).toMatchObject({ kind: "deadline" });
      expect(performance.now() - started).toBeLessThan(1000);

      const controller = new AbortController();
      const reason = new Error("the user left");
      const call = client.sendMessage(request, { signal: controller.signal });
      controller.abort(reason);
      const aborted = await settled(call);
      expect(aborted).toBeInstanceOf(a2a.AbortedError);
      expect((aborted as Error).cause).toBe(reason);
      expect(await timers.live()).toEqual([]);
    } finally {
      timers.stop();
    }
  });
});

describe("the plain-JSON request reader never loads", () => {
  it("a stream ends by its timeoutMs with CallTimeoutError, and by its signal with AbortedError, leaving no timer", async () => {
    const a2a = await withStalled("../../../src/call/plain-input.js");
    const timers = trackTimers(/[/\\]src[/\\]/);
    try {
      const client = new a2a.A2AClient(a2a.createJsonRpcTransport({ baseUrl: "http://127.0.0.1:9" }));
      const request = { message: { role: "ROLE_USER", messageId: "m1", parts: [{ text: "hi" }] } } as never;
      const drain = async (events: AsyncIterable<unknown>) => {
        for await (const _ of events) {
          // Nothing can arrive: the request is never sent.
        }
      };
      const started = performance.now();
      const timedOut = await settled(drain(client.sendStreamingMessage(request, { timeoutMs: 50 })));
      expect(timedOut).toBeInstanceOf(a2a.CallTimeoutError);
      expect(timedOut).toMatchObject({ kind: "deadline" });
      expect(performance.now() - started).toBeLessThan(1000);

      const controller = new AbortController();
      const reason = new Error("the user left");
      const read = drain(client.sendStreamingMessage(request, { signal: controller.signal }));
      controller.abort(reason);
      const aborted = await settled(read);
      expect(aborted).toBeInstanceOf(a2a.AbortedError);
      expect((aborted as Error).cause).toBe(reason);
      expect(await timers.live()).toEqual([]);
    } finally {
      timers.stop();
    }
  });
});

describe("the plain-JSON request reader loads slowly", () => {
  it("a stream's wait for it is part of its one deadline: its request is given what is left of its timeoutMs", async () => {
    let loaded!: () => void;
    const gate = new Promise<void>((resolve) => (loaded = resolve));
    vi.resetModules();
    vi.doMock("../../../src/call/plain-input.js", async (importOriginal) => {
      await gate;
      return importOriginal();
    });
    const a2a = await import("../../../src/index.js");
    vi.useFakeTimers({ toFake: ["performance"] });
    try {
      const given: Array<number | undefined> = [];
      const transport: A2ATransport = {
        binding: "JSONRPC",
        unary: () => Promise.reject(new Error("no unary calls here")),
        stream: (_method, _signal, timeoutMs) => {
          given.push(timeoutMs);
          return Promise.reject(new Error("the agent is away"));
        },
      };
      const request = { message: { role: "ROLE_USER", messageId: "m1", parts: [{ text: "hi" }] } } as never;
      const events = new a2a.A2AClient(transport).sendStreamingMessage(request, { timeoutMs: 1_000, resume: false });
      const first = settled(events[Symbol.asyncIterator]().next());
      // The reader takes 400 ms to load: the stream's deadline runs meanwhile.
      await vi.advanceTimersByTimeAsync(400);
      loaded();
      expect(await first).toBeInstanceOf(a2a.A2AError);
      expect(given).toEqual([600]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("the lookup of a message sent before a drop never loads", () => {
  /** A stream whose agent ends it at once, before naming a task: the resumption asks whether the message started one. */
  async function droppedBeforeTask(options: { signal?: AbortSignal; timeoutMs?: number }, started: (lookingUp: Promise<void>) => void) {
    let lookingUp!: () => void;
    started(new Promise<void>((resolve) => (lookingUp = resolve)));
    const a2a = await withStalled("../../../src/client/find-sent.js", () => lookingUp());
    const agent = await startFakeServer((_req, res) => {
      startSse(res);
      res.end();
    });
    const timers = trackTimers(/[/\\]src[/\\]/);
    try {
      const client = new a2a.A2AClient(a2a.createJsonRpcTransport({ baseUrl: agent.url }));
      const events = client.sendStreamingMessage(
        { message: a2a.userMessage("go") },
        { ...options, resume: { backoff: { initialMs: 1, maxMs: 1 } } },
      );
      const began = performance.now();
      const error = await settled(
        (async () => {
          for await (const _ of events) {
            // The agent sends none.
          }
        })(),
      );
      expect(performance.now() - began).toBeLessThan(1000);
      expect(agent.requests).toHaveLength(1);
      expect(await timers.live()).toEqual([]);
      return { error, a2a };
    } finally {
      timers.stop();
      await agent.close();
    }
  }

  it("a stream that dropped before naming its task ends by its signal with AbortedError, the reason as cause", async () => {
    const controller = new AbortController();
    const reason = new Error("the user left");
    const { error, a2a } = await droppedBeforeTask({ signal: controller.signal }, (lookingUp) => {
      void lookingUp.then(() => controller.abort(reason));
    });
    expect(error).toBeInstanceOf(a2a.AbortedError);
    expect((error as Error).cause).toBe(reason);
  });

  it("a stream that dropped before naming its task ends by its timeoutMs with CallTimeoutError", async () => {
    const { error, a2a } = await droppedBeforeTask({ timeoutMs: 100 }, () => {});
    expect(error).toBeInstanceOf(a2a.CallTimeoutError);
    expect(error).toMatchObject({ kind: "deadline" });
  });
});

describe.each([
  ["its auth plan", "../../../src/auth/plan.js", { auth: { bearer: { token: "t" } } }],
  ["its retry policy check", "../../../src/call/retry.js", { retry: { attempts: 2 } }],
] as const)("connect(): %s never loads", (_name, module, options) => {
  it("connect() ends by its timeoutMs with CallTimeoutError, and by its signal with AbortedError, leaving no timer", async () => {
    const a2a = await withStalled(module);
    const timers = trackTimers(/[/\\]src[/\\]/);
    try {
      // A card in hand: nothing is fetched, so only the load can hold connect().
      const card = {
        name: "a",
        description: "a",
        version: "1",
        supportedInterfaces: [{ url: "http://127.0.0.1:9/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
        capabilities: {},
        defaultInputModes: ["text/plain"],
        defaultOutputModes: ["text/plain"],
        skills: [],
      };
      const started = performance.now();
      const timedOut = await settled(a2a.connect(card as never, { ...options, timeoutMs: 50 }));
      expect(timedOut).toBeInstanceOf(a2a.CallTimeoutError);
      expect((timedOut as Error).message).toMatch(/^connect\(\) could not load .* within 50 ms$/);
      expect(performance.now() - started).toBeLessThan(1000);

      const controller = new AbortController();
      const reason = new Error("the user left");
      const connecting = a2a.connect(card as never, { ...options, signal: controller.signal });
      controller.abort(reason);
      const aborted = await settled(connecting);
      expect(aborted).toBeInstanceOf(a2a.AbortedError);
      expect((aborted as Error).cause).toBe(reason);
      expect(await timers.live()).toEqual([]);
    } finally {
      timers.stop();
    }
  });
});
