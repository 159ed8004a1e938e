/**
 * examples/testing/: a user's test of code built on the client, written
 * from docs/testing.md, in each of vitest, jest and node:test, run by that
 * runner in a child process as users run it, against the package as npm
 * publishes it (packed, and installed in an app), which each file imports by
 * its name. Each must pass all three of its tests: a stream dropped and
 * resumed, an input-required turn, a 503 retried.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../scripts/size.js";
import { appBesideRepoDependencies, packPackage, run } from "../support/packed.js";

const EXAMPLES = join(repoRoot, "examples/testing");
const TESTS_PER_FILE = 3;

let scratch: string;
let app: string; // an app with the packed package installed, and the example files

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "a2a-connect-runners-"));
  app = await appBesideRepoDependencies(scratch, await packPackage(scratch));
  cpSync(EXAMPLES, app, { recursive: true });
}, 120_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

// The child runner is not a worker of this one: none of vitest's variables.
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST") && name !== "NODE_OPTIONS"));

/** Runs `node args` in the app, bounded; a failing run rejects with its output. */
const node = (args: string[]) => run(process.execPath, args, { cwd: app, env, timeout: 30_000 });

/** The runners' own count of passed and failed tests, from the JSON report they write. */
const report = (file: string) => JSON.parse(readFileSync(join(app, file), "utf8")) as { numPassedTests: number; numFailedTests: number };

describe("examples/testing, each in its runner, against the packed package", () => {
  it("vitest.test.mjs passes in vitest (in memory)", async () => {
    await node([join(repoRoot, "node_modules/vitest/vitest.mjs"), "run", "vitest.test.mjs", "--reporter=json", "--outputFile=vitest.json"]);
    expect(report("vitest.json")).toMatchObject({ numPassedTests: TESTS_PER_FILE, numFailedTests: 0 });
  });

  it("jest.test.mjs passes in jest, as ESM under --experimental-vm-modules (on a loopback server)", async () => {
    const jest = join(repoRoot, "node_modules/jest/bin/jest.js");
    await node(["--experimental-vm-modules", jest, "jest.test.mjs", "--json", "--outputFile=jest.json"]);
    expect(report("jest.json")).toMatchObject({ numPassedTests: TESTS_PER_FILE, numFailedTests: 0 });
  });

  it("node.test.mjs passes in node --test (in memory)", async () => {
    const { stdout } = await node(["--test", "--test-reporter=tap", "node.test.mjs"]);
    expect(/^# pass (\d+)$/m.exec(stdout)?.[1]).toBe(String(TESTS_PER_FILE));
    expect(/^# fail (\d+)$/m.exec(stdout)?.[1]).toBe("0");
  });
});
