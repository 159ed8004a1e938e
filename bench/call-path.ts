/**
 * `npm run bench:path`: the path of one unary call through the client's
 * own code, counted the same way before and after a change to its layers.
 *
 * The sources are compiled afresh with one line added at the top of every
 * function of `src/`, which notes the function's entry. A `sendMessage`
 * over JSON-RPC and one over HTTP+JSON then go through an `A2AClient` built
 * by `connect()` (failover is on the path, as in an application), with no
 * retry policy, down to `fetch`, which answers at once from memory. One
 * call warms up (code loaded on demand, caches); the next is counted:
 *
 *   stops      functions of src/ entered during the call, in order, but
 *              those of src/base/ (leaf helpers, called as a library is)
 *   files      distinct src/ files among them
 *   crossings  consecutive stops in different folders of src/ (an entry
 *              module, `src/x.ts`, counts as a folder of its own)
 *
 * Nothing is timed: the counts are the same on every machine. The path is
 * printed stop by stop with PATH_VERBOSE=1.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";

const repoRoot = fileURLToPath(new URL("..", import.meta.url));
/** Inside the repository, so that packages resolve from its node_modules. */
const outDir = join(repoRoot, "node_modules", ".cache", "a2a-call-path");
const AGENT = "https://agent.example";

type Trace = (file: string, fn: string) => void;
/** The global the compiled sources call at every function's entry. */
const traced = globalThis as { __a2aPathTrace?: Trace | undefined };

/** Every .ts file under `dir`, relative to the repository. */
function sources(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
    .map((f) => join(dir, f).split(sep).join("/"));
}

/** The name a stack would give `node`: the function's, its method's or its variable's. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (node.name && (ts.isIdentifier(node.name) || ts.isPrivateIdentifier(node.name))) {
    const owner = ts.isClassLike(node.parent) && node.parent.name ? `${node.parent.name.text}.` : "";
    return owner + node.name.text;
  }
  if (ts.isConstructorDeclaration(node) && node.parent.name) return `new ${node.parent.name.text}`;
  const p = node.parent;
  if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && ts.isIdentifier(p.name)) {
    return p.name.text;
  }
  return "(anonymous)";
}

/** A transformer that makes every function's first statement note its entry. */
function tracing(file: string): ts.TransformerFactory<ts.SourceFile> {
  return (context) => {
    const f = context.factory;
    const note = (node: ts.FunctionLikeDeclaration) =>
      f.createExpressionStatement(
        f.createCallChain(
          f.createPropertyAccessExpression(f.createIdentifier("globalThis"), "__a2aPathTrace"),
          f.createToken(ts.SyntaxKind.QuestionDotToken),
          undefined,
          [f.createStringLiteral(file), f.createStringLiteral(nameOf(node))],
        ),
      );
    const visit = (node: ts.Node): ts.Node => {
      const visited = ts.visitEachChild(node, visit, context);
      if (!ts.isFunctionLike(visited) || !("body" in visited) || visited.body === undefined) return visited;
      const fn = visited as ts.FunctionLikeDeclaration;
      const original = node as ts.FunctionLikeDeclaration;
      const body = fn.body!;
      const block = ts.isBlock(body)
        ? f.updateBlock(body, [note(original), ...body.statements])
        : f.createBlock([note(original), f.createReturnStatement(body)], true);
      if (ts.isFunctionDeclaration(fn))
        return f.updateFunctionDeclaration(fn, fn.modifiers, fn.asteriskToken, fn.name, fn.typeParameters, fn.parameters, fn.type, block);
      if (ts.isFunctionExpression(fn))
        return f.updateFunctionExpression(fn, fn.modifiers, fn.asteriskToken, fn.name, fn.typeParameters, fn.parameters, fn.type, block);
      if (ts.isArrowFunction(fn))
        return f.updateArrowFunction(fn, fn.modifiers, fn.typeParameters, fn.parameters, fn.type, fn.equalsGreaterThanToken, block);
      if (ts.isMethodDeclaration(fn))
        return f.updateMethodDeclaration(
          fn,
          fn.modifiers,
          fn.asteriskToken,
          fn.name,
          fn.questionToken,
          fn.typeParameters,
          fn.parameters,
          fn.type,
          block,
        );
      if (ts.isConstructorDeclaration(fn)) return f.updateConstructorDeclaration(fn, fn.modifiers, fn.parameters, block);
      if (ts.isGetAccessorDeclaration(fn)) return f.updateGetAccessorDeclaration(fn, fn.modifiers, fn.name, fn.parameters, fn.type, block);
      if (ts.isSetAccessorDeclaration(fn)) return f.updateSetAccessorDeclaration(fn, fn.modifiers, fn.name, fn.parameters, block);
      return visited;
    };
    return (sf) => ts.visitNode(sf, visit) as ts.SourceFile;
  };
}

