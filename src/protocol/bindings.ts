/**
 * Every binding this client speaks, as Agent Cards spell them. Which of them
 * this runtime can build, and on which protocol versions, the transport
 * registry says (see `connect`).
 */
export const BINDINGS = ["JSONRPC", "HTTP+JSON", "GRPC"] as const;

/** The protocol bindings of A2A 1.0, spelled as Agent Cards spell them. */
export type Binding = (typeof BINDINGS)[number];
