/**
 * The package in a real browser: test/browser/page.ts is bundled with
 * esbuild from the built entry (dist/src/index.js, as a bundler would take
 * the published package), served from 127.0.0.1 on its own port, and run
 * in Debian's Chromium (driven by playwright-core) against the official
 * server with CORS on, so every call is cross-origin. The page records what
 * happened; each check below reads one record. A screenshot of the page is
 * kept in test-results/browser/page.png.
 *
 * Run with `npm run test:browser` (it builds first). Needs /usr/bin/chromium
 * (`apt-get install chromium`), or CHROMIUM_PATH.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";
import { chromium, type BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalAgent, type LocalAgent } from "../../demo/agent.js";
import { startChaosProxy, type ChaosProxy } from "../../demo/chaos-proxy.js";
import { cardJson } from "../support/cards.js";
import { startFakeServer, type FakeServer } from "../support/fake-server.js";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
const ENTRY = join(ROOT, "dist/src/index.js");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SCREENSHOT = join(ROOT, "test-results/browser/page.png");
/** playwright-core adds `--headless` itself, and `--user-data-dir` for the fresh profile it is given. */
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
/**
 * Server bytes a proxied connection may carry before it is cut, until the
 * first cut. A streamed `count 8` is about 3.3 KB (headers, task, WORKING,
 * eight chunks, COMPLETED); a preflight answer about 430 bytes. 1600 cuts
 * after the task event, before COMPLETED, whether or not the preflight
 * shares the stream's connection; shorter exchanges never reach it. The cut
 * is a clean end in mid-body, not a reset: a reset can discard bytes that
 * reached the browser's socket but were not read yet, so where the stream
 * really stops would vary.
 */
const CUT_AFTER = 1600;

interface PageRecord<T = any> {
  ok: boolean;
  value: T;
  error?: string;
}

let agent: LocalAgent;
let proxy: ChaosProxy;
let site: FakeServer;
/** Another origin, which a card request is redirected to; it allows any request header, as a hostile one would. */
let elsewhere: FakeServer;
let browser: BrowserContext | undefined;
let work: string;
/** The page's bundle and the worker's, as served. */
let bundle: string | undefined;
let inputs: string[] = [];
let results: { [name: string]: unknown };
let nodeGlobals: string[];
const pageLog: string[] = [];

/** Why the page could not be run; every check then fails with it (rather than being skipped). */
let setupError: unknown;

beforeAll(async () => {
  let timer: NodeJS.Timeout | undefined;
  const tooLong = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("setting up the browser run took over 25 s")), 25_000);
  });
  try {
    await Promise.race([setUp(), tooLong]);
  } catch (e) {
    setupError = e;
  } finally {
    clearTimeout(timer);
  }
}, 30_000);

