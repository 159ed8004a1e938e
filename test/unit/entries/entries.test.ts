/**
 * The entries: each its own `connect` (the Node entry's with what Node adds,
 * passed explicitly, which bundlers keep as any import), and curated exports.
 */
import { join } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import * as root from "../../../src/index.js";
import * as node from "../../../src/node.js";
import * as toolkit from "../../../src/toolkit.js";
import * as testing from "../../../src/testing.js";
import { repoRoot } from "../../../scripts/size.js";

describe("each entry's connect", () => {
  it("the Node entry's is its own, over its own factories: importing it leaves the root's as it is (node-entry.test.ts)", () => {
    expect(node.connect).not.toBe(root.connect);
    expect(Object.keys(node.registeredTransports()).filter((k) => k.startsWith("GRPC@"))).toHaveLength(2);
    expect(Object.keys(toolkit.registeredTransports()).filter((k) => k.startsWith("GRPC@"))).toEqual([]);
  });

  it("the registered factories are handed out as a frozen copy: no caller changes another's connect", () => {
    const copy = toolkit.registeredTransports();
    expect(Object.isFrozen(copy)).toBe(true);
    expect(copy).not.toBe(toolkit.registeredTransports());
  });
});

describe("what each entry carries through bundling", () => {
  // As an app's bundler sees the package: through package.json "exports" and "sideEffects" (none).
  async function bundle(source: string) {
    const result = await build({
      stdin: { contents: source, resolveDir: repoRoot, loader: "js" },
      absWorkingDir: repoRoot,
      bundle: true,
      format: "esm",
      platform: "node",
      packages: "external",
      write: false,
      outdir: join(repoRoot, "out-entries-check"),
      metafile: true,
      logLevel: "silent",
      plugins: [
        {
          name: "entries-from-source",
          setup(b) {
            b.onResolve({ filter: /^a2a-connect(\/.*)?$/ }, (args) => ({
              path: join(repoRoot, "src", `${args.path === "a2a-connect" ? "index" : args.path.slice("a2a-connect/".length)}.ts`),
            }));
          },
        },
      ],
    });
    // What is in the output (an import that a bundler drops is still listed among the inputs).
    const kept = Object.values(result.metafile.outputs).flatMap((o) =>
      Object.entries(o.inputs)
        .filter(([, i]) => i.bytesInOutput > 0)
        .map(([path]) => path),
    );
    return { code: result.outputFiles.map((f) => f.text).join("\n"), kept };
  }

  it("an app that imports only connect from a2a-connect/node keeps gRPC and the JSON readers", async () => {
    const { code, kept } = await bundle(`import { connect } from "a2a-connect/node"; export const run = (u) => connect(u);`);
    expect(kept).toContain("src/node-runtime.ts");
    expect(code).toMatch(/"GRPC@1\.0": \(c, s\) => createGrpcTransport\(/);
    expect(code).toMatch(/readers: jsonReaders/);
    expect(kept).toContain("gen/lf/a2a/v1/a2a_json_readers.ts");
  });

  it("an app of the root entry carries none of it", async () => {
    const { kept } = await bundle(`import { connect } from "a2a-connect"; export const run = (u) => connect(u);`);
    expect(kept.filter((i) => /node-runtime|a2a_json_readers|node-client|grpc\/transport/.test(i))).toEqual([]);
  });

  it("an app that does not wait for tasks carries no waitForTask, one that does carries it", async () => {
    const connectOnly = await bundle(`import { connect } from "a2a-connect"; export const run = (u) => connect(u);`);
    expect(connectOnly.kept).not.toContain("src/client/wait.ts");
    const waiting = await bundle(`import { waitForTask } from "a2a-connect"; export const run = (c, id) => waitForTask(c, id);`);
    expect(waiting.kept).toContain("src/client/wait.ts");
  });

  it("an app of the root entry that never serializes carries no ProtoJSON helpers; one that does, does", async () => {
    const without = await bundle(
      `import { connect, textOf } from "a2a-connect"; export const run = async (u) => textOf(await connect(u));`,
    );
    expect(without.kept).not.toContain("src/protocol/serialize.ts");
    const using = await bundle(`import { toProtoJson } from "a2a-connect"; export const run = (t) => toProtoJson(t);`);
    expect(using.kept).toContain("src/protocol/serialize.ts");
  });

  it("an app of the root entry that does not trace carries no tracing; one that does imports nothing of @opentelemetry", async () => {
    const without = await bundle(
      `import { connect, loggingInterceptor } from "a2a-connect"; export const run = (u) => connect(u, { transport: { interceptors: [loggingInterceptor()] } });`,
    );
    expect(without.kept).not.toContain("src/tracing.ts");
    const using = await bundle(
      `import { tracingInterceptor } from "a2a-connect"; export const run = (tracer) => tracingInterceptor({ tracer });`,
    );
    expect(using.kept).toContain("src/tracing.ts");
    expect(using.code).not.toContain("@opentelemetry");
  });
});

describe("curated exports", () => {
  it("the root entry exports no internals", () => {
    for (const name of [
      "isRecord",
      "errorFromServer",
      "fromConnectError",
      "reasonFromDetails",
      "parseRetryAfter",
      "toA2AError",
      "FailoverTransport",
      "rankInterfaces",
      "parseCard",
      "cardUrlCandidates",
      "createConnect",
    ]) {
      expect(root, name).not.toHaveProperty(name);
    }
  });

  it("the root entry has waitForTask and its poll floor", () => {
    expect(typeof root.waitForTask).toBe("function");
    expect(root.MIN_POLL_MS).toBe(100);
  });

  it("the root entry has connect's types for interceptors of one's own", () => {
    // Type-level: `npm run typecheck` fails if the root stops exporting them.
    const seen: string[] = [];
    const interceptor: root.Interceptor = (next) => async (req: root.UnaryRequest | root.StreamRequest) => {
      seen.push(req.url);
      return next(req);
    };
    const unary = (res: root.UnaryResponse) => res.header;
    expect(typeof interceptor).toBe("function");
    expect(typeof unary).toBe("function");
  });

  it("the Node entry no longer has factory tables of its own", () => {
    for (const name of ["grpcTransportFactories", "nodeHttpTransportFactories", "grpcBaseUrl"]) expect(node, name).not.toHaveProperty(name);
  });

  it("the toolkit has the tier for transports and tools", () => {
    expect(Object.keys(toolkit).sort()).toEqual([
      "cardUrlCandidates",
      "createConnect",
      "lazyTransport",
      "parseCard",
      "registeredTransports",
      "toA2AError",
    ]);
  });

  it("the testing entry has the test agent, its steps and what it names", () => {
    expect(Object.keys(testing).sort()).toEqual(["MASK", "TEST_ERROR_KINDS", "createTestAgent", "steps"]);
  });
});
