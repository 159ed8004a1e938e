/**
 * `npm run bench:cold`: what a fresh Node process pays to start with the
 * package, as serverless functions and CLIs pay it on every cold start.
 * Each row is a whole process, spawn to exit: its wall time, and its CPU
 * time (user + system) as it reports it at exit. Processes run one after
 * the other; rounds are interleaved across the rows (one of each, then the
 * next), so that load from elsewhere on the machine hits them alike.
 *
 *   node                  a bare process that imports nothing
 *   @a2a-js/sdk/client    the official SDK's client entry
 *   floor of E            the dependency specifiers that entry E imports at
 *                         start (found in the build), imported alone: what
 *                         no change to our code can remove
 *   E                     each entry of package.json "exports", built
 *   a2a card, a2a send    the CLI (package.json "bin") against the local
 *                         demo agent (demo/agent.ts), on 127.0.0.1
 *
 * Environment: COLD_ROUNDS (default 7); COLD_BEFORE, the directory of
 * another build of the package (a checkout with its node_modules and a
 * built dist/): its rows are measured in the same rounds, marked "before".
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { repoRoot } from "../scripts/size.js";

/** One process to time: `node ...args` in `cwd`. */
export interface Probe {
  label: string;
  cwd: string;
  args: string[];
  /** The label of the row this one is compared with as its floor. */
  floor?: string;
}

interface PackageJson {
  name: string;
  exports: Record<string, string | { default: string }>;
  bin?: Record<string, string>;
}

const importing = (specifiers: readonly string[]) => [
  "--input-type=module",
  "-e",
  specifiers.map((s) => `import ${JSON.stringify(s)};`).join(""),
];

/** The bare specifiers (dependencies) that `file` and the files it imports statically import, dynamic imports left out. */
export function startDependencies(file: string): string[] {
  const deps = new Set<string>();
  const seen = new Set<string>();
  const visit = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.ESNext, false, ts.ScriptKind.JS);
    for (const statement of source.statements) {
      const specifier =
        (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) &&
        statement.moduleSpecifier !== undefined &&
        ts.isStringLiteral(statement.moduleSpecifier) &&
        !(ts.isImportDeclaration(statement) && statement.importClause?.isTypeOnly)
          ? statement.moduleSpecifier.text
          : undefined;
      if (specifier === undefined) continue;
      if (specifier.startsWith(".")) visit(resolve(dirname(path), specifier));
      else if (!specifier.startsWith("node:")) deps.add(specifier);
    }
  };
  visit(file);
  return [...deps].sort();
}

/**
 * The rows for one build of the package in `dir`: its entries, the floor of
 * each (one row per distinct set of dependencies), and its CLI's `card` and
 * `send` against `agentUrl`. `tag` marks the rows of a second build.
 */
export function packageProbes(dir: string, agentUrl: string, tag = ""): Probe[] {
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as PackageJson;
  for (const target of Object.values(pkg.exports)) {
    const file = join(dir, typeof target === "string" ? target : target.default);
    if (!existsSync(file)) throw new Error(`${file} is not there: the benchmark runs the built package (npm run build in ${dir})`);
  }
  const entries = Object.entries(pkg.exports).map(([sub, target]) => ({
    name: pkg.name + sub.slice(1),
    deps: startDependencies(join(dir, typeof target === "string" ? target : target.default)),
  }));
  // One floor row per distinct set of dependencies, named after every entry it is the floor of.
  const floors = new Map<string, Probe>();
  for (const deps of new Set(entries.map((e) => e.deps.join(" ")))) {
    const of = entries.filter((e) => e.deps.join(" ") === deps).map((e) => `\`${e.name}\``);
    const specifiers = deps === "" ? [] : deps.split(" ");
    const list = specifiers.map((d) => `\`${d}\``).join(", ") || "none";
    floors.set(deps, { label: `floor of ${of.join(", ")}${tag}: ${list}`, cwd: dir, args: importing(specifiers) });
  }
  // Each entry by the package's own name, as its users import it (Node resolves a package's name within it).
  const entryRows = entries.map((e) => ({
    label: `\`${e.name}\`${tag}`,
    cwd: dir,
    args: importing([e.name]),
    floor: floors.get(e.deps.join(" "))!.label,
  }));
  const [command, bin] = Object.entries(pkg.bin ?? {})[0] ?? [];
  const cli = bin
    ? [
        { label: `\`${command} card <url>\`${tag}`, cwd: dir, args: [join(dir, bin), "card", agentUrl] },
        { label: `\`${command} send <url> hi\`${tag}`, cwd: dir, args: [join(dir, bin), "send", agentUrl, "hi"] },
      ]
    : [];
  return [...floors.values(), ...entryRows, ...cli];
}

