/**
 * What a stream's transport learns that a resumption needs: the last SSE
 * event id (sent back as `Last-Event-ID`) and the server's `retry:` hint.
 * Passed through connect's per-call context values.
 */
import { createContextKey } from "@connectrpc/connect";

/** What one stream has learned so far; the transport fills it in. */
export interface StreamState {
  /** The `id:` of the last SSE event, sent back as `Last-Event-ID`. */
  lastEventId?: string | undefined;
  /** The server's `retry:` hint, in milliseconds. */
  retryMs?: number | undefined;
}

/** The context key a call's `StreamState` travels under. */
export const streamStateKey = createContextKey<StreamState | undefined>(undefined, { description: "a2a stream state" });
