/**
 * The clients under test, each reduced to two functions: one unary
 * SendMessage, and one SendStreamingMessage read to its end (returning the
 * number of events seen).
 */
import * as http from "node:http";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { credentials, makeGenericClientConstructor, Metadata, type ClientReadableStream } from "@grpc/grpc-js";
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { Role, type SendMessageRequest as SdkSendMessageRequest } from "@a2a-js/sdk";
import { SendMessageRequestSchema, SendMessageResponseSchema, StreamResponseSchema, Role as ProtoRole } from "../gen/lf/a2a/v1/a2a_pb.js";
import type { A2ATransport } from "../src/node.js";
import { lib } from "./library.js";
import { countEvents, splitEvents } from "./stream-events.js";

const {
  A2AClient,
  createFetchHttpClient,
  createGrpcTransport,
  createJsonRpcTransport,
  createNodeHttpClient,
  createRestTransport,
  userMessage,
} = lib;
import { PASS_THROUGH_A2A_SERVICE } from "./grpc-service.js";

/** On gRPC, `ours` is `createGrpcTransport` (over `node:http2`); the HTTP clients do not apply. */
export type ClientName = "ours-fetch" | "ours-node" | "ours" | "sdk" | "raw" | "raw-fetch";
export type BindingName = "JSONRPC" | "HTTP+JSON" | "GRPC";

export interface BenchClient {
  send(): Promise<void>;
  /**
   * Reads one stream to its end and returns the number of events. `onEvent`
   * is called after each event; returning false stops reading there (the
   * stream is given up, as a consumer that breaks out of its loop does).
   */
  stream(onEvent?: () => boolean): Promise<number>;
}

/**
 * The canned server's interface URL for a binding whose streams carry `n`
 * events (one every `everyMs` if given). On gRPC the stream length is the
 * server's, set when it starts.
 */
export function cannedUrl(ports: { port: number; grpcPort: number }, binding: BindingName, n: number, everyMs = 0): string {
  if (binding === "GRPC") return `127.0.0.1:${ports.grpcPort}`;
  const pace = everyMs > 0 ? `/every/${everyMs}` : "";
  return `http://127.0.0.1:${ports.port}/n/${n}${pace}/${binding === "JSONRPC" ? "jsonrpc" : "rest"}`;
}

function oursTransport(name: ClientName, binding: BindingName, url: string): A2ATransport {
  if (binding === "GRPC") return createGrpcTransport({ baseUrl: url });
  // Named either way: in the Node entry a transport given no client gets node:http.
  const httpClient = name === "ours-node" ? createNodeHttpClient() : createFetchHttpClient();
  return binding === "JSONRPC" ? createJsonRpcTransport({ baseUrl: url, httpClient }) : createRestTransport({ baseUrl: url, httpClient });
}

export async function createBenchClient(name: ClientName, binding: BindingName, url: string): Promise<BenchClient> {
  switch (name) {
    case "ours":
    case "ours-fetch":
    case "ours-node": {
      const client = new A2AClient(oursTransport(name, binding, url));
      return {
        async send() {
          await client.sendMessage({ message: userMessage("hello") });
        },
        stream(onEvent) {
          return countEvents(client.sendStreamingMessage({ message: userMessage("hello") }), onEvent);
        },
      };
    }
    case "sdk": {
      const card = {
        name: "canned",
        description: "canned",
        version: "1.0.0",
        supportedInterfaces: [{ url, protocolBinding: binding, protocolVersion: "1.0", tenant: "" }],
        capabilities: { streaming: true },
        defaultInputModes: ["text/plain"],
        defaultOutputModes: ["text/plain"],
        skills: [],
      };
      const factory = new ClientFactory({
        transports: [new JsonRpcTransportFactory(), new RestTransportFactory(), new GrpcTransportFactory()],
      });
      const client = await factory.createFromAgentCard(card as never);
      // Complete as the SDK's types require (its gRPC encoder needs every field).
      const request = (): SdkSendMessageRequest => ({
        tenant: "",
        message: {
          messageId: crypto.randomUUID(),
          contextId: "",
          taskId: "",
          role: Role.ROLE_USER,
          parts: [{ content: { $case: "text", value: "hello" }, metadata: undefined, filename: "", mediaType: "" }],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        },
        configuration: undefined,
        metadata: undefined,
      });
      return {
        async send() {
          await client.sendMessage(request());
        },
        stream(onEvent) {
          return countEvents(client.sendMessageStream(request()), onEvent);
        },
      };
    }
    case "raw":
      return binding === "GRPC" ? rawGrpcClient(url) : rawClient(url, binding);
    case "raw-fetch":
      return rawFetchClient(url, binding);
  }
}

/**
 * What the floors send: the request body of a bare A2A SendMessage or
 * SendStreamingMessage, and the path it goes to, as JSON written by hand.
 */
