/**
 * Every call ends by its deadline or its signal, whatever the server or the
 * HTTP client does: a raw TCP server on 127.0.0.1 that answers 101, answers
 * nothing, sends headers and then silence, trickles a body that never ends,
 * or sends only informational (1xx) answers; and HTTP clients that never
 * settle or ignore their signal. Each call must settle within a bound, with
 * the repo's error types, and leave no socket open and no timer armed.
 */
import * as net from "node:net";
import type { AddressInfo } from "node:net";
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  A2AClient,
  A2AError,
  AbortedError,
  CallTimeoutError,
  ProtocolError,
  createFetchHttpClient,
  createGrpcTransport,
  createGrpcTransportV03,
  createGrpcWebTransport,
  createJsonRpcTransport,
  createJsonRpcTransportV03,
  createNodeHttpClient,
  createRestTransport,
  createRestTransportV03,
  bearerAuth,
  clientCredentialsProvider,
  discoveredTokenProvider,
  resolveAgentCard,
  waitForTask,
  AgentCardSchema,
  AgentSession,
  listAllTasks,
  listTasksPages,
  AuthenticationError,
  connect,
  userMessage,
  type A2ATransport,
  type ConnectTarget,
  type HttpTransportOptions,
} from "../../../src/node.js";
import { JwksCache, verifyAgentCard } from "../../../src/trust.js";
import { cardJson, keyPair, signJson } from "../../support/cards.js";
import { sendJson, sseFrame, startFakeServer, startSse, within } from "../../support/fake-server.js";
import { trackTimers } from "../../support/timers.js";
import { runCli } from "../../support/run-cli.js";
import { EXIT } from "../../../src/cli/exit-codes.js";

/** Stack frames of the package's own code. */
const SRC = /[/\\]src[/\\]/;
/** How long any call here may take to settle: its timeout is tens of ms. */
const BOUND_MS = 1500;

/** What the raw server does once a request has arrived. */
type Behaviour = "upgrade" | "silent" | "headers" | "endless" | "informational";
const BEHAVIOURS: readonly Behaviour[] = ["upgrade", "silent", "headers", "endless", "informational"];
/** The timeout of a call: tens of ms, but longer for a 101, which must fail the call on its own, long before. */
const timeoutFor = (b: Behaviour) => (b === "upgrade" ? 1000 : 60);

/**
 * The raw answer for a request; `stream` says whether the client asked for
 * an event stream. Returns what stops the behaviour's timer, if it has one.
 */
