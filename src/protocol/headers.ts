/**
 * The HTTP headers A2A defines as service parameters (spec 3.2.6), and the
 * ones a client sends on their behalf. In lower case, as `Headers` reports
 * them (HTTP compares names case-insensitively, and HTTP/2 sends them so),
 * so that one constant serves to set a header and to recognise it.
 */

/** `A2A-Version`: the protocol version a request is made in, Major.Minor (spec 3.2.6). */
export const A2A_VERSION = "a2a-version";
/** `A2A-Extensions`: the extension URIs a request activates, comma-separated (spec 3.2.6). */
export const A2A_EXTENSIONS = "a2a-extensions";
/** `X-A2A-Extensions`: what A2A 0.3 agents read activated extensions from; 1.0 renamed it. */
export const X_A2A_EXTENSIONS = "x-a2a-extensions";

/**
 * A request to an A2A 0.3 agent carries its activated extensions under both
 * names (the 0.3 transports of every binding call this, in place, below
 * the caller's interceptors): 0.3 agents read `X-A2A-Extensions`.
 */
export function addV03ExtensionsHeader(header: Headers): void {
  const extensions = header.get(A2A_EXTENSIONS);
  if (extensions !== null && !header.has(X_A2A_EXTENSIONS)) header.set(X_A2A_EXTENSIONS, extensions);
}
/** `Last-Event-ID`: the id of the last event a resumed stream saw (SSE). */
export const LAST_EVENT_ID = "last-event-id";
