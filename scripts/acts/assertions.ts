/**
 * Named assertions (spec §5.5): run after a step (`assertions`), after the
 * whole test, or as an assertion step, against an earlier step's parsed
 * result, named by `source` (`{{stepId.response}}`, `stepId.response` or
 * `stepId`, a dot-path further in allowed).
 */
import type { NamedAssertion } from "./document.js";
import { ActsFormatError, check, type Mismatch } from "./matchers.js";
import { formatPath, parsePath, valueAt, valuesAt } from "./paths.js";

/** The mismatches of one named assertion against the parsed results so far, by step id. */
export function checkNamed(assertion: NamedAssertion, parsed: ReadonlyMap<string, unknown>): Mismatch[] {
  const source = parsePath(assertion.source.replace(/^\{\{\s*|\s*\}\}$/g, ""));
  const [stepId, ...rest] = source;
  if (typeof stepId !== "string" || !parsed.has(stepId)) throw new ActsFormatError(`source "${assertion.source}" names no earlier step`);
  const within = [...(rest[0] === "response" ? rest.slice(1) : rest), ...(assertion.path === undefined ? [] : parsePath(assertion.path))];
  const root = valueAt(parsed.get(stepId), within);
  const out: Mismatch[] = assertion.match === undefined ? [] : check(root, assertion.match, within);
  for (const kind of ["any", "all", "none"] as const) {
    const collection = assertion[kind];
    if (collection === undefined) continue;
    const elements = valuesAt(root, parsePath(collection.path));
    const failing = elements.map((e) => check(e.value, collection.match, [...within, ...e.path]));
    const passing = failing.filter((m) => m.length === 0).length;
    const where = formatPath([...within, ...parsePath(collection.path)]);
    if (kind === "any" && passing === 0)
      out.push({
        path: where,
        expected: `some element to match ${JSON.stringify(collection.match)}`,
        actual: `none of ${elements.length}`,
      });
    if (kind === "all") out.push(...failing.flat());
    if (kind === "none" && passing > 0)
      out.push({
        path: where,
        expected: `no element to match ${JSON.stringify(collection.match)}`,
        actual: `${passing} of ${elements.length}`,
      });
  }
  return out;
}
