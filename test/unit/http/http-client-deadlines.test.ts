/**
 * The HTTP clients (http/node-client.ts, http/fetch-client.ts) under the
 * call runner: nothing a server does keeps a call past its deadline or its
 * signal. A raw TCP server on 127.0.0.1 answers 101, answers nothing, sends
 * headers and then silence, trickles a body that never ends, or sends only
 * informational (1xx) answers; each call settles within a bound, with the
 * package's error types, and leaves no socket open and no timer armed.
 */
import { describe, expect, it } from "vitest";
import { AbortedError, ProtocolError, userMessage } from "../../../src/node.js";
import {
  BOUND_MS,
  BEHAVIOURS,
  timeoutFor,
  raw,
  useRawServer,
  clientOf,
  settle,
  drain,
  noSocketLeft,
  withoutTimersLeft,
  expectFailure,
  WIRES_1_0,
  CLIENTS,
} from "../../support/deadline-server.js";

useRawServer();

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
