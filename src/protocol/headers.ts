/**
 * The HTTP headers A2A defines as service parameters (spec 3.2.6), and the
 * ones a client sends on their behalf. Names as the spec spells them;
 * HTTP compares them case-insensitively, and `Headers` reports them in
 * lower case.
 */

/** The protocol version a request is made in, Major.Minor (spec 3.2.6). */
export const A2A_VERSION = "A2A-Version";
/** The extension URIs a request activates, comma-separated (spec 3.2.6). */
export const A2A_EXTENSIONS = "A2A-Extensions";
/** What A2A 0.3 agents read activated extensions from; 1.0 renamed it A2A-Extensions. */
export const X_A2A_EXTENSIONS = "X-A2A-Extensions";
/** The id of the last event a resumed stream saw (SSE). */
export const LAST_EVENT_ID = "Last-Event-ID";
