/**
 * The package as npm publishes it: built afresh into a scratch copy (the
 * repository's dist/ is left alone), packed with `npm pack`, extracted, and
 * loaded the way apps load it, `require()` and `import`, in fresh Node
 * processes. Its dependencies come from the repository's node_modules, so
 * nothing is fetched.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../../scripts/size.js";
import { startLocalAgent } from "../../../demo/agent.js";
import { appBesideRepoDependencies, nodeIn, packPackage, run } from "../../support/packed.js";

const ENTRIES = ["a2a-connect", "a2a-connect/trust", "a2a-connect/node", "a2a-connect/toolkit", "a2a-connect/testing"];

let scratch: string;
let packed: string[]; // the tarball's file list, as npm reports it
let app: string; // an app whose node_modules/a2a-connect is the extracted tarball

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "a2a-connect-pack-"));
  const pack = await packPackage(scratch);
  packed = pack.files;
  app = await appBesideRepoDependencies(scratch, pack);
}, 120_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const node = (args: string[]) => nodeIn(app, args);

describe("the packed package", () => {
  it("require() loads every entry (Node >= 20.19 requires ESM), the Node entry with a connect of its own", async () => {
    const script = `
      const [root, trust, node, toolkit, testing] = ${JSON.stringify(ENTRIES)}.map((e) => require(e));
      console.log(JSON.stringify([typeof root.connect, typeof trust.verifyAgentCard, typeof node.connect, node.connect === root.connect, typeof toolkit.createConnect, typeof testing.createTestAgent]));`;
    expect(JSON.parse(await node(["-e", script]))).toEqual(["function", "function", "function", false, "function", "function"]);
  });

  it("import loads every entry, the same modules require() gets", async () => {
    const script = `
      import { createRequire } from "node:module";
      const require = createRequire(process.cwd() + "/");
      const same = [];
      for (const e of ${JSON.stringify(ENTRIES)}) same.push((await import(e)).connect === require(e).connect);
      console.log(JSON.stringify(same));`;
    expect(JSON.parse(await node(["--input-type=module", "-e", script]))).toEqual([true, true, true, true, true]);
  });

  it("the testing entry, built apart, shares the root entry's classes: its transport's errors are the app's", async () => {
    const script = `
      import { A2AClient, TaskNotFoundError, userMessage, textOf } from "a2a-connect";
      import { createTestAgent, steps } from "a2a-connect/testing";
      const agent = createTestAgent({ script: [steps.reply("hi")] });
      const client = new A2AClient(agent.transport("HTTP+JSON"));
      const reply = textOf(await client.sendMessage({ message: userMessage("x") }));
      const missing = await client.getTask({ id: "none" }).catch((e) => e);
      await agent.close();
      console.log(JSON.stringify([reply, missing instanceof TaskNotFoundError]));`;
    expect(JSON.parse(await node(["--input-type=module", "-e", script]))).toEqual(["hi", true]);
  });

  it("the testing entry's gRPC-web transport is the root entry's too: its errors are the app's", async () => {
    const script = `
      import { A2AClient, TaskNotFoundError } from "a2a-connect";
      import { createTestAgent } from "a2a-connect/testing";
      const agent = createTestAgent({ bindings: ["GRPC"] });
      const missing = await new A2AClient(agent.transport("GRPC")).getTask({ id: "none" }).catch((e) => e);
      await agent.close();
      console.log(JSON.stringify(missing instanceof TaskNotFoundError));`;
    expect(JSON.parse(await node(["--input-type=module", "-e", script]))).toBe(true);
  });

  it("ships the license, the changelog and the readme", () => {
    expect(packed).toEqual(expect.arrayContaining(["LICENSE", "CHANGELOG.md", "README.md", "package.json"]));
    expect(readFileSync(join(app, "node_modules/a2a-connect/LICENSE"), "utf8")).toMatch(/Apache License\s+Version 2\.0/);
  });

  it("ships no source map that names a file it does not ship, and no JS pointing at one", () => {
    // The package ships no maps (its sources are not in it): a map would name src/*.ts.
    const shipped = new Set(packed);
    for (const path of packed.filter((p) => p.endsWith(".map"))) {
      const map = JSON.parse(readFileSync(join(app, "node_modules/a2a-connect", path), "utf8")) as { sources: string[] };
      for (const s of map.sources) expect(shipped, `${path} names ${s}`).toContain(join(path, "..", s));
    }
    const js = packed.filter((p) => p.endsWith(".js"));
    expect(js).toContain("dist/src/index.js");
    for (const path of js) {
      const text = readFileSync(join(app, "node_modules/a2a-connect", path), "utf8");
      const url = /\/\/# sourceMappingURL=(\S+)/.exec(text)?.[1];
      if (url) expect(shipped, `${path} points at ${url}`).toContain(join(path, "..", url));
    }
  });

  it("ships neither the interop kit's agent nor the kit's generated Instruction", () => {
    expect(packed.filter((p) => /(^|\/)itk\//.test(p))).toEqual([]);
  });

  it("every export condition names a file in the tarball", () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { exports: Record<string, Record<string, string>> };
    const targets = Object.values(pkg.exports).flatMap((conditions) => Object.values(conditions));
    for (const target of targets) expect(packed).toContain(target.replace(/^\.\//, ""));
  });

  it("names no repository or homepage: the package has no public address yet, and npm would show a made-up one", () => {
    const manifest = JSON.parse(readFileSync(join(app, "node_modules/a2a-connect/package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest.name).toBe("a2a-connect");
    expect(Object.keys(manifest)).not.toContain("repository");
    expect(Object.keys(manifest)).not.toContain("homepage");
    expect(Object.keys(manifest)).not.toContain("bugs");
  });

  it("declares no module with an effect at import: importing an entry changes nothing of another's", () => {
    const manifest = JSON.parse(readFileSync(join(app, "node_modules/a2a-connect/package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest.sideEffects).toBe(false);
  });
});

/**
 * A consumer's requests in both shapes and typos in them, as TypeScript
 * reads the packed declarations: the `@ts-expect-error` lines also fail the
 * compile if the package's types were lost (`any` takes every typo).
 */