function behave(kind: Behaviour, socket: net.Socket, stream: boolean): (() => void) | undefined {
  switch (kind) {
    case "upgrade":
      socket.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: a2a-test\r\nConnection: Upgrade\r\n\r\n");
      return undefined;
    case "silent":
      return undefined;
    case "headers":
      // A unary answer whose body never comes, or an event stream that never sends an event.
      socket.write(
        stream
          ? "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
          : "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n",
      );
      return undefined;
    case "endless": {
      // A body that keeps coming and never ends: JSON whitespace, or SSE comments.
      socket.write(
        `HTTP/1.1 200 OK\r\nContent-Type: ${stream ? "text/event-stream" : "application/json"}\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      const piece = stream ? "2\r\n:\n\r\n" : "1\r\n \r\n";
      const timer = setInterval(() => socket.write(piece), 5);
      return () => clearInterval(timer);
    }
    case "informational": {
      // Expect: 100-continue and Early Hints, and never a final answer.
      socket.write("HTTP/1.1 100 Continue\r\n\r\n");
      const timer = setInterval(() => socket.write("HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"), 5);
      return () => clearInterval(timer);
    }
  }
}

interface RawServer {
  url: string;
  behaviour: Behaviour;
  /** Sockets that carried a request and are not closed yet (a pool's idle spare is not a call's). */
  open: Set<net.Socket>;
  /** Requests received so far. */
  readonly requests: number;
  close(): Promise<void>;
}

async function startRawServer(): Promise<RawServer> {
  const open = new Set<net.Socket>();
  const state = { behaviour: "silent" as Behaviour, requests: 0 };
  const server = net.createServer((socket) => {
    let stop: (() => void) | undefined;
    let head = "";
    let answered = false;
    socket.on("data", (chunk: Buffer) => {
      if (answered) return;
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      answered = true;
      state.requests++;
      open.add(socket);
      stop = behave(state.behaviour, socket, /accept: text\/event-stream/i.test(head));
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      stop?.();
      open.delete(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get behaviour() {
      return state.behaviour;
    },
    set behaviour(b: Behaviour) {
      state.behaviour = b;
    },
    open,
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
        // Idle spares of a pool end with the pool.
        server.unref();
      }),
  };
}

let raw: RawServer;
beforeAll(async () => {
  raw = await startRawServer();
});
afterAll(() => raw.close());

type Wire = "JSONRPC" | "HTTP+JSON" | "JSONRPC 0.3" | "HTTP+JSON 0.3";
type ClientKind = "node:http" | "fetch";

function transportOf(wire: Wire, options: HttpTransportOptions): A2ATransport {
  switch (wire) {
    case "JSONRPC":
      return createJsonRpcTransport(options);
    case "HTTP+JSON":
      return createRestTransport(options);
    case "JSONRPC 0.3":
      return createJsonRpcTransportV03(options);
    case "HTTP+JSON 0.3":
      return createRestTransportV03(options);
  }
}

function clientOf(wire: Wire, kind: ClientKind, options: Partial<HttpTransportOptions> = {}): A2AClient {
  const httpClient = kind === "node:http" ? createNodeHttpClient() : createFetchHttpClient();
  return new A2AClient(transportOf(wire, { baseUrl: raw.url, httpClient, ...options }));
}

/** How a call settled, and how long it took. */
async function settle(p: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const start = performance.now();
  const error = await within(
    p.then(
      () => new Error("the call succeeded"),
      (e: unknown) => e,
    ),
    BOUND_MS + 1000,
    "the call settling",
  );
  return { error, ms: performance.now() - start };
}

/** Reads a stream to its end or failure. */
async function drain(source: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of source) {
    // Nothing arrives in these tests.
  }
}

/** Every socket the server accepted is closed soon after the call settled (destroyed by the client). */
async function noSocketLeft(): Promise<void> {
  await expect.poll(() => raw.open.size, { timeout: 1000, interval: 10 }).toBe(0);
}

/** Runs `body` and checks that the package left no timer armed. */
async function withoutTimersLeft(body: () => Promise<void>): Promise<void> {
  const timers = trackTimers(SRC);
  try {
    await body();
    expect(await timers.live()).toEqual([]);
  } finally {
    timers.stop();
  }
}

/** What a call that met `behaviour` must fail with. */
function expectFailure(error: unknown, behaviour: Behaviour, kind: ClientKind, timeout: "deadline" | "idle", ms: number): void {
  expect(error).toBeInstanceOf(A2AError);
  if (behaviour === "upgrade") {
    // node:http's client reports it as what it is; fetch refuses the upgrade itself.
    if (kind === "node:http") expect(error).toBeInstanceOf(ProtocolError);
    return;
  }
  if (behaviour === "informational" && kind === "fetch" && !(error instanceof CallTimeoutError)) return; // undici may refuse a 1xx flood
  expect(error).toBeInstanceOf(CallTimeoutError);
  expect((error as CallTimeoutError).kind).toBe(timeout);
  // The message names where and how long.
  expect((error as Error).message).toContain(raw.url);
  expect((error as Error).message).toContain(`${ms} ms`);
}

const WIRES_1_0: readonly Wire[] = ["JSONRPC", "HTTP+JSON"];
const CLIENTS: readonly ClientKind[] = ["node:http", "fetch"];

describe.each(WIRES_1_0.flatMap((w) => CLIENTS.map((c) => [w, c] as const)))(
  "%s over %s: nothing the server does outlives the call",
  (wire, kind) => {
    it.each(BEHAVIOURS)("unary, server %s: settles by timeoutMs and closes the socket", async (behaviour) => {
      raw.behaviour = behaviour;
      await withoutTimersLeft(async () => {
        const { error, ms } = await settle(clientOf(wire, kind).getTask({ id: "t1" }, { timeoutMs: timeoutFor(behaviour) }));
        expectFailure(error, behaviour, kind, "deadline", 60);
        expect(ms).toBeLessThan(BOUND_MS);
        await noSocketLeft();
      });
    });

    it.each(BEHAVIOURS.filter((b) => b !== "endless"))(
      "stream, server %s: settles by idleTimeoutMs and closes the socket",
      async (behaviour) => {
        raw.behaviour = behaviour;
        await withoutTimersLeft(async () => {
          const client = clientOf(wire, kind, { idleTimeoutMs: timeoutFor(behaviour) });
          const { error, ms } = await settle(drain(client.subscribeToTask({ id: "t1" }, { resume: false })));
          expectFailure(error, behaviour, kind, "idle", 60);
          expect(ms).toBeLessThan(BOUND_MS);
          await noSocketLeft();
        });
      },
    );

    it("stream whose body never ends: settles by its timeoutMs, and by its signal", async () => {
      raw.behaviour = "endless";
      await withoutTimersLeft(async () => {
        // Bytes keep coming, so the idle timeout (long here) never fires.
        const client = clientOf(wire, kind, { idleTimeoutMs: 5000 });
        const timed = await settle(drain(client.subscribeToTask({ id: "t1" }, { resume: false, timeoutMs: 80 })));
        expectFailure(timed.error, "endless", kind, "deadline", 80);
        expect(timed.ms).toBeLessThan(BOUND_MS);
        await noSocketLeft();

        const controller = new AbortController();
        const stop = setTimeout(() => controller.abort(), 40);
        const aborted = await settle(
          drain(client.sendStreamingMessage({ message: userMessage("hi") }, { resume: false, signal: controller.signal })),
        );
        clearTimeout(stop);
        expect(aborted.error).toBeInstanceOf(AbortedError);
        expect(aborted.ms).toBeLessThan(BOUND_MS);
        await noSocketLeft();
      });
    });

    it("stream of SSE keep-alive comments only: alive past idleTimeoutMs (the connection is), ended by its signal", async () => {
      raw.behaviour = "endless";
      await withoutTimersLeft(async () => {
        const controller = new AbortController();
        // Long enough that a busy machine's pauses do not pass for silence; the signal comes after two of them.
        const stop = setTimeout(() => controller.abort(), 1000);
        const client = clientOf(wire, kind, { idleTimeoutMs: 400 });
        const { error, ms } = await settle(drain(client.subscribeToTask({ id: "t1" }, { resume: false, signal: controller.signal })));
        clearTimeout(stop);
        expect(error).toBeInstanceOf(AbortedError);
        expect(ms).toBeGreaterThanOrEqual(900);
        await noSocketLeft();
      });
    });

    it.each(["silent", "headers", "informational"] as const)(
      "unary, server %s: an aborted signal ends the call at once",
      async (behaviour) => {
        raw.behaviour = behaviour;
        const controller = new AbortController();
        const stop = setTimeout(() => controller.abort(), 30);
        const { error, ms } = await settle(
          clientOf(wire, kind).sendMessage({ message: userMessage("hi") }, { signal: controller.signal, timeoutMs: 0 }),
        );
        clearTimeout(stop);
        if (!(behaviour === "informational" && kind === "fetch" && !(error instanceof AbortedError)))
          expect(error).toBeInstanceOf(AbortedError);
        expect(ms).toBeLessThan(BOUND_MS);
        await noSocketLeft();
      },
    );
  },
);

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

describe("node:http client and 101 Switching Protocols", () => {
  it("fails at once with a ProtocolError naming the status and the URL, and destroys the socket", async () => {
    raw.behaviour = "upgrade";
    // No timeout at all: only the answer itself can end this call.
    const { error, ms } = await settle(clientOf("JSONRPC", "node:http").getTask({ id: "t1" }, { timeoutMs: 0 }));
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).httpStatus).toBe(101);
    expect((error as Error).message).toContain("101 Switching Protocols");
    expect((error as Error).message).toContain(raw.url);
    expect(ms).toBeLessThan(BOUND_MS);
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

describe("gRPC-web (connect's runner over fetch) with a fetch that ignores its signal", () => {
  const fetchNever = (() => new Promise<Response>(() => {})) as typeof fetch;
  const client = (idleTimeoutMs?: number) =>
    new A2AClient(createGrpcWebTransport({ baseUrl: "http://127.0.0.1:9", fetch: fetchNever, idleTimeoutMs }));

  it("unary: the deadline and the signal end the call", async () => {
    await withoutTimersLeft(async () => {
      const timed = await settle(client().getTask({ id: "t1" }, { timeoutMs: 30 }));
      expect(timed.error).toBeInstanceOf(CallTimeoutError);
      expect((timed.error as CallTimeoutError).kind).toBe("deadline");
      expect(timed.ms).toBeLessThan(BOUND_MS);

      const controller = new AbortController();
      const stop = setTimeout(() => controller.abort(), 20);
      const aborted = await settle(client().getTask({ id: "t1" }, { signal: controller.signal, timeoutMs: 0 }));
      clearTimeout(stop);
      expect(aborted.error).toBeInstanceOf(AbortedError);
    });
  });

  it("stream: the idle timeout runs from the request, and the signal ends it", async () => {
    await withoutTimersLeft(async () => {
      const idle = await settle(drain(client(30).subscribeToTask({ id: "t1" }, { resume: false })));
      expect(idle.error).toBeInstanceOf(CallTimeoutError);
      expect((idle.error as CallTimeoutError).kind).toBe("idle");
      expect(idle.ms).toBeLessThan(BOUND_MS);

      const controller = new AbortController();
      const stop = setTimeout(() => controller.abort(), 20);
      const aborted = await settle(drain(client(0).subscribeToTask({ id: "t1" }, { resume: false, signal: controller.signal })));
      clearTimeout(stop);
      expect(aborted.error).toBeInstanceOf(AbortedError);
    });
  });
});

describe("what a call awaits before its request: token fetches, pages", () => {
  it("a token endpoint that never answers does not hold a call past its deadline or its signal", async () => {
    raw.behaviour = "silent";
    const provider = clientCredentialsProvider({ tokenUrl: `${raw.url}/token`, clientId: "id", clientSecret: "secret", timeoutMs: 1500 });
    const client = new A2AClient(createJsonRpcTransport({ baseUrl: `${raw.url}/a2a`, interceptors: [bearerAuth(provider)] }));
    const timed = await settle(client.getTask({ id: "t1" }, { timeoutMs: 60 }));
    expect(timed.error).toBeInstanceOf(CallTimeoutError);
    expect(timed.ms).toBeLessThan(1000);

    const controller = new AbortController();
    const stop = setTimeout(() => controller.abort(), 30);
    const aborted = await settle(drain(client.subscribeToTask({ id: "t1" }, { resume: false, signal: controller.signal })));
    clearTimeout(stop);
    expect(aborted.error).toBeInstanceOf(AbortedError);
    expect(aborted.ms).toBeLessThan(1000);
    // The shared token request ends by its own timeout, and lets its socket go.
    await expect(provider.token()).rejects.toBeInstanceOf(AuthenticationError);
    await noSocketLeft();
  });

  it("a token request whose fetch ignores its signal fails by the provider's timeout instead of holding every later call", async () => {
    const fetchNever = (() => new Promise<Response>(() => {})) as typeof fetch;
    const provider = clientCredentialsProvider({
      tokenUrl: "http://127.0.0.1:9/token",
      clientId: "id",
      clientSecret: "secret",
      timeoutMs: 40,
      fetch: fetchNever,
    });
    const { error, ms } = await settle(provider.token());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toContain("no answer within 40 ms");
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it("a listing whose agent never stops paging ends by the caller's signal, also while a page hangs", async () => {
    let pages = 0;
    // New page tokens forever; from the fourth page on, no answer and no regard for the signal.
    const httpClient: UniversalClientFn = async () => {
      if (++pages > 3) return new Promise(() => {});
      const body = new TextEncoder().encode(JSON.stringify({ tasks: [], nextPageToken: `p${pages}` }));
      return { status: 200, header: new Headers({ "Content-Type": "application/json" }), body: single(body), trailer: new Headers() };
    };
    const client = new A2AClient(createRestTransport({ baseUrl: "http://127.0.0.1:9", httpClient }));
    const controller = new AbortController();
    const listing = (async () => {
      for await (const _ of listAllTasks(client, {}, { signal: controller.signal, timeoutMs: 0 })) {
        // No tasks: only pages.
      }
    })();
    await expect.poll(() => pages).toBe(4);
    controller.abort();
    const { error, ms } = await settle(listing);
    expect(error).toBeInstanceOf(AbortedError);
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it.each(["listAllTasks", "listTasksPages"] as const)(
    "%s: a reader that returns while a page is on its way ends the listing at once, and the page's request",
    async (name) => {
      raw.behaviour = "silent";
      await withoutTimersLeft(async () => {
        const before = raw.requests;
        const client = clientOf("HTTP+JSON", "node:http");
        const listing: AsyncGenerator<unknown, void, undefined> = name === "listAllTasks" ? listAllTasks(client) : listTasksPages(client);
        const pending = listing.next();
        await expect.poll(() => raw.requests, { timeout: 1000, interval: 5 }).toBe(before + 1);
        await within(listing.return(), 500, "the reader's return");
        expect(await within(pending, 500, "the read left pending")).toEqual({ done: true, value: undefined });
        await noSocketLeft();
        expect(raw.requests).toBe(before + 1);
      });
    },
  );
});

function single(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  return {
    async *[Symbol.asyncIterator]() {
      yield bytes;
    },
  };
}

describe("failover: the call's deadline bounds every interface tried, not each one", () => {
  /** The call's timeout; each gateway answers 502 (no A2A error: the agent behind it is away) after half of it. */
  const T = 1000;
  const lateGateway = () =>
    startFakeServer((_req, res) => {
      const timer = setTimeout(() => res.writeHead(502).end(), T / 2);
      res.once("close", () => clearTimeout(timer));
    });

  it.each(["unary", "stream"] as const)(
    "%s: CallTimeoutError by timeoutMs; the next interface gets what is left, and none is tried after it",
    async (kind) => {
      const gateways = await Promise.all([lateGateway(), lateGateway(), lateGateway()]);
      try {
        const interfaces = gateways.map((g) => ({ url: `${g.url}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }));
        // A card given as its JSON, read as a fetched one is.
        const { client } = await connect(cardJson({ supportedInterfaces: interfaces }) as ConnectTarget);
        const call =
          kind === "unary"
            ? client.getTask({ id: "t1" }, { timeoutMs: T })
            : drain(client.subscribeToTask({ id: "t1" }, { timeoutMs: T, resume: false }));
        const { error, ms } = await settle(call);
        expect(error).toBeInstanceOf(CallTimeoutError);
        expect((error as CallTimeoutError).kind).toBe("deadline");
        // Each interface with the whole timeout would take 1.5 T (three 502s).
        expect(ms).toBeLessThan(T * 1.4);
        expect(gateways.map((g) => g.requests.length)).toEqual([1, 1, 0]);
      } finally {
        await Promise.all(gateways.map((g) => g.close()));
      }
    },
  );
});

