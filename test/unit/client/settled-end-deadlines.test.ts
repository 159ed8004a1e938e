/**
 * A stream whose task settled (client/settled-end.ts) ends at that event,
 * with resumption off as with it on, though the server keeps it open with
 * keep-alive comments; its connection is closed.
 */
import { describe, expect, it } from "vitest";
import { A2AClient, createFetchHttpClient, createNodeHttpClient } from "../../../src/node.js";
import { sseFrame, startFakeServer, startSse, within } from "../../support/fake-server.js";
import { BOUND_MS, transportOf, settle, withoutTimersLeft, CLIENTS } from "../../support/deadline-server.js";

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