const CONSUMER = `
import { A2AClient, listAllTasks, Role, TaskState, type SendMessageRequestJson } from "a2a-connect";

export async function requests(client: A2AClient): Promise<void> {
  await client.sendMessage({ message: { role: "ROLE_USER", parts: [{ text: "hi" }] } });
  await client.sendMessage({ message: { role: Role.USER, parts: [{ content: { case: "text", value: "hi" } }] } });
  const saved: SendMessageRequestJson = { message: { role: "ROLE_USER", parts: [{ text: "hi" }] } };
  await client.sendMessage(saved);
  await client.listTasks({ status: "TASK_STATE_WORKING", statusTimestampAfter: "2026-01-02T03:04:05Z" });
  await client.listTasks({ status: TaskState.WORKING });
  for await (const task of listAllTasks(client, { status: "TASK_STATE_WORKING" })) console.log(task.id);
  // @ts-expect-error txt is not a field of a part
  await client.sendMessage({ message: { role: "ROLE_USER", parts: [{ txt: "hi" }] } });
  // @ts-expect-error ROLE_USR is not a role
  await client.sendMessage({ message: { role: "ROLE_USR", parts: [{ text: "hi" }] } });
  // @ts-expect-error rol is not a field of a message
  await client.sendMessage({ message: { rol: "ROLE_USER", parts: [{ text: "hi" }] } });
}
`;

describe("the packed package's types, in a TypeScript app", () => {
  it.each([
    ["nodenext", "nodenext"],
    ["bundler", "esnext"],
  ])(
    "under moduleResolution %s, requests compile in the init shape and the spec's JSON shape, and typos do not",
    async (resolution, module) => {
      const dir = join(app, `ts-${resolution}`);
      mkdirSync(dir);
      writeFileSync(join(dir, "requests.mts"), CONSUMER);
      const compilerOptions = {
        module,
        moduleResolution: resolution,
        target: "es2022",
        lib: ["es2022", "dom"],
        strict: true,
        noEmit: true,
        types: [],
      };
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["requests.mts"] }));
      const tsc = join(repoRoot, "node_modules/typescript/bin/tsc");
      const out = await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: dir, timeout: 60_000 }).then(
        () => "",
        (e: { stdout?: string }) => e.stdout || String(e),
      );
      expect(out).toBe("");
    },
    60_000,
  );
});

