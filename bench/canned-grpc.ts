/**
 * The canned server's gRPC endpoint: lf.a2a.v1.A2AService's SendMessage and
 * SendStreamingMessage on a bare `node:http2` server, answering with
 * messages encoded and framed in advance.
 *
 * Why not a @grpc/grpc-js server: it frames and writes each message on its
 * own, which cost about 15 µs of CPU per streamed event here, as much as the
 * raw client spends reading one, so it capped the stream benchmark instead
 * of the clients. Like the SSE endpoint, this one writes blocks of 1000
 * framed events; any gRPC client reads them as it would any server's.
 */
import * as http2 from "node:http2";

export interface CannedGrpcAnswers {
  /** SendMessageResponse, encoded. */
  send: Buffer;
  /** StreamResponses sent in turn, encoded. */
  events: readonly Buffer[];
  /** The last StreamResponse of every stream, encoded. */
  done: Buffer;
  /** Events per stream, `done` included. */
  streamLength: number;
}

const SERVICE = "/lf.a2a.v1.A2AService";
const BLOCK = 1000;

/** gRPC's length-prefixed message: a compressed flag (0), a big-endian length, the bytes. */
function frame(message: Buffer): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(message.length, 1);
  return Buffer.concat([prefix, message]);
}

/** Ends a call with a status in the trailers (0: OK). */
function respond(stream: http2.ServerHttp2Stream, status: number): void {
  stream.respond({ ":status": 200, "content-type": "application/grpc+proto" }, { waitForTrailers: true });
  stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": String(status) }));
}

/** Writes `n` framed events in blocks, respecting back-pressure; the last one is `done`. */
function writeStream(stream: http2.ServerHttp2Stream, answers: CannedGrpcAnswers, block: Buffer): void {
  const { events, done, streamLength } = answers;
  let left = streamLength - 1;
  stream.on("close", () => (left = 0));
  const pump = () => {
    while (left > 0) {
      const count = Math.min(left, BLOCK);
      const ok = stream.write(
        count === BLOCK ? block : Buffer.concat(Array.from({ length: count }, (_, i) => frame(events[i % events.length]!))),
      );
      left -= count;
      if (!ok) {
        stream.once("drain", pump);
        return;
      }
    }
    if (!stream.closed) stream.end(frame(done));
  };
  pump();
}

export function startCannedGrpc(answers: CannedGrpcAnswers): Promise<{ port: number; close: () => void }> {
  const send = frame(answers.send);
  const block = Buffer.concat(Array.from({ length: BLOCK }, (_, i) => frame(answers.events[i % answers.events.length]!)));
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  server.on("stream", (stream, headers) => {
    // The request (one small message) is read and dropped: every answer is fixed.
    stream.resume();
    stream.on("error", () => {});
    stream.once("end", () => {
      switch (headers[":path"]) {
        case `${SERVICE}/SendMessage`:
          respond(stream, 0);
          stream.end(send);
          return;
        case `${SERVICE}/SendStreamingMessage`:
          respond(stream, 0);
          writeStream(stream, answers, block);
          return;
        default:
          respond(stream, 12); // UNIMPLEMENTED
          stream.end();
      }
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({
        port: (server.address() as { port: number }).port,
        close: () => {
          server.close();
          for (const session of sessions) session.destroy();
        },
      });
    });
  });
}
