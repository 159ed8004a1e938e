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
import { FRAMEWORK_PEERS, SDK_PEERS, type PeerSpec } from "../test/support/sdk-peers.js";

const DOC = fileURLToPath(new URL("../docs/interop.md", import.meta.url));

interface Assertion {
  ancestorTitles: string[];
  title: string;
  status: "passed" | "failed" | "skipped" | "pending" | "todo" | "disabled";
}
interface Report {
  testResults: Array<{ name: string; assertionResults: Assertion[] }>;
}

/** `feature: what [deviation a, b]` or `[not offered: why]` into its parts; undefined for a title not of the suites. */
function parseTitle(title: string): { feature: Feature | "surface"; deviations: string[]; notOffered: boolean } | undefined {
  const m = /^([a-z-]+): .*?(?: \[(deviation|not offered)[: ]\s*([^\]]+)\])?$/.exec(title);
  if (!m || !([...FEATURES, "surface"] as readonly string[]).includes(m[1]!)) return undefined;
  return {
    feature: m[1] as Feature | "surface",
    deviations: m[2] === "deviation" ? m[3]!.split(", ") : [],
    notOffered: m[2] === "not offered",
  };
}

const OUTCOME: Record<Assertion["status"], string> = {
  passed: "pass",
  failed: "**FAIL**",
  skipped: "not run",
  pending: "not run",
  todo: "not run",
  disabled: "not run",
};

const link = (id: string) => `[${id}](#${id})`;

/** The rows the page has now, by their first three cells: an optional peer's, where this run left it out. */
function committedRows(): Map<string, string> {
  const rows = new Map<string, string>();
  let text = "";
  try {
    text = readFileSync(DOC, "utf8");
  } catch {
    return rows;
  }
  for (const line of text.split("\n")) {
    const cells = line.split(" | ");
    if (line.startsWith("| ") && cells.length > 3) rows.set(cells.slice(0, 3).join(" | "), line);
  }
  return rows;
}

/** One row per interface each peer serves: the outcome of each feature's test. */
function table(peers: readonly PeerSpec[], assertions: readonly Assertion[]): string[] {
  const out = [`| peer | binding | version | ${FEATURES.join(" | ")} |`, `| --- | --- | --- | ${FEATURES.map(() => "---").join(" | ")} |`];
  const committed = committedRows();
  for (const peer of peers) {
    for (const served of peer.serves) {
      const row = `${peer.label} · ${served.binding} ${served.version}`;
      const tests = assertions.filter((a) => a.ancestorTitles.at(-1) === row).map((a) => ({ a, parsed: parseTitle(a.title) }));
      // An optional peer this run did not run: its row as the last run that had it left it.
      const kept = committed.get(`| ${peer.label} | ${served.binding} | ${served.version}`);
      if (peer.optional && tests.length === 0 && kept !== undefined) {
        out.push(kept);
        continue;
      }
      const surface = tests.find((t) => t.parsed?.feature === "surface");
      const cells = FEATURES.map((feature) => {
        if (surface)
          return `${OUTCOME[surface.a.status] === "pass" ? "refused" : OUTCOME[surface.a.status]} (${surface.parsed!.deviations.map(link).join(", ")})`;
        const found = tests.filter((t) => t.parsed?.feature === feature);
        if (found.length === 0) return peer.unavailable() === undefined ? "—" : "not run";
        const status = found.some((t) => t.a.status === "failed") ? "failed" : found[0]!.a.status;
        const ids = [...new Set(found.flatMap((t) => t.parsed!.deviations))];
        if (found.some((t) => t.parsed!.notOffered)) return status === "passed" ? "not offered" : OUTCOME[status];
        return ids.length > 0 ? `${OUTCOME[status]} (${ids.map(link).join(", ")})` : OUTCOME[status];
      });
      out.push(`| ${peer.label} | ${served.binding} | ${served.version} | ${cells.join(" | ")} |`);
    }
  }
  return out;
}

function matrix(report: Report): string {
  const assertions = report.testResults.filter((f) => /test\/peers\/[^/]+\.test\.ts$/.test(f.name)).flatMap((f) => f.assertionResults);
  const notOffered = new Map<string, string>();
  for (const a of assertions) {
    const m = /^([a-z-]+): .*\[not offered: ([^\]]+)\]$/.exec(a.title);
    if (m) notOffered.set(`${a.ancestorTitles[0]}: ${m[1]}`, m[2]!);
  }
  const out: string[] = [];
  out.push("# Interop matrix");
  out.push("");
  out.push("What this client does against the official A2A server of every SDK installable here, and against");
  out.push("framework servers users run, each started by the tests on 127.0.0.1 (`test/peers/`,");
  out.push("`test/support/sdk-peers.ts`) and reached through `connect()` on every binding and protocol version");
  out.push("it serves. Made by `npm run interop:matrix` from a run of the suites; CI checks that its own run shows");
  out.push("the same. A cell names the deviations the test met where the peer departs from the specification:");
  out.push('the test then asserts what the client does about it (see [Deviations](#deviations)). "refused": the');
  out.push('client cannot speak to that interface, and the test asserts how it says so. "not offered": the');
  out.push("framework does not do it (see [What the frameworks do not offer](#what-the-frameworks-do-not-offer)),");
  out.push('and the test asserts what the client does. "—": not part of that peer\'s suite.');
  out.push("");
  out.push("## Official SDKs");
  out.push("");
  out.push(...table(SDK_PEERS, assertions));
  out.push("");
  // Said the same whether or not this run had them, so that the page does not depend on it.
  const notRun = SDK_PEERS.flatMap((p) => {
    if (p.optional) return [`- **${p.label}**: optional, ${p.optional}; its rows are from the last run that had it.`];
    const reason = p.unavailable();
    return reason === undefined ? [] : [`- **${p.label}**: ${reason}`];
  });
  if (notRun.length > 0) out.push("Peers not run on every machine:", "", ...notRun, "");
  out.push("## Framework servers");
  out.push("");
  out.push("Agents on a scripted mock model, JSON-RPC only (neither framework serves another binding). The");
  out.push("suite (`test/peers/frameworks.ts`) asserts what any caller may rely on rather than the script's exact");
  out.push("events, since a model's run decides those.");
  out.push("");
  out.push(...table(FRAMEWORK_PEERS, assertions));
  out.push("");
  out.push("### What the frameworks do not offer");
  out.push("");
  for (const [where, why] of notOffered) out.push(`- ${where}: ${why}.`);
  out.push("");
  out.push("## Deviations");
  out.push("");
  const labelOf = (id: string) => [...SDK_PEERS, ...FRAMEWORK_PEERS].find((p) => p.id === id)!.label;
  for (const d of DEVIATIONS) {
    const where = [d.binding ?? "every binding", d.version ?? "every version"].join(", ");
    out.push(`### ${d.id}`);
    out.push("");
    out.push(`${labelOf(d.peer)}, release ${d.release}; ${where}; ${d.feature}.`);
    out.push("");
    out.push(`- **What it does:** ${d.does}`);
    out.push(`- **Specification:** ${d.spec}`);
    out.push(`- **What the client does:** ${d.client}`);
    out.push("");
  }
  return `${out.join("\n").trimEnd()}\n`;
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
