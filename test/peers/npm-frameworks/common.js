// Shared plumbing of the npm framework peers (sdk-0.3.js, voltagent.js,
// mastra.js): the command line, the script every peer acts out as far as its
// framework lets it, and the ways a peer is told to stop. Nothing here
// touches a framework; each peer imports only what it needs.

/** `--port P --grpc-port G [--versions ...]`: both ports are required. */
export function parseArgs(argv = process.argv.slice(2)) {
  const args = {};
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (!flag.startsWith("--") || value === undefined) usage(`unexpected argument ${flag}`);
    args[flag.slice(2)] = value;
    i++;
  }
  const port = Number(args.port);
  const grpcPort = Number(args["grpc-port"]);
  if (!Number.isInteger(port) || port <= 0) usage("--port is required");
  if (!Number.isInteger(grpcPort) || grpcPort <= 0) usage("--grpc-port is required");
  return { port, grpcPort, versions: args.versions };
}

function usage(problem) {
  process.stderr.write(`${problem}\nusage: node <peer>.js --port HTTP_PORT --grpc-port GRPC_PORT [--versions 1.0,0.3]\n`);
  process.exit(2);
}

/** The line the harness waits for, written once everything listens. */
export function sayReady() {
  process.stdout.write("ready\n");
}

/**
 * Calls `stop` once on SIGTERM, SIGINT or stdin EOF (a peer whose test
 * process died must not linger), then exits. Open event streams and a model
 * run in progress can hold a graceful close up; the state is all in memory,
 * so past a short grace the process just ends.
 */
export function stopOnSignals(stop, graceMs = 500) {
  let stopping = false;
  const shutdown = (why) => {
    if (stopping) return;
    stopping = true;
    console.error(`stopping (${why})`);
    setTimeout(() => process.exit(0), graceMs).unref();
    Promise.resolve()
      .then(stop)
      .catch((err) => console.error("error while stopping:", err))
      .finally(() => process.exit(0));
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.stdin.on("end", () => shutdown("stdin EOF"));
  process.stdin.on("error", () => shutdown("stdin error"));
  // Reading is what makes "end" fire; the data itself is ignored.
  process.stdin.resume();
}

/**
 * The script, chosen by the first text part of the user message (trimmed):
 *   echo <text>           a direct reply <text>
 *   count [n] [every ms]  chunk-1 .. chunk-n (n defaults to 3), ms apart
 *   hold                  stays live until canceled
 *   input                 asks for more ("need more")
 *   fail                  fails ("failed on purpose")
 *   reject                rejects
 *   anything else         like "count 1"
 */
export function parseCommand(text) {
  const trimmed = (text ?? "").trim();
  const echo = /^echo(?:\s+([\s\S]*))?$/.exec(trimmed);
  if (echo) return { kind: "echo", text: echo[1] ?? "" };
  const count = /^count(?:\s+(\d+))?(?:\s+every\s+(\d+))?$/.exec(trimmed);
  if (count) {
    return { kind: "count", n: count[1] === undefined ? 3 : Number(count[1]), everyMs: Number(count[2] ?? 0) };
  }
  switch (trimmed) {
    case "hold":
    case "input":
    case "fail":
    case "reject":
      return { kind: trimmed };
    default:
      return { kind: "count", n: 1, everyMs: 0 };
  }
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error("aborted"));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason ?? new Error("aborted"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The three skills of the contract, in the 0.3 AgentSkill shape. */
export const SKILLS = [
  {
    id: "echo",
    name: "Echo",
    description: "Replies with the text after `echo`.",
    tags: ["test", "message"],
    examples: ["echo hello"],
  },
  {
    id: "count",
    name: "Count",
    description: "Streams `count [n] [every ms]` as chunk-1 .. chunk-n of one artifact.",
    tags: ["test", "task", "streaming"],
    examples: ["count 3"],
  },
  {
    id: "lifecycle",
    name: "Task lifecycle",
    description: "`hold` waits for cancel; `input`, `fail` and `reject` end in those states.",
    tags: ["test", "task"],
    examples: ["hold", "input", "fail", "reject"],
  },
];

/** Resolves when the signal aborts (never, without one). */
function aborted(signal) {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) return resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/**
 * What a scripted mock model says to the latest user text, as text deltas,
 * for frameworks whose agents only run a model (the model cannot make a task
 * ask for input or be rejected; it can only talk, or fail):
 *   echo <text>           says <text>
 *   count [n] [every ms]  says "chunk-1" .. "chunk-n" as n deltas, ms apart
 *   hold                  says nothing until the call is aborted (a cancel,
 *                         where the framework passes its abort signal on);
 *                         with `holdMs`, `hold [ms]` says "released" after ms
 *                         (default holdMs), for frameworks whose cancel never
 *                         reaches the model
 *   input                 says "need more"
 *   fail, reject          throws before saying anything
 *   anything else         like "count 1"
 */
export async function* modelSays(text, { signal, holdMs } = {}) {
  const trimmed = (text ?? "").trim();
  const hold = /^hold(?:\s+(\d+))?$/.exec(trimmed);
  if (hold) {
    if (holdMs === undefined) {
      await aborted(signal);
      throw signal?.reason ?? new Error("aborted");
    }
    await sleep(Number(hold[1] ?? holdMs), signal);
    yield "released";
    return;
  }
  const command = parseCommand(trimmed);
  switch (command.kind) {
    case "echo":
      yield command.text;
      return;
    case "input":
      yield "need more";
      return;
    case "fail":
      throw new Error("failed on purpose");
    case "reject":
      throw new Error("rejected on purpose");
    case "count":
      for (let i = 1; i <= command.n; i++) {
        if (command.everyMs > 0) await sleep(command.everyMs, signal);
        yield `chunk-${i}`;
      }
      return;
  }
}

/** The first text part of the latest user message of a model prompt. */
function latestUserText(prompt) {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i];
    if (message.role !== "user") continue;
    if (typeof message.content === "string") return message.content;
    const part = message.content.find((p) => p.type === "text");
    if (part) return part.text;
  }
  return "";
}

