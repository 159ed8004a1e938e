import { createServer, type Server } from "node:http";
import { inspect } from "node:util";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Interceptor } from "@connectrpc/connect";
import {
  A2AClient,
  AbortedError,
  CallTimeoutError,
  ConnectionError,
  ProtocolError,
  createJsonRpcTransport,
  createNodeHttpClient,
  createRestTransport,
  userMessage,
} from "../../../src/node.js";
import { single } from "../../../src/base/iterables.js";

const TASK = { id: "t-1", contextId: "c-1", status: { state: "TASK_STATE_WORKING" } };
const update = (i: number) => ({
  statusUpdate: { taskId: "t-1", contextId: "c-1", status: { state: "TASK_STATE_WORKING" }, metadata: { i } },
});

let server: Server;
let base: string;
const sockets = new Set<unknown>();
const hung: Socket[] = [];
/** Resolves when the socket of the `n`th request to /hang (from 1) has been closed by the client. */
const hangClosed = async (n: number) => {
  while (hung.length < n) await new Promise((r) => setImmediate(r));
  const socket = hung[n - 1]!;
  if (!socket.destroyed) await new Promise((r) => socket.once("close", r));
};

beforeAll(async () => {
  server = createServer((req, res) => {
    sockets.add(req.socket);
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      if (req.url === "/rpc") {
        const rpc = JSON.parse(body) as { id: number };
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: rpc.id, result: { task: TASK } }));
      } else if (req.url === "/hang") {
        // No answer: the request ends when the client gives it up.
        hung.push(req.socket);
      } else if (req.url === "/rest/message:stream") {
        // Ten events, then silence: the stream stays open until the client leaves.
        res.writeHead(200, { "Content-Type": "text/event-stream" });
        for (let i = 0; i < 10; i++) res.write(`data: ${JSON.stringify(update(i))}\n\n`);
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe("createNodeHttpClient", () => {
  it("makes unary calls over one kept-alive connection", async () => {
    sockets.clear();
    const client = new A2AClient(createJsonRpcTransport({ baseUrl: `${base}/rpc`, httpClient: createNodeHttpClient() }));
    for (let i = 0; i < 5; i++) {
      const res = await client.sendMessage({ message: userMessage("hi") });
      expect(res.payload.case).toBe("task");
    }
    expect(sockets.size).toBe(1);
  });

  it("sends a body given as one chunk as it is, without reading it as a stream", async () => {
    const bytes = new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "GetTask", params: { id: "t-1" } }));
    const body = single(bytes);
    const read = vi.spyOn(body as { [Symbol.asyncIterator](): AsyncIterator<Uint8Array> }, Symbol.asyncIterator);
    const res = await createNodeHttpClient()({ url: `${base}/rpc`, method: "POST", header: new Headers(), body });
    let text = "";
    for await (const chunk of res.body) text += new TextDecoder().decode(chunk);
    expect(JSON.parse(text)).toMatchObject({ id: 7, result: { task: TASK } });
    expect(read).not.toHaveBeenCalled();
  });

  it("releases the connection when the reader stops early, and aborts with AbortedError", async () => {
    const client = new A2AClient(createRestTransport({ baseUrl: `${base}/rest`, httpClient: createNodeHttpClient() }));
    let seen = 0;
    for await (const _ of client.sendStreamingMessage({ message: userMessage("hi") }, { resume: false })) {
      if (++seen === 3) break;
    }
    expect(seen).toBe(3);

    const controller = new AbortController();
    const read = (async () => {
      for await (const _ of client.sendStreamingMessage({ message: userMessage("hi") }, { resume: false, signal: controller.signal })) {
        controller.abort();
      }
    })();
    await expect(read).rejects.toBeInstanceOf(AbortedError);
    // Nothing is left open on the server's side.
    await expect.poll(() => new Promise((r) => server.getConnections((_, n) => r(n)))).toBeLessThanOrEqual(1);
  });

  it("reports a refused connection as ConnectionError kind refused", async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const client = new A2AClient(createJsonRpcTransport({ baseUrl: `http://127.0.0.1:${port}/rpc`, httpClient: createNodeHttpClient() }));
    const e = await client.sendMessage({ message: userMessage("hi") }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionError);
    expect((e as ConnectionError).kind).toBe("refused");
  });

  it("sends each call the transport's headers, unchanged by another call's headers or interceptors", async () => {
    const seen: Record<string, string | undefined>[] = [];
    const echo = createServer((req, res) => {
      const { accept, "content-type": type, "content-length": length, "x-key": key, "x-call": call, host } = req.headers;
      seen.push({ accept, type, length, key, call, host } as Record<string, string | undefined>);
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: (JSON.parse(body) as { id: unknown }).id, result: { task: TASK } }));
      });
    });
    await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/rpc`;
    const httpClient = createNodeHttpClient();
    const tagging: Interceptor = (next) => (req) => {
      req.header.set("X-Call", "tagged");
      req.header.set("Content-Type", "text/plain");
      return next(req);
    };
    const plain = new A2AClient(createJsonRpcTransport({ baseUrl: url, httpClient, headers: { "X-Key": "k" } }));
    const intercepted = new A2AClient(
      createJsonRpcTransport({ baseUrl: url, httpClient, headers: { "X-Key": "k" }, interceptors: [tagging] }),
    );
    try {
      await plain.sendMessage({ message: userMessage("hi") });
      await plain.sendMessage({ message: userMessage("hi") }, { headers: { "X-Call": "own" } });
      await intercepted.sendMessage({ message: userMessage("hi") });
      await plain.sendMessage({ message: userMessage("a longer text") });
      const sent = { accept: "application/json", type: "application/json", key: "k", host: new URL(url).host };
      expect(seen.map(({ length: _, ...h }) => h)).toEqual([
        { ...sent, call: undefined },
        { ...sent, call: "own" },
        { ...sent, call: "tagged" },
        { ...sent, call: undefined },
      ]);
      // Each request's own length.
      expect(Number(seen[3]!.length)).toBeGreaterThan(Number(seen[0]!.length));
    } finally {
      echo.closeAllConnections();
      await new Promise((r) => echo.close(r));
    }
  });

  it("sends a request with a body the Host and credentials node:http gives one without, unless its headers have them", async () => {
    const echo = createServer((req, res) => {
      req.resume();
      req.on("end", () =>
        res.end(
          JSON.stringify({
            host: req.headers.host,
            auth: req.headers.authorization ?? null,
            length: req.headers["content-length"] ?? null,
          }),
        ),
      );
    });
    await new Promise<void>((r) => echo.listen(0, "::1", r));
    const port = (echo.address() as AddressInfo).port;
    const http = createNodeHttpClient();
    const seen = async (url: string, method: string, header = new Headers()) => {
      const body = method === "GET" ? undefined : single(new TextEncoder().encode("{}"));
      const res = await http({ url, method, header, body, signal: undefined });
      let text = "";
      for await (const chunk of res.body) text += new TextDecoder().decode(chunk);
      return JSON.parse(text) as { host: string; auth: string | null; length: string | null };
    };
    try {
      for (const url of [`http://[::1]:${port}/a`, `http://ann:p%40ss@[::1]:${port}/a`]) {
        const without = await seen(url, "GET");
        expect(await seen(url, "POST")).toEqual({ ...without, length: "2" });
      }
      const own = new Headers({ Host: "agent.example", Authorization: "Bearer t", "Content-Length": "99" });
      expect(await seen(`http://ann:p%40ss@[::1]:${port}/a`, "POST", own)).toEqual({
        host: "agent.example",
        auth: "Bearer t",
        length: "2",
      });
    } finally {
      echo.closeAllConnections();
      await new Promise((r) => echo.close(r));
    }
  });

  it("sends each request to its URL's host, path and query, with user info as Basic credentials", async () => {
    // Listening on the IPv6 loopback: its literal comes bracketed in URLs and bare to node:http.
    const echo = createServer((req, res) => res.end(JSON.stringify({ url: req.url, auth: req.headers.authorization ?? null })));
    await new Promise<void>((r) => echo.listen(0, "::1", r));
    const port = (echo.address() as AddressInfo).port;
    const http = createNodeHttpClient();
    const get = async (url: string) => {
      const res = await http({ url, method: "GET", header: new Headers(), body: undefined, signal: undefined });
      let text = "";
      for await (const chunk of res.body) text += new TextDecoder().decode(chunk);
      return JSON.parse(text) as { url: string; auth: string | null };
    };
    try {
      expect(await get(`http://[::1]:${port}/v1/tasks?pageSize=2`)).toEqual({ url: "/v1/tasks?pageSize=2", auth: null });
      expect(await get(`http://ann:p%40ss@[::1]:${port}/a`)).toEqual({ url: "/a", auth: `Basic ${btoa("ann:p@ss")}` });
      // More distinct URLs than the client keeps parsed, then the first again.
      for (let i = 0; i < 70; i++) expect((await get(`http://[::1]:${port}/tasks/${i}`)).url).toBe(`/tasks/${i}`);
      expect(await get(`http://[::1]:${port}/v1/tasks?pageSize=2`)).toEqual({ url: "/v1/tasks?pageSize=2", auth: null });
    } finally {
      echo.closeAllConnections();
      await new Promise((r) => echo.close(r));
    }
  });
});

