import { describe, expect, it } from "vitest";
import { LazyStream } from "../../../src/client/lazy-stream.js";

/** A source of `items` that records whether it was opened and closed, and can fail after them. */
function source(items: number[], failWith?: Error) {
  const log = { opened: 0, closed: 0 };
  const open = async (): Promise<AsyncIterable<number>> => {
    log.opened++;
    let i = 0;
    return {
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          if (i < items.length) return { done: false, value: items[i++]! };
          if (failWith) throw failWith;
          return { done: true, value: undefined };
        },
        return: async () => {
          log.closed++;
          return { done: true, value: undefined };
        },
      }),
    };
  };
  return { log, open };
}

const wrapped = (e: unknown) => new Error(`reported: ${(e as Error).message}`);

describe("LazyStream", () => {
  it("opens on the first next, not before, and reads to the end", async () => {
    const { log, open } = source([1, 2, 3]);
    const s = new LazyStream(open, wrapped);
    expect(log.opened).toBe(0);
    const seen: number[] = [];
    for await (const x of s) seen.push(x);
    expect(seen).toEqual([1, 2, 3]);
    expect(log).toEqual({ opened: 1, closed: 0 });
    expect(await s.next()).toEqual({ done: true, value: undefined });
  });

  it("a reader that stops early closes the stream", async () => {
    const { log, open } = source([1, 2, 3]);
    for await (const x of new LazyStream(open, wrapped)) if (x === 2) break;
    expect(log).toEqual({ opened: 1, closed: 1 });
  });

  it("given up before the first next: never opened", async () => {
    const { log, open } = source([1]);
    const s = new LazyStream(open, wrapped);
    expect(await s.return()).toEqual({ done: true, value: undefined });
    expect(await s.next()).toEqual({ done: true, value: undefined });
    expect(log.opened).toBe(0);
  });

  it("given up while opening: the stream is closed once it is open", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { log, open } = source([1, 2]);
    const s = new LazyStream(async () => {
      await gate;
      return open();
    }, wrapped);
    const first = s.next();
    await s.return();
    release();
    await first;
    await expect.poll(() => log.closed).toBe(1);
    expect(await s.next()).toEqual({ done: true, value: undefined });
  });

  it("a failure to open, thrown or rejected, is reported through the mapping, then the stream is over", async () => {
    for (const open of [
      (): Promise<AsyncIterable<number>> => {
        throw new Error("no route");
      },
      () => Promise.reject(new Error("no route")),
    ]) {
      const s = new LazyStream(open, wrapped);
      await expect(s.next()).rejects.toThrow("reported: no route");
      expect(await s.next()).toEqual({ done: true, value: undefined });
    }
  });

  it("a failure while reading comes after the items before it, reported through the mapping", async () => {
    const { open } = source([1, 2], new Error("cut"));
    const seen: number[] = [];
    const s = new LazyStream(open, wrapped);
    await expect(
      (async () => {
        for await (const x of s) seen.push(x);
      })(),
    ).rejects.toThrow("reported: cut");
    expect(seen).toEqual([1, 2]);
    expect(await s.next()).toEqual({ done: true, value: undefined });
  });

  it("a reader that returns while a read waits on a generator's stream ends it at once: the call is aborted first", async () => {
    let aborted = false;
    let finished = false;
    // A generator's return waits for its read under way; this read ends only when its call is aborted.
    async function* silentAfterOne(signal: AbortSignal): AsyncGenerator<number> {
      try {
        yield 1;
        await new Promise<void>((_, reject) =>
          signal.addEventListener("abort", () => {
            aborted = true;
            reject(signal.reason);
          }),
        );
      } finally {
        finished = true;
      }
    }
    const s = new LazyStream(async (signal) => silentAfterOne(signal), wrapped);
    expect(await s.next()).toEqual({ done: false, value: 1 });
    const pending = s.next();
    expect(await s.return()).toEqual({ done: true, value: undefined });
    expect(await pending).toEqual({ done: true, value: undefined });
    expect({ aborted, finished }).toEqual({ aborted: true, finished: true });
  });
});