describe("discovery with a fetch that ignores its signal", () => {
  const fetchNever = (() => new Promise<Response>(() => {})) as typeof fetch;
  /** Headers at once, then a JSON body whose reads never settle. */
  const fetchHeadersOnly = (async () =>
    new Response(new ReadableStream({ pull: () => new Promise<void>(() => {}) }), {
      headers: { "Content-Type": "application/json" },
    })) as typeof fetch;

  it.each([
    ["never answers", fetchNever],
    ["sends headers and a body that never ends", fetchHeadersOnly],
  ] as const)("resolveAgentCard, a fetch that %s: CallTimeoutError by timeoutMs, AbortedError by the signal", async (_, fetchFn) => {
    await withoutTimersLeft(async () => {
      const timed = await settle(resolveAgentCard("http://127.0.0.1:9/c.json", { fetch: fetchFn, cache: false, timeoutMs: 60 }));
      expect(timed.error).toBeInstanceOf(CallTimeoutError);
      expect((timed.error as Error).message).toContain("http://127.0.0.1:9/c.json");
      expect(timed.ms).toBeLessThan(BOUND_MS);

      const controller = new AbortController();
      const stop = setTimeout(() => controller.abort(), 30);
      const aborted = await settle(
        resolveAgentCard("http://127.0.0.1:9/c.json", { fetch: fetchFn, cache: false, signal: controller.signal }),
      );
      clearTimeout(stop);
      expect(aborted.error).toBeInstanceOf(AbortedError);
      expect(aborted.ms).toBeLessThan(BOUND_MS);
    });
  });

  it("a token provider whose discovery document never comes fails by its timeoutMs, and so does the next token asked for", async () => {
    const provider = discoveredTokenProvider({
      discoveryUrl: "http://127.0.0.1:9/.well-known/openid-configuration",
      clientId: "id",
      clientSecret: "secret",
      timeoutMs: 40,
      fetch: fetchNever,
    });
    for (let i = 0; i < 2; i++) {
      const { error, ms } = await settle(provider.token());
      expect(error).toBeInstanceOf(AuthenticationError);
      expect((error as Error).message).toContain("within 40 ms");
      expect(ms).toBeLessThan(BOUND_MS);
    }
  });

  it("verifyAgentCard: a key set whose fetch never answers fails the signature by timeoutMs (jku_fetch_failed)", async () => {
    const key = await keyPair("ES256", "k1");
    const card = await signJson(cardJson(), key, "ES256", { jku: "https://keys.example/jwks.json" });
    const { error, ms } = await settle(
      verifyAgentCard(card, { cardUrl: "https://keys.example/c.json", fetch: fetchNever, timeoutMs: 40 }).then((r) => {
        throw Object.assign(new Error("verified"), { result: r });
      }),
    );
    expect((error as { result?: unknown }).result).toMatchObject({ verified: false, failures: [{ code: "jku_fetch_failed" }] });
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it("a card store that never answers holds no resolve past its timeoutMs", async () => {
    const stuck = { get: () => new Promise<undefined>(() => {}), set: () => {}, delete: () => {} };
    const { error, ms } = await settle(resolveAgentCard("http://127.0.0.1:9/c.json", { cache: stuck, timeoutMs: 60 }));
    expect(error).toBeInstanceOf(CallTimeoutError);
    expect(ms).toBeLessThan(BOUND_MS);
  });
});

describe("a signal already aborted when the call starts", () => {
  /** How many connections a peer that never answers was opened to. */
  let connections = 0;
  let peer: net.Server;
  let peerUrl: string;
  beforeAll(async () => {
    peer = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => peer.listen(0, "127.0.0.1", resolve));
    peerUrl = `http://127.0.0.1:${(peer.address() as AddressInfo).port}`;
    // Loads the token code (on demand), so that a token request a call would start is made within a turn of the event loop.
    const tokenFetch = (async () => Response.json({ access_token: "t", token_type: "Bearer" })) as typeof fetch;
    await clientCredentialsProvider({ tokenUrl: `${peerUrl}/token`, clientId: "id", clientSecret: "secret", fetch: tokenFetch }).token();
  });
  afterAll(() => new Promise<void>((resolve) => peer.close(() => resolve())));

  type Kind = Wire | "GRPC" | "GRPC 0.3" | "gRPC-web";
  const KINDS: readonly Kind[] = ["JSONRPC", "HTTP+JSON", "JSONRPC 0.3", "HTTP+JSON 0.3", "GRPC", "GRPC 0.3", "gRPC-web"];

  it.each(KINDS)("%s: AbortedError at once; no token is asked for and nothing is sent, unary or stream", async (kind) => {
    let tokens = 0;
    const provider = clientCredentialsProvider({
      tokenUrl: `${peerUrl}/token`,
      clientId: "id",
      clientSecret: "secret",
      fetch: (async () => {
        tokens++;
        return Response.json({ access_token: "t", token_type: "Bearer" });
      }) as typeof fetch,
    });
    const interceptors = [bearerAuth(provider)];
    const common = { baseUrl: peerUrl, interceptors, pingIntervalMs: Infinity };
    const transport =
      kind === "GRPC"
        ? createGrpcTransport(common)
        : kind === "GRPC 0.3"
          ? createGrpcTransportV03(common)
          : kind === "gRPC-web"
            ? createGrpcWebTransport(common)
            : transportOf(kind, { ...common, httpClient: createNodeHttpClient() });
    const client = new A2AClient(transport);
    const unary = await settle(client.getTask({ id: "t1" }, { signal: AbortSignal.abort() }));
    const stream = await settle(drain(client.subscribeToTask({ id: "t1" }, { signal: AbortSignal.abort(), resume: false })));
    for (const { error, ms } of [unary, stream]) {
      expect(error).toBeInstanceOf(AbortedError);
      expect(ms).toBeLessThan(BOUND_MS);
    }
    // What the calls would have started runs within a turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    expect({ tokens, connections }).toEqual({ tokens: 0, connections: 0 });
  });
});

describe("a timeout longer than a timer can hold (2^31 - 1 ms, about 24.8 days) is no limit, not a failure at once", () => {
  const completed = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } };
  /** An agent (JSON-RPC), its card and its token endpoint, each answering after a few milliseconds. */
  const slowAgent = () =>
    startFakeServer((req, res, body) => {
      const answer = () => {
        if (req.url === "/token") return sendJson(res, 200, { access_token: "t", token_type: "Bearer" });
        if (req.url === "/c.json") return sendJson(res, 200, signedCard);
        const { id } = JSON.parse(body) as { id: number };
        if (!/event-stream/.test(String(req.headers.accept))) return sendJson(res, 200, { jsonrpc: "2.0", id, result: completed });
        startSse(res);
        res.end(sseFrame({ jsonrpc: "2.0", id, result: { task: completed } }));
      };
      const timer = setTimeout(answer, 20);
      res.once("close", () => clearTimeout(timer));
    });

  let key: Awaited<ReturnType<typeof keyPair>>;
  let signedCard: Record<string, unknown>;
  beforeAll(async () => {
    key = await keyPair("ES256", "k1");
    signedCard = await signJson(cardJson(), key, "ES256");
  });

  it.each([Infinity, 2 ** 31, 3e9])("%s ms: calls, streams, retries, waits, token requests and resolves succeed", async (ms) => {
    const agent = await slowAgent();
    try {
      const provider = clientCredentialsProvider({ tokenUrl: `${agent.url}/token`, clientId: "id", clientSecret: "s", timeoutMs: ms });
      const client = new A2AClient(
        createJsonRpcTransport({ baseUrl: `${agent.url}/a2a`, timeoutMs: ms, idleTimeoutMs: ms, interceptors: [bearerAuth(provider)] }),
      );
      await expect(client.getTask({ id: "t1" })).resolves.toMatchObject({ id: "t1" });
      await expect(client.getTask({ id: "t1" }, { timeoutMs: ms, retry: { attempts: 2 } })).resolves.toMatchObject({ id: "t1" });
      await expect(drain(client.subscribeToTask({ id: "t1" }, { timeoutMs: ms }))).resolves.toBeUndefined();
      if (Number.isFinite(ms)) {
        await expect(waitForTask(client, "t1", { timeoutMs: ms, subscribe: false })).resolves.toMatchObject({ id: "t1" });
      }
      await expect(
        resolveAgentCard(`${agent.url}/c.json`, { cache: false, timeoutMs: ms, verification: { keys: { keys: [key.jwk] } } }),
      ).resolves.toMatchObject({ verification: { verified: true } });
    } finally {
      await agent.close();
    }
  });
});

