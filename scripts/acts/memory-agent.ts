/**
 * The agent a client test talks to: an in-memory `fetch` (no socket) that
 * serves the payload of the step being run to the request the operation
 * sends on the binding the payload implies, and records every request. The
 * payload is served as written, but for one thing: a JSON-RPC response
 * answers the request it is served to, so its `id` is that request's
 * (JSON-RPC 2.0 section 5; the client refuses a response to another id).
 */
import { createFetchHttpClient } from "../../src/index.js";
import { isRequestFor, type Served } from "./operations.js";

/** A request the client made, and whether a step's payload answered it. */
export interface SeenRequest {
  method: string;
  url: string;
  /** `METHOD /path` or, on JSON-RPC, `POST /path Method`. */
  summary: string;
  answered: boolean;
}

/** The origin the runner's agent answers on (no request leaves the process). */
export const AGENT_ORIGIN = "https://example.com";

export class MemoryAgent {
  readonly requests: SeenRequest[] = [];
  private pending: { operation: string; served: Served; payload: unknown } | undefined;

  /** Serves `payload` to the next request of `operation` on `served`. */
  serve(operation: string, served: Served, payload: unknown): void {
    this.pending = { operation, served, payload };
  }

  /** Whether the payload given to `serve` was answered, and forgets it. */
  takeAnswered(): boolean {
    const answered = this.pending === undefined;
    this.pending = undefined;
    return answered;
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const body = request.method === "GET" || request.method === "DELETE" ? "" : await request.text();
    const jsonRpcMethod = jsonField(body, "method");
    const seen: SeenRequest = {
      method: request.method,
      url: url.href,
      summary: `${request.method} ${url.pathname}${typeof jsonRpcMethod === "string" ? ` ${jsonRpcMethod}` : ""}`,
      answered: false,
    };
    this.requests.push(seen);
    const pending = this.pending;
    const matches =
      pending !== undefined &&
      (pending.served === "card"
        ? request.method === "GET" && url.pathname === "/.well-known/agent-card.json"
        : isRequestFor(pending.operation, pending.served, { method: request.method, url, body }));
    if (!matches) return new Response(JSON.stringify({ error: "no payload for this request" }), { status: 404, headers: JSON_TYPE });
    this.pending = undefined;
    seen.answered = true;
    const answer =
      pending.served === "JSONRPC" ? { ...(pending.payload as Record<string, unknown>), id: jsonField(body, "id") } : pending.payload;
    return new Response(JSON.stringify(answer), { status: 200, headers: JSON_TYPE });
  };

  /** The client's HTTP client on this agent's fetch. */
  readonly httpClient = createFetchHttpClient(this.fetch);
}

const JSON_TYPE = { "Content-Type": "application/json" };

function jsonField(body: string, name: string): unknown {
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    return json !== null && typeof json === "object" ? json[name] : undefined;
  } catch {
    return undefined;
  }
}
