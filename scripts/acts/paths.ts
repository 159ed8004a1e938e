/**
 * ACTS dot-paths (spec §5.2): `task.artifacts[0].parts[*].text`, a field
 * name per dot, `[n]` an index, `[*]` every element (collection assertions
 * only). Used for named assertions, the corrections' places in the data, and
 * to name where a check failed.
 */

/** One step of a path: a field, an index, or every element. */
export type Segment = string | number | "*";
export type Path = readonly Segment[];

/** The segments of a dot-path; throws on one it cannot read, naming it. */
export function parsePath(text: string): Path {
  const out: Segment[] = [];
  for (const part of text.split(".")) {
    const m = /^([^[\]]*)((?:\[(?:\d+|\*)\])*)$/.exec(part);
    if (!m || (m[1] === "" && m[2] === "")) throw new Error(`"${text}" is not an ACTS dot-path`);
    if (m[1] !== "") out.push(m[1]!);
    for (const [, index] of m[2]!.matchAll(/\[(\d+|\*)\]/g)) out.push(index === "*" ? "*" : Number(index));
  }
  return out;
}

/** The path written back as a dot-path, `(root)` when empty. */
export function formatPath(path: Path): string {
  let text = "";
  for (const s of path) text += typeof s === "number" ? `[${s}]` : s === "*" ? "[*]" : text === "" ? s : `.${s}`;
  return text === "" ? "(root)" : text;
}

/** Every value the path leads to, with its concrete path; a wildcard expands to each element. */
export function valuesAt(value: unknown, path: Path, at: Segment[] = []): Array<{ path: Path; value: unknown }> {
  if (path.length === 0) return [{ path: at, value }];
  const [head, ...rest] = path as [Segment, ...Segment[]];
  if (head === "*") {
    if (!Array.isArray(value)) return [];
    return value.flatMap((v, i) => valuesAt(v, rest, [...at, i]));
  }
  const next = childOf(value, head);
  return valuesAt(next, rest, [...at, head]);
}

/** The value at a path without wildcards; undefined where it leads nowhere. */
export function valueAt(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((v, s) => childOf(v, s), value);
}

function childOf(value: unknown, key: Segment): unknown {
  if (typeof key === "number") return Array.isArray(value) ? value[key] : undefined;
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  return Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}
