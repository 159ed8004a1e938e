/**
 * The package in a module Web Worker, where there is no `window` and no
 * `document`: started by the test page (page.ts) with the agent's origin, it
 * connects (discovery and signature verification), sends, streams, and
 * posts back what happened, or the failure.
 */
import { connect, textOf, userMessage } from "a2a-connect";

addEventListener("message", (ev: MessageEvent<{ agent: string }>) => {
  run(ev.data.agent).then(
    (value) => postMessage({ ok: true, value }),
    (e: unknown) => postMessage({ ok: false, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) }),
  );
});

async function run(agent: string) {
  const session = await connect(agent, { verify: "required", verification: { jku: { allowHttp: true } }, cache: false });
  const reply = await session.client.sendMessage({ message: userMessage("echo from a worker") });
  const events: string[] = [];
  for await (const event of session.client.sendStreamingMessage({ message: userMessage("count 2") })) events.push(event.payload.case ?? "");
  return {
    inWorker: typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope === "function",
    hasWindow: "window" in globalThis,
    hasDocument: "document" in globalThis,
    binding: session.interface?.binding,
    verifiedKid: session.verification?.kid,
    text: textOf(reply),
    events,
  };
}
