// npm run check:examples
//
// Type-checks every `@example` of the doc comments in src/, as the API
// reference shows them: each example becomes a module of its own in a
// temporary directory, importing the package by name ("a2a-connect",
// "a2a-connect/node", ...) as a user's code does, with those names mapped to
// src/ as the package's "exports" map maps them to dist/. An example that no
// longer compiles (a renamed option, a changed signature) fails CI with the
// line of the doc comment it came from.
//
// An example's code is its fenced ```ts blocks, or its whole text when it
// has none (TypeDoc shows such an example as code, too).
//
// The guides (README.md, CONTRIBUTING.md, docs/*.md) are checked the same
// way: each fenced ts or js block is a module of its own, so each must say
// what it imports and declare what it uses, as a reader who pastes it needs.
// A guide's block may be marked as a fragment, by the comment
// `<!-- fragment -->` on the line before its fence: it is compiled like the
// others, and the tests that run a guide's blocks (docs/testing.md's) leave it out.
//
// Exit codes: 0 every example compiles, 1 one does not (or none was found).

import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The package's entries, by the name users import them with. */
export const ENTRIES: Readonly<Record<string, string>> = {
  "a2a-connect": "src/index.ts",
  "a2a-connect/node": "src/node.ts",
  "a2a-connect/trust": "src/trust.ts",
  "a2a-connect/toolkit": "src/toolkit.ts",
  "a2a-connect/testing": "src/testing.ts",
};

/** The code of one `@example`, and where it is. */
export interface Example {
  /** The file, relative to the repository. */
  file: string;
  /** The 1-based line of the file where the code's first line is. */
  line: number;
  /** What the doc comment documents, e.g. `A2AClient.sendMessage`; in a guide, the heading above the code. */
  symbol: string;
  code: string;
  /** A guide's ```js block: compiled as JavaScript, which has no types to check. */
  js?: boolean;
  /** A guide's block marked `<!-- fragment -->` on the line before it: compiled, never run. */
  fragment?: boolean;
}

