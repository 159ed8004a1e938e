/**
 * The call runner under the HTTP bindings: connect's interceptor order and
 * signal semantics, failures reported as A2AErrors (the abort's, the
 * deadline's, the binding's as they are), and nothing left attached to the
 * caller's signal or armed in a timer once a call is over.
 */
import { create } from "@bufbuild/protobuf";
import { createContextValues, type Interceptor } from "@connectrpc/connect";
import { afterEach, describe, expect, it, vi } from "vitest";
import { A2AService, GetTaskRequestSchema, TaskSchema, StreamResponseSchema } from "../../../gen/lf/a2a/v1/a2a_pb.js";
import { AbortedError, CallTimeoutError, ProtocolError } from "../../../src/errors/family.js";
import { runStreaming, runUnary } from "../../../src/http/run-call.js";
import { CallRecord } from "../../../src/call/record.js";
import { within } from "../../support/fake-server.js";
import { unaryAnswer } from "../../support/unary-answer.js";

const getTask = A2AService.method.getTask;
const subscribe = A2AService.method.subscribeToTask;

function unaryReq() {
  return {
    stream: false as const,
    service: A2AService,
    method: getTask,
    requestMethod: "GET",
    url: "http://127.0.0.1:1/tasks/t1",
    header: new Headers(),
    contextValues: createContextValues(),
    message: create(GetTaskRequestSchema, { id: "t1" }),
  };
}

function streamReq() {
  return {
    stream: true as const,
    service: A2AService,
    method: subscribe,
    requestMethod: "POST",
    url: "http://127.0.0.1:1/tasks/t1:subscribe",
    header: new Headers(),
    contextValues: createContextValues(),
    message: (async function* () {})(),
  };
}

const answer = (method = getTask) => unaryAnswer(method, create(TaskSchema, { id: "t1" }));

/** A caller's signal that counts the listeners attached to it. */
function countedSignal() {
  const controller = new AbortController();
  let listeners = 0;
  const add = controller.signal.addEventListener.bind(controller.signal);
  const remove = controller.signal.removeEventListener.bind(controller.signal);
  vi.spyOn(controller.signal, "addEventListener").mockImplementation((...args: Parameters<typeof add>) => {
    listeners++;
    add(...args);
  });
  vi.spyOn(controller.signal, "removeEventListener").mockImplementation((...args: Parameters<typeof remove>) => {
    listeners--;
    remove(...args);
  });
  return { controller, listeners: () => listeners };
}