describe.each(WIRES_1_0.flatMap((w) => CLIENTS.map((c) => [w, c] as const)))(
  "%s over %s: a reader that returns while its stream is still opening",
  (wire, kind) => {
    it.each([
      ["off", false],
      ["on", { backoff: { initialMs: 1, maxMs: 1 } }],
    ] as const)("resume %s: the request is given up at once, the read left pending ends, and nothing more is sent", async (_, resume) => {
      raw.behaviour = "silent";
      await withoutTimersLeft(async () => {
        const before = raw.requests;
        // Only the reader can end this stream soon: the server is silent and the idle timeout long.
        const it = clientOf(wire, kind, { idleTimeoutMs: 60_000 }).subscribeToTask({ id: "t1" }, { resume })[Symbol.asyncIterator]();
        const pending = it.next();
        await expect.poll(() => raw.requests, { timeout: 1000, interval: 5 }).toBe(before + 1);
        await within(it.return!(), 500, "the reader's return");
        expect(await within(pending, 500, "the read left pending")).toEqual({ done: true, value: undefined });
        await noSocketLeft();
        expect(raw.requests).toBe(before + 1);
      });
    });
  },
);

describe("the extended card", () => {
  /**
   * A session whose agent answers GetExtendedAgentCard with a signed card
   * whose key set, on the agent's own origin, never answers; `asked`
   * settles when the key set is requested.
   */
  async function withSilentKeySet(body: (session: AgentSession, asked: Promise<void>) => Promise<void>): Promise<void> {
    const key = await keyPair("ES256", "k1");
    let extended = "";
    let keySetAsked!: () => void;
    const asked = new Promise<void>((resolve) => (keySetAsked = resolve));
    const agent = await startFakeServer((req, res, body) => {
      if (req.url !== "/a2a") return keySetAsked();
      const { id } = JSON.parse(body) as { id: number };
      res.writeHead(200, { "Content-Type": "application/json" }).end(`{"jsonrpc":"2.0","id":${id},"result":${extended}}`);
    });
    try {
      extended = JSON.stringify(await signJson(cardJson(), key, "ES256", { jku: `${agent.url}/keys.json` }));
      const publicCard = fromJson(AgentCardSchema, cardJson({ capabilities: { extendedAgentCard: true } }) as JsonValue);
      const session = new AgentSession(
        new A2AClient(createJsonRpcTransport({ baseUrl: `${agent.url}/a2a` })),
        { card: publicCard, url: `${agent.url}/.well-known/agent-card.json` },
        { verify: "required", verification: { jku: { allowHttp: true, cache: new JwksCache() } } },
      );
      await withoutTimersLeft(() => body(session, asked));
    } finally {
      await agent.close();
    }
  }

  it("extendedCard's timeoutMs bounds the verification too: key sets that never answer cannot hold it", async () => {
    await withSilentKeySet(async (session) => {
      const { error, ms } = await settle(session.extendedCard({ timeoutMs: 200 }));
      expect(error).toBeInstanceOf(CallTimeoutError);
      expect((error as Error).message).toContain("200 ms");
      expect(ms).toBeLessThan(BOUND_MS);
    });
  });

  it("a call that joins another's load of the extended card keeps its own deadline, and another's abort is not its answer", async () => {
    let requests = 0;
    // The first GetExtendedAgentCard is never answered; later ones are.
    const agent = await startFakeServer((_req, res, body) => {
      if (requests++ === 0) return;
      const { id } = JSON.parse(body) as { id: number };
      sendJson(res, 200, { jsonrpc: "2.0", id, result: cardJson({ description: "extended" }) });
    });
    try {
      const publicCard = fromJson(AgentCardSchema, cardJson({ capabilities: { extendedAgentCard: true } }) as JsonValue);
      const session = new AgentSession(new A2AClient(createJsonRpcTransport({ baseUrl: `${agent.url}/a2a` })), { card: publicCard });
      const first = new AbortController();
      const firstLoad = settle(session.extendedCard({ signal: first.signal, timeoutMs: 0 }));
      await expect.poll(() => requests, { timeout: 1000, interval: 5 }).toBe(1);

      const timed = await settle(session.extendedCard({ timeoutMs: 100 }));
      expect(timed.error).toBeInstanceOf(CallTimeoutError);
      expect(timed.ms).toBeLessThan(BOUND_MS);

      const joined = session.extendedCard();
      first.abort();
      expect((await firstLoad).error).toBeInstanceOf(AbortedError);
      await expect(within(joined, BOUND_MS, "the joined load")).resolves.toMatchObject({ description: "extended" });
    } finally {
      await agent.close();
    }
  });

  it("a call that joins another's load of the extended card is not failed by the other's shorter timeoutMs", async () => {
    let requests = 0;
    let firstAsked!: () => void;
    const asked = new Promise<void>((resolve) => (firstAsked = resolve));
    // The first GetExtendedAgentCard is never answered; later ones are.
    const agent = await startFakeServer((_req, res, body) => {
      if (requests++ === 0) return firstAsked();
      const { id } = JSON.parse(body) as { id: number };
      sendJson(res, 200, { jsonrpc: "2.0", id, result: cardJson({ description: "extended" }) });
    });
    try {
      const publicCard = fromJson(AgentCardSchema, cardJson({ capabilities: { extendedAgentCard: true } }) as JsonValue);
      const session = new AgentSession(new A2AClient(createJsonRpcTransport({ baseUrl: `${agent.url}/a2a` })), { card: publicCard });
      const hasty = settle(session.extendedCard({ timeoutMs: 100 }));
      await within(asked, BOUND_MS, "the first request");
      const patient = session.extendedCard({ timeoutMs: 5_000 });
      expect((await hasty).error).toBeInstanceOf(CallTimeoutError);
      await expect(within(patient, BOUND_MS, "the joined load")).resolves.toMatchObject({ description: "extended" });
    } finally {
      await agent.close();
    }
  });

  it("extendedCard's signal ends the verification at once with AbortedError", async () => {
    await withSilentKeySet(async (session, asked) => {
      const controller = new AbortController();
      const pending = settle(session.extendedCard({ signal: controller.signal }));
      await within(asked, BOUND_MS, "the key set request");
      const abortedAt = performance.now();
      controller.abort();
      const { error } = await pending;
      expect(error).toBeInstanceOf(AbortedError);
      expect(performance.now() - abortedAt).toBeLessThan(500);
    });
  });
});

