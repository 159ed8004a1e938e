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

/**
 * The most a message's text from stdin and its `--file`s may hold together
 * (16 MiB, the client's default limit on a response): stdin that never
 * ends (`yes | a2a send ... -`) or a `--file` that is a device is not read
 * whole, and an agent echoing the message in its task could not be read.
 */
export const MAX_MESSAGE_INPUT_BYTES = 16 * 1024 * 1024;

const LIMIT_SAID = `${MAX_MESSAGE_INPUT_BYTES} bytes, the most a message's text and files may hold together`;

/** The text argument, or with `-` all of stdin (within the limit), less one final newline (as `echo` and here-docs add it). */
async function messageText(ctx: MessageInput): Promise<string> {
  const arg = ctx.args.text!;
  if (arg !== "-") return arg;
  // Bound by Ctrl-C (a terminal's stdin ends only with Ctrl-D): the signal
  // destroys the stream, as an iterator's own signal is checked per chunk only.
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const c of addAbortSignal(ctx.signal, ctx.stdin) as AsyncIterable<unknown>) {
    const chunk = typeof c === "string" ? Buffer.from(c) : (c as Uint8Array);
    length += chunk.byteLength;
    // Leaving the loop stops the reading: the rest of stdin is never held.
    if (length > MAX_MESSAGE_INPUT_BYTES) throw new UsageError(`stdin (-) holds more than ${LIMIT_SAID}`, ctx.command);
    chunks.push(chunk);
  }
  // Joined as bytes before decoding: a character may be split across chunks.
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

async function messageParts(ctx: MessageInput): Promise<Part[]> {
  const said = await messageText(ctx);
  const parts: Part[] = [text(said)];
  let left = MAX_MESSAGE_INPUT_BYTES - Buffer.byteLength(said);
  for (const path of (ctx.options.file as string[] | undefined) ?? []) {
    let bytes: Uint8Array;
    try {
      // One byte more than is left tells a file over the limit from one at it.
      bytes = new Uint8Array(await readLocalFile(path, ctx.signal, left + 1));
    } catch (e) {
      if (ctx.signal.aborted) throw e;
      throw new UsageError(`--file: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, ctx.command);
    }
    if (bytes.byteLength > left) throw new UsageError(`--file: ${path} takes the message past ${LIMIT_SAID}`, ctx.command);
    left -= bytes.byteLength;
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
