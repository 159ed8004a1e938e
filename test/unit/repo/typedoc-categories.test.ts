/**
 * scripts/typedoc-categories.mjs, run by TypeDoc on a small project: an
 * export of ours without `@category` fails the build, and the generated
 * code, which cannot carry tags, is placed by kind.
 */
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Application, LogLevel, TSConfigReader, TypeDocReader, type ProjectReflection } from "typedoc";

const PLUGIN = resolve("scripts/typedoc-categories.mjs");

let dir: string;
let project: ProjectReflection | undefined;
const errors: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "a2a-typedoc-"));
  await mkdir(join(dir, "src"));
  await mkdir(join(dir, "gen"));
  await writeFile(join(dir, "package.json"), '{ "type": "module" }\n');
  await writeFile(
    join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { module: "nodenext", target: "es2022", strict: true }, include: ["src", "gen"] }),
  );
  await writeFile(
    join(dir, "gen/thing_pb.ts"),
    [
      "/** A generated message. */",
      "export type Thing = { name: string };",
      "/** Its JSON. */",
      "export type ThingJson = { name?: string };",
      "/** Its schema. */",
      'export const ThingSchema = { typeName: "Thing" };',
    ].join("\n"),
  );
  await writeFile(
    join(dir, "src/index.ts"),
    [
      'export * from "../gen/thing_pb.js";',
      "/** Tagged. @category Errors */",
      "export const tagged = 1;",
      "/** Not tagged. */",
      "export function untagged(): void {}",
    ].join("\n"),
  );
  // The fixture's own config, read as `npm run docs` reads typedoc.json (not
  // the repository's, nor vitest's command line).
  await writeFile(
    join(dir, "typedoc.json"),
    JSON.stringify({ entryPoints: ["src/index.ts"], tsconfig: "tsconfig.json", plugin: [PLUGIN], logLevel: "Warn" }),
  );
  const app = await Application.bootstrapWithPlugins({ options: join(dir, "typedoc.json") }, [new TypeDocReader(), new TSConfigReader()]);
  app.logger.log = (message, level) => {
    if (level === LogLevel.Error) errors.push(String(message));
  };
  project = await app.convert();
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const categoryOf = (name: string): string[] =>
  (project?.categories ?? []).filter((c) => c.children.some((r) => r.name === name)).map((c) => c.title);

describe("typedoc-categories plugin", () => {
  it("fails the build on an export of ours without @category, naming it", () => {
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/untagged .*has no @category tag/);
  });

  it("keeps the category of a tagged export and places generated code by kind", () => {
    expect(categoryOf("tagged")).toEqual(["Errors"]);
    expect(categoryOf("Thing")).toEqual(["Protocol types"]);
    expect(categoryOf("ThingJson")).toEqual(["ProtoJSON shapes"]);
    expect(categoryOf("ThingSchema")).toEqual(["Protocol schemas"]);
  });
});