const FENCE = /^\s*(`{3,}|~{3,})\s*([\w-]*)/;
const CODE_LANGUAGES = new Set(["", "ts", "typescript", "js", "javascript"]);
const BLOCK_TAG = /^\s*@\w+/;
const FRAGMENT = /^\s*<!--\s*fragment\s*-->\s*$/;

/** The examples of the doc comments in one file's text. */
export function examplesIn(file: string, text: string): Example[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const examples: Example[] = [];
  const seen = new Set<number>();
  const visit = (node: ts.Node): void => {
    // The file's first statement starts where the file does: its comments are the statement's.
    for (const range of ts.isSourceFile(node) ? [] : (ts.getLeadingCommentRanges(text, node.pos) ?? [])) {
      if (seen.has(range.pos) || !text.startsWith("/**", range.pos)) continue;
      seen.add(range.pos);
      const firstLine = source.getLineAndCharacterOfPosition(range.pos).line + 1;
      examples.push(...examplesOfComment(text.slice(range.pos, range.end), firstLine, file, symbolName(node)));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return examples;
}

/** `Class.member` or `name` of the declaration a comment is attached to. */
function symbolName(node: ts.Node): string {
  const names: string[] = [];
  // `export const connect = ...`: the comment is on the statement, the name on its declaration.
  const named = ts.isVariableStatement(node) ? node.declarationList.declarations[0] : node;
  for (let n: ts.Node | undefined = named; n && !ts.isSourceFile(n); n = n.parent) {
    const name = (n as { name?: ts.Node }).name;
    if (name && (ts.isIdentifier(name) || ts.isPrivateIdentifier(name))) names.unshift(name.text);
  }
  return names.join(".") || "(file)";
}

/** The lines of a `/** ... *\/` comment without its delimiters and leading `*`. */
function commentLines(comment: string): string[] {
  return comment
    .replace(/^\/\*\*/, "")
    .replace(/\*\/$/, "")
    .split(/\r?\n/)
    .map((line, i) => (i === 0 ? line : line.replace(/^\s*\* ?/, "")));
}

function examplesOfComment(comment: string, firstLine: number, file: string, symbol: string): Example[] {
  const lines = commentLines(comment);
  const examples: Example[] = [];
  let body: { start: number; lines: string[] } | undefined;
  let inFence = false;
  const finish = (): void => {
    if (body) examples.push(...codeOf(body.lines, firstLine + body.start, file, symbol));
    body = undefined;
  };
  for (const [i, line] of lines.entries()) {
    if (FENCE.test(line)) inFence = !inFence;
    if (!inFence && BLOCK_TAG.test(line)) {
      finish();
      // The rest of the tag's line is the example's title, or its first line of code when it has no fences.
      const title = /^\s*@example\b(.*)$/.exec(line)?.[1];
      if (title !== undefined) body = { start: i, lines: [title.trim()] };
      continue;
    }
    body?.lines.push(line);
  }
  finish();
  return examples;
}

/** The fenced code blocks of an example (its tag's line, then its body), or all of it when it has none. */
function codeOf(lines: readonly string[], line: number, file: string, symbol: string): Example[] {
  const blocks: Example[] = [];
  let open: { fence: string; compiled: boolean; start: number; code: string[] } | undefined;
  let fenced = false;
  for (const [i, text] of lines.entries()) {
    if (i === 0) continue; // the title
    const [, fence = "", language = ""] = FENCE.exec(text) ?? [];
    if (!open) {
      if (!fence) continue;
      fenced = true;
      // A block in another language (sh, json) is shown, not compiled.
      open = { fence, compiled: CODE_LANGUAGES.has(language.toLowerCase()), start: i + 1, code: [] };
    } else if (fence.startsWith(open.fence) && !language) {
      if (open.compiled) blocks.push({ file, line: line + open.start, symbol, code: open.code.join("\n") });
      open = undefined;
    } else open.code.push(text);
  }
  if (fenced) return blocks;
  const first = lines.findIndex((l) => l.trim() !== "");
  if (first === -1) return [];
  return [{ file, line: line + first, symbol, code: lines.slice(first).join("\n").trimEnd() }];
}

/** The fenced ts and js blocks of a markdown guide, each under the heading it follows. */
export function examplesInMarkdown(file: string, text: string): Example[] {
  const examples: Example[] = [];
  let heading = "(top)";
  let open: { fence: string; language: string; compiled: boolean; fragment: boolean; start: number; code: string[] } | undefined;
  let previous = "";
  for (const [i, line] of text.split(/\r?\n/).entries()) {
    const [, fence = "", language = ""] = FENCE.exec(line) ?? [];
    if (!open) {
      if (fence) {
        const compiled = CODE_LANGUAGES.has(language.toLowerCase()) && language !== "";
        open = { fence, language, compiled, fragment: FRAGMENT.test(previous), start: i + 2, code: [] };
      } else heading = /^#{1,6} (.+)$/.exec(line)?.[1] ?? heading;
    } else if (fence.startsWith(open.fence) && !language) {
      // A fence without a language is shown, not compiled: in a guide it is output or a file tree.
      if (open.compiled) {
        const js = /^(js|javascript)$/i.test(open.language);
        const { fragment } = open;
        examples.push({
          file,
          line: open.start,
          symbol: heading,
          code: open.code.join("\n"),
          ...(js ? { js } : {}),
          ...(fragment ? { fragment } : {}),
        });
      }
      open = undefined;
    } else open.code.push(line);
    previous = line;
  }
  return examples;
}

/** The guides whose code blocks are compiled: the README, CONTRIBUTING.md and docs/*.md. */
export async function guideFiles(): Promise<string[]> {
  const docs = (await readdir(join(repoRoot, "docs"), { withFileTypes: true }))
    .filter((e) => e.isFile() && e.name.endsWith(".md"))
    .map((e) => `docs/${e.name}`)
    .sort();
  return ["README.md", "CONTRIBUTING.md", ...docs];
}

/** The examples of every guide. */
export async function examplesInGuides(): Promise<Example[]> {
  const examples: Example[] = [];
  for (const file of await guideFiles()) examples.push(...examplesInMarkdown(file, await readFile(join(repoRoot, file), "utf8")));
  return examples;
}

/** Every `.ts` file under `dir`, relative to the repository. */
async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(join(repoRoot, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !e.name.endsWith(".d.ts"))
    .map((e) => relative(repoRoot, join(e.parentPath, e.name)))
    .sort();
}

/** The examples of every doc comment in src/. */
export async function examplesInSources(): Promise<Example[]> {
  const examples: Example[] = [];
  for (const file of await sourceFiles("src")) examples.push(...examplesIn(file, await readFile(join(repoRoot, file), "utf8")));
  return examples;
}

/**
 * Compiles the examples, each as a module of its own, against the package's
 * entries; resolves with one line per error, naming the example's file and
 * line (none when all compile).
 */
export async function checkExamples(examples: readonly Example[]): Promise<string[]> {
  // Inside the repository's node_modules, so that an example may import what an
  // app would have installed beside the package (@opentelemetry/api, ...).
  const cache = join(repoRoot, "node_modules", ".cache");
  await mkdir(cache, { recursive: true });
  const dir = await mkdtemp(join(cache, "a2a-examples-"));
  try {
    // ESM, as the package is: examples may use top-level await.
    await writeFile(join(dir, "package.json"), '{ "type": "module" }\n');
    const files = new Map<string, Example>();
    for (const [i, example] of examples.entries()) {
      const name = join(dir, `example-${i}.${example.js ? "mjs" : "ts"}`);
      // `export {}` keeps an example without imports a module of its own.
      await writeFile(name, `${example.code}\nexport {};\n`);
      files.set(name, example);
    }
    const program = ts.createProgram([...files.keys()], compilerOptions());
    // The examples' own diagnostics only: src/ itself is for `npm run typecheck`
    // (and not checking its bodies here makes this several times faster).
    const diagnostics = [
      ...program.getOptionsDiagnostics(),
      ...program.getGlobalDiagnostics(),
      ...[...files.keys()].flatMap((name) => {
        const file = program.getSourceFile(name);
        return file ? [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)] : [];
      }),
    ];
    const problems: string[] = [];
    for (const d of diagnostics) {
      const example = d.file ? files.get(resolve(d.file.fileName)) : undefined;
      const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
      if (!example || !d.file || d.start === undefined) {
        problems.push(`error TS${d.code}: ${message}`);
        continue;
      }
      const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
      problems.push(`${example.file}:${example.line + line}:${character + 1} (${where(example)}): error TS${d.code}: ${message}`);
    }
    return problems;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Where an example is, for its errors: the symbol of its doc comment, or the heading of its guide. */
const where = (example: Example): string =>
  example.file.endsWith(".md") ? `example under "${example.symbol}"` : `@example of ${example.symbol}`;

/** The repository's tsconfig.json, with the package's names mapped to its entries. */
function compilerOptions(): ts.CompilerOptions {
  const configFile = join(repoRoot, "tsconfig.json");
  const { config } = ts.readConfigFile(configFile, ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, repoRoot, undefined, configFile);
  const paths = Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, [join(repoRoot, file)]]));
  // allowJs for the guides' js blocks, whose syntax and imports are all there is to check.
  return { ...options, noEmit: true, allowJs: true, paths, typeRoots: [join(repoRoot, "node_modules/@types")] };
}

async function main(): Promise<number> {
  const examples = await examplesInSources();
  if (examples.length === 0) {
    console.error("check:examples: no @example found in src/");
    return 1;
  }
  const guides = await examplesInGuides();
  // One program for both: loading the package's types is most of the time it takes.
  const problems = await checkExamples([...examples, ...guides]);
  for (const p of problems) console.error(p);
  console.log(`check:examples: ${examples.length} examples in src/, ${guides.length} in the guides, ${problems.length} errors`);
  return problems.length === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main();
}
