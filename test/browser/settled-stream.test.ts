/**
 * Streams in Chromium as DevTools sees them: a stream whose task settles
 * and whose agent then ends it is read to that end, so its request is
 * listed as finished, not as failed with net::ERR_ABORTED (the mark of a
 * request closed by the page, however it is closed). A page bundled from
 * the built entry streams from the local agent on another origin, resuming
 * and not; the Chrome DevTools Protocol reports how each request ended.
 *
 * Run with `npm run test:browser` (it builds first). Needs /usr/bin/chromium
 * (`apt-get install chromium`), or CHROMIUM_PATH.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalAgent, type LocalAgent } from "../../demo/agent.js";
import { startFakeServer, type FakeServer } from "../support/fake-server.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ENTRY = join(ROOT, "dist/src/index.js");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** The page: streams `count 2` twice (resuming, then with resume: false) and says when it is done. */
const PAGE = `
import { A2AClient, TaskTracker, createJsonRpcTransport, userMessage } from "a2a-connect";
const rpc = new URLSearchParams(location.search).get("rpc");
const client = new A2AClient(createJsonRpcTransport({ baseUrl: rpc }));
const states = [];
for (const resume of [undefined, false]) {
  const tracker = new TaskTracker();
  for await (const event of client.sendStreamingMessage({ message: userMessage("count 2") }, resume === false ? { resume } : {})) tracker.apply(event);
  states.push(tracker.task?.status?.state);
}
window.__states = states;
`;

let agent: LocalAgent;
let site: FakeServer;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(ENTRY)) throw new Error(`no ${ENTRY}: run npm run build first (npm run test:browser does)`);
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install Debian's chromium or set CHROMIUM_PATH`);
  const bundled = await build({
    stdin: { contents: PAGE, resolveDir: ROOT, loader: "js" },
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    alias: { "a2a-connect": ENTRY },
    logLevel: "silent",
  });
  const js = bundled.outputFiles[0]!.text;
  agent = await startLocalAgent({ cors: true });
  site = await startFakeServer((req, res) => {
    if (req.url === "/page.js") return res.writeHead(200, { "content-type": "text/javascript" }).end(js);
    res
      .writeHead(200, { "content-type": "text/html" })
      .end(`<!doctype html><link rel="icon" href="data:,"><script type="module" src="/page.js"></script>`);
  });
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([site?.close(), agent?.close()]);
});

describe("a settled stream in Chromium", () => {
  it("is listed as finished, not failed, once the agent has ended it", async () => {
    const page = await browser.newPage();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    const posts = new Set<string>();
    const ended = new Map<string, string>();
    cdp.on("Network.requestWillBeSent", (e) => {
      if (e.request.method === "POST") posts.add(e.requestId);
    });
    cdp.on("Network.loadingFinished", (e) => ended.set(e.requestId, "finished"));
    cdp.on("Network.loadingFailed", (e) => ended.set(e.requestId, `failed: ${e.errorText}`));
    await page.goto(`${site.url}/?rpc=${encodeURIComponent(agent.jsonRpcUrl)}`);
    await page.waitForFunction(() => (window as { __states?: unknown }).__states !== undefined, null, { timeout: 15_000 });
    // COMPLETED, both times.
    expect(await page.evaluate(() => (window as { __states?: unknown }).__states)).toEqual([3, 3]);
    expect(posts.size).toBe(2);
    await expect.poll(() => [...posts].map((id) => ended.get(id))).toEqual(["finished", "finished"]);
  });
});
