/**
 * A call's one deadline (src/call/deadline.ts): what is left of it, when it
 * has passed, what a request is given, and its timer.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CallDeadline } from "../../../src/call/deadline.js";
import { DEFAULT_TIMEOUT_MS } from "../../../src/call/timeouts.js";
import { CallTimeoutError, InvalidParamsError } from "../../../src/errors/family.js";

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("CallDeadline", () => {
  it("starts with the first request's timeout and gives the next ones what is left, at least 1 ms", () => {
    const deadline = new CallDeadline("stream", 200);
    vi.advanceTimersByTime(1_000);
    // Not started yet: nothing has been used up.
    expect(deadline.leftMs()).toBe(Infinity);
    expect(deadline.timeoutMs()).toBe(200);
    vi.advanceTimersByTime(150);
    expect(deadline.timeoutMs()).toBe(50);
    expect(deadline.passed()).toBe(false);
    vi.advanceTimersByTime(60);
    expect(deadline.passed()).toBe(true);
    expect(deadline.timeoutMs()).toBe(1);
  });

  it("a call that gave no timeout leaves the request's to the transport, and holds to the default meanwhile", () => {
    const deadline = new CallDeadline("unary", undefined).start();
    expect(deadline.limitMs).toBe(DEFAULT_TIMEOUT_MS);
    expect(deadline.timeoutMs()).toBeUndefined();
    vi.advanceTimersByTime(10_000);
    expect(Math.round(deadline.leftMs())).toBe(DEFAULT_TIMEOUT_MS - 10_000);
    // A step that makes several requests holds them all to the default.
    expect(deadline.fix().timeoutMs()).toBe(DEFAULT_TIMEOUT_MS - 10_000);
  });

  it("0 and Infinity are no limit, passed on as given; a stream that gives none has none", () => {
    for (const given of [0, Infinity]) {
      const deadline = new CallDeadline("unary", given).start();
      expect(deadline.limitMs).toBeUndefined();
      expect(deadline.timeoutMs()).toBe(given);
      expect(deadline.fix().timeoutMs()).toBe(given);
      expect(deadline.passed()).toBe(false);
    }
    const stream = new CallDeadline("stream", undefined).start();
    expect(stream.limitMs).toBeUndefined();
    expect(stream.leftMs()).toBe(Infinity);
  });

  it("a timeout that is no number is no limit here, and is passed on as given for the transport to refuse", () => {
    for (const given of [Number.NaN, "5" as unknown as number]) {
      const deadline = new CallDeadline("unary", given).start();
      expect(deadline.limitMs).toBeUndefined();
      expect(deadline.timeoutMs()).toBe(given);
    }
  });

  it("gives a request the call's own limit, what is left of it, or the transport's for none; 0 and Infinity as none", () => {
    const deadline = new CallDeadline("unary", 300);
    expect(deadline.requestMs(300, 5_000)).toBe(300);
    vi.advanceTimersByTime(100);
    expect(deadline.requestMs(deadline.timeoutMs(), 5_000)).toBe(300);
    vi.advanceTimersByTime(100);
    expect(deadline.requestMs(deadline.timeoutMs(), 5_000)).toBe(200);
    // A read of a stream without a limit gets the transport's, a request's own, then none.
    const stream = new CallDeadline("stream", undefined).start();
    expect(stream.requestMs(stream.timeoutMs(), 5_000)).toBe(5_000);
    expect(stream.requestMs(undefined, undefined)).toBeUndefined();
    for (const none of [0, Infinity]) expect(new CallDeadline("stream", none).requestMs(none, undefined)).toBeUndefined();
    expect(new CallDeadline("unary", 0).requestMs(0, 5_000)).toBeUndefined();
  });

  it("refuses a request's timeout that is no duration, naming timeoutMs", () => {
    for (const given of [Number.NaN, "5" as unknown as number]) {
      const deadline = new CallDeadline("unary", given);
      expect(() => deadline.requestMs(given, 5_000)).toThrow(InvalidParamsError);
      expect(() => deadline.requestMs(given, 5_000)).toThrow(/timeoutMs/);
    }
  });

  it("a wait before the request ends at the deadline with a CallTimeoutError naming what was waited for and the limit", async () => {
    const deadline = new CallDeadline("unary", 100);
    const stalled = deadline.waitFor(new Promise(() => {}), "the code did not load", undefined, "JSONRPC");
    vi.advanceTimersByTime(100);
    const e = await stalled.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CallTimeoutError);
    expect((e as CallTimeoutError).kind).toBe("deadline");
    expect((e as CallTimeoutError).binding).toBe("JSONRPC");
    expect((e as Error).message).toBe("the code did not load within the call's 100 ms timeout");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("its timer aborts a step's controller at the deadline, and is gone once cleared", () => {
    const deadline = new CallDeadline("unary", 100);
    const cut = new AbortController();
    deadline.abortAt(cut, () => new Error("late"));
    vi.advanceTimersByTime(99);
    expect(cut.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect((cut.signal.reason as Error).message).toBe("late");

    const released = new CallDeadline("unary", 100);
    const kept = new AbortController();
    clearTimeout(released.abortAt(kept, () => new Error("late")));
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(1_000);
    expect(kept.signal.aborted).toBe(false);
  });

  it("makes no timer without a limit, nor for a controller already aborted", () => {
    new CallDeadline("unary", 0).abortAt(new AbortController(), () => new Error("never"));
    const aborted = new AbortController();
    aborted.abort("caller");
    new CallDeadline("unary", 100).abortAt(aborted, () => new Error("never"));
    expect(vi.getTimerCount()).toBe(0);
    expect(aborted.signal.reason).toBe("caller");
  });
});
