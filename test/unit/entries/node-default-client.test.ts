/**
 * In a process that imports the Node entry, JSON-RPC and HTTP+JSON
 * transports built by hand get the keep-alive node:http client by default,
 * as connect()'s do; a client passed in still wins. Told apart by a header
 * that Node's fetch sends and node:http does not (`sec-fetch-mode`).
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2AClient, createFetchHttpClient, createJsonRpcTransport, createRestTransport } from "../../../src/index.js";
import "../../../src/node.js";

const TASK = { id: "t-1", contextId: "c-1", status: { state: "TASK_STATE_COMPLETED" } };

let server: Server;
let base: string;
const seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      if (req.method === "POST") {
        const { id } = JSON.parse(body) as { id: unknown };
        res.end(JSON.stringify({ jsonrpc: "2.0", id, result: TASK }));
      } else {
        res.end(JSON.stringify(TASK));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

/** The headers of the one request `call` makes. */
async function headersOf(call: () => Promise<unknown>): Promise<IncomingHttpHeaders> {
  seen.length = 0;
  await call();
  expect(seen).toHaveLength(1);
  return seen[0]!;
}

describe("transports built by hand, in a process with the Node entry", () => {
  it.each([
    ["JSON-RPC", () => createJsonRpcTransport({ baseUrl: `${base}/rpc` })],
    ["HTTP+JSON", () => createRestTransport({ baseUrl: `${base}/rest` })],
  ])("%s gets the node:http client when given none", async (_name, make) => {
    const client = new A2AClient(make());
    const headers = await headersOf(() => client.getTask({ id: "t-1" }));
    expect(headers["sec-fetch-mode"]).toBeUndefined();
  });

  it.each([
    ["JSON-RPC", () => createJsonRpcTransport({ baseUrl: `${base}/rpc`, httpClient: createFetchHttpClient() })],
    ["HTTP+JSON", () => createRestTransport({ baseUrl: `${base}/rest`, httpClient: createFetchHttpClient() })],
  ])("%s keeps the client it is given (here fetch)", async (_name, make) => {
    const client = new A2AClient(make());
    const headers = await headersOf(() => client.getTask({ id: "t-1" }));
    expect(headers["sec-fetch-mode"]).toBe("cors");
  });
});
