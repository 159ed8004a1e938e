/** The commands of `a2a`: each connects, calls, and prints through Output. */
import type { Readable } from "node:stream";
import { create } from "@bufbuild/protobuf";
import {
  ArtifactSchema,
  StreamResponseSchema,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
} from "../../gen/lf/a2a/v1/a2a_pb.js";
import type { TransportSettings } from "../bindings/registry.js";
import type { ConnectOptions } from "../client/connect.js";
import type { AgentSession } from "../client/session.js";
import { TaskTracker } from "../client/tracker.js";
import { isResumeSnapshot } from "../client/task-events.js";
import { resolveAgentCard, type ResolvedAgentCard } from "../discovery/resolve.js";
import { CallTimeoutError, StreamResumeError } from "../errors/family.js";
import { createNodeHttpClient } from "../http/node-client.js";
import { sentSecrets } from "../http/sent-secrets.js";
import { toProtoJson } from "../protocol/serialize.js";
import type { KeyStore, VerifyPolicy } from "../trust/options.js";
import { UsageError, intOption, type CommandName, type GlobalFlags } from "./args.js";
import { readCardFile } from "./card-file.js";
import { readLocalFile } from "./local-file.js";
import { message } from "./message-input.js";
import { printContinueHint, shellQuote } from "./continue-hint.js";
import { describeEvent, paintState, partsText, printCard, printMessage, printPushConfig, printTask } from "./format.js";
import type { Output } from "./output.js";
import { commandLineCredentialsGuard } from "./plain-http.js";
import { sendProgress } from "./progress.js";
import { sendAndWait } from "./send-wait.js";
import { parseTarget } from "./target.js";
import { waitedTask } from "./wait.js";
import { createWireLog } from "./wire-log.js";

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

/** With `-v`: the hooks that log every exchange on stderr (see wire-log.ts), one set per command. */
const wires = new WeakMap<CommandContext, { fetch: typeof fetch | undefined; transport: TransportSettings }>();
function wire(ctx: CommandContext) {
  let hooks = wires.get(ctx);
  if (!hooks) {
    const log = ctx.flags.verbose ? createWireLog((line) => ctx.out.error(line)) : undefined;
    hooks = log
      ? { fetch: log.fetch, transport: { httpClient: log.httpClient(createNodeHttpClient()), interceptors: [log.interceptor] } }
      : { fetch: undefined, transport: {} };
    wires.set(ctx, hooks);
  }
  return hooks;
}

function connectOptions(ctx: CommandContext, typed: string | undefined): ConnectOptions {
  const { flags, signal } = ctx;
  const log = wire(ctx);
  // Outermost: a call the credentials may not go with is refused before anything, the wire log included, sees it.
  const guard = Object.keys(flags.headers).length > 0 && !flags.authOverHttp ? [commandLineCredentialsGuard(typed)] : [];
  return {
    preferredBindings: flags.binding ? [flags.binding] : undefined,
    protocolVersions: flags.versions,
    // The flag lists versions most preferred first.
    preferredVersions: flags.versions,
    headers: flags.headers,
    localUrls: flags.allowLocalUrls ? "allow" : undefined,
    signal,
    // Card resolution and each unary call (connect() gives its calls its own timeoutMs).
    timeoutMs: flags.timeoutMs,
    fetch: log.fetch,
    transport: {
      headers: flags.headers,
      ...log.transport,
      interceptors: [...guard, ...(log.transport.interceptors ?? [])],
    },
  };
}

/** The card of a card-file target, read and verified as a fetched card would be. */
function cardFile(ctx: CommandContext, path: string, verify: VerifyPolicy, keys?: KeyStore): Promise<ResolvedAgentCard> {
  return readCardFile(path, { verify, keys, signal: ctx.signal, timeoutMs: ctx.flags.timeoutMs, fetch: wire(ctx).fetch });
}

