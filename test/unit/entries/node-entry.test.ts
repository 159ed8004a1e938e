/**
 * The Node entry adds what it adds to its own functions, not to the root's:
 * in one process that imports both, the root's `connect`, transports and
 * registered factories stay the browser-safe set (fetch, no gRPC, the
 * reflective ProtoJSON reader and writer), and the Node entry's have gRPC, the keep-alive node:http
 * client by default and the generated ProtoJSON readers and writers.
 *
 * The HTTP client is told apart by a header that Node's fetch sends and
 * node:http does not (`sec-fetch-mode`); the generated readers and writers
 * by the reflective `readJson` and `writeJson` (protocol/json-read.ts,
 * json-write.ts), counted through a module mock that calls the real ones
 * (what the generated code takes on never reaches them).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

const calls = vi.hoisted(() => ({ readJson: 0, writeJson: 0 }));
vi.mock("../../../src/protocol/json-read.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../src/protocol/json-read.js")>();
  return {
    ...real,
    readJson: (...args: Parameters<typeof real.readJson>) => {
      calls.readJson++;
      return real.readJson(...args);
    },
  };
});
vi.mock("../../../src/protocol/json-write.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../src/protocol/json-write.js")>();
  return {
    ...real,
    writeJson: (...args: Parameters<typeof real.writeJson>) => {
      calls.writeJson++;
      return real.writeJson(...args);
    },
  };
});

const root = await import("../../../src/index.js");
const toolkit = await import("../../../src/toolkit.js");
const node = await import("../../../src/node.js");
const { cardJson } = await import("../../support/cards.js");

const TASK = { id: "t-1", contextId: "c-1", status: { state: "TASK_STATE_COMPLETED" } };
const TASK_V03 = { kind: "task", id: "t-1", contextId: "c-1", status: { state: "completed" } };
const HTTP_BINDINGS = ["HTTP+JSON@0.3", "HTTP+JSON@1.0", "JSONRPC@0.3", "JSONRPC@1.0"];

let server: Server;
let base: string;
const seen: IncomingHttpHeaders[] = [];

/**
 * JSON-RPC at /rpc (1.0) and /rpc03 (0.3), HTTP+JSON under /rest (1.0) and
 * /rest03 (0.3, whose ProtoJSON task reads as 1.0's): each answers a task.
 */
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const task = req.url!.startsWith("/rpc03") ? TASK_V03 : TASK;
      res.setHeader("content-type", "application/json");
      if (!req.url!.startsWith("/rpc")) return res.end(JSON.stringify(task));
      const { id, method } = JSON.parse(body) as { id: unknown; method: string };
      const result = method === "SendMessage" ? { task } : task;
      res.end(JSON.stringify({ jsonrpc: "2.0", id, result }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

beforeEach(() => {
  calls.readJson = 0;
  calls.writeJson = 0;
});

/** The headers of the one request `call` makes. */
async function headersOf(call: () => Promise<unknown>): Promise<IncomingHttpHeaders> {
  seen.length = 0;
  await call();
  expect(seen).toHaveLength(1);
  return seen[0]!;
}

/** A card whose one interface is `binding` 1.0 at `url`. */
const cardAt = (binding: string, url: string) =>
  cardJson({ supportedInterfaces: [{ url, protocolBinding: binding, protocolVersion: "1.0" }] });

type Entry = typeof root | typeof node;

describe("the registered transports", () => {
  it("of the root stay the HTTP bindings, with the Node entry in the process", () => {
    expect(Object.keys(toolkit.registeredTransports()).sort()).toEqual(HTTP_BINDINGS);
  });

  it("of the Node entry are those and gRPC on 1.0 and 0.3, handed out as a frozen copy", () => {
    const copy = node.registeredTransports();
    expect(Object.keys(copy).sort()).toEqual(["GRPC@0.3", "GRPC@1.0", ...HTTP_BINDINGS]);
    expect(Object.isFrozen(copy)).toBe(true);
    expect(copy).not.toBe(node.registeredTransports());
  });
});

describe("connect", () => {
  it("of the root passes a gRPC interface over, with the Node entry in the process", async () => {
    const e = await root.connect(cardAt("GRPC", "127.0.0.1:1")).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(root.NoCompatibleInterfaceError);
    expect((e as Error).message).toMatch(/gRPC needs HTTP\/2 gRPC, which this entry does not include/);
  });

  it("of the Node entry uses a gRPC interface", async () => {
    const session = await node.connect(cardAt("GRPC", "127.0.0.1:1"));
    expect(session.interface?.binding).toBe("GRPC");
  });

  it.each([
    ["root", "cors"],
    ["Node entry", undefined],
  ] as const)("of the %s calls with sec-fetch-mode %s (fetch; node:http sends none)", async (name, mode) => {
    const entry: Entry = name === "root" ? root : node;
    const { client } = await entry.connect(cardAt("JSONRPC", `${base}/rpc`));
    const headers = await headersOf(() => client.getTask({ id: "t-1" }));
    expect(headers["sec-fetch-mode"]).toBe(mode);
  });

  it("of the root writes and reads ProtoJSON with the reflective writer and reader", async () => {
    const { client } = await root.connect(cardAt("JSONRPC", `${base}/rpc`));
    calls.readJson = calls.writeJson = 0;
    await client.sendMessage({ message: root.userMessage("hello") });
    expect(calls.writeJson).toBeGreaterThan(0);
    expect(calls.readJson).toBeGreaterThan(0);
  });

  it("of the Node entry writes and reads it with the generated writers and readers", async () => {
    const { client } = await node.connect(cardAt("JSONRPC", `${base}/rpc`));
    calls.readJson = calls.writeJson = 0;
    const result = await client.sendMessage({ message: node.userMessage("hello") });
    expect(result.payload.case).toBe("task");
    expect(calls).toEqual({ readJson: 0, writeJson: 0 });
  });
});

describe("HTTP transports built by hand, given no client", () => {
  // Names only in the rows: a test's arguments are formatted, and an entry's namespace is large.
  const made = (entry: Entry) =>
    [
      ["JSON-RPC", () => entry.createJsonRpcTransport({ baseUrl: `${base}/rpc` })],
      ["HTTP+JSON", () => entry.createRestTransport({ baseUrl: `${base}/rest` })],
      ["JSON-RPC 0.3", () => entry.createJsonRpcTransportV03({ baseUrl: `${base}/rpc03` })],
      ["HTTP+JSON 0.3", () => entry.createRestTransportV03({ baseUrl: `${base}/rest03` })],
    ] as const;

  it.each(made(root))("%s of the root calls with fetch, with the Node entry in the process", async (_name, make) => {
    const client = new root.A2AClient(make());
    const headers = await headersOf(() => client.getTask({ id: "t-1" }));
    expect(headers["sec-fetch-mode"]).toBe("cors");
  });

  it.each(made(node))("%s of the Node entry calls with node:http", async (_name, make) => {
    const client = new node.A2AClient(make());
    const headers = await headersOf(() => client.getTask({ id: "t-1" }));
    expect(headers["sec-fetch-mode"]).toBeUndefined();
  });

  it.each([
    ["JSON-RPC", (httpClient: UniversalClientFn) => node.createJsonRpcTransport({ baseUrl: `${base}/rpc`, httpClient })],
    ["HTTP+JSON", (httpClient: UniversalClientFn) => node.createRestTransport({ baseUrl: `${base}/rest`, httpClient })],
  ])("%s of the Node entry keeps the client it is given (here fetch)", async (_name, make) => {
    const client = new node.A2AClient(make(node.createFetchHttpClient()));
    const headers = await headersOf(() => client.getTask({ id: "t-1" }));
    expect(headers["sec-fetch-mode"]).toBe("cors");
  });

  it("read answers with the generated readers in the Node entry's, with readJson in the root's", async () => {
    await new node.A2AClient(node.createJsonRpcTransport({ baseUrl: `${base}/rpc` })).getTask({ id: "t-1" });
    expect(calls.readJson).toBe(0);
    await new root.A2AClient(root.createJsonRpcTransport({ baseUrl: `${base}/rpc` })).getTask({ id: "t-1" });
    expect(calls.readJson).toBe(1);
  });
});
