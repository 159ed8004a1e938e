/**
 * `npm run bench:cold` (bench/cold-start.ts) runs: on a small package of
 * its own making, one round, the floors found in its build, every row
 * measured and tabled. Times are printed, never asserted.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatColdTable, measure, packageProbes, referenceProbes, startDependencies } from "../../../bench/cold-start.js";
import { repoRoot } from "../../../scripts/size.js";

let pkg: string;

/** A built package: two entries sharing a chunk, a dependency loaded on demand, and a CLI that checks its arguments. */
function writePackage(dir: string, cliExit: number): void {
  mkdirSync(join(dir, "dist"), { recursive: true });
  symlinkSync(join(repoRoot, "node_modules"), join(dir, "node_modules"), "dir");
  const files: Record<string, string> = {
    "package.json": JSON.stringify({
      name: "cold-fixture",
      type: "module",
      exports: { ".": { default: "./dist/index.js" }, "./extra": { default: "./dist/extra.js" } },
      bin: { tool: "dist/cli.js" },
    }),
    "dist/index.js": `import { shared } from "./chunk.js";\nexport const a = shared;\nexport const later = () => import("./lazy.js");\n`,
    "dist/chunk.js": `import { create } from "@bufbuild/protobuf";\nimport "node:fs";\nexport const shared = typeof create;\n`,
    "dist/lazy.js": `export * from "@bufbuild/protobuf/wire";\n`,
    "dist/extra.js": `export * from "./index.js";\n`,
    "dist/cli.js": `const [command, url, text] = process.argv.slice(2);
const ok = url === "http://127.0.0.1:9" && (command === "card" ? text === undefined : command === "send" && text === "hi");
process.exit(ok ? ${cliExit} : 3);\n`,
  };
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
}

beforeAll(() => {
  pkg = mkdtempSync(join(tmpdir(), "a2a-cold-"));
  writePackage(pkg, 0);
});

afterAll(() => rmSync(pkg, { recursive: true, force: true }));

describe("the cold-start benchmark", () => {
  it("finds the dependencies an entry imports at start: static imports through its chunks, not those loaded on demand, not Node's", () => {
    expect(startDependencies(join(pkg, "dist/index.js"))).toEqual(["@bufbuild/protobuf"]);
  });

  it("makes one floor row per distinct set of dependencies, an import row per entry, and the CLI's card and send", () => {
    const probes = packageProbes(pkg, "http://127.0.0.1:9");
    expect(probes.map((p) => p.label)).toEqual([
      "floor of `cold-fixture`, `cold-fixture/extra`: `@bufbuild/protobuf`",
      "`cold-fixture`",
      "`cold-fixture/extra`",
      "`tool card <url>`",
      "`tool send <url> hi`",
    ]);
    expect(probes[1]!.floor).toBe(probes[0]!.label);
  });

  it("runs every process and tables each row against the SDK's client and its floor", async () => {
    const rows = await measure([...referenceProbes(), ...packageProbes(pkg, "http://127.0.0.1:9")], 1);
    for (const row of rows) {
      expect(row.ms).toHaveLength(1);
      expect(row.cpuMs[0]).toBeGreaterThan(0);
    }
    const table = formatColdTable(rows).split("\n");
    expect(table).toHaveLength(2 + rows.length);
    const entry = table
      .find((line) => line.startsWith("| `cold-fixture` |"))!
      .split("|")
      .map((c) => c.trim());
    // wall, spread, vs the SDK, vs its floor, above its floor, CPU, CPU vs the SDK, CPU above its floor
    expect(entry.slice(2, 11)).toEqual([
      expect.stringMatching(/^\d+\.\d{3}$/),
      expect.stringMatching(/^\d+\.\d{3}–\d+\.\d{3}$/),
      expect.stringMatching(/^\d+\.\d{2}x$/),
      expect.stringMatching(/^\d+\.\d{2}x$/),
      expect.stringMatching(/^-?\d+\.\d{3}$/),
      expect.stringMatching(/^\d+\.\d{3}$/),
      expect.stringMatching(/^\d+\.\d{2}x$/),
      expect.stringMatching(/^-?\d+\.\d{3}$/),
      "",
    ]);
  });

  it("fails the run when a process fails, naming it: a crash is not a start time", async () => {
    const broken = mkdtempSync(join(tmpdir(), "a2a-cold-broken-"));
    try {
      writePackage(broken, 1);
      const cli = packageProbes(broken, "http://127.0.0.1:9").filter((p) => p.label.startsWith("`tool"));
      await expect(measure(cli, 1)).rejects.toThrow("`tool card <url>` exited with 1");
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });
});
