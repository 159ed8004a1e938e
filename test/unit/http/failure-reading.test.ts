/**
 * The code that reads a failed answer (http/error-reading.ts, the
 * classification with it) loads when a call first fails. A chunk whose
 * fetch stalls holds no call past its signal or deadline, and one that
 * fails to load ends the call with an A2AError that says so.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import { settled } from "../../support/failure.js";
import { trackTimers } from "../../support/timers.js";
import { errorSurfaces } from "../../support/surfaces.js";

const READING = "../../../src/http/error-reading.js";
const CLASSIFY = "../../../src/errors/classify.js";

afterEach(() => {
  vi.doUnmock(READING);
  vi.doUnmock(CLASSIFY);
  vi.resetModules();
});

/**
 * The client, the JSON-RPC transport and the errors, loaded afresh (not the
 * package's entry, whose gRPC transport imports the classification itself).
 */
async function client() {
  const [{ A2AClient }, { createJsonRpcTransport }, errors] = await Promise.all([
    import("../../../src/client/client.js"),
    import("../../../src/bindings/jsonrpc/transport.js"),
    import("../../../src/errors/family.js"),
  ]);
  return { A2AClient, createJsonRpcTransport, ...errors };
}

/** A client as `client()` loads it. */
type Client = InstanceType<Awaited<ReturnType<typeof client>>["A2AClient"]>;

/** The client, loaded afresh with `module` never loading. */
async function withStalled(module: string) {
  vi.resetModules();
  vi.doMock(module, () => new Promise(() => {}));
  return client();
}

/** The client, loaded afresh with `module` failing to load as a chunk that could not be fetched does. */
async function withUnloadable(module: string, loadError: Error) {
  vi.resetModules();
  vi.doMock(module, () => {
    throw loadError;
  });
  return client();
}

/** Whether `cause` is `e` or has it among its causes (the test runner wraps what a module's factory throws). */
function amongCauses(cause: unknown, e: Error): boolean {
  for (let cur = cause, depth = 0; cur instanceof Error && depth < 4; cur = cur.cause, depth++) if (cur === e) return true;
  return false;
}

const TASK_NOT_FOUND = { code: -32001, message: "no such task" };

/** An HTTP client whose every answer is a JSON-RPC error (a unary answer, or an `event: error` in a stream). */
const answeringWithError: UniversalClientFn = async (req) => {
  let text = "";
  for await (const chunk of req.body ?? []) text += new TextDecoder().decode(chunk);
  const { id } = JSON.parse(text) as { id: unknown };
  const stream = req.header.get("Accept") === "text/event-stream";
  const body = JSON.stringify({ jsonrpc: "2.0", id, error: TASK_NOT_FOUND });
  return {
    status: 200,
    header: new Headers({ "Content-Type": stream ? "text/event-stream" : "application/json" }),
    trailer: new Headers(),
    body: (async function* () {
      yield new TextEncoder().encode(stream ? `event: error\ndata: ${body}\n\n` : body);
    })(),
  };
};

const REQUEST = { message: { role: "ROLE_USER", messageId: "m1", parts: [{ text: "hi" }] } } as never;

async function drain(events: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of events) {
    // The agent answers with an error only.
  }
}

describe("the code that reads a failed answer never loads", () => {
  it.each([
    ["a unary call", (c: Client, o: object) => c.sendMessage(REQUEST, o) as Promise<unknown>],
    ["a stream", (c: Client, o: object) => drain(c.sendStreamingMessage(REQUEST, { ...o, resume: false }))],
  ] as const)(
    "%s ends by its timeoutMs with CallTimeoutError, and by its signal with AbortedError, leaving no timer",
    async (_name, call) => {
      const a2a = await withStalled(READING);
      const timers = trackTimers(/[/\\]src[/\\]/);
      try {
        const agent = new a2a.A2AClient(a2a.createJsonRpcTransport({ baseUrl: "http://127.0.0.1:9/a2a", httpClient: answeringWithError }));
        const started = performance.now();
        const timedOut = await settled(call(agent, { timeoutMs: 50 }));
        expect(timedOut).toBeInstanceOf(a2a.CallTimeoutError);
        expect(timedOut).toMatchObject({ kind: "deadline" });
        expect(performance.now() - started).toBeLessThan(1000);

        const controller = new AbortController();
        const reason = new Error("the user left");
        const aborted = settled(call(agent, { signal: controller.signal }));
        // The answer has come and its error waits for the code that reads it.
        await new Promise((resolve) => setTimeout(resolve, 20));
        controller.abort(reason);
        const e = await aborted;
        expect(e).toBeInstanceOf(a2a.AbortedError);
        expect((e as Error).cause).toBe(reason);
        expect(await timers.live()).toEqual([]);
      } finally {
        timers.stop();
      }
    },
  );
});

