/** The message `a2a send` and `a2a stream` send: the text (or stdin with `-`), files and data parts. */
import { basename, extname } from "node:path";
import { addAbortSignal, type Readable } from "node:stream";
import type { JsonValue } from "@bufbuild/protobuf";
import type { Part } from "../../gen/lf/a2a/v1/a2a_pb.js";
import { data, fileBytes, text, userMessage } from "../protocol/messages.js";
import { readLocalFile } from "./local-file.js";
import { UsageError } from "./usage-error.js";

/** What the message is read from: the command line's text and options, stdin, and the signal of Ctrl-C. */
export interface MessageInput {
  /** The command, for usage errors. */
  command: string;
  /** The positionals; `text` is the message text or `-`. */
  args: Record<string, string>;
  /** `--file`, `--data`, `--task`, `--context`. */
  options: Record<string, string | boolean | string[] | undefined>;
  /** Ends a read of stdin or of a file. */
  signal: AbortSignal;
  /** Where `-` reads from. */
  stdin: Readable;
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
async function messageText(ctx: MessageInput): Promise<string> {
  const arg = ctx.args.text!;
  if (arg !== "-") return arg;
  // Bound by Ctrl-C (a terminal's stdin ends only with Ctrl-D): the signal
  // destroys the stream, as toArray's own signal is checked per chunk only.
  const chunks: unknown[] = await addAbortSignal(ctx.signal, ctx.stdin).toArray();
  // Joined as bytes before decoding: a character may be split across chunks.
  const bytes = Buffer.concat(chunks.map((c) => (typeof c === "string" ? Buffer.from(c) : (c as Uint8Array))));
  return bytes.toString("utf8").replace(/\r?\n$/, "");
}

async function messageParts(ctx: MessageInput): Promise<Part[]> {
  const parts: Part[] = [text(await messageText(ctx))];
  for (const path of (ctx.options.file as string[] | undefined) ?? []) {
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await readLocalFile(path, ctx.signal));
    } catch (e) {
      if (ctx.signal.aborted) throw e;
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

/** The user message of the command line: its parts, and the task and context it continues. */
export async function message(ctx: MessageInput) {
  const parts = await messageParts(ctx);
  const taskId = ctx.options.task as string | undefined;
  const contextId = ctx.options.context as string | undefined;
  return userMessage(parts, { ...(taskId ? { taskId } : {}), ...(contextId ? { contextId } : {}) });
}
