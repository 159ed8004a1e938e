/**
 * A stream opened by its reader (client/lazy-stream.ts): a reader that
 * returns while the stream is still opening gives the request up at once,
 * with resumption off or on, and nothing more is sent.
 */
import { describe, expect, it } from "vitest";
import { within } from "../../support/fake-server.js";
import { raw, useRawServer, clientOf, noSocketLeft, withoutTimersLeft, WIRES_1_0, CLIENTS } from "../../support/deadline-server.js";

useRawServer();

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
