/**
 * One HTTP/2 connection to an origin, shared by a transport's calls, and
 * replaced when it goes away: a session that is closed, destroyed or told to
 * go away (GOAWAY) takes no new streams, and the next call connects afresh.
 *
 * An idle connection does not keep the process alive (the session is
 * unref'd while it has no open stream). While streams are open it is
 * checked with PINGs: one unanswered in time destroys the session, so its
 * calls fail as cut and the next call does not wait on a dead connection.
 * A connection that has been quiet for a PING interval is checked with a
 * PING before a new call uses it. Timers run only while a PING or a stream
 * is outstanding.
 *
 * A connection is used once the server's SETTINGS have arrived, so that
 * its calls keep to the server's limit on concurrent streams (the client
 * queues those over it) rather than being refused for exceeding it.
 */
import type * as http2 from "node:http2";
import type { SecureContext } from "node:tls";
import { Code, ConnectError } from "@connectrpc/connect";
import { connectionLost } from "./wire.js";
import { unlessAborted } from "../../base/abort.js";
import { MAX_TIMER_MS } from "../../base/timers.js";

/**
 * node:http2, loaded by the first session rather than imported: importing
 * the Node entry need not load HTTP/2 and TLS, a cold start that may never
 * call over gRPC.
 */
export const nodeHttp2 = (): typeof http2 => process.getBuiltinModule("node:http2");

export interface PingOptions {
  pingIntervalMs: number;
  pingTimeoutMs: number;
}

/** How a keeper's sessions connect and are checked. */
export interface SessionOptions extends PingOptions {
  /** TLS settings of an `https:` origin, made once (see h2.ts); Node's defaults without. */
  secureContext?: SecureContext | undefined;
  servername?: string | undefined;
}

/** A connection being made, and how many calls still wait for it. */
interface Dial {
  session: http2.ClientHttp2Session;
  ready: Promise<TrackedSession>;
  waiters: number;
}

// Every session keeps an 'error' listener: an error emitted without one ends the process.
const ignore = () => {};

export class SessionKeeper {
  private current: TrackedSession | undefined;
  private dial: Dial | undefined;

  constructor(
    private readonly origin: string,
    private readonly options: SessionOptions,
  ) {}

  /** Opens a stream for `headers`, on the current session or a new one. */
  async request(headers: http2.OutgoingHttpHeaders, signal: AbortSignal): Promise<http2.ClientHttp2Stream> {
    for (let fresh = false; ; fresh = true) {
      const current = this.current;
      const alive = current?.usable() ? await current.verify(signal) : false;
      const session = alive ? current! : await this.connect(signal);
      try {
        return session.request(headers);
      } catch (e) {
        // The session went away between the check and the request: one more try, on a new one.
        if (fresh || session.usable()) throw connectionLost(e);
      }
    }
  }

  private connect(signal: AbortSignal): Promise<TrackedSession> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const dial = (this.dial ??= this.open());
    dial.waiters++;
    return new Promise((resolve, reject) => {
      const leave = () => {
        signal.removeEventListener("abort", onAbort);
        dial.waiters--;
      };
      // A connection nobody waits for any more is given up, so that it does
      // not hold the process (a host that never answers takes minutes to fail).
      const onAbort = () => {
        leave();
        if (dial.waiters === 0 && this.dial === dial) {
          this.dial = undefined;
          dial.session.destroy();
        }
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort);
      dial.ready.then(
        (s) => {
          if (signal.aborted) return;
          leave();
          resolve(s);
        },
        (e: unknown) => {
          if (signal.aborted) return;
          leave();
          reject(e);
        },
      );
    });
  }

  private open(): Dial {
    const { secureContext, servername } = this.options;
    const session = nodeHttp2().connect(this.origin, secureContext ? { secureContext, servername } : {});
    session.on("error", ignore);
    const ready = new Promise<TrackedSession>((resolve, reject) => {
      const failed = (e?: Error) => {
        if (this.dial?.session === session) this.dial = undefined;
        reject(new ConnectError(`cannot connect to ${this.origin}${e ? `: ${e.message}` : ""}`, Code.Unavailable, undefined, undefined, e));
      };
      session.once("error", failed);
      session.once("close", failed);
      // Node destroys a session whose socket fails after the TLS handshake
      // (the agent's alert refusing a client without a certificate) without
      // emitting 'error' or 'close' on it: the socket's error is the news.
      const socket = session.socket;
      socket.once("error", failed);
      // Not at "connect": until the server's SETTINGS arrive, its limit on
      // concurrent streams is unknown, and calls over it would be refused.
      session.once("remoteSettings", () => {
        session.off("error", failed);
        session.off("close", failed);
        socket.off("error", failed);
        if (this.dial?.session === session) this.dial = undefined;
        const tracked = new TrackedSession(session, this.options);
        this.current = tracked;
        session.once("close", () => {
          if (this.current === tracked) this.current = undefined;
        });
        resolve(tracked);
      });
    });
    // Nobody may be left to hear of a failed dial.
    ready.catch(ignore);
    return { session, ready, waiters: 0 };
  }
}

