/**
 * Finds timers that outlive the call that set them: a timer left armed keeps
 * Node's event loop alive and pins whatever its callback holds.
 */
import { createHook } from "node:async_hooks";

export interface TimerTracker {
  /** Where each tracked timer still pending and holding the event loop was set. */
  live(): Promise<string[]>;
  stop(): void;
}

/** Tracks the timers set from now on by code whose stack matches `from`. */
export function trackTimers(from: RegExp): TimerTracker {
  const timers = new Map<number, { timer: { hasRef(): boolean }; where: string }>();
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (type !== "Timeout") return;
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 30;
      const where = new Error().stack ?? "";
      Error.stackTraceLimit = limit;
      if (from.test(where)) timers.set(id, { timer: resource as { hasRef(): boolean }, where });
    },
    // Emitted when a timer is cleared or has fired.
    destroy(id) {
      timers.delete(id);
    },
  }).enable();
  return {
    async live() {
      // Destroy hooks are delivered from a queue: let it drain.
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      return [...timers.values()]
        .filter((t) => t.timer.hasRef())
        .map((t) =>
          t.where
            .split("\n")
            .filter((l) => from.test(l))
            .join("\n"),
        );
    },
    stop() {
      hook.disable();
    },
  };
}