async function open(ctx: CommandContext): Promise<AgentSession> {
  const target = parseTarget(ctx.args.url!, ctx.command);
  // The CLI runs in Node: the Node entry's connect (gRPC over HTTP/2, the node:http client), loaded by
  // the commands that call an agent (`a2a card` only reads a card, and starts faster without it).
  const { connect } = await import("../node-runtime.js");
  const session =
    target.kind === "url"
      ? await connect(target.url, connectOptions(ctx, target.url))
      : await connect(await cardFile(ctx, target.path, "if-present"), connectOptions(ctx, undefined));
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
    keys = await readJwks(options.jwks, ctx.command, ctx.signal);
  }
  const target = parseTarget(args.url!, ctx.command);
  const resolved =
    target.kind === "file"
      ? await cardFile(ctx, target.path, verify ? "required" : "off", keys)
      : await resolveAgentCard(target.url, {
          headers: ctx.flags.headers,
          localUrls: ctx.flags.allowLocalUrls ? "allow" : undefined,
          signal: ctx.signal,
          timeoutMs: ctx.flags.timeoutMs,
          cache: false,
          verify: verify ? "required" : "off",
          // Keys given on the command line are pinned: the card's jku is not consulted.
          // Without them, the library's default takes http key sets from loopback cards only.
          verification: keys ? { keys } : {},
          fetch: wire(ctx).fetch,
        });
  if (out.json) {
    out.jsonLine(toProtoJson(resolved.card), true);
    return;
  }
  printCard(out, resolved.card, resolved, resolved.verification);
}

/** Largest `--jwks` file read: a key set is small, a file given by mistake may not be. */
const MAX_JWKS_BYTES = 1024 * 1024;

