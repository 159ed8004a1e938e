/**
 * The push notification receiver as a `node:http` request listener:
 * `http.createServer(createNodePushHandler(receiver))`, or one route of an
 * Express-style app. The request is handed to the fetch-style handler as a
 * `Request` whose body streams from the socket, so the size limit holds
 * without buffering more than it; behind a body parser (`express.json()`),
 * which has read the body already, what the parser made of it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { createPushReceiver, type PushReceiver, type PushReceiverOptions } from "./receiver.js";

/**
 * A `(req, res) => void` listener for a receiver, or for one made from these options.
 * @example
 * ```ts
 * import { createServer } from "node:http";
 * import { createNodePushHandler } from "a2a-connect/node";
 *
 * const server = createServer(
 *   createNodePushHandler({ token: "a-token-the-receiver-checks", onEvent: (event, task) => console.log(task?.status?.state) }),
 * );
 * server.listen(8080);
 * ```
 * @category Push
 */
export function createNodePushHandler(receiver: PushReceiver | PushReceiverOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { handle } = "handle" in receiver ? receiver : createPushReceiver(receiver);
  return (req, res) => {
    void respond(handle, req, res);
  };
}

async function respond(handle: PushReceiver["handle"], req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const request = toRequest(req);
    if (request === undefined) {
      // Waiting for a body that has already been read would hold the delivery for ever.
      res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
      res.end("the request body was read by an earlier handler, which did not keep it");
      return;
    }
    const response = await handle(request);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const body = response.body ? new Uint8Array(await response.arrayBuffer()) : undefined;
    // A body left unread (too large, unauthorized) is not drained: the connection closes.
    if (!req.complete) headers.connection = "close";
    res.writeHead(response.status, headers);
    res.end(body);
  } catch {
    if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain; charset=utf-8", connection: "close" });
    res.end(res.headersSent ? undefined : "internal error");
  }
}

/**
 * The method `Request` refuses to carry that node:http hands to a listener
 * (it keeps CONNECT for its `connect` event and refuses TRACK itself). It is
 * not POST: it is handed over as GET, which the handler answers 405.
 */
const UNCARRIED_METHODS = /^TRACE$/i;

/** The request as the fetch-style handler takes it; undefined when its body was read and not kept. */
function toRequest(req: IncomingMessage & { body?: unknown }): Request | undefined {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const method = req.method === undefined || UNCARRIED_METHODS.test(req.method) ? "GET" : req.method;
  const hasBody = method !== "GET" && method !== "HEAD";
  const init: RequestInit & { duplex?: "half" } = { method, headers };
  if (hasBody && req.readableEnded) {
    // An earlier middleware read the body (express.json(), .raw(), .text()): take what it made of it.
    const kept = keptBody(req.body);
    if (kept === undefined) return undefined;
    init.body = kept;
  } else if (hasBody) {
    init.body = bodyOf(req);
    init.duplex = "half";
  }
  // Only the path matters to the handler; the host is not trusted for anything.
  return new Request(new URL(req.url ?? "/", "http://localhost"), init);
}

/** A body an Express-style parser left on `req.body`: bytes, text, or a parsed JSON value (written out again). */
function keptBody(body: unknown): BodyInit | undefined {
  if (body instanceof Uint8Array) return new Uint8Array(body);
  if (typeof body === "string") return body;
  if (body === undefined) return undefined;
  return JSON.stringify(body);
}

/**
 * The request body as a web stream that reads only as fast as the handler
 * does and, once the handler stops reading (a body over the limit), ignores
 * the rest.
 */
function bodyOf(req: IncomingMessage): ReadableStream<Uint8Array> {
  let finished = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      req.on("data", (chunk: Buffer) => {
        if (finished) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.once("end", () => {
        if (finished) return;
        finished = true;
        controller.close();
      });
      req.once("error", (error) => {
        if (finished) return;
        finished = true;
        controller.error(error);
      });
      req.pause();
    },
    pull() {
      req.resume();
    },
    cancel() {
      finished = true;
      req.resume();
    },
  });
}
