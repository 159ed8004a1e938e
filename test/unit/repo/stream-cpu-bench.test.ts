/**
 * `npm run bench:stream` (bench/stream-cpu.ts) measures what it says: the
 * bytes it hands over are those the canned server streams for B2, and
 * every row reads every event of them. Times are printed, never asserted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CannedServer, startCannedServer, streamBody } from "../../../bench/canned-server.js";
import { CASES, formatStreamTable, measureStreamCpu, wrapFor } from "../../../bench/stream-cpu.js";

let server: CannedServer;

beforeAll(async () => {
  server = await startCannedServer(0, 1);
});

afterAll(() => server.close());

async function streamed(path: string, body: string): Promise<Buffer> {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  expect(res.headers.get("content-type")).toBe("text/event-stream");
  return Buffer.from(await res.arrayBuffer());
}

describe("the stream CPU benchmark", () => {
  // 2,500 events: more than one of the server's blocks of 1,000, and a last block cut short.
  it("hands over, byte for byte, what the canned server streams on each binding", async () => {
    const rest = await streamed("/n/2500/rest/message:stream", JSON.stringify({ message: {} }));
    expect(rest.equals(streamBody(2500, wrapFor("HTTP+JSON")))).toBe(true);
    const rpc = await streamed("/n/2500/jsonrpc", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: {} }));
    expect(rpc.equals(streamBody(2500, wrapFor("JSONRPC")))).toBe(true);
    expect(rpc.toString()).toContain('{"jsonrpc":"2.0","id":1,"result":{"statusUpdate"');
  });

  it("reads every event through every row, on both bindings, and tables each row's share", async () => {
    // measureStreamCpu throws when a row reads another number of events than were sent.
    const rows = await measureStreamCpu(3000, 1);
    expect(rows.map((r) => `${r.binding} ${r.row}`)).toEqual(
      ["JSONRPC", "HTTP+JSON"].flatMap((binding) => CASES.map((row) => `${binding} ${row}`)),
    );
    for (const r of rows) {
      expect(r.cpuUs).toBeGreaterThan(0);
      if (r.row === "floor") expect(r.overFloorUs).toBe(0);
    }
    const table = formatStreamTable(rows, 3000, 1).split("\n");
    expect(table[0]).toMatch(/^CPU µs per stream event, 3,000 events, medians of 1 rounds/);
    expect(table).toHaveLength(4 + rows.length);
  }, 120_000);
});