describe("the caller's abort reason", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** An HTTP client that answers every request at once: with `status` and a JSON body, or with an event stream of `events`. */
  const answering =
    (status: number, body: unknown, stream = false): UniversalClientFn =>
    async () => ({
      status,
      header: new Headers({ "Content-Type": stream ? "text/event-stream" : "application/json" }),
      body: single(new TextEncoder().encode(stream ? sseFrame(body) : JSON.stringify(body))),
      trailer: new Headers(),
    });
  const working = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } };
  const over = (httpClient: UniversalClientFn) => new A2AClient(createRestTransport({ baseUrl: "http://127.0.0.1:9", httpClient }));

  /** Each step, started with `signal`; the abort lands in it (its waits are long, the agent answers at once). */
  const steps: Record<string, (signal: AbortSignal) => Promise<unknown>> = {
    "a call waiting for its answer (node:http)": (signal) => clientOf("JSONRPC", "node:http").getTask({ id: "t1" }, { signal }),
    "a call waiting for its answer (fetch)": (signal) => clientOf("HTTP+JSON", "fetch").getTask({ id: "t1" }, { signal }),
    "a resolve waiting for its card": (signal) => resolveAgentCard(`${raw.url}/c.json`, { cache: false, signal }),
    "a retry's wait": (signal) =>
      over(answering(503, {})).getTask({ id: "t1" }, { signal, retry: { attempts: 2, initialDelayMs: 10_000, maxDelayMs: 10_000 } }),
    "waitForTask between polls": (signal) => waitForTask(over(answering(200, working)), "t1", { signal, subscribe: false, pollMs: 10_000 }),
    "a resumption's backoff": (signal) =>
      drain(
        over(answering(200, { task: working }, true)).subscribeToTask(
          { id: "t1" },
          { signal, resume: { backoff: { initialMs: 10_000, maxMs: 10_000 } } },
        ),
      ),
  };

  it.each(Object.keys(steps))("%s: AbortedError, with the reason as its cause", async (step) => {
    raw.behaviour = "silent";
    // The longest backoff and retry waits the options allow.
    vi.spyOn(Math, "random").mockReturnValue(0.99);
    const reason = new Error("the user closed the page");
    const controller = new AbortController();
    const stop = setTimeout(() => controller.abort(reason), 30);
    const { error, ms } = await settle(steps[step]!(controller.signal));
    clearTimeout(stop);
    expect(error).toBeInstanceOf(AbortedError);
    expect((error as Error).cause).toBe(reason);
    expect(ms).toBeLessThan(BOUND_MS);
  });
});

