/**
 * Class names in a minified production bundle: a bundler renames classes, so
 * a name taken from the class would print `O: ...`, `console.log` would show
 * `O {}`, and `JSON.stringify` of an error would carry it. Every entry,
 * bundled and minified as an app's build does it, must give every public
 * class its own name (src/base/keep-names.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let dir: string;
/** Each entry's exports, from its minified bundle. */
const entries: Record<string, Record<string, unknown>> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "a2a-minified-"));
  for (const name of ["index", "trust", "toolkit", "node", "testing"]) {
    const out = await build({
      entryPoints: [new URL(`../../../src/${name}.ts`, import.meta.url).pathname],
      bundle: true,
      minify: true,
      format: "esm",
      platform: name === "node" ? "node" : "browser",
      // The Node entry's dependencies stay packages of their own, as an app's node_modules has them.
      packages: name === "node" ? "external" : undefined,
      write: false,
      logLevel: "silent",
    });
    const file = join(dir, `${name}.mjs`);
    writeFileSync(file, out.outputFiles[0]!.text);
    entries[name] = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  }
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Class = new (...args: never[]) => unknown;

/** Every class an entry exports, by its export name. */
function classesOf(entry: Record<string, unknown>): Array<[string, Class]> {
  return Object.entries(entry).flatMap(([name, value]) =>
    typeof value === "function" && /^class\b/.test(Function.prototype.toString.call(value)) ? [[name, value as Class]] : [],
  );
}

describe.each(["index", "trust", "toolkit", "node", "testing"])("a minified bundle of the %s entry", (name) => {
  it("has every public class under its own name; errors print and serialise it", () => {
    const classes = classesOf(entries[name]!);
    const wrong: string[] = [];
    for (const [exported, cls] of classes) {
      if (cls.name !== exported) wrong.push(`${exported}: class named ${cls.name}`);
      if (!((cls as { prototype: unknown }).prototype instanceof Error)) continue;
      // Every init field a subclass requires, so each constructs.
      const init = { kind: "network", taskId: "t", state: 4, result: { verified: false, failures: [] } };
      const e = new (cls as unknown as new (message: string, init: object) => Error)("m", init);
      if (e.name !== exported) wrong.push(`${exported}: instance named ${e.name}`);
      if (!String(e).startsWith(`${exported}: m`)) wrong.push(`${exported}: prints ${String(e)}`);
      if (JSON.parse(JSON.stringify(e)).name !== exported) wrong.push(`${exported} in JSON: ${JSON.stringify(e)}`);
    }
    expect(wrong).toEqual([]);
  });
});

it("the bundles rename classes (else these tests would prove nothing)", async () => {
  const out = await build({
    stdin: { contents: "export class LongClassName {}", loader: "ts" },
    bundle: true,
    minify: true,
    format: "esm",
    write: false,
  });
  // Exported under its name, but the class itself has lost it.
  expect(out.outputFiles[0]!.text).not.toContain("class LongClassName");
  expect(classesOf(entries.index!).length).toBeGreaterThan(30);
});