/** The files a fresh process loads to run `script` (an ES module), as file: URLs, from a load hook. */
function filesLoadedBy(script: string): Promise<{ files: string[]; stdout: string }> {
  return filesLoadedRunning(["--input-type=module", "-e", script]);
}

/** The files a fresh `node ...args` loads, as file: URLs, from a load hook. */
async function filesLoadedRunning(args: string[]): Promise<{ files: string[]; stdout: string }> {
  writeFileSync(
    join(app, "log-loads.mjs"),
    `export async function load(url, context, next) { if (url.startsWith("file:")) process.stderr.write("loaded " + url + "\\n"); return next(url, context); }`,
  );
  writeFileSync(
    join(app, "register-log-loads.mjs"),
    `import { register } from "node:module"; register("./log-loads.mjs", import.meta.url);`,
  );
  const { stdout, stderr } = await run(process.execPath, ["--import", "./register-log-loads.mjs", ...args], {
    cwd: app,
    timeout: 30_000,
  });
  return { files: [...stderr.matchAll(/^loaded (\S+)$/gm)].map((m) => m[1]!), stdout };
}

describe("what a process loads at start", () => {
  it("each entry is a few files of the package, as a bundler makes them, not one per source module", async () => {
    for (const entry of ENTRIES) {
      const { files } = await filesLoadedBy(`await import(${JSON.stringify(entry)});`);
      const ours = files.filter((f) => f.startsWith(pathToFileURL(`${realpathSync(join(app, "node_modules/a2a-connect"))}/`).href));
      expect(ours.length, entry).toBeGreaterThan(0);
      // One file per source module was 127 for the Node entry; shared chunks are some 35.
      expect(ours.length, `${entry}: ${ours.length} files`).toBeLessThanOrEqual(36);
    }
  });

  it("no entry loads Node's fetch (undici) at import: only a call that needs Headers or fetch does", async () => {
    for (const entry of ENTRIES) {
      const { stdout } = await filesLoadedBy(
        `await import(${JSON.stringify(entry)}); console.log(process.moduleLoadList.filter((m) => m.includes("undici")).join(" "));`,
      );
      expect(stdout.trim(), entry).toBe("");
    }
  });

  it("the Node entry loads neither HTTP, HTTP/2 nor TLS at import: its clients load them when made or connecting", async () => {
    const { stdout } = await filesLoadedBy(
      `await import("a2a-connect/node"); console.log(process.moduleLoadList.filter((m) => /^NativeModule (http|https|http2|tls)$/.test(m)).join(" "));`,
    );
    expect(stdout.trim()).toBe("");
  });

  it("no entry loads the 0.3 wire at import: an agent on A2A 0.3 loads it with its first call", async () => {
    const dist = join(app, "node_modules/a2a-connect/dist/src");
    // The build keeps the path of each source module in a comment above its code.
    const wire = packed
      .filter((p) => p.startsWith("dist/src/") && p.endsWith(".js"))
      .filter((p) => readFileSync(join(app, "node_modules/a2a-connect", p), "utf8").includes("// src/v0_3/translate.ts"))
      .map((p) => pathToFileURL(join(realpathSync(dist), p.slice("dist/src/".length))).href);
    expect(wire.length).toBeGreaterThan(0);
    for (const entry of ENTRIES) {
      const { files } = await filesLoadedBy(`await import(${JSON.stringify(entry)});`);
      expect(
        files.filter((f) => wire.includes(f)),
        entry,
      ).toEqual([]);
    }
  });

  it("no entry loads JOSE's root module, which is all of JOSE (JWE, JWT, key generation): only the JWS parts it uses", async () => {
    for (const entry of ENTRIES) {
      const { files } = await filesLoadedBy(`await import(${JSON.stringify(entry)});`);
      const jose = files.filter((f) => f.includes("/node_modules/jose/"));
      expect(
        jose.filter((f) => /\/webapi\/(index|jwe|jwt|key)(\/|\.js)/.test(f)),
        entry,
      ).toEqual([]);
    }
  });
});

