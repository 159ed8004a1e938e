/**
 * A stream's one request message is taken from a `single` without reading
 * it (each step it passes through would otherwise read it again), and read
 * whole from any other stream.
 */
import { describe, expect, it, vi } from "vitest";
import { onlyValue, single } from "../../../src/base/iterables.js";

describe("onlyValue", () => {
  it("takes a single's value without opening its iterator, however often it is asked", async () => {
    const request = single({ id: "t1" });
    const opened = vi.spyOn(request, Symbol.asyncIterator);
    expect(await onlyValue(request)).toEqual({ id: "t1" });
    expect(await onlyValue(request)).toEqual({ id: "t1" });
    expect(opened).not.toHaveBeenCalled();
  });

  it("reads any other stream to its end and gives its last value, or undefined for an empty one", async () => {
    const read: number[] = [];
    async function* numbers() {
      for (const n of [1, 2, 3]) {
        read.push(n);
        yield n;
      }
    }
    expect(await onlyValue(numbers())).toBe(3);
    expect(read).toEqual([1, 2, 3]);
    expect(await onlyValue((async function* () {})())).toBeUndefined();
  });
});
