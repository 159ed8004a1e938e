/**
 * Which URLs name this machine, for the decisions that depend on it: key
 * sets over plain http (see jku.ts), credentials over plain http
 * (auth/plan.ts), and the addresses a card from elsewhere may not send the
 * client to (local-urls.ts).
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

/**
 * Whether a parsed URL may reach this machine or its link rather than the
 * network at large: the wider reading, for refusing, where `isLoopbackUrl`
 * is the narrow one, for allowing. `localhost` and every `*.localhost` name
 * (resolvers and browsers send them to loopback), with or without the final
 * dot; 127.0.0.0/8 and 0.0.0.0/8 (which connects to this machine);
 * link-local 169.254.0.0/16, where cloud metadata services answer; and in
 * IPv6 `::1`, `::`, fe80::/10 and the IPv4-mapped and -compatible forms of
 * those IPv4 addresses (`[::ffff:127.0.0.1]`). Read on the URL parser's
 * output, which writes a host in one way only: lowercase, IPv4 in dotted
 * decimal, IPv6 in hex with its longest run of zeros as `::`
 * (`[::ffff:7f00:1]`).
 */
export function isLocalUrl(url: URL): boolean {
  const host = url.hostname.replace(/\.$/, "");
  if (/^((.*\.)?localhost|\[::1?\]|\[fe[89ab][0-9a-f]:.*)$/.test(host)) return true;
  const v4 = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(host);
  if (v4) return isLocalIpv4(Number(v4[1]), Number(v4[2]));
  const mapped = /^\[::(?:ffff:)?([0-9a-f]{1,4}):[0-9a-f]{1,4}\]$/.exec(host);
  if (!mapped) return false;
  const high = parseInt(mapped[1]!, 16);
  return isLocalIpv4(high >> 8, high & 0xff);
}

function isLocalIpv4(a: number, b: number): boolean {
  return a === 127 || a === 0 || (a === 169 && b === 254);
}
