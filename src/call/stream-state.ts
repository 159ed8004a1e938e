/**
 * What a resumable stream's calls share, as the resumption loop sees it:
 * the part of the stream's record (call/record.ts) that a resumption reads
 * and its transports write.
 */
import type { A2AError } from "../errors/family.js";
import type { CallDeadline } from "./deadline.js";

/** What one stream has learned so far; its transport fills it in. */
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
  /** The stream's one deadline, held over all its calls. */
  deadline?: CallDeadline | undefined;
}

/** What a resumable stream tells those who follow it across its calls. */
export interface StreamWatcher {
  /** Attempt `attempt` (from 1) to carry on after `drop` starts now. */
  resuming(attempt: number, drop: A2AError): void;
  /** The stream as its reader sees it is over: ended, failed with `error`, or closed by its reader. */
  ended(error: A2AError | undefined): void;
}
