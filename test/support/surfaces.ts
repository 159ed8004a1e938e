/**
 * Everything a caller, a log or a crash reporter may show of an error: its
 * text, its stack, its JSON, what `util.inspect` prints of it with hidden
 * fields, and the same for each error of its cause chain. The secret
 * invariants are checked against all of it.
 */
import { inspect } from "node:util";

const json = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? String(x) : x)) ?? "";

export function errorSurfaces(e: unknown): string[] {
  const out = [String(e), inspect(e, { depth: Infinity, showHidden: true })];
  for (let cur = e, depth = 0; cur instanceof Error && depth < 8; cur = cur.cause, depth++) {
    const err = cur as Error & { details?: unknown; challenge?: unknown };
    out.push(err.message, err.stack ?? "", json(err), json(err.details), String(err.challenge));
  }
  return out;
}