/** src/ (traced) and gen/ (as is) compiled to `outDir`, as ES modules. */
function compile(): void {
  rmSync(outDir, { recursive: true, force: true });
  for (const file of [...sources("src"), ...sources("gen")]) {
    const text = readFileSync(join(repoRoot, file), "utf8");
    const traced = file.startsWith("src/") ? file.slice("src/".length) : undefined;
    const out = ts.transpileModule(text, {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
      transformers: traced === undefined ? undefined : { before: [tracing(traced)] },
    });
    const target = join(outDir, file.replace(/\.ts$/, ".js"));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, out.outputText);
  }
  writeFileSync(join(outDir, "package.json"), '{ "type": "module" }\n');
}

/** The card of an agent with one interface, on `binding`. */
function cardFor(binding: Binding): Record<string, unknown> {
  return {
    name: "path",
    description: "an agent that answers from memory",
    version: "1",
    supportedInterfaces: [{ url: `${AGENT}/a2a`, protocolBinding: binding, protocolVersion: "1.0" }],
    capabilities: {},
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
  };
}

export type Binding = "JSONRPC" | "HTTP+JSON";
const TASK = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } };

/** `fetch` answering a SendMessage at once, as `binding` carries it. */
function answering(binding: Binding): typeof fetch {
  return async (_input, init) => {
    const sent = init?.body;
    const text = typeof sent === "string" ? sent : sent instanceof Uint8Array ? new TextDecoder().decode(sent) : "{}";
    const id = (JSON.parse(text) as { id?: unknown }).id;
    const answer = binding === "JSONRPC" ? { jsonrpc: "2.0", id, result: { task: TASK } } : { task: TASK };
    return new Response(JSON.stringify(answer), { headers: { "content-type": "application/json" } });
  };
}

export interface Stop {
  file: string;
  fn: string;
}

const folderOf = (file: string) => (file.includes("/") ? file.slice(0, file.indexOf("/")) : file);

async function pathOf(binding: Binding): Promise<Stop[]> {
  const api = (await import(pathToFileURL(join(outDir, "src", "index.js")).href)) as typeof import("../src/index.js");
  const realFetch = globalThis.fetch;
  globalThis.fetch = answering(binding);
  try {
    const { client } = await api.connect(cardFor(binding), { cardUrl: `${AGENT}/.well-known/agent-card.json` });
    await client.sendMessage({ message: api.userMessage("warm up") });
    const message = api.userMessage("hello");
    const stops: Stop[] = [];
    traced.__a2aPathTrace = (file, fn) => {
      if (!file.startsWith("base/")) stops.push({ file, fn });
    };
    try {
      await client.sendMessage({ message });
    } finally {
      traced.__a2aPathTrace = undefined;
    }
    return stops;
  } finally {
    globalThis.fetch = realFetch;
  }
}

/** What one call's path counts, as the header describes. */
export interface PathCount {
  stops: Stop[];
  files: number;
  folders: number;
  crossings: number;
}

/** The path of one sendMessage on each binding, compiled from the sources as they are now. */
export async function measurePaths(): Promise<Record<Binding, PathCount>> {
  compile();
  try {
    const counts = {} as Record<Binding, PathCount>;
    for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
      const stops = await pathOf(binding);
      const crossings = stops.filter((s, i) => i > 0 && folderOf(stops[i - 1]!.file) !== folderOf(s.file)).length;
      counts[binding] = {
        stops,
        files: new Set(stops.map((s) => s.file)).size,
        folders: new Set(stops.map((s) => folderOf(s.file))).size,
        crossings,
      };
    }
    return counts;
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const [binding, { stops, files, folders, crossings }] of Object.entries(await measurePaths())) {
    if (process.env.PATH_VERBOSE) {
      console.log(`\n${binding}: one sendMessage`);
      stops.forEach((s, i) => {
        const crossed = i > 0 && folderOf(stops[i - 1]!.file) !== folderOf(s.file);
        console.log(`  ${crossed ? "->" : "  "} ${s.file.padEnd(34)} ${s.fn}`);
      });
    }
    console.log(
      `${binding.padEnd(9)} sendMessage: ${stops.length} stops, ${files} files, ${folders} folders, ${crossings} crossings between folders`,
    );
  }
}
