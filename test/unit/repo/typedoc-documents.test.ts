/**
 * scripts/typedoc-documents.mjs, run by TypeDoc on a small project: the
 * guides are named in the site by their `# ` title, in the order the config
 * lists them, and a guide without a title fails the build.
 */
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Application, LogLevel, TSConfigReader, TypeDocReader, type ProjectReflection } from "typedoc";

const PLUGIN = resolve("scripts/typedoc-documents.mjs");

let dir: string;
let project: ProjectReflection | undefined;
const errors: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "a2a-typedoc-docs-"));
  await mkdir(join(dir, "src"));
  await mkdir(join(dir, "docs"));
  await writeFile(join(dir, "package.json"), '{ "type": "module" }\n');
  await writeFile(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "nodenext", strict: true }, include: ["src"] }));
  await writeFile(join(dir, "src/index.ts"), "/** A value. */\nexport const one = 1;\n");
  await writeFile(join(dir, "docs/streams.md"), "# Streams that survive disconnects\n\nText.\n\n## Waiting\n");
  await writeFile(join(dir, "docs/auth.md"), "Intro before the title.\n\n# Auth\n");
  await writeFile(join(dir, "docs/untitled.md"), "No title, only text.\n\n## A section\n");
  await writeFile(
    join(dir, "typedoc.json"),
    JSON.stringify({
      entryPoints: ["src/index.ts"],
      tsconfig: "tsconfig.json",
      projectDocuments: ["docs/streams.md", "docs/auth.md", "docs/untitled.md"],
      plugin: [PLUGIN],
      logLevel: "Warn",
    }),
  );
  const app = await Application.bootstrapWithPlugins({ options: join(dir, "typedoc.json") }, [new TypeDocReader(), new TSConfigReader()]);
  app.logger.log = (message, level) => {
    if (level === LogLevel.Error) errors.push(String(message));
  };
  project = await app.convert();
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("typedoc-documents", () => {
  it("names each guide by its title, in the order typedoc.json lists them", () => {
    expect(project?.documents?.map((d) => d.name).slice(0, 2)).toEqual(["Streams that survive disconnects", "Auth"]);
  });

  it("fails the build on a guide without a title, naming it", () => {
    expect(errors).toEqual([expect.stringMatching(/untitled: a guide opens with a "# " title, and this one has none/)]);
  });
});
