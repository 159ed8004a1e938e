import type { Transport } from "@connectrpc/connect";
import type { Binding } from "../protocol/bindings.js";

/** A connect Transport that knows which A2A binding it speaks. */
export interface A2ATransport extends Transport {
  /** The binding this transport speaks. */
  readonly binding: Binding;
}
