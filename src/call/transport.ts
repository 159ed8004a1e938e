import type { Transport } from "@connectrpc/connect";
import type { Binding } from "../protocol/bindings.js";

/** A connect Transport that knows which A2A binding it speaks. */
export interface A2ATransport extends Transport {
  /** The binding this transport speaks. */
  readonly binding: Binding;
}

/**
 * The two calls of a transport, typed by connect's `Transport`: written
 * as `unary(method, signal, timeoutMs, header, input, contextValues)`
 * without types, they take connect's generic signature from here.
 */
export interface TransportCalls {
  /** A unary call, as `Transport.unary`. */
  unary: Transport["unary"];
  /** A streaming call, as `Transport.stream`. */
  stream: Transport["stream"];
}

/**
 * A transport of `binding` from its two calls. What applies to every call
 * is not a transport's business: the A2AClient and the failover runner
 * apply the A2A rules (call/request.ts), the call runner the deadline and
 * signal (http/run-call.ts), and timeouts follow call/timeouts.ts.
 */
export function defineTransport(binding: Binding, calls: TransportCalls): A2ATransport {
  return { binding, unary: calls.unary, stream: calls.stream };
}
