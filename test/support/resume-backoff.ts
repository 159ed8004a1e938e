/**
 * The delays a stream's resumption asks for between its attempts, read from
 * the timers that src/client/resume.ts sets itself (through base/timers.ts's
 * sleep), not those of the calls it makes or of the agent it talks to.
 */
import { vi } from "vitest";

/** Starts recording the resumption's backoff delays, in order; `vi.restoreAllMocks()` stops it. */
export function recordBackoff(): number[] {
  const delays: number[] = [];
  const real = globalThis.setTimeout;
  vi.spyOn(globalThis, "setTimeout").mockImplementation(((fn: () => void, ms?: number, ...rest: unknown[]) => {
    const caller = (new Error().stack ?? "")
      .split("\n")
      .slice(1)
      .find((l) => !/resume-backoff\.ts|node_modules|[/\\]src[/\\]base[/\\]timers\.ts|new Promise/.test(l));
    if (caller && /[/\\]src[/\\]client[/\\]resume\.ts/.test(caller)) delays.push(ms ?? 0);
    return real(fn, ms, ...rest);
  }) as typeof setTimeout);
  return delays;
}
