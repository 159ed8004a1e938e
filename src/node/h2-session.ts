/**
 * connect-node's HTTP/2 session manager, with two races closed that a dead
 * connection runs into (@connectrpc/connect-node 2.1):
 *
 * - Before a call on a connection that has been quiet, the manager sends a
 *   PING and waits for its answer. A stream on that connection that closes
 *   meanwhile (say, one given up for being idle) stops the PING's timeout,
 *   and every later call waits on that verification for good. Here a
 *   verification that outlives twice the PING timeout closes the connection,
 *   so the call fails (and the next one connects afresh).
 * - A session destroyed with an error after the manager has let go of it
 *   emits that error with no listener, which ends the process. Here every
 *   session keeps a listener; its calls still see the error.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { Http2SessionManager, type GrpcTransportOptions } from "@connectrpc/connect-node";
import type { Http2Session } from "node:http2";

type SessionManager = NonNullable<GrpcTransportOptions["sessionManager"]>;

/** A session manager for `baseUrl` with the two races above closed. */
export function guardedSessionManager(baseUrl: string, ping: { pingIntervalMs: number; pingTimeoutMs: number }): SessionManager {
  const inner = new Http2SessionManager(baseUrl, ping);
  const guarded = new WeakSet<Http2Session>();
  const ignore = () => {};
  return {
    authority: inner.authority,
    async request(method, path, headers, options) {
      const watchdog = setTimeout(() => {
        if (inner.state() === "verifying") inner.abort(new ConnectError("PING timed out", Code.Unavailable));
      }, 2 * ping.pingTimeoutMs);
      try {
        const stream = await inner.request(method, path, headers, options);
        const session = stream.session;
        if (session && !guarded.has(session)) {
          guarded.add(session);
          session.on("error", ignore);
        }
        return stream;
      } finally {
        clearTimeout(watchdog);
      }
    },
    notifyResponseByteRead(stream) {
      inner.notifyResponseByteRead(stream);
    },
  };
}
