// npm run check:spec -- <path to a spec a2a.proto>
//
// Proves that our schema of the spec file's package (proto/lf/a2a/v1 for
// A2A 1.0, proto/a2a/v1 for 0.3) and a given A2A specification proto
// are wire-identical: same package, services, methods, HTTP routes, messages,
// enums, field numbers, types, json names, oneofs, presence and field
// behaviours. Prints one line per difference (ours != spec), then
// `wire-identical` or `N differences`.
//
// Exit codes: 0 wire-identical, 1 differences, 2 usage or build error.
// File options (go_package, java_package, ...) and imports are listed in a
// separate section and never change the exit code.

import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { diffProtoFiles, repoRoot, schemaFile } from "./spec-diff.js";

/** Our schema file for each protocol package: 1.0 and the 0.3 wire. */
const SCHEMAS: Record<string, string> = { "lf.a2a.v1": schemaFile, "a2a.v1": "a2a/v1/a2a.proto" };

const usage = "usage: npm run check:spec -- <path to a spec a2a.proto>";

/** The whole command, callable from tests; returns the exit code instead of exiting. */
export async function checkSpec(
  args: string[],
  out: (line: string) => void = console.log,
  err: (line: string) => void = console.error,
): Promise<number> {
  if (args.length === 1 && (args[0] === "-h" || args[0] === "--help")) {
    out(usage);
    return 0;
  }
  const specPath = args[0];
  if (args.length !== 1 || !specPath || specPath.startsWith("-")) {
    err(usage);
    return 2;
  }
  if (!existsSync(specPath)) {
    err(`check:spec: no such file: ${specPath}`);
    return 2;
  }

  // The spec file's package says which of our schemas it describes.
  const pkg = /^\s*package\s+([\w.]+)\s*;/m.exec(readFileSync(specPath, "utf8"))?.[1];
  const schema = pkg === undefined ? undefined : SCHEMAS[pkg];
  if (!schema) {
    err(`check:spec: ${specPath} declares package ${pkg ?? "(none)"}; expected one of ${Object.keys(SCHEMAS).join(", ")}`);
    return 2;
  }

  let diff;
  try {
    diff = await diffProtoFiles(join(repoRoot, "proto", schema), resolve(specPath), schema);
  } catch (e) {
    err(`check:spec: ${(e as Error).message}`);
    return 2;
  }

  for (const line of diff.wire) out(line);
  if (diff.nonWire.length > 0) {
    out(`non-wire differences (not counted):`);
    for (const line of diff.nonWire) out(`  ${line}`);
  }
  const n = diff.wire.length;
  out(n === 0 ? "wire-identical" : `${n} difference${n === 1 ? "" : "s"}`);
  return n === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await checkSpec(process.argv.slice(2));
}
