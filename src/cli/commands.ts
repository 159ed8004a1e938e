/** The commands of `a2a`: each connects, calls, and prints through Output. */
import { readFile } from "node:fs/promises";
import { basename, extname } from "node:path";
import { addAbortSignal, type Readable } from "node:stream";
import { toJson, type JsonValue } from "@bufbuild/protobuf";
import {
  AgentCardSchema,
  ListTaskPushNotificationConfigsResponseSchema,
  ListTasksResponseSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
  type Part,
  type StreamResponse,
  type TaskPushNotificationConfig,
} from "../../gen/lf/a2a/v1/a2a_pb.js";
// The CLI runs in Node: gRPC over HTTP/2 and the node:http client for `connect`.
import "../node-runtime.js";
import { connect, type ConnectOptions } from "../client/connect.js";
import type { AgentSession } from "../client/session.js";
import { TaskTracker } from "../client/tracker.js";
import { isResumeSnapshot } from "../client/task-events.js";
import { resolveAgentCard } from "../discovery/resolve.js";
import { data, fileBytes, text, userMessage } from "../protocol/messages.js";
import { UsageError, intOption, type CommandName, type GlobalFlags } from "./args.js";
import { describeEvent, paintState, partsText, printCard, printMessage, printPushConfig, printTask } from "./format.js";
import type { Output } from "./output.js";
import { waitedTask } from "./wait.js";

/** What a command runs with: the parsed command line, the output, and the signal of Ctrl-C. */
export interface CommandContext {
  /** The command being run. */
  command: CommandName;
  /** Its positionals, by name. */
  args: Record<string, string>;
  /** Its own options. */
  options: Record<string, string | boolean | string[] | undefined>;
  /** The global flags. */
  flags: GlobalFlags;
  /** Where results and messages go. */
  out: Output;
  /** Fires on Ctrl-C; every call is given it. */
  signal: AbortSignal;
  /** Where the message text `-` is read from. */
  stdin: Readable;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Key sets over http are accepted only from an agent on this machine. */
function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return LOOPBACK.has(host) || host.startsWith("127.") || host.endsWith(".localhost");
}

function connectOptions(ctx: CommandContext): ConnectOptions {
  const { flags, args, signal } = ctx;
  return {
    preferredBindings: flags.binding ? [flags.binding] : undefined,
    protocolVersions: flags.versions,
    // The flag lists versions most preferred first.
    preferredVersions: flags.versions,
    headers: flags.headers,
    signal,
    timeoutMs: flags.timeoutMs,
    verification: { jku: { allowHttp: isLoopback(args.url!) } },
    transport: { headers: flags.headers, timeoutMs: flags.timeoutMs },
  };
}

async function open(ctx: CommandContext): Promise<AgentSession> {
  const session = await connect(ctx.args.url!, connectOptions(ctx));
  const chosen = session.interface;
  // A diagnostic, on stderr: stdout carries only the result, for pipes.
  if (!ctx.out.json && chosen) ctx.out.error(`via ${chosen.binding} ${chosen.version} ${chosen.interface.url}`);
  return session;
}

/** `a2a card`: the agent's card, verified on request. */
export async function card(ctx: CommandContext): Promise<void> {
  const { out, args, options } = ctx;
  const verify = options.verify === true;
  let keys: { keys: [] } | undefined;
  if (typeof options.jwks === "string") {
    if (!verify) throw new UsageError("--jwks needs --verify", ctx.command);
    keys = await readJwks(options.jwks, ctx.command);
  }
  const resolved = await resolveAgentCard(args.url!, {
    headers: ctx.flags.headers,
    signal: ctx.signal,
    timeoutMs: ctx.flags.timeoutMs,
    cache: false,
    verify: verify ? "required" : "off",
    // Keys given on the command line are pinned: the card's jku is not consulted.
    verification: keys ? { keys } : { jku: { allowHttp: isLoopback(args.url!) } },
  });
  if (out.json) {
    out.jsonLine(toJson(AgentCardSchema, resolved.card), true);
    return;
  }
  printCard(out, resolved.card, resolved, resolved.verification);
}

async function readJwks(path: string, command: string): Promise<{ keys: [] }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, "utf8"));
  } catch (e) {
    throw new UsageError(`--jwks: cannot read a JSON file at ${path} (${(e as Error).message})`, command);
  }
  if (typeof parsed !== "object" || parsed === null || !Array.isArray((parsed as { keys?: unknown }).keys)) {
    throw new UsageError(`--jwks: ${path} is not a JWK Set ({"keys": [...]})`, command);
  }
  return parsed as { keys: [] };
}

const MEDIA_TYPES: Record<string, string> = {
  ".txt": "text/plain",
  ".md": "text/markdown",
  ".csv": "text/csv",
  ".html": "text/html",
  ".json": "application/json",
  ".pdf": "application/pdf",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".svg": "image/svg+xml",
};

