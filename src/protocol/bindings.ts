/** The protocol bindings of A2A 1.0, spelled as Agent Cards spell them. */
export type Binding = "JSONRPC" | "HTTP+JSON" | "GRPC";