describe.each((["JSONRPC", "HTTP+JSON"] as const).flatMap((w) => CLIENTS.map((c) => [w, c] as const)))(
  "%s over %s: a stream held open after its task settled",
  (wire, kind) => {
    // A resuming stream always ended there; one with resume: false read on until the server closed it.
    it.each(["COMPLETED", "INPUT_REQUIRED"] as const)(
      "task %s, resume: false: the stream ends at that event, as a resuming one does, though the server keeps sending keep-alive comments; its connection is closed",
      async (state) => {
        let connection: Promise<void> | undefined;
        const agent = await startFakeServer((_req, res, body) => {
          const event = { task: { id: "t1", contextId: "c1", status: { state: `TASK_STATE_${state}` } } };
          startSse(res);
          res.write(sseFrame(wire === "JSONRPC" ? { jsonrpc: "2.0", id: (JSON.parse(body) as { id: number }).id, result: event } : event));
          // Well within the idle timeout, for ever: only the client can end this stream.
          const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), 10);
          connection = new Promise((resolve) =>
            res.once("close", () => {
              clearInterval(keepAlive);
              resolve();
            }),
          );
        });
        try {
          await withoutTimersLeft(async () => {
            const httpClient = kind === "node:http" ? createNodeHttpClient() : createFetchHttpClient();
            const client = new A2AClient(transportOf(wire, { baseUrl: agent.url, httpClient, idleTimeoutMs: 200 }));
            const seen: unknown[] = [];
            const read = (async () => {
              for await (const event of client.subscribeToTask({ id: "t1" }, { resume: false })) seen.push(event);
            })();
            const { error, ms } = await settle(read);
            expect(error).toEqual(new Error("the call succeeded"));
            expect(seen).toHaveLength(1);
            expect(ms).toBeLessThan(BOUND_MS);
            await within(connection!, BOUND_MS, "the stream's connection closing");
          });
        } finally {
          await agent.close();
        }
      },
    );
  },
);

