/**
 * Gives public classes their names as written. A bundler that minifies
 * renames classes, so `String(error)` would print `O: ...`, `console.log` an
 * `O {}`, and an error's JSON its minified name; the names given here are
 * strings, which minifiers keep. Each module calls it once for the classes
 * it exports.
 */
export function keepNames(classes: Readonly<Record<string, abstract new (...args: never[]) => unknown>>): void {
  for (const [name, cls] of Object.entries(classes)) Object.defineProperty(cls, "name", { value: name });
}
