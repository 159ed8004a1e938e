/**
 * The package as npm publishes it, for tests that load it the way apps do:
 * packed with `npm pack` from a scratch copy of the sources, whose prepack
 * builds it (the repository's dist/ is left alone), and extracted into an app, either beside the
 * repository's node_modules (nothing fetched) or installed by npm.
 */
import { execFile } from "node:child_process";
import { copyFileSync, cpSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "../../scripts/size.js";

export const run = promisify(execFile);

/** A packed tarball: its path and the files in it, as npm reports them. */
export interface PackedPackage {
  tarball: string;
  files: string[];
}

/**
 * Packs the package as from a fresh clone: its sources copied into
 * `scratch`/source, with no dist/, and `npm pack` run there, whose prepack
 * builds it. Takes a build: give the hook two minutes.
 */
export async function packPackage(scratch: string): Promise<PackedPackage> {
  const source = join(scratch, "source");
  mkdirSync(source);
  mkdirSync(join(source, "scripts"));
  for (const file of ["package.json", "README.md", "LICENSE", "CHANGELOG.md", "tsconfig.json", "tsconfig.build.json", "scripts/build.ts"]) {
    copyFileSync(join(repoRoot, file), join(source, file));
  }
  for (const dir of ["src", "gen"]) cpSync(join(repoRoot, dir), join(source, dir), { recursive: true });
  symlinkSync(join(repoRoot, "node_modules"), join(source, "node_modules"), "dir");
  const { stdout } = await run("npm", ["pack", "--json", "--silent", "--pack-destination", scratch], { cwd: source });
  // What the build's scripts print comes first; npm's report is the JSON array at the end.
  const [info] = JSON.parse(stdout.slice(stdout.indexOf("[\n"))) as { filename: string; files: { path: string }[] }[];
  return { tarball: join(scratch, info!.filename), files: info!.files.map((f) => f.path) };
}

/**
 * An app in `scratch`/app whose node_modules/a2a-connect is the extracted
 * tarball, with its dependencies beside it from the repository's
 * node_modules, as npm lays them out. Returns the app's directory.
 */
export async function appBesideRepoDependencies(scratch: string, pack: PackedPackage): Promise<string> {
  const installed = join(scratch, "installed");
  mkdirSync(installed);
  await run("tar", ["-xzf", pack.tarball, "-C", installed]);
  symlinkSync(join(repoRoot, "node_modules"), join(scratch, "node_modules"), "dir");
  const app = join(scratch, "app");
  mkdirSync(join(app, "node_modules"), { recursive: true });
  symlinkSync(join(installed, "package"), join(app, "node_modules", "a2a-connect"), "dir");
  return app;
}

/** Runs `node args` in `app`, bounded; its stdout, trimmed. */
export async function nodeIn(app: string, args: string[], timeoutMs = 30_000): Promise<string> {
  const { stdout } = await run(process.execPath, args, { cwd: app, timeout: timeoutMs });
  return stdout.trim();
}
