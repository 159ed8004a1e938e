/**
 * The names of the bindings: below the error family (errors/), whose errors
 * say which binding a failure came through, and so below everything.
 */
import type { AgentInterface } from "../../gen/lf/a2a/v1/a2a_pb.js";

/**
 * Every binding this client speaks, as Agent Cards spell them. Which of them
 * this runtime can build, and on which protocol versions, the transport
 * registry says (see `connect`).
 * @category Connect and call
 */
export const BINDINGS = ["JSONRPC", "HTTP+JSON", "GRPC"] as const;

/** The protocol bindings of A2A 1.0, spelled as Agent Cards spell them. @category Connect and call */
export type Binding = (typeof BINDINGS)[number];

/** An interface of the card this client can use, as ranked. @category Connect and call */
export interface Candidate {
  /** The interface as the card lists it. */
  interface: AgentInterface;
  /** Its binding, normalised to one this client knows. */
  binding: Binding;
  /** Major.Minor of the interface's protocolVersion. */
  version: string;
}
