/**
 * The browser test page: bundled from the package's built entry and run in
 * Chromium by browser.test.ts. It talks to a local agent on another origin
 * (so every call is a CORS request), records what happened as plain JSON in
 * `window.__results`, lists it on the page, and sets `window.__done`.
 *
 * Query parameters: `agent` (the agent's origin) and `proxy` (the origin of
 * a chaos proxy in front of the agent's HTTP port, which cuts the first
 * stream).
 */
import {
  A2AClient,
  A2AError,
  AuthenticationError,
  ConnectionError,
  RedirectRefusedError,
  TaskNotFoundError,
  TaskState,
  TaskTracker,
  apiKeyAuth,
  connect,
  createJsonRpcTransport,
  createRestTransport,
  fileBytes,
  isResumeSnapshot,
  resolveAgentCard,
  text,
  textOf,
  userMessage,
  type Artifact,
  type ConnectOptions,
  type Task,
} from "a2a-connect";

declare global {
  interface Window {
    __results: Record<string, unknown>;
    __done: boolean;
  }
}

const params = new URLSearchParams(location.search);
const agent = params.get("agent") ?? "";
const proxy = params.get("proxy") ?? "";
const elsewhere = params.get("elsewhere") ?? "";

const trust: ConnectOptions = { verify: "required", verification: { jku: { allowHttp: true } }, cache: false };

const results: Record<string, unknown> = {};
window.__results = results;
window.__done = false;

const list = document.getElementById("results")!;

/** Runs one check; its value (or its failure) goes into the results. */
async function step(name: string, run: () => Promise<unknown>): Promise<void> {
  const item = document.createElement("li");
  item.textContent = `${name}: running`;
  list.append(item);
  try {
    const value = await run();
    results[name] = { ok: true, value };
    item.textContent = `${name}: ok ${JSON.stringify(value, (_key, v: unknown) => (Array.isArray(v) && v.length > 12 ? `[${v.length} items]` : v))}`;
  } catch (e) {
    results[name] = { ok: false, error: describe(e) };
    item.textContent = `${name}: FAILED ${describe(e)}`;
    item.className = "failed";
  }
}