/** A connected session: its open streams, and the PINGs that check it while there are some. */
class TrackedSession {
  private streams = 0;
  private goingAway = false;
  /** When the connection last proved alive: connected, or a PING answered. */
  private aliveAt = performance.now();
  /** When the PING awaiting its answer was sent. */
  private pingSentAt: number | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The check of a quiet connection in progress (see verify), its timer, and the calls waiting for it. */
  private checking: Promise<boolean> | undefined;
  private checkTimer: ReturnType<typeof setTimeout> | undefined;
  private checkWaiters = 0;

  constructor(
    private readonly session: http2.ClientHttp2Session,
    private readonly ping: PingOptions,
  ) {
    session.unref();
    session.once("goaway", () => {
      this.goingAway = true;
      // Streams in flight may finish; without any, there is nothing to wait for.
      if (this.streams === 0) session.destroy();
    });
    session.once("close", () => this.stopTimer());
  }

  usable(): boolean {
    return !this.goingAway && !this.session.closed && !this.session.destroyed;
  }

  /**
   * Whether the connection still answers, for a call about to use it. One
   * that has been quiet for a PING interval may have died unnoticed (a NAT
   * or a proxy dropped it): a PING checks it first, and one unanswered in
   * time destroys it, so the call goes to a new connection instead of
   * failing as cut. Calls that arrive meanwhile share the check, each
   * waiting within its own `signal`; the check's timer holds the process
   * only while some call waits for it.
   */
  verify(signal: AbortSignal): boolean | Promise<boolean> {
    const quiet = this.streams === 0 && performance.now() - this.aliveAt >= this.ping.pingIntervalMs;
    if (!quiet || !(this.ping.pingIntervalMs <= MAX_TIMER_MS)) return true;
    this.checking ??= new Promise<boolean>((resolve) => {
      const settle = (alive: boolean) => {
        clearTimeout(this.checkTimer);
        this.checkTimer = undefined;
        this.checking = undefined;
        if (alive) this.aliveAt = performance.now();
        else this.session.destroy(new ConnectError("PING timed out", Code.Unavailable));
        resolve(alive);
      };
      this.checkTimer = setTimeout(() => settle(false), this.pingTimeoutMs());
      try {
        this.session.ping((err) => settle(!err));
      } catch {
        settle(false);
      }
    });
    this.checkWaiters++;
    this.checkTimer?.ref?.();
    const left = () => {
      // Nobody waits any more (aborted, or settled): the check may go on, without holding the process.
      if (--this.checkWaiters === 0) this.checkTimer?.unref?.();
    };
    const waiting = unlessAborted(this.checking, signal) as Promise<boolean>;
    waiting.then(left, left);
    return waiting;
  }

  request(headers: http2.OutgoingHttpHeaders): http2.ClientHttp2Stream {
    const stream = this.session.request(headers);
    if (this.streams++ === 0) {
      this.session.ref();
      this.armTimer();
    }
    stream.once("close", () => {
      // A stream the server ended cleanly proves the connection as a PING would.
      if (stream.rstCode === nodeHttp2().constants.NGHTTP2_NO_ERROR) this.aliveAt = performance.now();
      this.streamClosed();
    });
    return stream;
  }

  private readonly streamClosed = () => {
    if (--this.streams > 0) return;
    this.session.unref();
    this.stopTimer();
  };

  /** Waits for the PING in flight, or until the next one is due. */
  private armTimer(): void {
    // setTimeout would take a longer delay as 1 ms: such an interval means no PINGs.
    if (!(this.ping.pingIntervalMs <= MAX_TIMER_MS)) return;
    const now = performance.now();
    this.timer =
      this.pingSentAt === undefined
        ? setTimeout(this.sendPing, Math.max(0, this.aliveAt + this.ping.pingIntervalMs - now))
        : setTimeout(this.pingTimedOut, Math.max(0, this.pingSentAt + this.pingTimeoutMs() - now));
  }

  private pingTimeoutMs(): number {
    return Math.min(this.ping.pingTimeoutMs, MAX_TIMER_MS);
  }

  private stopTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private readonly sendPing = () => {
    this.timer = undefined;
    // Destroyed, and its 'close' (which stops the timers) not emitted yet.
    if (this.session.destroyed) return;
    this.pingSentAt = performance.now();
    this.timer = setTimeout(this.pingTimedOut, this.pingTimeoutMs());
    // A PING that cannot be sent (too many in flight, the session closing)
    // is left to time out, like one that is lost.
    try {
      this.session.ping((err) => {
        // An error means the session was destroyed: its 'close' cleans up.
        if (err) return;
        this.pingSentAt = undefined;
        this.aliveAt = performance.now();
        if (this.streams > 0) {
          clearTimeout(this.timer);
          this.armTimer();
        }
      });
    } catch {
      // Left to time out.
    }
  };

  private readonly pingTimedOut = () => {
    this.timer = undefined;
    this.session.destroy(new ConnectError("PING timed out", Code.Unavailable));
  };
}
