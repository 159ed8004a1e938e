/**
 * A TCP proxy on 127.0.0.1 that breaks connections on purpose: it forwards
 * bytes both ways and, as each connection's plan says, cuts the server's
 * side after some bytes (a clean end or a reset) or stalls it.
 */
import { createServer, connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export type Fault = "end" | "reset" | "stall";

export interface ConnectionPlan {
  /** Bytes from the server to let through before the fault; undefined: never fault. */
  cutAfter?: number | undefined;
  fault?: Fault | undefined;
  /**
   * Decides the cut from what the server has sent so far on this connection
   * (every byte, in order): the offset to cut at, or undefined to go on.
   * For faults placed by content (after the first event) rather than by a
   * byte count that differs between servers. Overrides `cutAfter`.
   */
  cutWhen?: ((received: Buffer) => number | undefined) | undefined;
}

export interface ChaosProxy {
  port: number;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Faults injected so far. */
  readonly faults: number;
  /** Each fault injected: on which connection, and which. */
  readonly injected: ReadonlyArray<{ index: number; fault: Fault }>;
  /** Decides the fate of each new connection (by its index). */
  plan: (index: number) => ConnectionPlan;
  /** Sees every chunk let through from the server, by connection index. */
  tap: ((index: number, chunk: Buffer) => void) | undefined;
  close(): Promise<void>;
}

export async function startChaosProxy(targetPort: number, plan: (index: number) => ConnectionPlan = () => ({})): Promise<ChaosProxy> {
  const sockets = new Set<Socket>();
  let connections = 0;
  let faults = 0;
  const injected: Array<{ index: number; fault: Fault }> = [];
  const proxy: ChaosProxy = {
    port: 0,
    get connections() {
      return connections;
    },
    get faults() {
      return faults;
    },
    injected,
    plan,
    tap: undefined,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = createServer((client) => {
    const index = connections++;
    const { cutWhen, fault = "reset", ...planned } = proxy.plan(index);
    let cutAfter = planned.cutAfter;
    let received = Buffer.alloc(0);
    const upstream = connect(targetPort, "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {});
    }
    client.pipe(upstream);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => {
      if (!client.destroyed && !stalled) client.end();
    });
    let sent = 0;
    let stalled = false;
    upstream.on("data", (chunk: Buffer) => {
      if (stalled) return;
      if (cutWhen && cutAfter === undefined) {
        received = Buffer.concat([received, chunk]);
        cutAfter = cutWhen(received);
      }
      if (cutAfter === undefined || sent + chunk.length <= cutAfter) {
        sent += chunk.length;
        proxy.tap?.(index, chunk);
        client.write(chunk);
        return;
      }
      proxy.tap?.(index, chunk.subarray(0, cutAfter - sent));
      client.write(chunk.subarray(0, cutAfter - sent));
      sent = cutAfter;
      faults++;
      injected.push({ index, fault });
      if (fault === "stall") {
        // Keep the connection open and silent.
        stalled = true;
        return;
      }
      upstream.destroy();
      if (fault === "reset") client.resetAndDestroy();
      else client.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.port = (server.address() as AddressInfo).port;
  return proxy;
}
