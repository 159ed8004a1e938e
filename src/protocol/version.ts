/**
 * A2A protocol versions as the client handles them: Major.Minor, which is
 * what the `A2A-Version` header carries and what cards' interfaces are
 * compared by (a patch number never changes the wire).
 */

import { InvalidParamsError } from "../errors/family.js";

/** Major.Minor at the start of a version string, after any whitespace. */
const MAJOR_MINOR = /^\s*(\d+)\.(\d+)/;

/** "1.0.3" -> "1.0": the A2A-Version header carries Major.Minor only. */
export function majorMinor(version: string): string {
  const m = MAJOR_MINOR.exec(version);
  if (!m) throw new InvalidParamsError(`protocol version must look like "1.0", got "${String(version).slice(0, 40)}"`);
  return `${m[1]}.${m[2]}`;
}

/**
 * "1.0.1" -> "1.0", numbers normalised ("01.00" -> "1.0"); undefined when
 * `version` is not a version. For comparing versions a card lists with
 * those a caller names.
 */
export function parseVersion(version: string): string | undefined {
  const m = MAJOR_MINOR.exec(version);
  return m ? `${Number(m[1])}.${Number(m[2])}` : undefined;
}

/** Orders Major.Minor versions: negative when `a` is older than `b`, 0 when equal. */
export function compareVersions(a: string, b: string): number {
  const [am = 0, an = 0] = a.split(".").map(Number);
  const [bm = 0, bn = 0] = b.split(".").map(Number);
  return am - bm || an - bn;
}
