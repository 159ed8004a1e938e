/**
 * The dependencies an app shares with this package, at both ends of their
 * ranges: the packed tarball installed by npm from the registry into an
 * empty app with each of them pinned to its lowest allowed version, then to
 * its latest, each app making real calls (every binding, a stream) to the
 * local agent on 127.0.0.1, and gRPC-web calls (a call, a stream, an error
 * status) to a fake gRPC-web proxy on 127.0.0.1: the gRPC-web wire is ours,
 * on connect's call runners, and must hold with each connect the range
 * lets an app install. Needs the npm registry: run by
 * `npm run test:ranges` (CI does), not by `npm test`; without the registry it
 * fails, it never passes for want of it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalAgent, type LocalAgent } from "../../demo/agent.js";
import { StreamResponseSchema, TaskSchema, TaskState } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import { repoRoot } from "../../scripts/size.js";
import { startFakeServer, type FakeServer } from "../support/fake-server.js";
import { frame } from "../support/fake-grpc-server.js";
import { nodeIn, packPackage, run, type PackedPackage } from "../support/packed.js";

/** The dependencies an app is likely to have too, whose ranges must hold at both ends. */
const SHARED = ["@bufbuild/protobuf", "@connectrpc/connect"];
const INSTALL_TIMEOUT_MS = 60_000;

const ranges = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies;

let scratch: string;
let pack: PackedPackage;
let agent: LocalAgent;
let proxy: FakeServer;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "a2a-connect-ranges-"));
  [pack, agent, proxy] = await Promise.all([packPackage(scratch), startLocalAgent(), startFakeServer(answerGrpcWeb)]);
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await proxy?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** What npm says, or an error that says the registry could not be asked. */
async function npm(args: string[], cwd: string): Promise<string> {
  try {
    const { stdout } = await run("npm", args, { cwd, timeout: INSTALL_TIMEOUT_MS });
    return stdout;
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`npm ${args.join(" ")} failed (is the npm registry reachable?): ${err.stderr || err.message}`);
  }
}

/** The lowest version a caret range allows: its own. */
const lowest = (range: string): string => {
  expect(range, "a caret range").toMatch(/^\^\d+\.\d+\.\d+$/);
  return range.slice(1);
};

/** The highest version the registry has within the range. */
async function latest(name: string, range: string): Promise<string> {
  const out = JSON.parse(await npm(["view", `${name}@${range}`, "version", "--json"], scratch)) as string | string[];
  const versions = Array.isArray(out) ? out : [out];
  expect(versions.length, `${name}@${range} on the registry`).toBeGreaterThan(0);
  return versions.at(-1)!;
}

/** A gRPC-web trailers frame of `fields`. */
const trailers = (fields: string) => frame(Buffer.from(fields), 0x80);
const TASK = toBinary(TaskSchema, create(TaskSchema, { id: "t1", contextId: "c1", status: { state: TaskState.WORKING } }));
const EVENT = toBinary(
  StreamResponseSchema,
  create(StreamResponseSchema, { payload: { case: "task", value: { id: "t1", contextId: "c1", status: { state: TaskState.COMPLETED } } } }),
);
const NOT_FOUND = Buffer.from(toBinary(StatusSchema, create(StatusSchema, { code: 5, message: "no such task" }))).toString("base64");

/**
 * The fake gRPC-web proxy: a task for GetTask, a completed task then OK for
 * SubscribeToTask, and NOT_FOUND in the headers (trailers-only, with its
 * google.rpc.Status) for CancelTask; what it was sent is checked by the test.
 */
function answerGrpcWeb(req: IncomingMessage, res: ServerResponse): void {
  const headers = { "content-type": "application/grpc-web+proto" };
  if (req.url?.endsWith("/CancelTask")) {
    res.writeHead(200, { ...headers, "grpc-status": "5", "grpc-message": "no%20such%20task", "grpc-status-details-bin": NOT_FOUND });
    res.end();
    return;
  }
  res.writeHead(200, headers);
  res.end(Buffer.concat([frame(req.url?.endsWith("/GetTask") ? TASK : EVENT), trailers("grpc-status: 0\r\n")]));
}