describe("a response's headers and whole body (node:http)", () => {
  it("reads the headers as a Headers does, listing and changing them too", async () => {
    const srv = createServer((_req, res) => {
      res.setHeader("Set-Cookie", ["a=1", "b=2"]);
      res.setHeader("X-Answer", "42");
      res.end("{}");
    });
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/`;
      const res = await createNodeHttpClient()({ url, method: "GET", header: new Headers(), body: undefined, signal: undefined });
      const h = res.header;
      expect(h).toBeInstanceOf(Headers);
      // As console.log shows them.
      expect(inspect(h)).toContain("'x-answer': '42'");
      expect([h.get("x-ANSWER"), h.has("X-Answer"), h.get("Set-Cookie"), h.get("x-none"), h.has("x-none")]).toEqual([
        "42",
        true,
        "a=1, b=2",
        null,
        false,
      ]);
      expect(h.getSetCookie()).toEqual(["a=1", "b=2"]);
      expect([...h.keys()]).toEqual(expect.arrayContaining(["x-answer", "set-cookie", "content-length"]));
      expect(Object.fromEntries(new Headers(h))["x-answer"]).toBe("42");
      h.set("X-Answer", "43");
      h.delete("set-cookie");
      expect([h.get("x-answer"), h.has("set-cookie")]).toEqual(["43", false]);
      await res.body[Symbol.asyncIterator]().return?.();
    } finally {
      srv.closeAllConnections();
      await new Promise((r) => srv.close(r));
    }
  });

  it("fails iff the body has more bytes than maxResponseBytes, however its chunks split it (property)", async () => {
    const { default: fc } = await import("fast-check");
    // Answers each request with the body in the chunks (chunked encoding) that the next `splits` says.
    let splits: number[] = [];
    let body = "";
    // The client's pool keeps the connection of the last answer read whole:
    // closed here, or closing the server would wait for it.
    const open = new Set<Socket>();
    const srv = createNetServer((socket) => {
      open.add(socket);
      socket.on("close", () => open.delete(socket));
      socket.on("data", () => {
        const bytes = Buffer.from(body);
        const points = [...new Set(splits.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
        let out = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
        let at = 0;
        for (const p of [...points, bytes.length]) {
          if (p > at) out += `${(p - at).toString(16)}\r\n${bytes.subarray(at, p).toString("latin1")}\r\n`;
          at = p;
        }
        socket.write(Buffer.from(`${out}0\r\n\r\n`, "latin1"));
      });
      socket.on("error", () => {});
    });
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}/rpc`;
    const httpClient = createNodeHttpClient();
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 300 }),
          fc.integer({ min: 60, max: 400 }),
          fc.array(fc.nat(), { maxLength: 12 }),
          async (pad, max, offsets) => {
            splits = offsets;
            body = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { task: { ...TASK, metadata: { pad: "é".repeat(pad) } } } });
            const client = new A2AClient(createJsonRpcTransport({ baseUrl: url, httpClient, maxResponseBytes: max }));
            const got = await client.sendMessage({ message: userMessage("hi") }).then(
              () => "ok",
              (e: unknown) => (e instanceof ProtocolError && /larger than/.test(e.message) ? "too large" : String(e)),
            );
            expect(got).toBe(Buffer.byteLength(body) > max ? "too large" : "ok");
          },
        ),
        { numRuns: 60 },
      );
    } finally {
      for (const socket of open) socket.destroy();
      await new Promise((r) => srv.close(r));
    }
  });
});

