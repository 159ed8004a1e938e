/**
 * The gRPC binding's HTTP/2 connection against the official @a2a-js/sdk
 * server (@grpc/grpc-js): a server that limits the concurrent streams of a
 * connection.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalAgent, type LocalAgent } from "../../demo/agent.js";
import { A2AClient, createGrpcTransport, userMessage, type GrpcTransportOptions } from "../../src/node.js";
import { collect } from "../support/bindings.js";

const clientOf = (options: GrpcTransportOptions) => new A2AClient(createGrpcTransport({ timeoutMs: 10_000, ...options }));

describe("a server that allows one concurrent stream per connection", () => {
  let narrow: LocalAgent;
  beforeAll(async () => {
    narrow = await startLocalAgent({ grpcServerOptions: { "grpc.max_concurrent_streams": 1 } });
  });
  afterAll(() => narrow?.close());

  it("a burst of calls on a new connection all succeed: none is refused for exceeding the limit", async () => {
    const client = clientOf({ baseUrl: narrow.grpcAddress });
    const sends = Array.from({ length: 8 }, (_, i) => client.sendMessage({ message: userMessage(`echo ${i}`) }));
    const streams = Array.from({ length: 4 }, () => collect(client.sendStreamingMessage({ message: userMessage("count 2") })));
    const replies = await Promise.all(sends);
    expect(replies.map((r) => r.payload.case)).toEqual(Array(8).fill("message"));
    for (const events of await Promise.all(streams)) expect(events.at(-1)?.payload.case).toBe("statusUpdate");
  });
});
