/**
 * A2A protocol versions as the client handles them: Major.Minor, which is
 * what the `A2A-Version` header carries and what cards' interfaces are
 * compared by (a patch number never changes the wire).
 */

/** "1.0.3" -> "1.0": the A2A-Version header carries Major.Minor only. */
export function majorMinor(version: string): string {
  const m = /^(\d+)\.(\d+)/.exec(version.trim());
  if (!m) throw new TypeError(`protocol version must look like "1.0", got "${version}"`);
  return `${m[1]}.${m[2]}`;
}

/** Orders Major.Minor versions: negative when `a` is older than `b`, 0 when equal. */
export function compareVersions(a: string, b: string): number {
  const [am = 0, an = 0] = a.split(".").map(Number);
  const [bm = 0, bn = 0] = b.split(".").map(Number);
  return am - bm || an - bn;
}
