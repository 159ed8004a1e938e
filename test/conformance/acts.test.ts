/**
 * The ACTS client tests (../shared/conformance/client-parsing.acts.yaml, read
 * from there at run time) against this client: every test passes with the
 * listed corrections, and docs/conformance.md is the page this run makes.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CLIENT_FILE, CONFORMANCE_DIR, loadSource, repoRoot } from "../../scripts/acts/document.js";
import { conformancePage } from "../../scripts/acts/report.js";
import { runActs, type ActsRun } from "../../scripts/acts/run.js";

const EXPECTED_TESTS = [
  "CLIENT-PARSE-001",
  "CLIENT-PARSE-002",
  "CLIENT-PARSE-003",
  "CLIENT-PARSE-004",
  "CLIENT-PARSE-005",
  "CLIENT-PARSE-006",
  "CLIENT-AUTH-001",
  "CLIENT-CAP-001",
];

let run: ActsRun;

beforeAll(async () => {
  run = await runActs(loadSource());
});

it(`reads ${CLIENT_FILE} from ../shared/conformance/, where CI has it`, () => {
  expect(existsSync(join(CONFORMANCE_DIR, CLIENT_FILE)), `${CONFORMANCE_DIR} is missing: the ACTS data must be beside the repository`).toBe(
    true,
  );
  expect(run.tests.map((t) => t.id)).toEqual(EXPECTED_TESTS);
});

describe.each(EXPECTED_TESTS)("%s", (id) => {
  it("passes", () => {
    const test = run.tests.find((t) => t.id === id)!;
    expect(test.failures).toEqual([]);
    expect(test.result).toBe("pass");
  });
});

it("applies every listed correction, none stale", () => {
  expect(run.corrected.stale).toEqual([]);
  expect(run.corrected.applied.map((c) => `${c.test} ${c.step} ${c.path}`)).toEqual([
    "CLIENT-PARSE-004 parse error.data",
    "CLIENT-PARSE-006 parse result.artifacts[2].parts[0]",
    "CLIENT-PARSE-006 parse result.artifacts[3].parts[0]",
    "CLIENT-AUTH-001 parse-public-card supportedInterfaces[0].protocolBinding",
    "CLIENT-AUTH-001 parse-extended-card supportedInterfaces[0].protocolBinding",
    "CLIENT-CAP-001 parse-card supportedInterfaces[0].protocolBinding",
  ]);
});

it("docs/conformance.md is the page of this run (npm run acts writes it)", () => {
  const committed = readFileSync(join(repoRoot, "docs", "conformance.md"), "utf8");
  expect(committed, "docs/conformance.md differs from this run: run `npm run acts` and commit it").toBe(conformancePage(run));
  expect(committed).toContain(`**${EXPECTED_TESTS.length} of ${EXPECTED_TESTS.length} passed**`);
});
