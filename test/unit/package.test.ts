/**
 * The package as npm publishes it: built afresh into a scratch copy (the
 * repository's dist/ is left alone), packed with `npm pack`, extracted, and
 * loaded the way apps load it, `require()` and `import`, in fresh Node
 * processes. Its dependencies come from the repository's node_modules, so
 * nothing is fetched.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/size.js";

const run = promisify(execFile);
const ENTRIES = ["a2a-connect", "a2a-connect/trust", "a2a-connect/node", "a2a-connect/toolkit"];

let scratch: string;
let packed: string[]; // the tarball's file list, as npm reports it
let app: string; // an app whose node_modules/a2a-connect is the extracted tarball

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "a2a-connect-pack-"));
  const source = join(scratch, "source");
  mkdirSync(source);
  for (const file of ["package.json", "README.md", "LICENSE", "CHANGELOG.md"]) copyFileSync(join(repoRoot, file), join(source, file));
  await run(process.execPath, [
    join(repoRoot, "node_modules/typescript/bin/tsc"),
    "-p",
    join(repoRoot, "tsconfig.build.json"),
    "--outDir",
    join(source, "dist"),
  ]);
  const { stdout } = await run("npm", ["pack", "--json", "--silent", "--pack-destination", scratch], { cwd: source });
  const [info] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  packed = info!.files.map((f) => f.path);

  // Installed as npm lays it out: the package, its dependencies beside it, an app that depends on it.
  const installed = join(scratch, "installed");
  mkdirSync(installed);
  await run("tar", ["-xzf", join(scratch, info!.filename), "-C", installed]);
  symlinkSync(join(repoRoot, "node_modules"), join(scratch, "node_modules"), "dir");
  app = join(scratch, "app");
  mkdirSync(join(app, "node_modules"), { recursive: true });
  symlinkSync(join(installed, "package"), join(app, "node_modules", "a2a-connect"), "dir");
}, 120_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

async function node(args: string[]) {
  const { stdout } = await run(process.execPath, args, { cwd: app, timeout: 30_000 });
  return stdout.trim();
}

describe("the packed package", () => {
  it("require() loads every entry (Node >= 20.19 requires ESM), with one connect", async () => {
    const script = `
      const [root, trust, node, toolkit] = ${JSON.stringify(ENTRIES)}.map((e) => require(e));
      console.log(JSON.stringify([typeof root.connect, typeof trust.verifyAgentCard, node.connect === root.connect, typeof toolkit.createConnect]));`;
    expect(JSON.parse(await node(["-e", script]))).toEqual(["function", "function", true, "function"]);
  });

  it("import loads every entry, the same modules require() gets", async () => {
    const script = `
      import { createRequire } from "node:module";
      const require = createRequire(process.cwd() + "/");
      const same = [];
      for (const e of ${JSON.stringify(ENTRIES)}) same.push((await import(e)).connect === require(e).connect);
      console.log(JSON.stringify(same));`;
    expect(JSON.parse(await node(["--input-type=module", "-e", script]))).toEqual([true, true, true, true]);
  });

  it("ships the license, the changelog and the readme", () => {
    expect(packed).toEqual(expect.arrayContaining(["LICENSE", "CHANGELOG.md", "README.md", "package.json"]));
    expect(readFileSync(join(app, "node_modules/a2a-connect/LICENSE"), "utf8")).toMatch(/Apache License\s+Version 2\.0/);
  });

  it("ships no source map that names a file it does not ship, and no JS pointing at one", () => {
    // The package ships no maps (its sources are not in it): a map would name src/*.ts.
    const shipped = new Set(packed);
    for (const path of packed.filter((p) => p.endsWith(".map"))) {
      const map = JSON.parse(readFileSync(join(app, "node_modules/a2a-connect", path), "utf8")) as { sources: string[] };
      for (const s of map.sources) expect(shipped, `${path} names ${s}`).toContain(join(path, "..", s));
    }
    const js = packed.filter((p) => p.endsWith(".js"));
    expect(js.length).toBeGreaterThan(50);
    for (const path of js) {
      const text = readFileSync(join(app, "node_modules/a2a-connect", path), "utf8");
      const url = /\/\/# sourceMappingURL=(\S+)/.exec(text)?.[1];
      if (url) expect(shipped, `${path} points at ${url}`).toContain(join(path, "..", url));
    }
  });

  it("ships neither the interop kit's agent nor the kit's generated Instruction", () => {
    expect(packed.filter((p) => /(^|\/)itk\//.test(p))).toEqual([]);
  });

  it("every export condition names a file in the tarball", () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { exports: Record<string, Record<string, string>> };
    const targets = Object.values(pkg.exports).flatMap((conditions) => Object.values(conditions));
    for (const target of targets) expect(packed).toContain(target.replace(/^\.\//, ""));
  });
});
