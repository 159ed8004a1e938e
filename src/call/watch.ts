/**
 * How an interceptor learns that a call is over, once for the logging and
 * the tracing interceptors: a unary call when its response or error comes
 * back; a stream when its last event arrived, it failed, or its reader
 * stopped (with each event on the way). A stream closed right after an event
 * that ends the exchange (a final or interrupted state, a direct message),
 * as the client does, has ended well; one closed before is "aborted". A
 * stream that ends before its task settled, where the client reports that
 * to its reader (`resume: false`), has failed as the reader is told.
 */
import type { StreamRequest, StreamResponse, UnaryRequest, UnaryResponse } from "@connectrpc/connect";
import type { StreamResponse as A2AStreamResponse } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { toA2AError } from "../errors/classify.js";
import type { A2AError } from "../errors/family.js";
import type { Binding } from "../base/bindings.js";
import { isInterrupted, isTerminal } from "../protocol/messages.js";
import { callRecordKey } from "./record.js";

/** How a call ended: well, with an error, or canceled (the caller's signal, a stream closed before its end). */
export type CallOutcome = "ok" | "error" | "aborted";

/** What a watcher is told of one call. */
export interface CallWatcher {
  /** A unary call's response message, before `end`. */
  response?(message: unknown): void;
  /** A stream's event, as it passes. */
  event?(event: unknown): void;
  /** The call is over, once; `error` is the failure as an A2AError. */
  end(outcome: CallOutcome, error: A2AError | undefined): void;
}

/**
 * Runs `next(req)` and tells `watcher` how the call goes (see the module
 * comment). `binding` names errors that carry none. A watcher that throws
 * does not fail the call.
 */
export async function watchCall<Res extends UnaryResponse | StreamResponse>(
  req: UnaryRequest | StreamRequest,
  next: () => Promise<Res>,
  watcher: CallWatcher,
  binding: Binding | undefined,
): Promise<Res> {
  let over = false;
  const finish = (outcome: CallOutcome, e?: unknown): void => {
    if (over) return;
    over = true;
    req.signal.removeEventListener("abort", onAbort);
    const error = e === undefined ? undefined : toA2AError(e, binding);
    try {
      watcher.end(error?.code === "ABORTED" ? "aborted" : outcome, error);
    } catch {
      // A failing logger or tracer must not fail the call.
    }
  };
  const failed = (e: unknown): never => {
    finish("error", e);
    throw e;
  };
  // A stream's last event may end the exchange; the client then closes the connection itself.
  let ended = false;
  const onAbort = (): void => finish(ended ? "ok" : "aborted");

  let res: Res;
  try {
    res = await next();
  } catch (e) {
    return failed(e);
  }
  if (!res.stream) {
    try {
      watcher.response?.(res.message);
    } catch {
      // As below: the call goes on.
    }
    finish("ok");
    return res;
  }
  // connect aborts the call's signal when a consumer stops reading early.
  if (req.signal.aborted) onAbort();
  else req.signal.addEventListener("abort", onAbort, { once: true });
  const inner = res.message;
  const onEvent = watcher.event?.bind(watcher);
  return {
    ...res,
    message: {
      [Symbol.asyncIterator]() {
        const it = inner[Symbol.asyncIterator]();
        return {
          next: () =>
            it.next().then(
              (r) => {
                if (r.done) {
                  const early = endedEarly(req);
                  if (early === undefined) finish("ok");
                  else finish("error", early);
                } else {
                  ended = endsExchange(r.value);
                  try {
                    onEvent?.(r.value);
                  } catch {
                    // As above: the call goes on.
                  }
                }
                return r;
              },
              (e: unknown) => failed(e),
            ),
          return: (value?: unknown) => {
            onAbort();
            return it.return ? it.return(value) : Promise.resolve({ done: true as const, value: undefined });
          },
        };
      },
    },
  };
}

/** Why a stream that ended cleanly ended too soon, as its reader is told (the record's `endCheck`), or undefined. */
function endedEarly(req: UnaryRequest | StreamRequest): unknown {
  try {
    return req.contextValues.get(callRecordKey)?.endCheck?.();
  } catch {
    return undefined;
  }
}

function endsExchange(event: unknown): boolean {
  const payload = (event as Partial<A2AStreamResponse> | undefined)?.payload;
  if (!payload) return false;
  if (payload.case === "message") return true;
  if (payload.case === "task" || payload.case === "statusUpdate") {
    const state = payload.value.status?.state;
    return state !== undefined && (isTerminal(state) || isInterrupted(state));
  }
  return false;
}