describe("responses that are not valid HTTP (node:http and fetch)", () => {
  // A raw TCP server that answers every request with the given bytes, then
  // closes the connection (or, with `hold`, leaves it open).
  async function rawServer(reply: string, hold = false): Promise<{ url: string; close: () => Promise<void> }> {
    const open = new Set<Socket>();
    const srv = createNetServer((socket) => {
      open.add(socket);
      socket.once("data", () => (hold ? socket.write(reply) : socket.end(reply)));
      socket.on("error", () => {});
    });
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    return {
      url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/rpc`,
      close: () => {
        for (const s of open) s.destroy();
        return new Promise((r) => srv.close(() => r()));
      },
    };
  }

  const json = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { task: TASK } });
  const cases: Array<[string, string, typeof ProtocolError | typeof ConnectionError, boolean]> = [
    ["a bad status line", "HTTP/1.1 two hundred OK\r\n\r\n", ProtocolError, false],
    ["headers over the parser's limit", `HTTP/1.1 200 OK\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, ProtocolError, false],
    [
      "an invalid chunked encoding",
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
      ProtocolError,
      false,
    ],
    [
      "a body cut short of its Content-Length",
      `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${json.length + 50}\r\n\r\n${json}`,
      ConnectionError,
      false,
    ],
  ];
  const clients = { "node:http": () => createNodeHttpClient(), fetch: undefined } as const;

  for (const [name, httpClient] of Object.entries(clients)) {
    it.each(cases)(`${name}: %s`, async (_what, reply, cls) => {
      const srv = await rawServer(reply);
      try {
        const client = new A2AClient(createJsonRpcTransport({ baseUrl: `${srv.url}?key=s3cr3t`, httpClient: httpClient?.() }));
        const e = await client.sendMessage({ message: userMessage("hi") }).then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(e).toBeInstanceOf(cls);
        expect((e as Error).message).toContain(srv.url);
        expect((e as Error).message).not.toContain("s3cr3t");
      } finally {
        await srv.close();
      }
    });
  }

  describe("the call's abort reaches the request, however the interceptors treat its signal", () => {
    const hangClient = (interceptors: Interceptor[], timeoutMs = 0) =>
      new A2AClient(createJsonRpcTransport({ baseUrl: `${base}/hang`, httpClient: createNodeHttpClient(), interceptors, timeoutMs }));

    it("without interceptors the deadline ends the request and closes its connection", async () => {
      const n = hung.length + 1;
      await expect(hangClient([], 50).sendMessage({ message: userMessage("hi") })).rejects.toBeInstanceOf(CallTimeoutError);
      await hangClosed(n);
    });

    it("an interceptor's copy of the request carries the call's signal, which the deadline aborts", async () => {
      const n = hung.length + 1;
      const seen: AbortSignal[] = [];
      const copying: Interceptor = (next) => (req) => {
        seen.push(req.signal);
        return next({ ...req, header: new Headers(req.header) });
      };
      await expect(hangClient([copying], 50).sendMessage({ message: userMessage("hi") })).rejects.toBeInstanceOf(CallTimeoutError);
      await hangClosed(n);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toBeInstanceOf(AbortSignal);
      expect(seen[0]!.aborted).toBe(true);
    });

    it("a signal an interceptor sets on the request is the one the request follows", async () => {
      const n = hung.length + 1;
      const mine = new AbortController();
      const replacing: Interceptor = (next) => (req) => {
        // Read-only in connect's types; plain JavaScript may still set it.
        (req as { signal: AbortSignal }).signal = mine.signal;
        return next(req);
      };
      const call = hangClient([replacing]).sendMessage({ message: userMessage("hi") });
      const failed = expect(call).rejects.toBeInstanceOf(AbortedError);
      while (hung.length < n) await new Promise((r) => setImmediate(r));
      mine.abort();
      await failed;
      await hangClosed(n);
    });

    it("the caller's signal ends a request whose signal an interceptor only read", async () => {
      const n = hung.length + 1;
      const caller = new AbortController();
      let seen: AbortSignal | undefined;
      const reading: Interceptor = (next) => (req) => {
        seen = req.signal;
        return next(req);
      };
      const call = hangClient([reading]).sendMessage({ message: userMessage("hi") }, { signal: caller.signal });
      const failed = expect(call).rejects.toBeInstanceOf(AbortedError);
      while (hung.length < n) await new Promise((r) => setImmediate(r));
      caller.abort();
      await failed;
      await hangClosed(n);
      expect(seen?.aborted).toBe(true);
    });
  });
});

