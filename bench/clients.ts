/**
 * The clients under test, each reduced to two functions: one unary
 * SendMessage, and one SendStreamingMessage read to its end (returning the
 * number of events seen).
 */
import * as http from "node:http";
import { ClientFactory, JsonRpcTransportFactory, RestTransportFactory } from "@a2a-js/sdk/client";
import { Role } from "@a2a-js/sdk";
import { A2AClient, createJsonRpcTransport, createNodeHttpClient, createRestTransport, userMessage } from "../src/node.js";

export type ClientName = "ours-fetch" | "ours-node" | "sdk" | "raw";
export type BindingName = "JSONRPC" | "HTTP+JSON";

export interface BenchClient {
  send(): Promise<void>;
  stream(): Promise<number>;
}

/** The interface URL for a binding whose streams carry `n` events. */
export function interfaceUrl(port: number, binding: BindingName, n: number): string {
  return `http://127.0.0.1:${port}/n/${n}/${binding === "JSONRPC" ? "jsonrpc" : "rest"}`;
}

export async function createBenchClient(name: ClientName, binding: BindingName, port: number, n: number): Promise<BenchClient> {
  const url = interfaceUrl(port, binding, n);
  switch (name) {
    case "ours-fetch":
    case "ours-node": {
      const httpClient = name === "ours-node" ? createNodeHttpClient() : undefined;
      const transport = binding === "JSONRPC" ? createJsonRpcTransport({ baseUrl: url, httpClient }) : createRestTransport({ baseUrl: url, httpClient });
      const client = new A2AClient(transport);
      return {
        async send() {
          await client.sendMessage({ message: userMessage("hello") });
        },
        async stream() {
          let count = 0;
          for await (const _ of client.sendStreamingMessage({ message: userMessage("hello") })) count++;
          return count;
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
      const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory(), new RestTransportFactory()] });
      const client = await factory.createFromAgentCard(card as never);
      const request = () =>
        ({
          message: {
            messageId: crypto.randomUUID(),
            role: Role.ROLE_USER,
            parts: [{ content: { $case: "text", value: "hello" } }],
          },
        }) as never;
      return {
        async send() {
          await client.sendMessage(request());
        },
        async stream() {
          let count = 0;
          for await (const _ of client.sendMessageStream(request())) count++;
          return count;
        },
      };
    }
    case "raw":
      return rawClient(url, binding);
  }
}

/**
 * The floor: a bare keep-alive `node:http` POST with JSON.parse of the
 * answer, and for streams a split on blank lines with JSON.parse of each
 * event's data. No validation, no types, no error handling.
 */
function rawClient(url: string, binding: BindingName): BenchClient {
  const agent = new http.Agent({ keepAlive: true });
  const target = new URL(url);
  let id = 0;
  const post = (path: string, body: string, stream: boolean) =>
    new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path,
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: stream ? "text/event-stream" : "application/json", "A2A-Version": "1.0" },
        },
        resolve,
      );
      req.on("error", reject);
      req.end(body);
    });
  const message = () => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "hello" }] });
  const request = (stream: boolean): [string, string] =>
    binding === "JSONRPC"
      ? [target.pathname, JSON.stringify({ jsonrpc: "2.0", id: ++id, method: stream ? "SendStreamingMessage" : "SendMessage", params: { message: message() } })]
      : [`${target.pathname}/message:${stream ? "stream" : "send"}`, JSON.stringify({ message: message() })];
  return {
    async send() {
      const res = await post(...request(false), false);
      res.setEncoding("utf8");
      let text = "";
      for await (const chunk of res) text += chunk as string;
      JSON.parse(text);
    },
    async stream() {
      const res = await post(...request(true), true);
      res.setEncoding("utf8");
      let buffered = "";
      let count = 0;
      for await (const chunk of res) {
        buffered += chunk as string;
        let start = 0;
        for (let end = buffered.indexOf("\n\n"); end >= 0; end = buffered.indexOf("\n\n", start)) {
          JSON.parse(buffered.slice(start + 6, end)); // after "data: "
          count++;
          start = end + 2;
        }
        buffered = buffered.slice(start);
      }
      return count;
    },
  };
}
