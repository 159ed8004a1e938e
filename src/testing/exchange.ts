/**
 * One HTTP exchange as the test agent sees it, whichever way it runs: in
 * memory, a request object handed over without a socket; on loopback, what
 * node:http read. The answer's body is read as it is written, so a stream
 * goes out event by event; a handler that throws `ConnectionCut` (at once,
 * or from the body) has the connection cut there.
 */

/** A request the agent received. */
export interface AgentRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  readonly body: Uint8Array;
  /** Aborted when the caller goes away (or the agent closes): an answer that waits ends. */
  readonly signal: AbortSignal;
}

/** The agent's answer. */
export interface AgentResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: AsyncIterable<Uint8Array>;
}

/** The handler both ways of running the agent share. */
export type AgentHandler = (request: AgentRequest) => Promise<AgentResponse>;

/** Thrown by a handler or from an answer's body: the connection is cut there (a `drop` step). */
export class ConnectionCut extends Error {
  constructor(
    /** Closed (a FIN) or reset (an RST): see `DropStep`. */
    readonly how: "close" | "reset" = "close",
  ) {
    super(`the test agent ${how === "reset" ? "reset" : "closed"} the connection`);
    this.name = "ConnectionCut";
  }
}

/** Resolves never, rejects with the signal's reason once it aborts: a `hang` step, which only the caller ends. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/** A body of one chunk, or none. */
export async function* bodyOf(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  if (bytes.byteLength > 0) yield bytes;
}

/** A Node request's headers (node:http's, or node:http2's without its pseudo-headers) as `Headers`. */
export function headersFrom(raw: Record<string, string | string[] | number | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (name.startsWith(":")) continue;
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, String(v));
  }
  return headers;
}
