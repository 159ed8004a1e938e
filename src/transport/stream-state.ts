/**
 * What a stream's transport learns that a resumption needs: the last SSE
 * event id (sent back as `Last-Event-ID`) and the server's `retry:` hint.
 * Passed through connect's per-call context values.
 */
import { createContextKey } from "@connectrpc/connect";

export interface StreamState {
  lastEventId?: string | undefined;
  retryMs?: number | undefined;
}

export const streamStateKey = createContextKey<StreamState | undefined>(undefined, { description: "a2a stream state" });
