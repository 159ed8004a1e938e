/**
 * The ACTS assertion language (spec §5): a bare scalar is exact equality; a
 * map of operators (`type`, `exists`, `absent`, `contains`, `matches`,
 * `starts_with`, `ends_with`, `gte`, `lte`, `gt`, `lt`, `count`,
 * `count_gte`, `count_lte`, `one_of`, `all_of`, `any_of`, `not`) applies
 * each of them (AND); any other map mirrors the object it checks, field by
 * field, and a list its array, element by element (§5.2).
 */
import { isDeepStrictEqual } from "node:util";
import { formatPath, type Path } from "./paths.js";

/** One failed check: where, what was expected, what was there. */
export interface Mismatch {
  path: string;
  expected: string;
  actual: string;
}

/** A file that uses the assertion language wrongly: an unknown operator, an operand of the wrong kind. */
export class ActsFormatError extends Error {
  override name = "ActsFormatError";
}

type Operator = (actual: unknown, operand: unknown, path: Path) => string | undefined;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** The JSON type of a value, as `type` names it; "absent" for no value. */
export function jsonType(v: unknown): string {
  if (v === undefined) return "absent";
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/** A value as a failure shows it. */
export function shown(v: unknown): string {
  return v === undefined ? "absent" : JSON.stringify(v);
}

function operand<T>(name: string, value: unknown, kind: "string" | "number" | "array", path: Path): T {
  if (jsonType(value) !== kind) throw new ActsFormatError(`${formatPath(path)}: "${name}" takes a ${kind}, not ${shown(value)}`);
  return value as T;
}

function text(name: string, actual: unknown, value: unknown, path: Path, test: (a: string, v: string) => boolean): string | undefined {
  const want = operand<string>(name, value, "string", path);
  return typeof actual === "string" && test(actual, want) ? undefined : `${name} ${shown(want)}`;
}

function compare(name: string, actual: unknown, value: unknown, path: Path, test: (a: number, v: number) => boolean): string | undefined {
  const want = operand<number>(name, value, "number", path);
  return typeof actual === "number" && test(actual, want) ? undefined : `${name} ${want}`;
}

function length(name: string, actual: unknown, value: unknown, path: Path, test: (a: number, v: number) => boolean): string | undefined {
  const want = operand<number>(name, value, "number", path);
  return Array.isArray(actual) && test(actual.length, want) ? undefined : `an array with ${name} ${want}`;
}

const passes = (actual: unknown, assertion: unknown, path: Path) => check(actual, assertion, path).length === 0;

/** Each operator: undefined when it holds, else what it expected. */
const OPERATORS: Readonly<Record<string, Operator>> = {
  type: (a, v, p) => {
    if (!["string", "number", "boolean", "array", "object", "null"].includes(v as string))
      throw new ActsFormatError(`${formatPath(p)}: "type" ${shown(v)} is none of string, number, boolean, array, object, null`);
    return jsonType(a) === v ? undefined : `type ${v}`;
  },
  exists: (a, v, p) => {
    if (v !== true) throw new ActsFormatError(`${formatPath(p)}: "exists" takes only true, not ${shown(v)}`);
    return a !== undefined ? undefined : "present";
  },
  absent: (a, v, p) => {
    if (v !== true) throw new ActsFormatError(`${formatPath(p)}: "absent" takes only true, not ${shown(v)}`);
    return a === undefined ? undefined : "absent";
  },
  contains: (a, v, p) => text("contains", a, v, p, (s, w) => s.includes(w)),
  matches: (a, v, p) => text("matches", a, v, p, (s, w) => new RegExp(w, "u").test(s)),
  starts_with: (a, v, p) => text("starts_with", a, v, p, (s, w) => s.startsWith(w)),
  ends_with: (a, v, p) => text("ends_with", a, v, p, (s, w) => s.endsWith(w)),
  gte: (a, v, p) => compare("gte", a, v, p, (x, y) => x >= y),
  lte: (a, v, p) => compare("lte", a, v, p, (x, y) => x <= y),
  gt: (a, v, p) => compare("gt", a, v, p, (x, y) => x > y),
  lt: (a, v, p) => compare("lt", a, v, p, (x, y) => x < y),
  count: (a, v, p) => length("count", a, v, p, (x, y) => x === y),
  count_gte: (a, v, p) => length("count_gte", a, v, p, (x, y) => x >= y),
  count_lte: (a, v, p) => length("count_lte", a, v, p, (x, y) => x <= y),
  one_of: (a, v, p) => {
    const options = operand<unknown[]>("one_of", v, "array", p);
    return options.some((o) => isDeepStrictEqual(a, o)) ? undefined : `one of ${shown(options)}`;
  },
  all_of: (a, v, p) => {
    const all = operand<unknown[]>("all_of", v, "array", p);
    const failed = all.flatMap((x) => check(a, x, p));
    return failed.length === 0 ? undefined : `all of ${shown(all)} (failed: ${failed.map((f) => `${f.path} ${f.expected}`).join("; ")})`;
  },
  any_of: (a, v, p) => {
    const any = operand<unknown[]>("any_of", v, "array", p);
    return any.some((x) => passes(a, x, p)) ? undefined : `any of ${shown(any)}`;
  },
  not: (a, v, p) => (passes(a, v, p) ? `not ${shown(v)}` : undefined),
};

/** The ACTS operators, by name. */
export const OPERATOR_NAMES: readonly string[] = Object.keys(OPERATORS);

/**
 * The mismatches of `actual` against an assertion, empty when it holds.
 * A map is an operator map when any of its keys is an operator, or when
 * what it checks is no object (a scalar, an array, nothing): then every key
 * must be an operator, and one that is not is an ActsFormatError naming it.
 */
export function check(actual: unknown, assertion: unknown, path: Path = []): Mismatch[] {
  if (Array.isArray(assertion)) {
    if (!Array.isArray(actual))
      return [{ path: formatPath(path), expected: `an array of at least ${assertion.length}`, actual: shown(actual) }];
    return assertion.flatMap((a, i) =>
      i < actual.length
        ? check(actual[i], a, [...path, i])
        : [{ path: formatPath([...path, i]), expected: "an element", actual: "absent" }],
    );
  }
  if (!isObject(assertion)) {
    return isDeepStrictEqual(actual, assertion) ? [] : [{ path: formatPath(path), expected: shown(assertion), actual: shown(actual) }];
  }
  const keys = Object.keys(assertion);
  const operators = keys.filter((k) => Object.hasOwn(OPERATORS, k));
  if (operators.length > 0 || (!isObject(actual) && actual !== undefined)) {
    const unknown = keys.filter((k) => !Object.hasOwn(OPERATORS, k));
    if (unknown.length > 0) {
      throw new ActsFormatError(
        `${formatPath(path)}: unknown assertion operator ${unknown.map((k) => `"${k}"`).join(", ")} (the operators: ${OPERATOR_NAMES.join(", ")})`,
      );
    }
    const failed = operators.flatMap((k) => OPERATORS[k]!(actual, assertion[k], path) ?? []);
    return failed.length === 0 ? [] : [{ path: formatPath(path), expected: failed.join(" and "), actual: shown(actual) }];
  }
  if (actual === undefined) return [{ path: formatPath(path), expected: "an object", actual: "absent" }];
  const fields = actual as Record<string, unknown>;
  return keys.flatMap((k) => check(Object.hasOwn(fields, k) ? fields[k] : undefined, assertion[k], [...path, k]));
}
