/**
 * What the deadline tests of every step share: a raw TCP server on
 * 127.0.0.1 that, once a request has arrived, answers 101, answers nothing,
 * sends headers and then silence, trickles a body that never ends, or sends
 * only informational (1xx) answers; clients of the HTTP wires over node:http
 * or fetch; and the checks that a call settled within a bound, with the
 * package's error types, leaving no socket open and no timer armed.
 */
import * as net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect } from "vitest";
import {
  A2AClient,
  A2AError,
  CallTimeoutError,
  ProtocolError,
  createFetchHttpClient,
  createJsonRpcTransport,
  createJsonRpcTransportV03,
  createNodeHttpClient,
  createRestTransport,
  createRestTransportV03,
  type A2ATransport,
  type HttpTransportOptions,
} from "../../src/node.js";
import { within } from "./fake-server.js";
import { trackTimers } from "./timers.js";

/** Stack frames of the package's own code. */
const SRC = /[/\\]src[/\\]/;
/** How long any call of these tests may take to settle: its timeout is tens of ms. */
export const BOUND_MS = 1500;

/** What the raw server does once a request has arrived. */
export type Behaviour = "upgrade" | "silent" | "headers" | "endless" | "informational";
export const BEHAVIOURS: readonly Behaviour[] = ["upgrade", "silent", "headers", "endless", "informational"];
/** The timeout of a call: tens of ms, but longer for a 101, which must fail the call on its own, long before. */
export const timeoutFor = (b: Behaviour) => (b === "upgrade" ? 1000 : 60);

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

export interface RawServer {
  url: string;
  behaviour: Behaviour;
  /** Sockets that carried a request and are not closed yet (a pool's idle spare is not a call's). */
  open: Set<net.Socket>;
  /** Requests received so far. */
  readonly requests: number;
  close(): Promise<void>;
}

export async function startRawServer(): Promise<RawServer> {
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

/** The raw server of the test file that called useRawServer, started before its tests and closed after them. */
export let raw: RawServer;

/** Starts the raw server (`raw`) for the calling test file's tests, and closes it after them. */
export function useRawServer(): void {
  beforeAll(async () => {
    raw = await startRawServer();
  });
  afterAll(() => raw.close());
}

export type Wire = "JSONRPC" | "HTTP+JSON" | "JSONRPC 0.3" | "HTTP+JSON 0.3";
export type ClientKind = "node:http" | "fetch";

export function transportOf(wire: Wire, options: HttpTransportOptions): A2ATransport {
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

export function clientOf(wire: Wire, kind: ClientKind, options: Partial<HttpTransportOptions> = {}): A2AClient {
  const httpClient = kind === "node:http" ? createNodeHttpClient() : createFetchHttpClient();
  return new A2AClient(transportOf(wire, { baseUrl: raw.url, httpClient, ...options }));
}

/** How a call settled, and how long it took. */
export async function settle(call: Promise<unknown> | (() => Promise<unknown>)): Promise<{ error: unknown; ms: number }> {
  // Given the call itself, the clock starts before its synchronous start, which a loaded machine
  // can stretch by milliseconds: a lower bound on `ms` wants that form.
  const start = performance.now();
  const p = typeof call === "function" ? call() : call;
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
export async function drain(source: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of source) {
    // Nothing arrives in these tests.
  }
}

/** Every socket the server accepted is closed soon after the call settled (destroyed by the client). */
export async function noSocketLeft(): Promise<void> {
  await expect.poll(() => raw.open.size, { timeout: 1000, interval: 10 }).toBe(0);
}

/** Runs `body` and checks that the package left no timer armed. */
export async function withoutTimersLeft(body: () => Promise<void>): Promise<void> {
  const timers = trackTimers(SRC);
  try {
    await body();
    expect(await timers.live()).toEqual([]);
  } finally {
    timers.stop();
  }
}

/** What a call that met `behaviour` must fail with. */
export function expectFailure(error: unknown, behaviour: Behaviour, kind: ClientKind, timeout: "deadline" | "idle", ms: number): void {
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

export const WIRES_1_0: readonly Wire[] = ["JSONRPC", "HTTP+JSON"];
export const CLIENTS: readonly ClientKind[] = ["node:http", "fetch"];

/** A body of one chunk, `bytes`. */
export function single(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  return {
    async *[Symbol.asyncIterator]() {
      yield bytes;
    },
  };
}
