import type { Transport } from "@connectrpc/connect";
import type { Binding } from "../base/bindings.js";

/**
 * A connect Transport that knows which A2A binding it speaks.
 *
 * A transport is written as an object literal checked against this type,
 * `{ binding, unary(method, signal, timeoutMs, header, input, contextValues) {...},
 * stream(...) {...} } satisfies A2ATransport`: the calls take connect's
 * generic signature from `Transport`, so it is written in one place, and
 * the check costs nothing at run time (a class types its calls as
 * `Transport["unary"]` and `Transport["stream"]`). What applies to every
 * call is not a transport's business: the A2AClient and the failover runner
 * apply the A2A rules (call/request.ts), the call runner the deadline and
 * the signal (http/run-call.ts). A call's `contextValues` carry its record
 * (call/record.ts), which is its one deadline (call/deadline.ts); its
 * `timeoutMs` is what is left of that deadline, and a transport chooses a
 * limit only for a call that left it to it (call/timeouts.ts).
 * @category Transports
 */
export interface A2ATransport extends Transport {
  /** The binding this transport speaks. */
  readonly binding: Binding;
}