function rawRequests(url: string, binding: BindingName) {
  const target = new URL(url);
  let id = 0;
  const message = () => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "hello" }] });
  const request = (stream: boolean): { path: string; body: string } =>
    binding === "JSONRPC"
      ? {
          path: target.pathname,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: ++id,
            method: stream ? "SendStreamingMessage" : "SendMessage",
            params: { message: message() },
          }),
        }
      : { path: `${target.pathname}/message:${stream ? "stream" : "send"}`, body: JSON.stringify({ message: message() }) };
  const headers = (stream: boolean) => ({
    "Content-Type": "application/json",
    Accept: stream ? "text/event-stream" : "application/json",
    "A2A-Version": "1.0",
  });
  return { target, request, headers };
}

/**
 * The floor: a bare keep-alive `node:http` POST with JSON.parse of the
 * answer, and for streams a split on blank lines with JSON.parse of each
 * event's data. No validation, no types, no error handling.
 */
function rawClient(url: string, binding: BindingName): BenchClient {
  const agent = new http.Agent({ keepAlive: true });
  const { target, request, headers } = rawRequests(url, binding);
  const post = (stream: boolean) =>
    new Promise<http.IncomingMessage>((resolve, reject) => {
      const { path, body } = request(stream);
      const req = http.request(
        { agent, host: target.hostname, port: target.port, path, method: "POST", headers: headers(stream) },
        resolve,
      );
      req.on("error", reject);
      req.end(body);
    });
  return {
    async send() {
      const res = await post(false);
      res.setEncoding("utf8");
      let text = "";
      for await (const chunk of res) text += chunk as string;
      JSON.parse(text);
    },
    async stream(onEvent) {
      const res = await post(true);
      res.setEncoding("utf8");
      return splitEvents(res as AsyncIterable<string>, onEvent, () => res.destroy());
    },
  };
}

/**
 * The fetch floor: the same as `raw` over the global `fetch` (`text()` and
 * JSON.parse; for streams the body's reader through a TextDecoder, split on
 * blank lines). What any client on fetch spends, whatever it does on top:
 * the clients on fetch are measured against it as the others against `raw`.
 */
function rawFetchClient(url: string, binding: BindingName): BenchClient {
  const { target, request, headers } = rawRequests(url, binding);
  const post = (stream: boolean) => {
    const { path, body } = request(stream);
    return fetch(`${target.origin}${path}`, { method: "POST", headers: headers(stream), body });
  };
  return {
    async send() {
      const res = await post(false);
      JSON.parse(await res.text());
    },
    async stream(onEvent) {
      const res = await post(true);
      const reader = res.body!.getReader();
      const utf8 = new TextDecoder();
      const chunks = async function* () {
        for (let r = await reader.read(); !r.done; r = await reader.read()) yield utf8.decode(r.value, { stream: true });
      };
      return splitEvents(chunks(), onEvent, () => void reader.cancel().catch(() => {}));
    },
  };
}

/**
 * The gRPC floor: a bare @grpc/grpc-js client (one HTTP/2 connection, as
 * the other two gRPC clients use) whose only codec work is protobuf-es
 * `toBinary` of the request and `fromBinary` of each answer, the decoding
 * every gRPC client has to do, as JSON.parse is for the HTTP floor.
 */
function rawGrpcClient(address: string): BenchClient {
  const Client = makeGenericClientConstructor(PASS_THROUGH_A2A_SERVICE, "A2AService");
  const client = new Client(address, credentials.createInsecure()) as unknown as {
    SendMessage(request: Buffer, metadata: Metadata, done: (err: Error | null, response?: Buffer) => void): void;
    SendStreamingMessage(request: Buffer, metadata: Metadata): ClientReadableStream<Buffer>;
  };
  // A server may refuse a call that does not name the protocol version (the official one does).
  const metadata = new Metadata();
  metadata.set("a2a-version", "1.0");
  const request = () =>
    Buffer.from(
      toBinary(
        SendMessageRequestSchema,
        create(SendMessageRequestSchema, {
          message: { messageId: crypto.randomUUID(), role: ProtoRole.USER, parts: [{ content: { case: "text", value: "hello" } }] },
        }),
      ),
    );
  return {
    send() {
      return new Promise((resolve, reject) =>
        client.SendMessage(request(), metadata, (err, response) => {
          if (err || !response) return reject(err ?? new Error("no response"));
          fromBinary(SendMessageResponseSchema, response);
          resolve();
        }),
      );
    },
    async stream(onEvent) {
      const call = client.SendStreamingMessage(request(), metadata);
      let count = 0;
      for await (const event of call as AsyncIterable<Buffer>) {
        fromBinary(StreamResponseSchema, event);
        count++;
        if (onEvent && !onEvent()) {
          call.cancel();
          break;
        }
      }
      return count;
    },
  };
}
