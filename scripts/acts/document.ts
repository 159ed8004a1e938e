/**
 * An ACTS document as published, read from `../shared/conformance/` beside
 * the repository (never copied into it), and checked against the structure
 * the specification gives (§2 to §4, §10) before anything runs.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { ActsFormatError } from "./matchers.js";

/** The repository this runner is part of. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Where the conformance data lives, relative to the repository, as the other tests read `../shared/`. */
export const CONFORMANCE_DIR = join(repoRoot, "..", "shared", "conformance");
/** The client tests' file. */
export const CLIENT_FILE = "client-parsing.acts.yaml";

export type Level = "must" | "should" | "may";

/** A step of a client test (§10), or an assertion step (§4) that checks an earlier one. */
export interface ActsStep {
  id: string;
  client_response?: { operation: string; wire_payload: unknown };
  expect_parsed?: Record<string, unknown>;
  assertions?: NamedAssertion[];
  assertion?: NamedAssertion;
}

/** A named assertion (§5.5): a direct match, or any/all/none over a collection. */
export interface NamedAssertion {
  id?: string;
  source: string;
  path?: string;
  match?: unknown;
  any?: { path: string; match: Record<string, unknown> };
  all?: { path: string; match: Record<string, unknown> };
  none?: { path: string; match: Record<string, unknown> };
}

export interface ActsTest {
  id: string;
  name: string;
  level: Level;
  tags?: string[];
  steps: ActsStep[];
  assertions?: NamedAssertion[];
}

export interface ActsDocument {
  acts_version: string;
  spec_version: string;
  suites: Array<{ id: string; name: string; tests: ActsTest[] }>;
}

/** The file read, and where it came from. */
export interface Source {
  /** The file, relative to the repository. */
  file: string;
  /** The upstream commit the conformance README names. */
  commit: string;
  document: ActsDocument;
}

/** Reads and checks an ACTS file of the conformance directory; fails saying so when the directory is missing. */
export function loadSource(dir: string = CONFORMANCE_DIR, file: string = CLIENT_FILE): Source {
  if (!existsSync(dir)) {
    throw new Error(`the ACTS data is not at ${dir}: the conformance runner reads it from ../shared/conformance/ beside the repository`);
  }
  const document = parseDocument(readFileSync(join(dir, file), "utf8"));
  const readme = existsSync(join(dir, "README.md")) ? readFileSync(join(dir, "README.md"), "utf8") : "";
  const commit = /commit ([0-9a-f]{40})/.exec(readme)?.[1] ?? "unknown";
  return { file: relative(repoRoot, join(dir, file)), commit, document };
}

/** An ACTS document from its YAML (or JSON) text, checked (§12.1): an `acts_version` of major 1, suites of tests of steps. */
export function parseDocument(text: string): ActsDocument {
  const doc = parse(text) as Record<string, unknown> | null;
  const fail = (what: string): never => {
    throw new ActsFormatError(`not an ACTS document: ${what}`);
  };
  if (doc === null || typeof doc !== "object") return fail("its root is not a map");
  if (typeof doc.acts_version !== "string" || doc.acts_version.split(".")[0] !== "1")
    fail(`acts_version ${JSON.stringify(doc.acts_version)} is not of major version 1, the one this runner reads`);
  if (typeof doc.spec_version !== "string") fail("spec_version is missing");
  if (!Array.isArray(doc.suites) || doc.suites.length === 0) fail("it has no suites (include files are not read by this runner)");
  for (const suite of doc.suites as Array<Record<string, unknown>>) {
    if (typeof suite.id !== "string" || !Array.isArray(suite.tests)) fail("a suite without an id or tests");
    for (const test of suite.tests as Array<Record<string, unknown>>) {
      const name = typeof test.id === "string" ? test.id : "a test";
      if (typeof test.id !== "string" || typeof test.name !== "string") fail(`${name} lacks an id or a name`);
      if (!["must", "should", "may"].includes(test.level as string)) fail(`${name}: level ${JSON.stringify(test.level)}`);
      if (!Array.isArray(test.steps) || test.steps.length === 0) fail(`${name} has no steps`);
      for (const step of test.steps as Array<Record<string, unknown>>) {
        if (typeof step.id !== "string") fail(`${name} has a step without an id`);
        if (step.client_response === undefined && step.assertion === undefined)
          fail(`${name} step ${step.id}: neither client_response nor assertion (server and raw steps are not client tests)`);
        if (step.client_response !== undefined && (typeof step.expect_parsed !== "object" || step.expect_parsed === null))
          fail(`${name} step ${step.id}: a client_response without expect_parsed`);
      }
    }
  }
  return doc as unknown as ActsDocument;
}
