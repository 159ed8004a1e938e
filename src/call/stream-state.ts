/**
 * What a stream's transport learns that a resumption needs: the last SSE
 * event id (sent back as `Last-Event-ID`) and the server's `retry:` hint.
 * Passed through connect's per-call context values.
 */
import { createContextKey } from "@connectrpc/connect";
import type { A2AError } from "../errors/family.js";
import type { CallDeadline } from "./deadline.js";

/** What one stream has learned so far; the transport fills it in. */
export interface StreamState {
  /** The `id:` of the last SSE event, sent back as `Last-Event-ID`. */
  lastEventId?: string | undefined;
  /** The server's `retry:` hint, in milliseconds. */
  retryMs?: number | undefined;
  /**
   * Told what the stream does between its calls, by the resumption loop
   * (client/resume.ts); interceptors that follow the stream as one (tracing)
   * add themselves on its first call.
   */
  watchers?: StreamWatcher[] | undefined;
  /** The stream call's own `timeoutMs`, held over all its calls (set by the client on the first). */
  deadline?: CallDeadline | undefined;
}

/** What a resumable stream tells those who follow it across its calls. */
export interface StreamWatcher {
  /** Attempt `attempt` (from 1) to carry on after `drop` starts now. */
  resuming(attempt: number, drop: A2AError): void;
  /** The stream as its reader sees it is over: ended, failed with `error`, or closed by its reader. */
  ended(error: A2AError | undefined): void;
}

/**
 * The context key a call's `StreamState` travels under: a stream's calls,
 * and the reads a resumption makes for it (GetTask, the lookup of the
 * message sent), which tracing links to the stream's span.
 */
export const streamStateKey = createContextKey<StreamState | undefined>(undefined, { description: "a2a stream state" });

/**
 * For a stream that does not resume (`resume: false`): the error its reader
 * is given when it ended cleanly but before its task settled
 * (client/end-watch.ts), else undefined. Those who watch the call (call/watch.ts:
 * logs, spans) record that failure, not a success.
 */
export const streamEndKey = createContextKey<(() => unknown) | undefined>(undefined, { description: "a2a stream end check" });