describe("connect() with a card in hand whose key set never answers", () => {
  /** A signed card whose `jku`, on a server of its own, is asked for and never answered; `asked` settles when it is. */
  async function withSilentKeySet(
    body: (card: unknown, jku: { allowHttp: true; allowedOrigins: string[] }, asked: Promise<void>) => Promise<void>,
  ) {
    const key = await keyPair("ES256", "k1");
    let keySetAsked!: () => void;
    const asked = new Promise<void>((resolve) => (keySetAsked = resolve));
    const keys = await startFakeServer(() => keySetAsked());
    try {
      const card = await signJson(cardJson(), key, "ES256", { jku: `${keys.url}/keys.json` });
      await withoutTimersLeft(() => body(card, { allowHttp: true, allowedOrigins: [keys.url] }, asked));
    } finally {
      await keys.close();
    }
  }

  it("its signal ends the verification at once with AbortedError, the reason as cause", async () => {
    await withSilentKeySet(async (card, jku, asked) => {
      const controller = new AbortController();
      const reason = new Error("the user left");
      const pending = settle(
        connect(card as ConnectTarget, {
          signal: controller.signal,
          verify: "required",
          verification: { jku: { ...jku, cache: new JwksCache() } },
        }),
      );
      await within(asked, BOUND_MS, "the key set request");
      controller.abort(reason);
      const { error } = await pending;
      expect(error).toBeInstanceOf(AbortedError);
      expect((error as Error).cause).toBe(reason);
    });
  });

  it("its timeoutMs bounds the verification: CallTimeoutError, not the key set's own longer timeout", async () => {
    await withSilentKeySet(async (card, jku) => {
      const { error, ms } = await settle(
        connect(card as ConnectTarget, { timeoutMs: 200, verify: "required", verification: { jku: { ...jku, cache: new JwksCache() } } }),
      );
      expect(error).toBeInstanceOf(CallTimeoutError);
      expect((error as Error).message).toContain("200 ms");
      expect(ms).toBeLessThan(BOUND_MS);
    });
  });
});

