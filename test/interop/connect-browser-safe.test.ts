/**
 * `connect` in a process that never imports `a2a-connect/node`, as in a
 * browser: the bindings of the browser-safe entry only. (This file imports
 * nothing that imports the Node entry, its fixture included; every test file
 * has its own modules.)
 */
import { describe, expect, it } from "vitest";
import { NoCompatibleInterfaceError, type A2AError, connect as connectHttpOnly } from "../../src/index.js";
import { registeredTransports } from "../../src/toolkit.js";
import { PEERS } from "../support/peers.js";
import { agent, real, trusting, usePeer, withInterfaces } from "../support/connect-fixture.js";

it("without the Node entry, the registry has the HTTP bindings only", () => {
  expect(Object.keys(registeredTransports()).sort()).toEqual(["HTTP+JSON@0.3", "HTTP+JSON@1.0", "JSONRPC@0.3", "JSONRPC@1.0"]);
});

describe.each(PEERS)("selection ($label)", (sdk) => {
  usePeer(sdk);

  it("the browser-safe entry passes gRPC over and says why", async () => {
    const session = await connectHttpOnly(agent.origin, trusting({ preferredBindings: ["GRPC"] }));
    expect(session.client.binding).toBe("JSONRPC");
    expect(session.passedOver).toEqual([expect.objectContaining({ binding: "GRPC", reason: expect.stringMatching(/a2a-connect\/node/) })]);
  });

  it("fails clearly when no interface is usable", async () => {
    const e = await connectHttpOnly(withInterfaces([real("GRPC")]), trusting()).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(NoCompatibleInterfaceError);
    expect((e as NoCompatibleInterfaceError).passedOver).toHaveLength(1);
  });

  // From grpc-web.test.ts, whose file also imports the Node entry.
  it("without it, the browser-safe entry passes GRPC interfaces over and says how to use them", async () => {
    const card = withInterfaces([real("GRPC")]).card;
    const e = await connectHttpOnly(card).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(NoCompatibleInterfaceError);
    expect((e as A2AError).message).toMatch(/grpcWeb: createGrpcWebTransport/);
  });
});