/** Resolves with the signal's reason once it aborts. */
const aborted = (signal: AbortSignal) =>
  new Promise<unknown>((resolve) =>
    signal.aborted ? resolve(signal.reason) : signal.addEventListener("abort", () => resolve(signal.reason)),
  );

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("runUnary", () => {
  it("applies interceptors with the first one outermost, and they see and change the request", async () => {
    const order: string[] = [];
    const tag =
      (name: string): Interceptor =>
      (next) =>
      async (req) => {
        order.push(`${name} in`);
        req.header.append("X-Seen", name);
        const res = await next(req);
        order.push(`${name} out`);
        return res;
      };
    let seen: string | null = null;
    const res = await runUnary({
      binding: "HTTP+JSON",
      interceptors: [tag("a"), tag("b")],
      signal: undefined,
      timeoutMs: undefined,
      req: unaryReq(),
      next: async (req) => {
        seen = req.header.get("X-Seen");
        return answer();
      },
    });
    expect(order).toEqual(["a in", "b in", "b out", "a out"]);
    expect(seen).toBe("a, b");
    expect(res.message.id).toBe("t1");
  });

  it("a caller's abort reaches the request signal and fails the call with AbortedError, the reason as its cause", async () => {
    const { controller, listeners } = countedSignal();
    const call = runUnary({
      binding: "HTTP+JSON",
      interceptors: [],
      signal: controller.signal,
      timeoutMs: undefined,
      req: unaryReq(),
      next: async (req) => {
        await aborted(req.signal);
        throw new Error("the HTTP client's own abort error");
      },
    });
    const reason = new Error("user gave up");
    controller.abort(reason);
    const e = await call.then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(AbortedError);
    expect(e).toMatchObject({ message: "the call was aborted", binding: "HTTP+JSON", grpcCode: 1 });
    expect((e as AbortedError).cause).toBe(reason);
    expect(listeners()).toBe(0);
  });

  it("the deadline fails the call with CallTimeoutError", async () => {
    vi.useFakeTimers();
    const call = runUnary({
      binding: "HTTP+JSON",
      interceptors: [],
      signal: undefined,
      timeoutMs: 1000,
      req: unaryReq(),
      next: async (req) => {
        await aborted(req.signal);
        throw new Error("aborted");
      },
    });
    const failed = call.then(
      () => undefined,
      (x: unknown) => x,
    );
    await vi.advanceTimersByTimeAsync(1000);
    const e = await failed;
    expect(e).toBeInstanceOf(CallTimeoutError);
    expect(e).toMatchObject({ kind: "deadline", binding: "HTTP+JSON" });
  });

  it("a request given what is left of its call's deadline names the call's whole limit when it runs out", async () => {
    vi.useFakeTimers();
    // The call's clock started 400 ms before its request (code loaded on demand, an attempt that failed).
    const record = new CallRecord("unary", 1000).start();
    await vi.advanceTimersByTimeAsync(400);
    const left = record.timeoutMs();
    expect(left).toBe(600);
    const failed = runUnary({
      binding: "HTTP+JSON",
      interceptors: [],
      signal: undefined,
      timeoutMs: left,
      req: { ...unaryReq(), contextValues: record },
      next: async (req) => {
        await aborted(req.signal);
        throw new Error("aborted");
      },
    }).then(
      () => undefined,
      (x: unknown) => x,
    );
    await vi.advanceTimersByTimeAsync(600);
    const e = await failed;
    expect(e).toBeInstanceOf(CallTimeoutError);
    expect((e as Error).message).toContain("within 1000 ms");
  });

  it("a call that succeeds clears its deadline and leaves no listener on the caller's signal", async () => {
    vi.useFakeTimers();
    const { controller, listeners } = countedSignal();
    await runUnary({
      binding: "HTTP+JSON",
      interceptors: [],
      signal: controller.signal,
      timeoutMs: 60_000,
      req: unaryReq(),
      next: async () => answer(),
    });
    expect(vi.getTimerCount()).toBe(0);
    expect(listeners()).toBe(0);
  });

  it("a failure that is not an abort is passed on as it is, and aborts the request signal with it", async () => {
    // What the HTTP client's failures look like below the bindings (they turn fetch's TypeErrors into A2AErrors).
    const cause = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    let signal: AbortSignal | undefined;
    const e = await runUnary({
      binding: "HTTP+JSON",
      interceptors: [],
      signal: undefined,
      timeoutMs: undefined,
      req: unaryReq(),
      next: async (req) => {
        signal = req.signal;
        throw cause;
      },
    }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBe(cause);
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBe(e);
  });

  it("an already aborted caller's signal fails the call with AbortedError, running neither the interceptors nor next", async () => {
    const reason = new Error("stopped before it started");
    const ran: string[] = [];
    const e = await runUnary({
      binding: "HTTP+JSON",
      interceptors: [(next) => (req) => (ran.push("interceptor"), next(req))],
      signal: AbortSignal.abort(reason),
      timeoutMs: 1000,
      req: unaryReq(),
      next: async () => {
        ran.push("next");
        throw new Error("sent");
      },
    }).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(ran).toEqual([]);
    expect(e).toBeInstanceOf(AbortedError);
    expect((e as AbortedError).cause).toBe(reason);
  });
});

/** A streaming call over `source`, and the signal the transport was given for it. */
async function open(source: AsyncIterable<unknown>, signal?: AbortSignal) {
  let requestSignal: AbortSignal | undefined;
  const res = await runStreaming({
    binding: "HTTP+JSON",
    interceptors: [],
    signal,
    timeoutMs: undefined,
    req: streamReq(),
    next: async (req) => {
      requestSignal = req.signal;
      return {
        stream: true as const,
        service: A2AService,
        method: subscribe,
        header: new Headers(),
        trailer: new Headers(),
        message: source as never,
      };
    },
  });
  return { res, requestSignal: requestSignal! };
}

describe("runStreaming", () => {
  const events = (n: number) =>
    (async function* () {
      for (let i = 0; i < n; i++) yield create(StreamResponseSchema, { payload: { case: "task", value: { id: `t${i}` } } });
    })();

  it("the request signal is aborted once the stream has ended, and the caller's signal is let go", async () => {
    const { controller, listeners } = countedSignal();
    const { res, requestSignal } = await open(events(3), controller.signal);
    let n = 0;
    for await (const _ of res.message) {
      expect(requestSignal.aborted).toBe(false);
      n++;
    }
    expect(n).toBe(3);
    expect(requestSignal.aborted).toBe(true);
    expect(listeners()).toBe(0);
  });

  it("a reader that stops early closes the source and aborts the request signal", async () => {
    let closed = false;
    const source = (async function* () {
      try {
        for (;;) yield create(StreamResponseSchema, {});
      } finally {
        closed = true;
      }
    })();
    const { res, requestSignal } = await open(source);
    for await (const _ of res.message) break;
    expect(closed).toBe(true);
    expect(requestSignal.aborted).toBe(true);
  });

  it("a stream that fails is reported with the binding's A2AError as it is", async () => {
    // What a binding's stream fails with: an A2AError (a raw Error is taken for one thrown above the wire).
    const failure = new ProtocolError("bad frame");
    const source = (async function* () {
      yield create(StreamResponseSchema, {});
      throw failure;
    })();
    const { res, requestSignal } = await open(source);
    const it = res.message[Symbol.asyncIterator]();
    await it.next();
    const e = await it.next().then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBe(failure);
    expect(requestSignal.reason).toBe(e);
  });
});

describe("a call ends by its deadline or its signal even when next never settles", () => {
  const never = () => new Promise<never>(() => {});

  it("unary: the deadline fails it with CallTimeoutError naming the URL (no query) and the duration", async () => {
    vi.useFakeTimers();
    const req = { ...unaryReq(), url: "http://127.0.0.1:1/tasks/t1?key=SECRET" };
    const failed = runUnary({ binding: "HTTP+JSON", interceptors: [], signal: undefined, timeoutMs: 250, req, next: never }).then(
      () => undefined,
      (x: unknown) => x,
    );
    await vi.advanceTimersByTimeAsync(250);
    const e = (await failed) as CallTimeoutError;
    expect(e).toBeInstanceOf(CallTimeoutError);
    expect(e.message).toBe("the call to http://127.0.0.1:1/tasks/t1 did not complete within 250 ms");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("unary: the caller's abort fails it with AbortedError and lets go of the caller's signal", async () => {
    const { controller, listeners } = countedSignal();
    const call = runUnary({
      binding: "HTTP+JSON",
      interceptors: [],
      signal: controller.signal,
      timeoutMs: undefined,
      req: unaryReq(),
      next: never,
    });
    const reason = new Error("user gave up");
    controller.abort(reason);
    const e = (await call.then(
      () => undefined,
      (x: unknown) => x,
    )) as AbortedError;
    expect(e).toBeInstanceOf(AbortedError);
    expect(e.cause).toBe(reason);
    expect(listeners()).toBe(0);
  });

  it("streaming: the caller's abort, or the transport's own controller (a stream gone idle), fails the response wait", async () => {
    const { controller, listeners } = countedSignal();
    const aborted = runStreaming({
      binding: "HTTP+JSON",
      interceptors: [],
      signal: controller.signal,
      timeoutMs: undefined,
      req: streamReq(),
      next: never,
    });
    controller.abort();
    expect(
      await aborted.then(
        () => undefined,
        (x: unknown) => (x as AbortedError).code,
      ),
    ).toBe("ABORTED");
    expect(listeners()).toBe(0);

    const own = new AbortController();
    const idle = new Error("no response for 10 ms");
    const cut = runStreaming({
      binding: "HTTP+JSON",
      interceptors: [],
      signal: undefined,
      timeoutMs: undefined,
      controller: own,
      req: streamReq(),
      next: never,
    });
    own.abort(idle);
    expect(
      await cut.then(
        () => undefined,
        (x: unknown) => (x as AbortedError).cause,
      ),
    ).toBe(idle);
  });

  it("streaming: a reader that returns while a read is pending ends the call instead of waiting for the server", async () => {
    // Set once the call is open, before the reader's first read.
    let requestSignal: AbortSignal | undefined;
    // A source whose reads settle only when the call's signal aborts (as an HTTP body does),
    // and whose return waits for the read in progress (as an async generator's does).
    let read: Promise<unknown> = Promise.resolve();
    const source: AsyncIterable<unknown> = {
      [Symbol.asyncIterator]: () => ({
        next: (): Promise<IteratorResult<unknown>> => (read = aborted(requestSignal!).then((r) => Promise.reject(r))) as Promise<never>,
        return: () =>
          read.then(
            () => ({ done: true as const, value: undefined }),
            () => ({ done: true as const, value: undefined }),
          ),
      }),
    };
    const opened = await open(source);
    requestSignal = opened.requestSignal;
    const it = opened.res.message[Symbol.asyncIterator]();
    const pending = it.next().catch(() => undefined);
    await within(it.return!(), 1000, "the reader's return");
    expect(requestSignal!.aborted).toBe(true);
    await pending;
  });
});