/** The rows every run has: a bare process and the official SDK's client, from the repository. */
export function referenceProbes(): Probe[] {
  return [
    { label: "`node` (imports nothing)", cwd: repoRoot, args: ["--input-type=module", "-e", ""] },
    { label: "`@a2a-js/sdk/client`", cwd: repoRoot, args: importing(["@a2a-js/sdk/client"]) },
  ];
}

/**
 * Preloaded into every process: at exit it writes its CPU time (user +
 * system, µs) to file descriptor 3. The same for every row, so it cancels
 * out; CPU time is what load from elsewhere on a shared machine moves
 * least.
 */
const REPORT_CPU = `data:text/javascript,${encodeURIComponent(
  'import { writeSync } from "node:fs"; process.on("exit", () => { const u = process.cpuUsage(); writeSync(3, String(u.user + u.system)); });',
)}`;

interface Sample {
  wallMs: number;
  cpuMs: number;
}

/** Runs `probe` once. A failing process fails the run: a crash is not a start time. */
function runOnce(probe: Probe): Promise<Sample> {
  return new Promise((resolvePromise, reject) => {
    const began = performance.now();
    const child = spawn(process.execPath, ["--import", REPORT_CPU, ...probe.args], {
      cwd: probe.cwd,
      stdio: ["ignore", "ignore", "pipe", "pipe"],
    });
    let stderr = "";
    let cpu = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    (child.stdio[3] as NodeJS.ReadableStream).on("data", (chunk: Buffer) => {
      cpu += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const wallMs = performance.now() - began;
      if (code === 0 && cpu !== "") resolvePromise({ wallMs, cpuMs: Number(cpu) / 1000 });
      else reject(new Error(`${probe.label} exited with ${code}: ${stderr.trim().slice(0, 2000)}`));
    });
  });
}

export interface ColdRow {
  probe: Probe;
  /** Wall time of each round, ms. */
  ms: number[];
  /** CPU time of each round, ms. */
  cpuMs: number[];
}

/** Runs every probe `rounds` times, rounds interleaved. */
export async function measure(probes: readonly Probe[], rounds: number): Promise<ColdRow[]> {
  const rows: ColdRow[] = probes.map((probe) => ({ probe, ms: [], cpuMs: [] }));
  for (let round = 0; round < rounds; round++) {
    for (const row of rows) {
      const { wallMs, cpuMs } = await runOnce(row.probe);
      row.ms.push(wallMs);
      row.cpuMs.push(cpuMs);
    }
  }
  return rows;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/**
 * The markdown table: each row's median wall time and its spread, against
 * the SDK's client and against its floor, and the same for CPU time.
 */
export function formatColdTable(rows: readonly ColdRow[]): string {
  const wall = new Map(rows.map((r) => [r.probe.label, median(r.ms)]));
  const cpu = new Map(rows.map((r) => [r.probe.label, median(r.cpuMs)]));
  const sdk = referenceProbes()[1]!.label;
  const against = (of: Map<string, number>, m: number, label: string | undefined) => {
    const base = label === undefined ? undefined : of.get(label);
    return base === undefined ? "" : `${(m / base).toFixed(2)}x`;
  };
  const above = (of: Map<string, number>, m: number, label: string | undefined) => {
    const base = label === undefined ? undefined : of.get(label);
    return base === undefined ? "" : seconds(m - base);
  };
  const lines = [
    "| process | wall s | min–max | vs `@a2a-js/sdk/client` | vs its floor | above its floor, s | CPU s | CPU vs sdk | CPU above its floor, s |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const { probe, ms, cpuMs } of rows) {
    const w = median(ms);
    const c = median(cpuMs);
    lines.push(
      `| ${probe.label} | ${seconds(w)} | ${seconds(Math.min(...ms))}–${seconds(Math.max(...ms))} | ${against(wall, w, sdk)} | ${against(
        wall,
        w,
        probe.floor,
      )} | ${above(wall, w, probe.floor)} | ${seconds(c)} | ${against(cpu, c, sdk)} | ${above(cpu, c, probe.floor)} |`,
    );
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  const rounds = Number(process.env.COLD_ROUNDS ?? 7);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`COLD_ROUNDS: not a positive integer: ${process.env.COLD_ROUNDS}`);
  const before = process.env.COLD_BEFORE;
  // Loaded here, not at the top: the module's helpers are used without an agent.
  const { startLocalAgent } = await import("../demo/agent.js");
  const agent = await startLocalAgent();
  try {
    const probes = [
      ...referenceProbes(),
      ...packageProbes(repoRoot, agent.origin),
      ...(before ? packageProbes(resolve(before), agent.origin, " (before)") : []),
    ];
    const rows = await measure(probes, rounds);
    console.log(
      `Cold start, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC: Node ${process.version}, ` +
        `medians of ${rounds} processes each (wall time from spawn to exit; CPU time, user + system, of the process).\n`,
    );
    console.log(formatColdTable(rows));
  } finally {
    await agent.close();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
