/**
 * npm run check:layers: every import between two folders of src/ points down
 * the order layers.json gives (top to bottom; a folder imports itself and the
 * folders below it), and no folders import each other, however long the
 * loop. "." in layers.json is the files directly in src/ (the entries).
 *
 * The imports are the compiler's: `ts.preProcessFile` finds every import,
 * `import type`, `export ... from` and `import()` (comments aside), and
 * `ts.resolveModuleName` resolves each as tsc does (`./x.js` is `x.ts`).
 * Type-only imports count: a folder that names a type of a folder above it
 * depends on it as much as one that calls it. Imports that resolve outside
 * src/ (packages, gen/) are not the rule's business.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const RULE_FILE = "layers.json";
const ROOT_LAYER = ".";

/** An import from one folder of src/ into another, as repository paths. */
interface Arrow {
  from: string;
  to: string;
}

/**
 * What is wrong with the imports of `root`/src against `root`/layers.json,
 * one line per problem: folders missing from the rule or listed in vain,
 * then each import of a folder above (by file), then each cycle between
 * folders. Empty when all is well.
 */
export function checkLayers(root: string): string[] {
  const layers = readRule(root);
  if (!layers) return [`${RULE_FILE} must be { "layers": [folders of src/, top to bottom, each once] }`];
  const src = join(root, "src");
  const files = tsFiles(src);
  const folders = new Set(files.map((f) => folderOf(src, f)));
  const problems: string[] = [];
  for (const folder of [...folders].sort()) {
    if (!layers.includes(folder)) problems.push(`${shown(folder)} is not in ${RULE_FILE} (list it where it belongs, top to bottom)`);
  }
  for (const layer of layers) {
    if (!folders.has(layer)) problems.push(`${RULE_FILE} lists ${layer}, which is not a folder of src/`);
  }
  const options = compilerOptions(root);
  const cache = ts.createModuleResolutionCache(root, (name) => name, options);
  const arrows = new Map<string, Arrow[]>();
  for (const file of files) {
    for (const target of importsOf(file, options, cache)) {
      if (!isInside(src, target)) continue;
      const a = folderOf(src, file);
      const b = folderOf(src, target);
      if (a === b) continue;
      const arrow = { from: relative(root, file).split(sep).join("/"), to: relative(root, target).split(sep).join("/") };
      const key = `${a}\n${b}`;
      arrows.set(key, [...(arrows.get(key) ?? []), arrow]);
      const [rankOfA, rankOfB] = [layers.indexOf(a), layers.indexOf(b)];
      // A folder missing from the rule is reported once, above, not at each of its imports.
      if (rankOfA >= 0 && rankOfB >= 0 && rankOfB < rankOfA) {
        problems.push(`${arrow.from} -> ${arrow.to} (${a} may not import ${b}: ${b} is above ${a} in ${RULE_FILE})`);
      }
    }
  }
  problems.push(...cycles(arrows));
  return problems;
}

/** The folders of layers.json, top first; undefined unless a list of distinct names. */
function readRule(root: string): string[] | undefined {
  let rule: unknown;
  try {
    rule = JSON.parse(readFileSync(join(root, RULE_FILE), "utf8"));
  } catch {
    return undefined;
  }
  const layers = (rule as { layers?: unknown } | null)?.layers;
  if (!Array.isArray(layers) || !layers.every((l) => typeof l === "string") || new Set(layers).size !== layers.length) return undefined;
  return layers as string[];
}

/** Every TypeScript source under `dir`, sorted, so that the report reads the same on every run. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return tsFiles(path);
      return name.endsWith(".ts") && !name.endsWith(".d.ts") ? [path] : [];
    });
}

/** The folder of src/ that holds `file`, or "." for a file directly in src/. */
function folderOf(src: string, file: string): string {
  const parts = relative(src, file).split(sep);
  return parts.length > 1 ? parts[0]! : ROOT_LAYER;
}

function shown(folder: string): string {
  return folder === ROOT_LAYER ? "src/" : `src/${folder}/`;
}

function isInside(dir: string, file: string): boolean {
  const r = relative(dir, file);
  return r !== "" && !r.startsWith("..") && !r.startsWith(sep) && !/^[a-zA-Z]:/.test(r);
}

/** The repository's compiler options (its tsconfig.json), or Node's ESM resolution for a tree without one. */
function compilerOptions(root: string): ts.CompilerOptions {
  const path = join(root, "tsconfig.json");
  const read = ts.sys.fileExists(path) ? ts.readConfigFile(path, ts.sys.readFile) : undefined;
  return read?.config
    ? ts.convertCompilerOptionsFromJson(read.config.compilerOptions ?? {}, root).options
    : { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext };
}

/** The files `file` imports, in any of the ways the compiler knows, as it resolves them. */
function importsOf(file: string, options: ts.CompilerOptions, cache: ts.ModuleResolutionCache): string[] {
  const found = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  const out: string[] = [];
  for (const { fileName } of found.importedFiles) {
    const resolved = ts.resolveModuleName(fileName, file, options, ts.sys, cache).resolvedModule;
    if (resolved && !resolved.isExternalLibraryImport) out.push(resolve(resolved.resolvedFileName));
  }
  return out;
}

/**
 * Import cycles between folders: within each group of folders that reach
 * one another (a strongly connected component of the folder graph), each
 * pair of folders that import each other, or where there is none, the
 * shortest loop through the first folder of the group; each step shown with
 * the first import that makes it.
 */
function cycles(arrows: Map<string, Arrow[]>): string[] {
  const next = new Map<string, string[]>();
  for (const key of [...arrows.keys()].sort()) {
    const [a, b] = key.split("\n") as [string, string];
    next.set(a, [...(next.get(a) ?? []), b]);
  }
  const out: string[] = [];
  for (const group of components(next)) {
    if (group.length < 2) continue;
    const pairs = group.flatMap((a) =>
      group.filter((b) => a < b && arrows.has(`${a}\n${b}`) && arrows.has(`${b}\n${a}`)).map((b) => [a, b, a]),
    );
    for (const loop of pairs.length > 0 ? pairs : [shortestLoop(group[0]!, next, new Set(group))]) {
      const steps = loop.slice(1).map((b, i) => arrows.get(`${loop[i]}\n${b}`)![0]!);
      out.push(`import cycle between folders: ${loop.join(" -> ")} (${steps.map((s) => `${s.from} -> ${s.to}`).join(", ")})`);
    }
  }
  return out;
}

/** Tarjan's strongly connected components, each sorted by name, in the order of their first member. */
function components(next: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    found.push(group.sort());
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return found.sort((x, y) => (x[0]! < y[0]! ? -1 : 1));
}

/** The shortest path from `start` back to itself within `group`, found breadth first. */
function shortestLoop(start: string, next: Map<string, string[]>, group: Set<string>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of next.get(v) ?? []) {
      if (w === start) {
        const loop = [start];
        for (let at = v; at !== start; at = cameFrom.get(at)!) loop.splice(1, 0, at);
        return [...loop, start];
      }
      if (group.has(w) && !cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const problems = checkLayers(root);
  for (const line of problems) console.error(line);
  if (problems.length > 0) {
    console.error(`${problems.length} problem(s): see ${RULE_FILE} and CONTRIBUTING.md (Layout)`);
    process.exitCode = 1;
  } else {
    console.log(`every import between folders of src/ points down ${RULE_FILE}`);
  }
}