function describe(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}${e.cause ? ` (cause: ${describe(e.cause)})` : ""}`;
  return String(e);
}

const artifacts = (task: Task | undefined) =>
  (task?.artifacts ?? []).map((a: Artifact) => ({
    artifactId: a.artifactId,
    parts: a.parts.map((p) => (p.content.case === "text" ? p.content.value : p.content.case)),
  }));

async function main(): Promise<void> {
  results.environment = { pageOrigin: location.origin, agentOrigin: new URL(agent).origin };

  await step("discovery", async () => {
    const resolved = await resolveAgentCard(agent, trust);
    return {
      name: resolved.card.name,
      url: resolved.url,
      signatures: resolved.card.signatures.length,
      verifiedKid: resolved.verification?.kid,
    };
  });

  const session = await connect(agent, trust);
  const client = session.client;

  await step("connect", async () => ({
    binding: session.interface?.binding,
    url: session.interface?.interface.url,
    verifiedKid: session.verification?.kid,
    candidates: session.candidates.map((c) => c.binding),
    passedOver: session.passedOver.map((p) => ({ binding: p.binding, reason: p.reason })),
  }));

  await step("raw bytes", async () => {
    // Every byte value, so a lossy text or base64 step would show.
    const sent = new Uint8Array(256).map((_, i) => (i * 7 + 3) % 256);
    const res = await client.sendMessage({
      message: userMessage([text("count 1"), fileBytes(sent, { mediaType: "application/octet-stream", filename: "bytes.bin" })]),
    });
    if (res.payload.case !== "task") throw new Error(`expected a task, got ${res.payload.case}`);
    const task = await client.getTask({ id: res.payload.value.id });
    const part = task.history.flatMap((m) => m.parts).find((p) => p.content.case === "raw");
    if (part?.content.case !== "raw") throw new Error("the stored message has no raw part");
    return {
      state: TaskState[task.status?.state ?? TaskState.UNSPECIFIED],
      isUint8Array: part.content.value instanceof Uint8Array,
      sent: Array.from(sent),
      received: Array.from(part.content.value),
      mediaType: part.mediaType,
      filename: part.filename,
    };
  });

  let streamed: Task | undefined;
  await step("stream resumed", async () => {
    // The same binding and path as the session's interface, through the proxy.
    const binding = session.interface!.binding;
    const baseUrl = proxy + new URL(session.interface!.interface.url).pathname;
    const transport = binding === "JSONRPC" ? createJsonRpcTransport({ baseUrl }) : createRestTransport({ baseUrl });
    const viaProxy = new A2AClient(transport);
    const tracker = new TaskTracker();
    const events: string[] = [];
    let snapshots = 0;
    for await (const event of viaProxy.sendStreamingMessage(
      { message: userMessage("count 8 every 20") },
      { resume: { backoff: { initialMs: 20, maxMs: 200 } } },
    )) {
      const snapshot = isResumeSnapshot(event);
      if (snapshot) snapshots++;
      events.push(event.payload.case + (snapshot ? " (resume snapshot)" : ""));
      tracker.apply(event);
    }
    streamed = tracker.task;
    const server = await client.getTask({ id: tracker.task!.id });
    return {
      binding,
      events,
      snapshots,
      tracked: {
        state: TaskState[tracker.task?.status?.state ?? TaskState.UNSPECIFIED],
        artifacts: artifacts(tracker.task),
        text: textOf(tracker.task!),
      },
      server: { state: TaskState[server.status?.state ?? TaskState.UNSPECIFIED], artifacts: artifacts(server), text: textOf(server) },
    };
  });

  await step("list tasks", async () => {
    if (!streamed) throw new Error("no streamed task to look for");
    const page = await client.listTasks({ contextId: streamed.contextId });
    return { ids: page.tasks.map((t) => t.id), streamedId: streamed.id };
  });

  await step("redirect refused", async () => {
    // The page's own server answers 307: fetch with redirect "manual" gives
    // an opaque redirect, whose target the page cannot check.
    const moved = new A2AClient(createJsonRpcTransport({ baseUrl: `${location.origin}/moved/rpc` }));
    try {
      await moved.sendMessage({ message: userMessage("hi") });
      return { thrown: false };
    } catch (e) {
      return {
        thrown: true,
        isRedirectRefusedError: e instanceof RedirectRefusedError,
        name: e instanceof Error ? e.name : typeof e,
        message: String((e as Error).message),
      };
    }
  });

  await step("card redirected elsewhere", async () => {
    // The page's own server redirects the card request to another origin:
    // the browser hides where, so the API key must not go along.
    const resolved = await resolveAgentCard(`${location.origin}/moved-card/card.json`, {
      headers: { "X-Api-Key": "page-key" },
      cache: false,
    });
    if (new URL(resolved.url).origin !== new URL(elsewhere).origin) throw new Error(`resolved at ${resolved.url}`);
    return { name: resolved.card.name, url: resolved.url };
  });

  await step("card redirect refused by maxRedirects 0", async () => {
    // The same hidden redirect, under a limit of no redirects: refused before the browser follows it.
    try {
      await resolveAgentCard(`${location.origin}/moved-limited/card.json`, { maxRedirects: 0, cache: false });
      return { thrown: false };
    } catch (e) {
      return { thrown: true, isRedirectRefusedError: e instanceof RedirectRefusedError, message: String((e as Error).message) };
    }
  });

  await step("cookie key refused", async () => {
    // A browser drops a Cookie header a page sets: the key would silently go nowhere.
    const keyed = new A2AClient(
      createJsonRpcTransport({
        baseUrl: session.interface!.interface.url,
        interceptors: [apiKeyAuth({ location: "cookie", name: "session", value: "page-cookie-key" })],
      }),
    );
    try {
      await keyed.getTask({ id: "no-such-task" });
      return { thrown: false };
    } catch (e) {
      return { thrown: true, isAuthenticationError: e instanceof AuthenticationError, message: String((e as Error).message) };
    }
  });

  await step("cors refused", async () => {
    // Another origin whose CORS rules allow the page but not A2A-Version:
    // Chromium refuses the call after the preflight, and fetch says no more
    // than for a network failure.
    const strict = new A2AClient(createJsonRpcTransport({ baseUrl: `${elsewhere}/strict/rpc` }));
    try {
      await strict.getTask({ id: "t1" });
      return { thrown: false };
    } catch (e) {
      return {
        thrown: true,
        isConnectionError: e instanceof ConnectionError,
        kind: e instanceof ConnectionError ? e.kind : undefined,
        message: String((e as Error).message),
      };
    }
  });

  await step("web worker", () => {
    const worker = new Worker("./worker.js", { type: "module" });
    return new Promise((resolve, reject) => {
      worker.onmessage = (ev: MessageEvent<{ ok: boolean; value?: unknown; error?: string }>) =>
        ev.data.ok ? resolve(ev.data.value) : reject(new Error(ev.data.error));
      worker.onerror = (ev) => reject(new Error(`the worker failed: ${ev.message}`));
      worker.postMessage({ agent });
    }).finally(() => worker.terminate());
  });

  await step("typed error", async () => {
    try {
      await client.getTask({ id: "no-such-task" });
      return { thrown: false };
    } catch (e) {
      return {
        thrown: true,
        isTaskNotFoundError: e instanceof TaskNotFoundError,
        isA2AError: e instanceof A2AError,
        name: e instanceof Error ? e.name : typeof e,
        binding: e instanceof A2AError ? e.binding : undefined,
      };
    }
  });
}

main()
  .catch((e: unknown) => {
    results.fatal = describe(e);
    const item = document.createElement("li");
    item.textContent = `FAILED ${describe(e)}`;
    item.className = "failed";
    list.append(item);
  })
  .finally(() => {
    document.getElementById("status")!.textContent = "done";
    window.__done = true;
  });
