// npm run check:spec -- <path to a spec a2a.proto>
//
// Proves that proto/lf/a2a/v1/a2a.proto and a given A2A specification proto
// are wire-identical: same package, services, methods, HTTP routes, messages,
// enums, field numbers, types, json names, oneofs, presence and field
// behaviours. Prints one line per difference (ours != spec), then
// `wire-identical` or `N differences`.
//
// Exit codes: 0 wire-identical, 1 differences, 2 usage or build error.
// File options (go_package, java_package, ...) and imports are listed in a
// separate section and never change the exit code.

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { diffProtoFiles, ourProto } from "./spec-diff.js";

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

  let diff;
  try {
    diff = await diffProtoFiles(ourProto, resolve(specPath));
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
