/**
 * Which URLs name this machine, for the decisions that depend on it: key
 * sets over plain http (see jku.ts), credentials over plain http
 * (auth/plan.ts).
 */
/**
 * Whether a parsed URL names this machine: `localhost`, an address in
 * 127.0.0.0/8, or `[::1]`. The WHATWG parser has already turned every
 * spelling of an IPv4 address (`0x7f.1`, `2130706433`) into dotted decimal,
 * so a host that merely starts with `127.` (`127.0.0.1.example.com`) or ends
 * in `.localhost` is a DNS name, resolved elsewhere, and is not loopback.
 */
export function isLoopbackUrl(url: URL): boolean {
  const host = url.hostname;
  return host === "localhost" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
