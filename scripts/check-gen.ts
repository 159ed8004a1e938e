// npm run check:gen
//
// Regenerates gen/ with `buf generate` and fails when the result differs from
// what is committed: generated code must never drift from proto/ or from the
// pinned generator versions unnoticed. Generation is deterministic, so a clean
// checkout stays clean. On failure the regenerated files are left in place,
// ready to be reviewed and committed.
//
// Exit codes: 0 up to date, 1 gen/ differs (files listed), 2 generation or git failed.

import { spawnSync, type SpawnSyncOptions } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// The npm package's launcher, run with this node: no PATH or npx needed.
const bufCli = join(root, "node_modules", "@bufbuild", "buf", "bin", "buf");

function run(cmd: string, args: string[], options: SpawnSyncOptions = {}) {
  return spawnSync(cmd, args, { cwd: root, encoding: "utf8", ...options });
}

function main(): number {
  // Before the first commit every generated file would count as new.
  if (run("git", ["rev-parse", "--verify", "--quiet", "HEAD"]).status !== 0) {
    console.log("check:gen: no commit yet, so there is no committed gen/ to compare with; skipped.");
    return 0;
  }

  if (run(process.execPath, [bufCli, "generate"], { stdio: "inherit" }).status !== 0) {
    console.error("check:gen: buf generate failed");
    return 2;
  }

  // Porcelain output covers modified, deleted, staged and untracked files;
  // --untracked-files=all lists new files one by one rather than their folder.
  const status = run("git", ["status", "--porcelain", "--untracked-files=all", "--", "gen"]);
  if (status.status !== 0) {
    console.error(`check:gen: git status failed: ${String(status.stderr).trim()}`);
    return 2;
  }
  const changed = String(status.stdout).split("\n").filter(Boolean);
  if (changed.length > 0) {
    console.error("check:gen: gen/ differs from what `buf generate` produces:");
    for (const line of changed) console.error(`  ${line}`);
    console.error("Review the regenerated files and commit them.");
    return 1;
  }
  console.log("check:gen: gen/ is up to date");
  return 0;
}

process.exitCode = main();