/** The script the app runs: every binding once, a stream, and gRPC-web (argv[3], the fake proxy). */
const CALLS = `
import { A2AClient, connect, textOf, toProtoJson, userMessage, createGrpcWebTransport } from "a2a-connect/node";
const origin = process.argv[2];
const out = {};
for (const binding of ["JSONRPC", "HTTP+JSON", "GRPC"]) {
  const session = await connect(origin, { preferredBindings: [binding], cache: false });
  const result = await session.client.sendMessage({ message: userMessage("echo hi " + binding) });
  out[session.interface.binding] = [textOf(result), toProtoJson(result).message.role];
}
const session = await connect(origin, { cache: false });
const events = [];
for await (const event of session.client.sendStreamingMessage({ message: userMessage("count 2") })) events.push(event.payload.case);
out.stream = events.at(-1);
const web = new A2AClient(createGrpcWebTransport({ baseUrl: process.argv[3] }));
const task = await web.getTask({ id: "t1" }, { timeoutMs: 5000 });
const webEvents = [];
for await (const event of web.subscribeToTask({ id: "t1" }, { resume: false })) webEvents.push(event.payload.case);
const refused = await web.cancelTask({ id: "t1" }).then(() => "succeeded", (e) => [e.name, e.message]);
out.grpcWeb = [task.id, webEvents, refused];
console.log(JSON.stringify(out));
`;

describe.each([
  ["lowest", async (name: string) => lowest(ranges[name]!)],
  ["latest", async (name: string) => latest(name, ranges[name]!)],
])("the packed package with the shared dependencies at their %s allowed versions", (_end, versionOf) => {
  it("installs with one copy of each, at that version, calls the local agent on every binding and gRPC-web through a proxy", async () => {
    const pins = Object.fromEntries(await Promise.all(SHARED.map(async (name) => [name, await versionOf(name)] as const)));
    const app = join(scratch, `app-${_end}`);
    mkdirSync(app);
    writeFileSync(
      join(app, "package.json"),
      JSON.stringify({
        name: `app-${_end}`,
        private: true,
        type: "module",
        dependencies: { "a2a-connect": `file:${pack.tarball}`, ...pins },
      }),
    );
    await npm(["install", "--no-audit", "--no-fund", "--no-package-lock", "--ignore-scripts", "--loglevel=error"], app);

    for (const [name, version] of Object.entries(pins)) {
      const installed = JSON.parse(readFileSync(join(app, "node_modules", name, "package.json"), "utf8")) as { version: string };
      expect(installed.version, name).toBe(version);
      // The app's copy is the package's copy: nothing nested under a2a-connect.
      expect(existsSync(join(app, "node_modules/a2a-connect/node_modules", name)), `${name} deduped`).toBe(false);
    }
    writeFileSync(join(app, "calls.mjs"), CALLS);
    proxy.requests.length = 0;
    const out = JSON.parse(await nodeIn(app, ["calls.mjs", agent.origin, proxy.url])) as Record<string, unknown>;
    expect(out).toEqual({
      JSONRPC: ["hi JSONRPC", "ROLE_AGENT"],
      "HTTP+JSON": ["hi HTTP+JSON", "ROLE_AGENT"],
      GRPC: ["hi GRPC", "ROLE_AGENT"],
      stream: "statusUpdate",
      grpcWeb: ["t1", ["task"], ["TaskNotFoundError", "no such task"]],
    });
    // The gRPC-web requests as sent: gRPC-web's headers, and the call's deadline.
    expect(proxy.requests.map((r) => r.url)).toEqual([
      "/lf.a2a.v1.A2AService/GetTask",
      "/lf.a2a.v1.A2AService/SubscribeToTask",
      "/lf.a2a.v1.A2AService/CancelTask",
    ]);
    for (const { headers } of proxy.requests) {
      expect(headers).toMatchObject({ "content-type": "application/grpc-web+proto", "x-grpc-web": "1" });
    }
    expect(proxy.requests[0]!.headers["grpc-timeout"]).toMatch(/^\d+m$/);
    console.log(
      `tested at the ${_end} versions: ${Object.entries(pins)
        .map(([n, v]) => `${n}@${v}`)
        .join(", ")}`,
    );
  }, 150_000);
});
