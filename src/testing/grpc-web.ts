/**
 * A gRPC answer of the test agent written as gRPC-web (the gRPC-web
 * protocol, PROTOCOL-WEB.md), the HTTP/1.1 form of gRPC that browsers and
 * our gRPC-web transport speak: the same message frames, the trailers as a
 * last frame of their own (flag 0x80, `name: value` lines), a status alone
 * in the headers. So the loopback server's HTTP/1.1 side and the in-memory
 * agent serve the gRPC binding too, from the same handler as HTTP/2.
 */
import type { AgentResponse } from "./exchange.js";
import { GRPC_CONTENT_TYPE } from "./grpc-wire.js";
import type { GrpcAnswer } from "./grpc.js";

const GRPC_WEB_CONTENT_TYPE = "application/grpc-web+proto";

/** Whether a request is a gRPC-web call. */
export function isGrpcWeb(headers: Headers): boolean {
  return /^application\/grpc-web(\+proto)?\s*(;|$)/i.test(headers.get("content-type") ?? "");
}

/** The trailers frame of `fields`. */
function trailersFrame(fields: Headers): Uint8Array {
  let text = "";
  fields.forEach((value, name) => (text += `${name}: ${value}\r\n`));
  const bytes = new TextEncoder().encode(text);
  const out = new Uint8Array(5 + bytes.byteLength);
  out[0] = 0x80;
  new DataView(out.buffer).setUint32(1, bytes.byteLength);
  out.set(bytes, 5);
  return out;
}

/** gRPC's content type in a gRPC answer's headers, as gRPC-web's; an answer that is not gRPC keeps its own. */
function webHeaders(headers: Headers): Headers {
  const out = new Headers(headers);
  if (out.get("content-type") === GRPC_CONTENT_TYPE) out.set("content-type", GRPC_WEB_CONTENT_TYPE);
  return out;
}

async function* webBody(body: AsyncGenerator<Uint8Array, Headers>): AsyncGenerator<Uint8Array> {
  try {
    for (;;) {
      const next = await body.next();
      if (next.done) {
        yield trailersFrame(next.value);
        return;
      }
      yield next.value;
    }
  } finally {
    // A reader that stops early ends the answer, and what it waits on.
    await body.return(new Headers());
  }
}

/** `answer` as a gRPC-web response. */
export function grpcWebResponse(answer: GrpcAnswer): AgentResponse {
  switch (answer.kind) {
    case "trailersOnly":
      return { status: 200, headers: webHeaders(answer.fields), body: (async function* () {})() };
    case "grpc":
      return { status: 200, headers: webHeaders(answer.headers), body: webBody(answer.body) };
    case "http":
      return answer;
  }
}
