/**
 * Where the first event of a stream ends in the bytes a server sent on its
 * connection, whatever the server: for a chaos proxy's `cutWhen`, so a cut
 * lands after the first event on peers whose events differ in size.
 */
import type { Binding } from "../../src/index.js";

const HEAD_END = Buffer.from("\r\n\r\n");

/**
 * The end of the first SSE event that carries data (comments such as a
 * server's `: stream started` are passed), after the HTTP response head;
 * undefined until it has arrived. Events end in a blank line, LF or CRLF.
 */
function afterFirstSseEvent(bytes: Buffer): number | undefined {
  const head = bytes.indexOf(HEAD_END);
  if (head < 0) return undefined;
  const body = bytes.subarray(head + HEAD_END.length).toString("latin1");
  const blank = /\r?\n\r?\n/g;
  let start = 0;
  for (let m = blank.exec(body); m; m = blank.exec(body)) {
    const end = m.index + m[0].length;
    if (/(^|\n)data:/.test(body.slice(start, end))) return head + HEAD_END.length + end;
    start = end;
  }
  return undefined;
}

/**
 * The end of the HTTP/2 DATA frame that completes the first gRPC message
 * (a 5-byte prefix, then as many bytes as it says), undefined until it has
 * arrived: a server may send a message's prefix and its bytes in frames
 * of their own.
 */
function afterFirstDataFrame(bytes: Buffer): number | undefined {
  // The client's connection preface is not in what the server sends; frames are
  // 3 bytes of length, 1 of type (0 is DATA), 1 of flags, 4 of stream id.
  const data: Buffer[] = [];
  for (let pos = 0; pos + 9 <= bytes.length; pos += 9 + bytes.readUIntBE(pos, 3)) {
    const length = bytes.readUIntBE(pos, 3);
    if (pos + 9 + length > bytes.length) return undefined;
    if (bytes[pos + 3] !== 0 || length === 0) continue;
    data.push(bytes.subarray(pos + 9, pos + 9 + length));
    const message = Buffer.concat(data);
    if (message.length >= 5 && message.length >= 5 + message.readUInt32BE(1)) return pos + 9 + length;
  }
  return undefined;
}

/** For `ConnectionPlan.cutWhen`: cut right after the stream's first event on `binding`. */
export function afterFirstEvent(binding: Binding): (received: Buffer) => number | undefined {
  return binding === "GRPC" ? afterFirstDataFrame : afterFirstSseEvent;
}