/**
 * A language model's two calls over `modelSays`, in the AI SDK's provider
 * shape (what VoltAgent and Mastra drive): `doGenerate`, the whole answer at
 * once, and `doStream`, one text-delta part per delta. `finishReason` and
 * `usage(deltas)` are each specification version's own shapes; `holdMs`
 * bounds a `hold` where the framework cannot cancel a run.
 */
export function scriptedModelCalls({ finishReason, usage, holdMs }) {
  return {
    async doGenerate({ prompt, abortSignal }) {
      let text = "";
      let deltas = 0;
      for await (const delta of modelSays(latestUserText(prompt), { signal: abortSignal, holdMs })) {
        text += delta;
        deltas++;
      }
      return { content: [{ type: "text", text }], finishReason, usage: usage(deltas), warnings: [] };
    },
    async doStream({ prompt, abortSignal }) {
      const says = modelSays(latestUserText(prompt), { signal: abortSignal, holdMs });
      // The first delta is awaited here, so a model that throws at once (fail,
      // reject) fails the call itself, as a provider's rejected request would.
      const first = await says.next();
      let deltas = 0;
      const stream = new ReadableStream({
        async start(controller) {
          controller.enqueue({ type: "stream-start", warnings: [] });
          controller.enqueue({ type: "text-start", id: "answer" });
          try {
            for (let step = first; !step.done; step = await says.next()) {
              controller.enqueue({ type: "text-delta", id: "answer", delta: step.value });
              deltas++;
            }
          } catch (err) {
            controller.error(err);
            return;
          }
          controller.enqueue({ type: "text-end", id: "answer" });
          controller.enqueue({ type: "finish", finishReason, usage: usage(deltas) });
          controller.close();
        },
      });
      return { stream };
    },
  };
}