async function setUp(): Promise<void> {
  if (!existsSync(ENTRY)) throw new Error(`no ${ENTRY}: run npm run build first (npm run test:browser does)`);

  work = await mkdtemp(join(tmpdir(), "a2a-browser-"));
  const built = await build({
    absWorkingDir: ROOT,
    entryPoints: { page: join(ROOT, "test/browser/page.ts"), worker: join(ROOT, "test/browser/worker.ts") },
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    // The package by name, resolved to its build as an installed copy would be.
    alias: { "a2a-connect": ENTRY },
    outdir: work,
    metafile: true,
    logLevel: "silent",
  });
  inputs = Object.keys((built.metafile as Metafile).inputs);
  const pageJs = await readFile(join(work, "page.js"), "utf8");
  const workerJs = await readFile(join(work, "worker.js"), "utf8");
  bundle = `${pageJs}\n${workerJs}`;
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>a2a-connect in the browser</title><link rel="icon" href="data:,">
<style>body{font:14px system-ui;margin:1em}li{margin:.3em 0;word-break:break-all}.failed{color:#b00}</style></head>
<body><h1>a2a-connect: <span id="status">running</span></h1><ul id="results"></ul>
<script type="module" src="./page.js"></script></body></html>`;
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`);
  }
  const files: { [path: string]: [string, string] } = {
    "/": [html, "text/html; charset=utf-8"],
    "/page.js": [pageJs, "text/javascript; charset=utf-8"],
    "/worker.js": [workerJs, "text/javascript; charset=utf-8"],
  };

  agent = await startLocalAgent({ cors: true });
  proxy = await startChaosProxy(Number(new URL(agent.origin).port));
  proxy.plan = () => (proxy.faults === 0 ? { cutAfter: CUT_AFTER, fault: "end" } : {});
  elsewhere = await startFakeServer((req, res) => {
    res.setHeader("Access-Control-Allow-Origin", req.headers.origin ?? "*");
    // Under /strict/, the preflight allows the page's origin but none of the headers it asks for.
    if (req.method === "OPTIONS" && req.url?.startsWith("/strict/")) return res.writeHead(204).end();
    if (req.method === "OPTIONS") {
      res.writeHead(204, { "Access-Control-Allow-Headers": req.headers["access-control-request-headers"] ?? "" });
      return res.end();
    }
    res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(cardJson({ name: "Elsewhere" })));
  });
  site = await startFakeServer((req, res) => {
    if (req.url?.startsWith("/moved/")) return res.writeHead(307, { Location: `${agent.origin}/landed` }).end();
    if (req.url?.startsWith("/moved-card/")) return res.writeHead(302, { Location: `${elsewhere.url}/card.json` }).end();
    if (req.url?.startsWith("/moved-limited/")) return res.writeHead(302, { Location: `${elsewhere.url}/limited.json` }).end();
    const file = files[new URL(req.url ?? "/", "http://x").pathname];
    if (!file) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": file[1], "cache-control": "no-store" }).end(file[0]);
  });

  const profile = join(work, "profile");
  browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS });
  const page = browser.pages()[0] ?? (await browser.newPage());
  page.on("console", (m) => pageLog.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => pageLog.push(`pageerror: ${e.message}`));
  const query = new URLSearchParams({ agent: agent.origin, proxy: `http://127.0.0.1:${proxy.port}`, elsewhere: elsewhere.url });
  try {
    await page.goto(`${site.url}/?${query}`);
    await page.waitForFunction(() => window.__done === true, null, { timeout: 20_000 });
  } catch (e) {
    throw new Error(`the page did not finish: ${String(e)}\npage log:\n${pageLog.join("\n")}`);
  } finally {
    await mkdir(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true }).catch(() => {});
  }
  results = await page.evaluate(() => window.__results);
  nodeGlobals = await page.evaluate(() => ["Buffer", "process", "require", "global"].filter((name) => name in globalThis));
}

afterAll(async () => {
  await browser?.close();
  await Promise.all([site?.close(), elsewhere?.close(), proxy?.close(), agent?.close()]);
  if (work) await rm(work, { recursive: true, force: true });
});

function ready(): void {
  if (setupError !== undefined) throw setupError;
}

/** One record of the page, which must have succeeded. */
function record<T = any>(name: string): T {
  ready();
  expect(results, `page log:\n${pageLog.join("\n")}`).not.toHaveProperty("fatal");
  const r = results[name] as PageRecord<T> | undefined;
  expect(r, `the page recorded no "${name}"`).toBeDefined();
  expect(r!.error, `"${name}" failed in the page`).toBeUndefined();
  expect(r!.ok).toBe(true);
  return r!.value;
}