describe("the code that reads a failed answer fails to load", () => {
  it.each([
    ["a unary call", (c: Client) => c.sendMessage(REQUEST) as Promise<unknown>],
    ["a stream", (c: Client) => drain(c.sendStreamingMessage(REQUEST, { resume: false }))],
  ] as const)("%s ends with an A2AError that says so, the load's error as its cause", async (_name, call) => {
    const loadError = new TypeError("Failed to fetch dynamically imported module: error-reading.js");
    const a2a = await withUnloadable(READING, loadError);
    const agent = new a2a.A2AClient(a2a.createJsonRpcTransport({ baseUrl: "http://127.0.0.1:9/a2a", httpClient: answeringWithError }));
    const e = await settled(call(agent));
    expect(e).toBeInstanceOf(a2a.A2AError);
    expect(e).not.toBeInstanceOf(a2a.TaskNotFoundError);
    expect((e as Error).message).toMatch(/^the call failed, and the code that classifies its failure did not load \(.+\)$/);
    expect(amongCauses((e as Error).cause, loadError)).toBe(true);
  });

  it("is tried again by the next call that fails, which then reads the agent's error", async () => {
    vi.resetModules();
    let fail = true;
    vi.doMock(READING, async (importOriginal) => {
      if (fail) throw new TypeError("Failed to fetch dynamically imported module: error-reading.js");
      return importOriginal();
    });
    const a2a = await client();
    const agent = new a2a.A2AClient(a2a.createJsonRpcTransport({ baseUrl: "http://127.0.0.1:9/a2a", httpClient: answeringWithError }));
    expect(await settled(agent.sendMessage(REQUEST))).toMatchObject({ code: "UNKNOWN" });
    fail = false;
    // The mocked module is made again; the errors it builds are then of its own module graph.
    vi.resetModules();
    const again = await settled(agent.sendMessage(REQUEST));
    expect(again).toMatchObject({ name: "TaskNotFoundError", code: "TASK_NOT_FOUND", message: "no such task" });
  });
});

/** What a browser's import of the classification's chunk fails with when it cannot be fetched. */
const CLASSIFY_NOT_FETCHED = () => new TypeError("Failed to fetch dynamically imported module: classify.js");

/** A client of `a2a` over JSON-RPC whose one interceptor throws `thrown`: a failure the classification must name. */
function withThrowingInterceptor(a2a: Awaited<ReturnType<typeof client>>, thrown: Error): Client {
  return new a2a.A2AClient(
    a2a.createJsonRpcTransport({
      baseUrl: "http://127.0.0.1:9/a2a",
      httpClient: answeringWithError,
      interceptors: [
        () => () => {
          throw thrown;
        },
      ],
    }),
  );
}

describe("the classification fails to load", () => {
  it("an interceptor's own error ends the call as an A2AError that says so, the interceptor's error as its cause", async () => {
    const a2a = await withUnloadable(CLASSIFY, CLASSIFY_NOT_FETCHED());
    const thrown = new Error("the interceptor broke");
    const agent = withThrowingInterceptor(a2a, thrown);
    const e = await settled(agent.sendMessage(REQUEST));
    expect(e).toBeInstanceOf(a2a.A2AError);
    expect((e as Error).message).toMatch(/^the call failed, and the code that classifies its failure did not load \(.+\)$/);
    expect((e as Error).cause).toBe(thrown);
  });

  it("a network failure quoting the request's credentials ends the call without them on any surface", async () => {
    const a2a = await withUnloadable(CLASSIFY, CLASSIFY_NOT_FETCHED());
    const TOKEN = "tok-3f9a7c21";
    const PASSWORD = "pw-81b2e4";
    // As fetch does: the failure quotes the URL whole, user info and all; here the token as well.
    const failing: UniversalClientFn = async (req) => {
      throw new TypeError(`fetch failed: ${req.url} (${req.header.get("authorization")})`, { cause: new Error(`connect to ${req.url}`) });
    };
    const agent = new a2a.A2AClient(
      a2a.createJsonRpcTransport({
        baseUrl: `http://ann:${PASSWORD}@127.0.0.1:9/a2a`,
        httpClient: failing,
        headers: { Authorization: `Bearer ${TOKEN}` },
      }),
    );
    const e = await settled(agent.sendMessage(REQUEST));
    expect(e).toBeInstanceOf(a2a.A2AError);
    expect((e as Error).message).toMatch(/did not load/);
    for (const surface of errorSurfaces(e)) {
      expect(surface).not.toContain(TOKEN);
      expect(surface).not.toContain(PASSWORD);
    }
  });

  it("never loading, an interceptor's own error still ends the call by its timeoutMs", async () => {
    const a2a = await withStalled(CLASSIFY);
    const agent = withThrowingInterceptor(a2a, new Error("the interceptor broke"));
    const e = await settled(agent.sendMessage(REQUEST, { timeoutMs: 50 }));
    expect(e).toBeInstanceOf(a2a.CallTimeoutError);
    expect(e).toMatchObject({ kind: "deadline" });
  });
});
