/**
 * What an `untilSubscribed` step waits for: a SubscribeToTask that begins
 * following the task, as a client resuming after a drop does. The run
 * waits on the task's record; the SubscribeToTask operation tells it once
 * it listens to the task, so no event the run logs after falls before it.
 */
import type { TaskRecord } from "./store.js";

const waiting = new WeakMap<TaskRecord, Set<() => void>>();

/** Resolves once a SubscribeToTask begins following `record`, or when `signal` aborts (the task cancelled, the agent closing). */
export function untilSubscribed(record: TaskRecord, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const wake = () => {
      signal.removeEventListener("abort", wake);
      waiting.get(record)?.delete(wake);
      resolve();
    };
    let set = waiting.get(record);
    if (!set) waiting.set(record, (set = new Set()));
    set.add(wake);
    signal.addEventListener("abort", wake, { once: true });
  });
}

/** Tells the steps that wait on `record` that a SubscribeToTask now follows it. */
export function subscribed(record: TaskRecord): void {
  for (const wake of [...(waiting.get(record) ?? [])]) wake();
}
