/**
 * The interop matrix (docs/interop.md), made from a vitest JSON report of the
 * SDK peer suites (test/peers/*.test.ts): peer and release × binding ×
 * protocol version × feature, each cell the outcome of that test, with the
 * deviations the tests named.
 *
 *   npm run interop:matrix                 runs test/peers, writes docs/interop.md
 *   node --import tsx scripts/interop-matrix.ts REPORT [--check]
 *                                          from a report of a run (CI's); --check fails when
 *                                          docs/interop.md differs from what the run shows
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { DEVIATIONS, FEATURES, type Feature } from "../test/peers/deviations.js";
import { SDK_PEERS } from "../test/support/sdk-peers.js";

const DOC = fileURLToPath(new URL("../docs/interop.md", import.meta.url));

interface Assertion {
  ancestorTitles: string[];
  title: string;
  status: "passed" | "failed" | "skipped" | "pending" | "todo" | "disabled";
}
interface Report {
  testResults: Array<{ name: string; assertionResults: Assertion[] }>;
}

type Outcome = { status: Assertion["status"]; deviation?: string | undefined };

/** `feature: what [deviation id]` into its parts; undefined for a title not of the suite. */
function parseTitle(title: string): { feature: Feature; deviation?: string | undefined } | undefined {
  const m = /^([a-z-]+): .*?(?: \[deviation ([^\]]+)\])?$/.exec(title);
  if (!m || !(FEATURES as readonly string[]).includes(m[1]!)) return undefined;
  return { feature: m[1] as Feature, deviation: m[2] };
}

const CELL: Record<Assertion["status"], string> = {
  passed: "pass",
  failed: "**FAIL**",
  skipped: "not run",
  pending: "not run",
  todo: "not run",
  disabled: "not run",
};

function matrix(report: Report): string {
  const assertions = report.testResults.filter((f) => /test\/peers\/[^/]+\.test\.ts$/.test(f.name)).flatMap((f) => f.assertionResults);
  const out: string[] = [];
  out.push("# Interop matrix");
  out.push("");
  out.push("What this client does against the official A2A server of every SDK installable here, each");
  out.push("started by the tests on 127.0.0.1 (`test/peers/`, `test/support/sdk-peers.ts`) and reached");
  out.push("through `connect()` on every binding and protocol version it serves. Made by");
  out.push("`npm run interop:matrix` from a run of the suites; CI checks that its own run shows the same.");
  out.push("A cell names a deviation where the peer departs from the specification: the test then asserts");
  out.push("what the client does about it (see [Deviations](#deviations)).");
  out.push("");
  out.push("| peer | binding | version | " + FEATURES.join(" | ") + " |");
  out.push("| --- | --- | --- | " + FEATURES.map(() => "---").join(" | ") + " |");
  const notRun: string[] = [];
  for (const peer of SDK_PEERS) {
    const reason = peer.unavailable();
    if (reason !== undefined) notRun.push(`- **${peer.label}**: ${reason}`);
    for (const served of peer.serves) {
      const row = `${peer.label} · ${served.binding} ${served.version}`;
      const cells = FEATURES.map((feature) => {
        const found = assertions
          .filter((a) => a.ancestorTitles.at(-1) === row)
          .map((a) => ({ a, parsed: parseTitle(a.title) }))
          .filter((x) => x.parsed?.feature === feature);
        if (found.length === 0) return "not run";
        const outcome: Outcome = {
          status: found.some((x) => x.a.status === "failed") ? "failed" : found[0]!.a.status,
          deviation: found.find((x) => x.parsed?.deviation)?.parsed?.deviation,
        };
        return outcome.deviation ? `${CELL[outcome.status]} ([${outcome.deviation}](#${outcome.deviation}))` : CELL[outcome.status];
      });
      out.push(`| ${peer.label} | ${served.binding} | ${served.version} | ${cells.join(" | ")} |`);
    }
  }
  out.push("");
  if (notRun.length > 0) {
    out.push("Peers not run on the machine that made this page:");
    out.push("");
    out.push(...notRun);
    out.push("");
  }
  out.push("## Deviations");
  out.push("");
  for (const d of DEVIATIONS) {
    const where = [d.binding ?? "every binding", d.version ?? "every version"].join(", ");
    out.push(`### ${d.id}`);
    out.push("");
    out.push(`${SDK_PEERS.find((p) => p.id === d.peer)!.label}, release ${d.release}; ${where}; ${d.feature}.`);
    out.push("");
    out.push(`- **What it does:** ${d.does}`);
    out.push(`- **Specification:** ${d.spec}`);
    out.push(`- **What the client does:** ${d.client}`);
    out.push("");
  }
  if (DEVIATIONS.length === 0) out.push("None.", "");
  return out.join("\n");
}

const args = process.argv.slice(2);
const check = args.includes("--check");
let reportPath = args.find((a) => !a.startsWith("--"));
if (reportPath === undefined) {
  reportPath = ".interop-report.json";
  rmSync(reportPath, { force: true });
  spawnSync("npx", ["vitest", "run", "test/peers", "--reporter=default", "--reporter=json", `--outputFile.json=${reportPath}`], {
    stdio: "inherit",
  });
}
const text = matrix(JSON.parse(readFileSync(reportPath, "utf8")) as Report);
if (check) {
  const committed = readFileSync(DOC, "utf8");
  if (committed !== text) {
    process.stderr.write(
      "docs/interop.md differs from the matrix of this run: run `npm run interop:matrix` and commit it. This run's:\n\n",
    );
    process.stdout.write(text);
    process.exit(1);
  }
  process.stderr.write("docs/interop.md matches this run\n");
} else {
  writeFileSync(DOC, text);
  process.stderr.write(`wrote ${DOC}\n`);
}