/** The text argument, or with `-` all of stdin, less one final newline (as `echo` and here-docs add it). */
async function messageText(ctx: CommandContext): Promise<string> {
  const arg = ctx.args.text!;
  if (arg !== "-") return arg;
  // Bound by Ctrl-C (a terminal's stdin ends only with Ctrl-D): the signal
  // destroys the stream, as toArray's own signal is checked per chunk only.
  const chunks: unknown[] = await addAbortSignal(ctx.signal, ctx.stdin).toArray();
  // Joined as bytes before decoding: a character may be split across chunks.
  const bytes = Buffer.concat(chunks.map((c) => (typeof c === "string" ? Buffer.from(c) : (c as Uint8Array))));
  return bytes.toString("utf8").replace(/\r?\n$/, "");
}

async function messageParts(ctx: CommandContext): Promise<Part[]> {
  const parts: Part[] = [text(await messageText(ctx))];
  for (const path of (ctx.options.file as string[] | undefined) ?? []) {
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await readFile(path));
    } catch (e) {
      throw new UsageError(`--file: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, ctx.command);
    }
    const mediaType = MEDIA_TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
    parts.push(fileBytes(bytes, { filename: basename(path), mediaType }));
  }
  for (const json of (ctx.options.data as string[] | undefined) ?? []) {
    let value: JsonValue;
    try {
      value = JSON.parse(json) as JsonValue;
    } catch {
      throw new UsageError(`--data takes a JSON value, e.g. --data '{"k": 1}'`, ctx.command);
    }
    parts.push(data(value));
  }
  return parts;
}

async function message(ctx: CommandContext) {
  const parts = await messageParts(ctx);
  const taskId = ctx.options.task as string | undefined;
  const contextId = ctx.options.context as string | undefined;
  return userMessage(parts, { ...(taskId ? { taskId } : {}), ...(contextId ? { contextId } : {}) });
}

/** `a2a send`: one message, and the task or message it gets. */
export async function send(ctx: CommandContext): Promise<void> {
  const msg = await message(ctx);
  const session = await open(ctx);
  const res = await session.client.sendMessage(
    { message: msg, ...(ctx.options["no-wait"] ? { configuration: { returnImmediately: true } } : {}) },
    { signal: ctx.signal },
  );
  const { out } = ctx;
  if (out.json) return out.jsonLine(toJson(SendMessageResponseSchema, res), true);
  if (res.payload.case === "task") printTask(out, res.payload.value);
  else if (res.payload.case === "message") printMessage(out, res.payload.value);
  else out.line(out.dim("(empty response)"));
}

/** `a2a stream`: one message, and its task's events as they arrive. */
export async function stream(ctx: CommandContext): Promise<void> {
  const msg = await message(ctx);
  const session = await open(ctx);
  await follow(ctx, session.client.sendStreamingMessage({ message: msg }, { signal: ctx.signal }));
}

/** `a2a task subscribe`: a running task's events as they arrive. */
export async function taskSubscribe(ctx: CommandContext): Promise<void> {
  const session = await open(ctx);
  await follow(ctx, session.client.subscribeToTask({ id: ctx.args.id! }, { signal: ctx.signal }));
}

/** Prints a (resuming) stream's events as they arrive, then where the task ended. */
async function follow(ctx: CommandContext, events: AsyncIterable<StreamResponse>): Promise<void> {
  const { out } = ctx;
  const tracker = new TaskTracker();
  const started = Date.now();
  let direct: StreamResponse | undefined;
  for await (const event of events) {
    if (out.json) {
      out.jsonLine(toJson(StreamResponseSchema, event));
      continue;
    }
    if (isResumeSnapshot(event)) out.line(out.yellow("-- connection lost; resumed (GetTask, SubscribeToTask) --"));
    if (event.payload.case === "message" && !event.payload.value.taskId) direct = event;
    else tracker.apply(event);
    out.line(`${out.dim(`+${String(Date.now() - started).padStart(5)}ms`)} ${describeEvent(out, event)}`);
  }
  if (out.json) return;
  const task = tracker.task;
  if (task) {
    const artifacts = task.artifacts
      .map((a) => partsText(a.parts))
      .filter(Boolean)
      .join(" | ");
    out.line(`${out.bold("task")} ${task.id} ${paintState(out, task.status?.state)}${artifacts ? `: ${artifacts}` : ""}`);
  } else if (direct?.payload.case === "message") {
    out.line(`${out.bold("message")} ${partsText(direct.payload.value.parts)}`);
  }
}

/** `a2a task get`: one task; with `--wait`, once it has reached a final or interrupted state. */
export async function taskGet(ctx: CommandContext): Promise<void> {
  const historyLength = intOption(ctx.options.history, "history", ctx.command);
  const session = await open(ctx);
  const { signal, out } = ctx;
  const task = ctx.options.wait
    ? await waitedTask(session.client, ctx.args.id!, out, { signal, timeoutMs: ctx.flags.timeoutMs, historyLength })
    : await session.client.getTask({ id: ctx.args.id!, historyLength }, { signal });
  if (out.json) return out.jsonLine(toJson(TaskSchema, task), true);
  printTask(out, task, { history: historyLength !== undefined });
}

/** `a2a task list`: one page of tasks. */
export async function taskList(ctx: CommandContext): Promise<void> {
  const { options, command, out } = ctx;
  const pageSize = intOption(options["page-size"], "page-size", command, 1);
  if (pageSize !== undefined && pageSize > 100) throw new UsageError("--page-size takes 1..100", command);
  const historyLength = intOption(options.history, "history", command);
  const session = await open(ctx);
  const res = await session.client.listTasks(
    {
      contextId: options.context as string | undefined,
      pageSize,
      pageToken: options["page-token"] as string | undefined,
      historyLength,
    },
    { signal: ctx.signal },
  );
  if (out.json) return out.jsonLine(toJson(ListTasksResponseSchema, res), true);
  if (res.tasks.length === 0) out.line(out.dim("no tasks"));
  for (const t of res.tasks) {
    const summary = partsText(t.artifacts.flatMap((a) => a.parts));
    out.line(
      `${t.id}  ${paintState(out, t.status?.state, 14)}  ${out.dim(`context ${t.contextId}`)}${summary ? `  ${truncate(summary, 60)}` : ""}`,
    );
  }
  if (res.nextPageToken) out.line(out.dim(`next page: --page-token ${res.nextPageToken}`));
}

function truncate(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

/** `a2a task cancel`: cancels a task and prints it. */
export async function taskCancel(ctx: CommandContext): Promise<void> {
  const session = await open(ctx);
  const task = await session.client.cancelTask({ id: ctx.args.id! }, { signal: ctx.signal });
  if (ctx.out.json) return ctx.out.jsonLine(toJson(TaskSchema, task), true);
  printTask(ctx.out, task);
}

/** ProtoJSON of a push config with its token masked. */
function pushJson(config: TaskPushNotificationConfig): unknown {
  const json = toJson(TaskPushNotificationConfigSchema, config) as Record<string, unknown>;
  if (json.token) json.token = "***";
  if (json.authentication && typeof json.authentication === "object") {
    const auth = json.authentication as Record<string, unknown>;
    if (auth.credentials) auth.credentials = "***";
  }
  return json;
}

/** `a2a push create`: registers a webhook for a task. */
export async function pushCreate(ctx: CommandContext): Promise<void> {
  const { options, args, out } = ctx;
  const url = options["push-url"];
  if (typeof url !== "string") throw new UsageError("--push-url is required", ctx.command);
  try {
    new URL(url);
  } catch {
    throw new UsageError("--push-url must be an absolute URL", ctx.command);
  }
  const token = options["push-token"] as string | undefined;
  if (token) out.addSecrets([token]);
  const session = await open(ctx);
  const created = await session.client.createTaskPushNotificationConfig(
    { taskId: args.taskId!, url, ...(token ? { token } : {}), ...(args.configId ? { id: args.configId } : {}) },
    { signal: ctx.signal },
  );
  if (out.json) return out.jsonLine(pushJson(created), true);
  printPushConfig(out, created);
}

/** `a2a push get`: one of a task's webhook configs. */
export async function pushGet(ctx: CommandContext): Promise<void> {
  const session = await open(ctx);
  const config = await session.client.getTaskPushNotificationConfig(
    { taskId: ctx.args.taskId!, id: ctx.args.configId! },
    { signal: ctx.signal },
  );
  if (ctx.out.json) return ctx.out.jsonLine(pushJson(config), true);
  printPushConfig(ctx.out, config);
}

/** `a2a push list`: a task's webhook configs. */
export async function pushList(ctx: CommandContext): Promise<void> {
  const { out } = ctx;
  const session = await open(ctx);
  const res = await session.client.listTaskPushNotificationConfigs({ taskId: ctx.args.taskId! }, { signal: ctx.signal });
  if (out.json) {
    const json = toJson(ListTaskPushNotificationConfigsResponseSchema, res) as Record<string, unknown>;
    return out.jsonLine({ ...json, configs: res.configs.map(pushJson) }, true);
  }
  if (res.configs.length === 0) out.line(out.dim("no push configs"));
  for (const c of res.configs) out.line(`${c.id}  ${c.url}${c.token ? out.dim("  token (set)") : ""}`);
}

/** `a2a push delete`: removes one of a task's webhook configs. */
export async function pushDelete(ctx: CommandContext): Promise<void> {
  const session = await open(ctx);
  await session.client.deleteTaskPushNotificationConfig({ taskId: ctx.args.taskId!, id: ctx.args.configId! }, { signal: ctx.signal });
  if (ctx.out.json) return ctx.out.jsonLine({ deleted: { taskId: ctx.args.taskId, id: ctx.args.configId } }, true);
  ctx.out.line(`deleted push config ${ctx.args.configId} of task ${ctx.args.taskId}`);
}

/** Each command's implementation, by name. */
export const COMMANDS: Record<CommandName, (ctx: CommandContext) => Promise<void>> = {
  card,
  send,
  stream,
  "task get": taskGet,
  "task list": taskList,
  "task cancel": taskCancel,
  "task subscribe": taskSubscribe,
  "push create": pushCreate,
  "push get": pushGet,
  "push list": pushList,
  "push delete": pushDelete,
};
