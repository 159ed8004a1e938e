// npm run breaking [-- --against <git ref>]
//
// Runs `buf breaking` (rules from buf.yaml) against a git ref, `main` by
// default. buf's own `--against '.git#branch=main'` cannot be used: buf.yaml
// also names the node_modules/google-proto-files module, which is not in git,
// so that baseline does not build. Instead the ref's buf.yaml and proto/ are
// extracted to a temporary directory with node_modules linked in, and that
// directory is the baseline.
//
// Exit codes: 0 nothing breaking (or no `main` commit yet), 1 breaking
// changes (listed by buf), 2 usage, git or build errors.

import { spawnSync, type SpawnSyncOptions } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// The npm package's launcher, run with this node: no PATH or npx needed.
const bufCli = join(root, "node_modules", "@bufbuild", "buf", "bin", "buf");
const usage = "usage: npm run breaking [-- --against <git ref>]";

function run(cmd: string, args: string[], options: SpawnSyncOptions = {}) {
  return spawnSync(cmd, args, { cwd: root, encoding: "utf8", ...options });
}

/** The ref to compare with, or undefined when the arguments are not understood. */
function parseArgs(args: string[]): { ref: string; explicit: boolean } | undefined {
  if (args.length === 0) return { ref: "main", explicit: false };
  if (args.length === 2 && args[0] === "--against" && args[1]) return { ref: args[1], explicit: true };
  if (args.length === 1 && args[0]?.startsWith("--against=") && args[0].length > 10) {
    return { ref: args[0].slice(10), explicit: true };
  }
  return undefined;
}

function main(): number {
  const parsed = parseArgs(process.argv.slice(2));
  if (!parsed) {
    console.error(usage);
    return 2;
  }
  const { ref, explicit } = parsed;

  if (run("git", ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]).status !== 0) {
    if (explicit) {
      console.error(`breaking: git ref "${ref}" does not name a commit`);
      return 2;
    }
    // A new repository has no baseline yet: nothing can be broken.
    console.log("breaking: no `main` commit yet, so there is nothing to compare with; skipped.");
    return 0;
  }

  const base = mkdtempSync(join(tmpdir(), "a2a-breaking-"));
  try {
    const tar = join(base, "base.tar");
    const archive = run("git", ["archive", "--format=tar", "-o", tar, ref, "buf.yaml", "proto"]);
    if (archive.status !== 0) {
      console.error(`breaking: cannot export buf.yaml and proto/ from ${ref}: ${String(archive.stderr).trim()}`);
      return 2;
    }
    if (run("tar", ["-xf", tar, "-C", base]).status !== 0) {
      console.error("breaking: cannot unpack the baseline");
      return 2;
    }
    rmSync(tar);
    symlinkSync(join(root, "node_modules"), join(base, "node_modules"), "dir");

    // buf exits 100 when it found breaking changes, other codes on errors.
    const result = run(process.execPath, [bufCli, "breaking", "--against", base], { stdio: "inherit" });
    if (result.status === 0) {
      console.log(`breaking: no breaking changes against ${ref}`);
      return 0;
    }
    if (result.status === 100) {
      console.error(`breaking: the changes above break compatibility with ${ref}`);
      return 1;
    }
    console.error(`breaking: buf breaking failed (exit ${result.status ?? result.signal})`);
    return 2;
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

process.exitCode = main();