describe("connect()'s timeoutMs: the deadline of discovery and of every call of the session", () => {
  /**
   * An agent whose card names its own JSON-RPC interface, which takes
   * requests and answers none; a stream is answered, after `streamAfterMs`,
   * with one final event.
   */
  async function withHangingAgent(body: (url: string) => Promise<void>, streamAfterMs = 0) {
    const agent = await startFakeServer((req, res, text) => {
      if (req.url === "/.well-known/agent-card.json") {
        const rpc = { url: `${agent.url}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" };
        return sendJson(res, 200, cardJson({ supportedInterfaces: [rpc] }));
      }
      if (!text.includes("SendStreamingMessage")) return; // never answered
      startSse(res);
      const { id } = JSON.parse(text) as { id: number };
      const event = { statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } } };
      const timer = setTimeout(() => res.end(sseFrame({ jsonrpc: "2.0", id, result: event })), streamAfterMs);
      res.once("close", () => clearTimeout(timer));
    });
    try {
      await withoutTimersLeft(() => body(agent.url));
    } finally {
      await agent.close();
    }
  }

  it("a SendMessage that is never answered fails with CallTimeoutError by connect()'s timeoutMs, not the transport's minute", async () => {
    await withHangingAgent(async (url) => {
      const { client } = await connect(url, { timeoutMs: 200, cache: false });
      const { error, ms } = await settle(client.sendMessage({ message: userMessage("hi") }));
      expect(error).toBeInstanceOf(CallTimeoutError);
      expect((error as CallTimeoutError).kind).toBe("deadline");
      expect((error as Error).message).toContain("200 ms");
      expect(ms).toBeGreaterThanOrEqual(190);
      expect(ms).toBeLessThan(BOUND_MS);
    });
  }, 4000);

  it("transport.timeoutMs is the more specific for calls, and a call's own timeoutMs wins over both", async () => {
    await withHangingAgent(async (url) => {
      const session = await connect(url, { timeoutMs: 30_000, transport: { timeoutMs: 150 }, cache: false });
      const byTransport = await settle(session.client.getTask({ id: "t1" }));
      expect((byTransport.error as Error).message).toContain("150 ms");
      const byCall = await settle(session.client.getTask({ id: "t1" }, { timeoutMs: 100 }));
      expect((byCall.error as Error).message).toContain("100 ms");
      const { client } = await connect(url, { timeoutMs: 30_000, cache: false });
      const own = await settle(client.getTask({ id: "t1" }, { timeoutMs: 120 }));
      expect(own.error).toBeInstanceOf(CallTimeoutError);
      expect((own.error as Error).message).toContain("120 ms");
    });
  }, 4000);

  it("a stream keeps its meaning: no deadline unless its call sets one (it is bounded by its idle timeout)", async () => {
    await withHangingAgent(async (url) => {
      const { client } = await connect(url, { timeoutMs: 100, cache: false });
      const events = [];
      for await (const e of client.sendStreamingMessage({ message: userMessage("hi") }, { resume: false })) events.push(e);
      expect(events.map((e) => e.payload.case)).toEqual(["statusUpdate"]);
    }, 400);
  }, 4000);

  it("the CLI's --timeout is connect()'s: a GetTask never answered ends by it, exit 5", async () => {
    await withHangingAgent(async (url) => {
      const { code, stderr } = await within(runCli(["task", "get", url, "t1", "--timeout", "200"]), BOUND_MS, "the CLI");
      expect(code).toBe(EXIT.connection);
      expect(stderr).toMatch(/CallTimeoutError.*200 ms/);
    });
  }, 4000);

  it("0 is no limit for the calls and leaves discovery its default: connect() succeeds and a stream is served", async () => {
    await withHangingAgent(async (url) => {
      const { client } = await connect(url, { timeoutMs: 0, cache: false });
      const events = [];
      for await (const e of client.sendStreamingMessage({ message: userMessage("hi") }, { resume: false })) events.push(e);
      expect(events.map((e) => e.payload.case)).toEqual(["statusUpdate"]);
    });
  }, 4000);

  it("a card that is never served fails discovery by it", async () => {
    const silent = await startFakeServer(() => {});
    try {
      const { error, ms } = await settle(connect(silent.url, { timeoutMs: 200, cache: false }));
      expect(error).toBeInstanceOf(CallTimeoutError);
      expect(ms).toBeLessThan(BOUND_MS);
    } finally {
      await silent.close();
    }
  });
});