describe("the bundle", () => {
  it("is built from the package's built entry", () => {
    if (bundle === undefined) ready();
    expect(inputs).toContain("dist/src/index.js");
    expect(inputs.filter((p) => p.startsWith("src/"))).toEqual([]);
  });

  it("has no node: import and no reference to Buffer", () => {
    if (bundle === undefined) ready();
    expect(inputs.filter((p) => p.startsWith("node:"))).toEqual([]);
    expect(bundle).not.toMatch(/["']node:/);
    expect(bundle).not.toMatch(/\bBuffer\b/);
  });
});

describe("in Chromium", () => {
  it("calls the agent cross-origin, without Node globals", () => {
    ready();
    const env = results.environment as { pageOrigin: string; agentOrigin: string };
    expect(env.pageOrigin).toBe(site.url);
    expect(env.agentOrigin).toBe(agent.origin);
    expect(env.agentOrigin).not.toBe(env.pageOrigin);
    expect(nodeGlobals).toEqual([]);
  });

  it("discovers the card and verifies its signature", () => {
    const v = record("discovery");
    expect(v.name).toBe("a2a-connect local agent");
    expect(v.url).toBe(agent.cardUrl);
    expect(v.signatures).toBeGreaterThan(0);
    expect(v.verifiedKid).toBe(agent.signingKid);
  });

  it("connects over JSON-RPC or HTTP+JSON and passes gRPC over, saying why", () => {
    const v = record("connect");
    expect(["JSONRPC", "HTTP+JSON"]).toContain(v.binding);
    expect(v.verifiedKid).toBe(agent.signingKid);
    expect(v.candidates).not.toContain("GRPC");
    expect(v.passedOver).toEqual([{ binding: "GRPC", reason: expect.stringMatching(/grpc/i) }]);
  });

  it("sends a raw-bytes file part and gets the same bytes back", () => {
    const v = record("raw bytes");
    expect(v.state).toBe("COMPLETED");
    expect(v.isUint8Array).toBe(true);
    expect(v.received).toEqual(v.sent);
    expect(v.sent).toHaveLength(256);
    expect(v.mediaType).toBe("application/octet-stream");
    expect(v.filename).toBe("bytes.bin");
  });

  it("streams through a cut connection, resumes, and ends with the server's task", () => {
    const v = record("stream resumed");
    expect(proxy.faults).toBe(1);
    expect(v.snapshots).toBeGreaterThanOrEqual(1);
    expect(v.events[0]).toBe("task");
    expect(v.events.filter((e: string) => e.endsWith("(resume snapshot)")).length).toBe(v.snapshots);
    expect(v.tracked.state).toBe("COMPLETED");
    expect(v.tracked.artifacts).toEqual(v.server.artifacts);
    expect(v.tracked.text).toBe(Array.from({ length: 8 }, (_, i) => `chunk-${i + 1}`).join(""));
    expect(v.server.state).toBe("COMPLETED");
  });

  it("lists the streamed task", () => {
    const v = record("list tasks");
    expect(v.ids).toContain(v.streamedId);
  });

  it("refuses the opaque redirect of a call: RedirectRefusedError, nothing followed", () => {
    const v = record("redirect refused");
    expect(v).toMatchObject({ thrown: true, isRedirectRefusedError: true, name: "RedirectRefusedError" });
    expect(v.message).toContain(site.url);
    expect(site.requests.filter((r) => r.url === "/moved/rpc")).toHaveLength(1);
  });

  it("follows a card's redirect to another origin without the page's headers: the other origin gets no API key", () => {
    const v = record("card redirected elsewhere");
    expect(v).toEqual({ name: "Elsewhere", url: `${elsewhere.url}/card.json` });
    const got = elsewhere.requests.filter((r) => r.method === "GET" && r.url === "/card.json");
    expect(got).toHaveLength(1);
    expect(got[0]!.headers["x-api-key"]).toBeUndefined();
    expect(got[0]!.headers.authorization).toBeUndefined();
  });

  it("maxRedirects 0 refuses a card's hidden (opaque) redirect before the browser follows it", () => {
    const v = record("card redirect refused by maxRedirects 0");
    expect(v).toMatchObject({ thrown: true, isRedirectRefusedError: true });
    expect(v.message).toContain(`${site.url}/moved-limited/card.json`);
    expect(site.requests.filter((r) => r.url === "/moved-limited/card.json")).toHaveLength(1);
    expect(elsewhere.requests.filter((r) => r.url === "/limited.json")).toEqual([]);
  });

  it("refuses an API key in a cookie, which the browser would drop: AuthenticationError saying so", () => {
    const v = record("cookie key refused");
    expect(v).toMatchObject({ thrown: true, isAuthenticationError: true });
    expect(v.message).toMatch(/does not let a page set the Cookie header/);
  });

  it("a call that the agent's CORS rules refuse is a ConnectionError that names the page's origin and CORS; nothing but the preflight reached the agent", () => {
    const v = record("cors refused");
    expect(v).toMatchObject({ thrown: true, isConnectionError: true, kind: "network" });
    expect(v.message).toContain(`${elsewhere.url}/strict/rpc`);
    expect(v.message).toContain(
      `from a page on ${site.url}, this is also how a browser reports a request that the CORS rules of ${elsewhere.url} refuse`,
    );
    expect(elsewhere.requests.filter((r) => r.url.startsWith("/strict/")).map((r) => r.method)).toEqual(["OPTIONS"]);
  });

  it("runs in a module Web Worker, without window or document: connects, verifies, sends and streams", () => {
    const v = record("web worker");
    expect(v).toMatchObject({ inWorker: true, hasWindow: false, hasDocument: false, verifiedKid: agent.signingKid, text: "from a worker" });
    expect(["JSONRPC", "HTTP+JSON"]).toContain(v.binding);
    expect(v.events[0]).toBe("task");
    expect(v.events.length).toBeGreaterThan(1);
  });

  it("throws typed errors: TaskNotFoundError is an instanceof in the page", () => {
    const v = record("typed error");
    expect(v).toMatchObject({ thrown: true, isTaskNotFoundError: true, isA2AError: true, name: "TaskNotFoundError" });
  });
});
