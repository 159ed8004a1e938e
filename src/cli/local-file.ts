/**
 * The local files a command line names (`--file`, `--jwks`, a card file),
 * read so that Ctrl-C ends the read at once. A named pipe or a process
 * substitution (`--file <(cmd)`) may never end; read as files are, in
 * Node's thread pool, a read that waits would hold a thread that even
 * `process.exit` waits for. Pipes are read as stdin is, by the event loop.
 */
import { closeSync, constants, fstatSync, open as openFd } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { Socket } from "node:net";
import { promisify } from "node:util";
import { unlessAborted } from "../base/abort.js";

const openFile = promisify(openFd);

/**
 * The file's bytes, at most `limit` of them when given (a huge file, or a
 * device that never ends, is not read whole); rejects with the signal's
 * reason as soon as it aborts.
 */
export async function readLocalFile(path: string, signal: AbortSignal, limit = Number.POSITIVE_INFINITY): Promise<Buffer> {
  // Non-blocking: opening a pipe that has no writer yet does not wait for one.
  const fd = await openFile(path, constants.O_RDONLY | constants.O_NONBLOCK);
  let pipe: boolean;
  try {
    const stat = fstatSync(fd);
    pipe = stat.isFIFO() || stat.isSocket();
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  if (pipe) return await unlessAborted(readPipe(new Socket({ fd, readable: true, writable: false }), limit, signal), signal);
  closeSync(fd);
  return await unlessAborted(Number.isFinite(limit) ? readAtMost(path, limit, signal) : readFile(path, { signal }), signal);
}

/** What a pipe holds until its writer closes it, or `limit` bytes; the socket is closed once read or aborted. */
async function readPipe(socket: Socket, limit: number, signal: AbortSignal): Promise<Buffer> {
  const stop = () => socket.destroy();
  signal.addEventListener("abort", stop, { once: true });
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of socket as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      length += chunk.byteLength;
      if (length >= limit) break;
    }
    return Buffer.concat(chunks).subarray(0, Number.isFinite(limit) ? limit : undefined);
  } finally {
    signal.removeEventListener("abort", stop);
    socket.destroy();
  }
}

/**
 * The first `limit` bytes of a file, reading no further once `signal`
 * aborts. The buffer grows by doubling as bytes arrive: a small file under
 * a large limit costs its size, not the limit.
 */
async function readAtMost(path: string, limit: number, signal: AbortSignal): Promise<Buffer> {
  const handle = await open(path, "r");
  try {
    let buffer = Buffer.alloc(Math.min(limit, 64 * 1024));
    let length = 0;
    while (length < limit && !signal.aborted) {
      if (length === buffer.length) {
        const grown = Buffer.alloc(Math.min(limit, buffer.length * 2));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}
