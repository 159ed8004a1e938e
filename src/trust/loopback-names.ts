/**
 * The loopback names of one port: which origins a card fetched from this
 * machine may name its key set on (see jku.ts and context.ts), and which
 * Host a local agent signs its card for (demo/agent.ts). Apart from
 * loopback.ts, which the core bundle carries, as only the verifier needs
 * these.
 */
/**
 * The names by which a local agent on one port is commonly reached, as the
 * URL parser writes them: the name `localhost` and the two addresses it
 * reaches. Other 127.0.0.0/8 addresses are other sockets, not these.
 */
export const LOOPBACK_NAMES: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

/**
 * The origins of the addresses `localhost` reaches, on the scheme and port
 * of `url` when its host is `localhost`; none otherwise. Which of them a
 * connection to `localhost` lands on is the resolver's choice, so what is
 * served by that name is already trusted at either; an address, by
 * contrast, names one socket, and the name could reach another.
 */
export function localhostAddresses(url: URL): string[] {
  if (url.hostname !== "localhost") return [];
  const port = url.port === "" ? "" : `:${url.port}`;
  return LOOPBACK_NAMES.slice(1).map((host) => `${url.protocol}//${host}${port}`);
}

/** Whether two URLs name the same scheme and port of this machine by two different names of LOOPBACK_NAMES. */
export function areLoopbackAliases(a: URL, b: URL): boolean {
  return (
    a.hostname !== b.hostname &&
    a.protocol === b.protocol &&
    a.port === b.port &&
    LOOPBACK_NAMES.includes(a.hostname) &&
    LOOPBACK_NAMES.includes(b.hostname)
  );
}
