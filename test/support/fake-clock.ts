/**
 * Running a call to its end under vitest's fake timers, with real turns of
 * the event loop in between for what the call loads on demand.
 */
import { vi } from "vitest";

/** Runs `call` to its end on the fake clock: its result or error, and when it ended. */
export async function settle<T>(call: Promise<T>): Promise<{ value?: T; error?: unknown; ms: number }> {
  const start = Date.now();
  let out: { value?: T; error?: unknown } | undefined;
  void call.then(
    (value) => (out = { value }),
    (error: unknown) => (out = { error }),
  );
  for (let i = 0; i < 1000 && !out; i++) {
    await vi.advanceTimersByTimeAsync(10);
    await new Promise((r) => setImmediate(r));
  }
  if (!out) throw new Error("the call did not settle in 10 s of fake time");
  return { ...out, ms: Date.now() - start };
}
