/**
 * The Node examples run as users run them (`node --import tsx examples/...`),
 * against the local agents they start themselves. The webhook receiver is
 * run by push.test.ts; the browser page is built by `.ci/run`.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

function runExample(file: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["--import", "tsx", file], { cwd: root, timeout: 20_000 }, (error, stdout, stderr) =>
      error ? reject(Object.assign(error, { stdout, stderr })) : resolve({ stdout, stderr }),
    );
  });
}

describe("examples/orchestrator.ts", () => {
  it("fans one request out to three agents, one per binding, and merges their artifacts", async () => {
    const { stdout, stderr } = await runExample("examples/orchestrator.ts");
    expect(stdout).toContain('sending "count 3 every 50" to 3 agents');
    expect(stdout).toContain("report: 3 artifacts from 3 of 3 agents");

    const merged = stdout.split("\n").filter((line) => line.startsWith("- "));
    expect(merged).toHaveLength(3);
    for (const binding of ["JSONRPC", "HTTP+JSON", "GRPC"]) {
      expect(merged.filter((line) => line.includes(`(${binding}), "result": chunk-1 chunk-2 chunk-3`))).toHaveLength(1);
    }
    // Three different agents, each on its own port.
    const origins = new Set(merged.map((line) => /http:\/\/127\.0\.0\.1:\d+/.exec(line)?.[0]));
    expect(origins.size).toBe(3);
    expect(stdout).not.toContain("! ");
    expect(stderr).toBe("");
  });
});
