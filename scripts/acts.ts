/**
 * The ACTS client conformance report (docs/conformance.md): runs the client
 * tests of ../shared/conformance/client-parsing.acts.yaml against this client.
 *
 *   npm run acts                                   runs them, writes docs/conformance.md
 *   node --import tsx scripts/acts.ts --check      fails when docs/conformance.md differs from this run
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSource, repoRoot } from "./acts/document.js";
import { conformancePage } from "./acts/report.js";
import { runActs } from "./acts/run.js";

const CONFORMANCE_DOC = join(repoRoot, "docs", "conformance.md");

const run = await runActs(loadSource());
const text = conformancePage(run);
for (const t of run.tests)
  process.stderr.write(`${t.result.padEnd(5)} ${t.id} ${t.name}\n${t.failures.map((f) => `      ${f}\n`).join("")}`);
for (const c of run.corrected.applied)
  process.stderr.write(`corrected ${c.test} ${c.step} ${c.path}: ${JSON.stringify(c.says)} -> ${JSON.stringify(c.becomes)}\n`);
for (const { correction: c, found } of run.corrected.stale)
  process.stderr.write(`STALE correction ${c.test} ${c.step} ${c.path}: the file has ${found}\n`);
if (process.argv.includes("--check")) {
  let committed = "";
  try {
    committed = readFileSync(CONFORMANCE_DOC, "utf8");
  } catch {}
  if (committed !== text) {
    process.stderr.write("docs/conformance.md differs from this run: run `npm run acts` and commit it.\n");
    process.exit(1);
  }
  process.stderr.write("docs/conformance.md matches this run\n");
} else {
  writeFileSync(CONFORMANCE_DOC, text);
  process.stderr.write(`wrote ${CONFORMANCE_DOC}\n`);
}
if (run.tests.some((t) => t.result !== "pass")) process.exit(1);