async function readJwks(path: string, command: string, signal: AbortSignal): Promise<{ keys: [] }> {
  let bytes: Buffer;
  try {
    bytes = await readLocalFile(path, signal, MAX_JWKS_BYTES + 1);
  } catch (e) {
    if (signal.aborted) throw e;
    throw new UsageError(`--jwks: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, command);
  }
  if (bytes.byteLength > MAX_JWKS_BYTES) throw new UsageError(`--jwks: ${path} is larger than ${MAX_JWKS_BYTES} bytes`, command);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    // Not the parser's message: it quotes the file, which may be a secret given by mistake (a .env, a private key).
    throw new UsageError(`--jwks: ${path} is not JSON`, command);
  }
  if (typeof parsed !== "object" || parsed === null || !Array.isArray((parsed as { keys?: unknown }).keys)) {
    throw new UsageError(`--jwks: ${path} is not a JWK Set ({"keys": [...]})`, command);
  }
  return parsed as { keys: [] };
}

/** `a2a send`: one message, and the task or message it gets (see send-wait.ts for how it waits). */
export async function send(ctx: CommandContext): Promise<void> {
  const msg = await message(ctx);
  const session = await open(ctx);
  const progress = sendProgress(ctx.out);
  let taskId: string | undefined;
  const seen = (task: Task) => {
    taskId = task.id;
    progress(task);
  };
  let res: SendMessageResponse;
  try {
    if (ctx.options["no-wait"]) {
      res = await session.client.sendMessage({ message: msg, configuration: { returnImmediately: true } }, { signal: ctx.signal });
      if (res.payload.case === "task") seen(res.payload.value);
    } else {
      const streaming = session.card.capabilities?.streaming === true;
      res = await sendAndWait(session.client, msg, { signal: ctx.signal, timeoutMs: ctx.flags.timeoutMs, streaming, onUpdate: seen });
    }
  } catch (e) {
    throw e instanceof CallTimeoutError ? withAlternatives(ctx, e, taskId) : e;
  }
  const { out } = ctx;
  if (res.payload.case === "task") printContinueHint(ctx, res.payload.value);
  if (out.json) return out.jsonLine(toProtoJson(res), true);
  if (res.payload.case === "task") printTask(out, res.payload.value);
  else if (res.payload.case === "message") printMessage(out, res.payload.value);
  else out.line(out.dim("(empty response)"));
}

/**
 * A send's timeout, with what to run instead of waiting: the task may
 * still be running, and a deadline is no reason to lose it.
 */
function withAlternatives(ctx: CommandContext, e: CallTimeoutError, taskId: string | undefined): CallTimeoutError {
  const getWait = `\`a2a task get ${shellQuote(ctx.args.url!)} ${taskId === undefined ? "<id>" : shellQuote(taskId)} --wait\``;
  const others = "`a2a stream` shows a task's events as they come, and `a2a send --no-wait` returns the task at once";
  const ways =
    taskId === undefined
      ? `a task it started may still be running: ${others}, to wait for with ${getWait}`
      : `it may still be running: ${getWait} waits for it; ${others}`;
  return new CallTimeoutError(`${e.message}; ${ways}`, { kind: e.kind, cause: e });
}

/** `a2a stream`: one message, and its task's events as they arrive. */
export async function stream(ctx: CommandContext): Promise<void> {
  const msg = await message(ctx);
  const session = await open(ctx);
  await follow(ctx, session.client.sendStreamingMessage({ message: msg }, streamOptions(ctx)));
}

/** `a2a task subscribe`: a running task's events as they arrive. */
export async function taskSubscribe(ctx: CommandContext): Promise<void> {
  const session = await open(ctx);
  await follow(ctx, session.client.subscribeToTask({ id: ctx.args.id! }, streamOptions(ctx)));
}

/** A stream has no deadline; `--timeout` bounds how long it tries to resume after a drop. */
function streamOptions(ctx: CommandContext) {
  return { signal: ctx.signal, ...(ctx.flags.timeoutMs ? { resume: { maxElapsedMs: ctx.flags.timeoutMs } } : {}) };
}

/** Prints a (resuming) stream's events as they arrive, then where the task ended. */
async function follow(ctx: CommandContext, events: AsyncIterable<StreamResponse>): Promise<void> {
  const { out } = ctx;
  const tracker = new TaskTracker();
  const started = Date.now();
  let direct: StreamResponse | undefined;
  try {
    for await (const event of events) {
      // A diagnostic: stdout holds only the events.
      if (isResumeSnapshot(event)) resumed(out, event);
      if (event.payload.case === "message" && !event.payload.value.taskId) direct = event;
      else {
        const kept = forSummary(event, tracker);
        if (kept) tracker.apply(kept);
      }
      if (out.json) out.jsonLine(toProtoJson(event));
      else out.line(`${out.dim(`+${String(Date.now() - started).padStart(5)}ms`)} ${describeEvent(out, event)}`);
    }
  } catch (e) {
    if (e instanceof StreamResumeError) streamLost(ctx, e, tracker.task?.id);
    throw e;
  }
  const task = tracker.task;
  printContinueHint(ctx, task);
  if (out.json) return;
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

/** Characters of each artifact's text that the closing line of a stream keeps (the events themselves were printed as they came). */
const SUMMARY_CHARS = 4096;
/** Artifacts that the closing line of a stream names. */
const SUMMARY_ARTIFACTS = 64;

/**
 * What the closing line and the continue hint need of `event`: an
 * artifact's parts as their one-line text, within SUMMARY_CHARS for the
 * artifact and SUMMARY_ARTIFACTS for the task; status updates without their
 * metadata; no message history. A stream may run for hours: kept whole,
 * all it sent (appended chunks, files, metadata keys) stayed in memory
 * until it ended. Undefined for an event the summary has no use for.
 */
function forSummary(event: StreamResponse, tracker: TaskTracker): StreamResponse | undefined {
  const p = event.payload;
  if (p.case === "message") return undefined;
  if (p.case === "statusUpdate") {
    if (p.value.metadata === undefined) return event;
    return create(StreamResponseSchema, { payload: { case: "statusUpdate", value: { ...p.value, metadata: undefined } } });
  }
  if (p.case !== "artifactUpdate" || p.value.artifact === undefined) return event;
  const incoming = p.value.artifact;
  const task = tracker.task?.id === p.value.taskId ? tracker.task : undefined;
  const known = task?.artifacts.find((a) => a.artifactId === incoming.artifactId);
  if (known === undefined && (task?.artifacts.length ?? 0) >= SUMMARY_ARTIFACTS) return undefined;
  const room = SUMMARY_CHARS - (p.value.append && known ? partsText(known.parts).length : 0);
  const whole = room > 0 ? partsText(incoming.parts) : "";
  // A cut is marked (once), so the closing line does not pass for the whole artifact.
  const text = room > 0 && whole.length > room ? `${whole.slice(0, room)}…` : whole;
  const artifact = create(ArtifactSchema, {
    artifactId: incoming.artifactId,
    name: incoming.name,
    parts: text === "" ? [] : [{ content: { case: "text", value: text } }],
  });
  return create(StreamResponseSchema, { payload: { case: "artifactUpdate", value: { ...p.value, artifact } } });
}

/** Says on stderr that the stream dropped and went on from a fresh snapshot of the task. */
function resumed(out: Output, snapshot: StreamResponse): void {
  const id = snapshot.payload.case === "task" ? snapshot.payload.value.id : "";
  if (out.json) out.jsonError({ resumed: { taskId: id } });
  else out.error(out.yellow(`-- connection lost; resumed task ${id} (GetTask, SubscribeToTask) --`));
}

/** Says on stderr that the stream dropped for good, why, and how to look at the task (which may still run). */
function streamLost(ctx: CommandContext, e: StreamResumeError, seen: string | undefined): void {
  const { out } = ctx;
  const taskId = e.taskId ?? seen;
  const look = taskId ? ["a2a", "task", "subscribe", ctx.args.url!, taskId].map(shellQuote).join(" ") : undefined;
  if (out.json) {
    out.jsonError({ streamLost: { taskId, attempts: e.attempts, reason: e.message, ...(look ? { command: look } : {}) } });
    return;
  }
  out.error(`a2a: the stream${taskId ? ` of task ${taskId}` : ""} dropped and could not be resumed`);
  if (look) out.error(`the task may still be running; follow it again with:\n  ${look}`);
}

/** `a2a task get`: one task; with `--wait`, once it has reached a final or interrupted state. */
export async function taskGet(ctx: CommandContext): Promise<void> {
  const historyLength = intOption(ctx.options.history, "history", ctx.command);
  const session = await open(ctx);
  const { signal, out } = ctx;
  const task = ctx.options.wait
    ? await waitedTask(session.client, ctx.args.id!, out, { signal, timeoutMs: ctx.flags.timeoutMs, historyLength })
    : await session.client.getTask({ id: ctx.args.id!, historyLength }, { signal });
  printContinueHint(ctx, task);
  if (out.json) return out.jsonLine(toProtoJson(task), true);
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
  if (out.json) return out.jsonLine(toProtoJson(res), true);
  if (res.tasks.length === 0) out.line(out.dim("no tasks"));
  for (const t of res.tasks) {
    const summary = partsText(t.artifacts.flatMap((a) => a.parts));
    out.line(
      `${t.id}  ${paintState(out, t.status?.state, 14)}  ${out.dim(`context ${t.contextId}`)}${summary ? `  ${truncate(summary, 60)}` : ""}`,
    );
  }
  // A hint, not a result: on stderr, so that the listing on stdout is only tasks.
  if (res.nextPageToken) out.error(`next page: --page-token ${res.nextPageToken}`);
}

function truncate(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

/** `a2a task cancel`: cancels a task and prints it. */
export async function taskCancel(ctx: CommandContext): Promise<void> {
  const session = await open(ctx);
  const task = await session.client.cancelTask({ id: ctx.args.id! }, { signal: ctx.signal });
  if (ctx.out.json) return ctx.out.jsonLine(toProtoJson(task), true);
  printTask(ctx.out, task);
}

/**
 * Masks, in everything printed from here on, the credentials of push configs:
 * their token, their authentication credentials and their webhook URL's user
 * info and query values, as errors are masked of them.
 */
function maskPushSecrets(out: Output, configs: readonly { url: string; token?: string; authentication?: { credentials: string } }[]): void {
  out.addSecrets(configs.flatMap((c) => [c.token ?? "", c.authentication?.credentials ?? "", ...sentSecrets(undefined, c.url)]));
}

/** ProtoJSON of a push config with its token masked. */
function pushJson(config: TaskPushNotificationConfig): unknown {
  const json = toProtoJson(config) as Record<string, unknown>;
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
  maskPushSecrets(out, [{ url, token }]);
  const session = await open(ctx);
  const created = await session.client.createTaskPushNotificationConfig(
    { taskId: args.taskId!, url, ...(token ? { token } : {}), ...(args.configId ? { id: args.configId } : {}) },
    { signal: ctx.signal },
  );
  maskPushSecrets(out, [created]);
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
  maskPushSecrets(ctx.out, [config]);
  if (ctx.out.json) return ctx.out.jsonLine(pushJson(config), true);
  printPushConfig(ctx.out, config);
}

/** `a2a push list`: a task's webhook configs. */
export async function pushList(ctx: CommandContext): Promise<void> {
  const { out } = ctx;
  const session = await open(ctx);
  const res = await session.client.listTaskPushNotificationConfigs({ taskId: ctx.args.taskId! }, { signal: ctx.signal });
  maskPushSecrets(out, res.configs);
  if (out.json) {
    const json = toProtoJson(res) as Record<string, unknown>;
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