describe("a pooled connection the server closed while it was idle", () => {
  /**
   * A server that serves the first request of each connection and treats
   * the next one on it as the server closing an idle connection while the
   * request was under way: it closes (FIN) or resets (RST) the socket
   * without an answer. `/rpc-begun` sends the headers first; `/rpc-fresh`
   * drops the first request of a connection too.
   */
  async function closingServer(how: "close" | "reset") {
    const seen: { connection: number; id: number; url: string }[] = [];
    const served = new Map<unknown, number>();
    let connections = 0;
    const srv = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        if (!served.has(req.socket)) served.set(req.socket, ++connections);
        const connection = served.get(req.socket)!;
        const rpc = JSON.parse(body) as { id: number };
        const nth = seen.filter((s) => s.connection === connection).length + 1;
        seen.push({ connection, id: rpc.id, url: req.url! });
        const drop = () => (how === "reset" ? req.socket.resetAndDestroy() : req.socket.destroy());
        if (nth > 1 || req.url === "/rpc-fresh") {
          if (req.url !== "/rpc-begun") return drop();
          res.writeHead(200, { "Content-Type": "application/json" });
          res.flushHeaders();
          return setImmediate(drop);
        }
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: rpc.id, result: { task: TASK } }));
      });
    });
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
    const close = async () => {
      srv.closeAllConnections();
      await new Promise((r) => srv.close(r));
    };
    return { url, seen, close };
  }

  it.each(["close", "reset"] as const)("sends the request again on a new connection (server does %s)", async (how) => {
    const srv = await closingServer(how);
    try {
      const client = new A2AClient(createJsonRpcTransport({ baseUrl: `${srv.url}/rpc`, httpClient: createNodeHttpClient() }));
      expect((await client.sendMessage({ message: userMessage("one") })).payload.case).toBe("task");
      expect((await client.sendMessage({ message: userMessage("two") })).payload.case).toBe("task");
      // The second request reached the closed connection, then a new one, once each.
      expect(srv.seen.map((s) => s.connection)).toEqual([1, 1, 2]);
      expect(srv.seen[2]!.id).toBe(srv.seen[1]!.id);
    } finally {
      await srv.close();
    }
  });

  it("does not send again what failed on a new connection, or once the answer had begun", async () => {
    const srv = await closingServer("close");
    try {
      // A reset send is not retried (it may have arrived): what the server sees is the client's own doing.
      const fresh = new A2AClient(createJsonRpcTransport({ baseUrl: `${srv.url}/rpc-fresh`, httpClient: createNodeHttpClient() }));
      const e = await fresh.sendMessage({ message: userMessage("one") }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ConnectionError);
      expect(srv.seen).toHaveLength(1);

      srv.seen.length = 0;
      const begun = new A2AClient(createJsonRpcTransport({ baseUrl: `${srv.url}/rpc-begun`, httpClient: createNodeHttpClient() }));
      expect((await begun.sendMessage({ message: userMessage("one") })).payload.case).toBe("task");
      await expect(begun.sendMessage({ message: userMessage("two") })).rejects.toBeInstanceOf(ConnectionError);
      // Headers had come: the request was read, and is not sent again.
      expect(srv.seen.filter((s) => s.url === "/rpc-begun")).toHaveLength(2);
    } finally {
      await srv.close();
    }
  });
});
