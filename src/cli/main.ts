#!/usr/bin/env node
/** The `a2a` command: see `a2a --help`. */
import { readFileSync } from "node:fs";
import { EXIT } from "./exit-codes.js";
import { run } from "./run.js";

function packageVersion(): string | undefined {
  // src/cli/main.ts and dist/src/cli/main.js: package.json is two or three levels up.
  for (const rel of ["../../package.json", "../../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), "utf8")) as { name?: string; version?: string };
      if (pkg.name === "a2a-connect") return pkg.version;
    } catch {
      // not there
    }
  }
  return undefined;
}

const controller = new AbortController();
process.once("SIGINT", () => controller.abort());
// A reader that stops early (`a2a stream ... | head -1`, or `-v 2>&1 >/dev/null
// | head` for the log) closes the pipe. Node would crash with an EPIPE stack;
// stop the work instead and end quietly, with the status of a process that
// SIGPIPE ended (128 + 13), as `cat` would.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e;
    controller.abort();
    process.exit(EXIT.brokenPipe);
  });
}
const code = await run(process.argv.slice(2), { signal: controller.signal, version: packageVersion() });
// Idle HTTP/2 and keep-alive connections must not keep the process alive.
process.exit(code);