describe("an app's bundler, given the packed package", () => {
  // As an app's bundler sees the package: through its "exports" and "sideEffects" (none), its dependencies left out.
  async function bundle(source: string): Promise<string> {
    const result = await build({
      stdin: { contents: source, resolveDir: app, loader: "js" },
      absWorkingDir: app,
      bundle: true,
      format: "esm",
      platform: "node",
      external: ["@bufbuild/*", "@connectrpc/*", "jose", "canonicalize"],
      write: false,
      logLevel: "silent",
    });
    return result.outputFiles.map((f) => f.text).join("\n");
  }

  it("keeps what the Node entry adds for an app that imports only connect from it, and leaves it out of the root's", async () => {
    const node = await bundle(`import { connect } from "a2a-connect/node"; export const run = (u) => connect(u);`);
    expect(node).toMatch(/"GRPC@1\.0": \(c, s\) => createGrpcTransport\(/);
    expect(node).toMatch(/readers: jsonReaders/);
    const root = await bundle(`import { connect } from "a2a-connect"; export const run = (u) => connect(u);`);
    expect(root).toMatch(/function createConnect\(/);
    expect(root).not.toMatch(/createGrpcTransport|jsonReaders|node:http2/);
  });
});

describe("the CLI from the packed package", () => {
  it("is an executable with its #! line, and its commands (loaded on demand) run against the local agent", async () => {
    const pkg = JSON.parse(readFileSync(join(app, "node_modules/a2a-connect/package.json"), "utf8")) as { bin: { a2a: string } };
    const bin = join(app, "node_modules/a2a-connect", pkg.bin.a2a);
    expect(readFileSync(bin, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(statSync(bin).mode & 0o111).not.toBe(0);
    const agent = await startLocalAgent();
    try {
      const { stdout } = await run(bin, ["card", agent.origin, "--json"], { cwd: app, timeout: 30_000 });
      expect(JSON.parse(stdout)).toMatchObject({ name: expect.any(String), supportedInterfaces: expect.any(Array) });
    } finally {
      await agent.close();
    }
  });

  it("loads the Node entry's connect (node-runtime: gRPC, the generated readers) for the commands that call an agent, not for `a2a card`", async () => {
    const pkg = JSON.parse(readFileSync(join(app, "node_modules/a2a-connect/package.json"), "utf8")) as { bin: { a2a: string } };
    const bin = join(app, "node_modules/a2a-connect", pkg.bin.a2a);
    const agent = await startLocalAgent();
    try {
      // The CLI's import of src/node-runtime.ts, a file of its own as every import on demand is.
      const runtime = (files: string[]) => files.filter((f) => /\/dist\/src\/node-runtime-\w+\.js$/.test(f));
      const card = await filesLoadedRunning([bin, "card", agent.origin, "--json"]);
      expect(JSON.parse(card.stdout)).toMatchObject({ name: expect.any(String) });
      expect(runtime(card.files)).toEqual([]);
      const send = await filesLoadedRunning([bin, "send", agent.origin, "hi", "--json"]);
      expect(send.stdout).toContain("hi");
      expect(runtime(send.files)).toHaveLength(1);
    } finally {
      await agent.close();
    }
  });
});

describe("the README's first example", () => {
  it("runs as pasted, from the packed package, against the local agent, and prints the result as JSON", async () => {
    const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
    const example = /^```ts\n([\s\S]*?)^```/m.exec(readme)?.[1];
    expect(example).toContain('"http://127.0.0.1:41241"');
    // `npm run agent` listens on 41241; this agent takes a free port, so only that number differs.
    const agent = await startLocalAgent();
    try {
      writeFileSync(join(app, "hello.mjs"), example!.replaceAll("http://127.0.0.1:41241", agent.origin));
      const out = await node(["hello.mjs"]);
      const [via, text, ...json] = out.split("\n");
      expect(via).toBe(`via JSONRPC ${agent.jsonRpcUrl}`);
      expect(text).toBe("hello");
      expect(JSON.parse(json.join("\n"))).toMatchObject({ message: { role: "ROLE_AGENT", parts: [{ text: "hello" }] } });
    } finally {
      await agent.close();
    }
  });
});
