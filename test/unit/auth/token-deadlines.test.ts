/**
 * Tokens (auth/) a call awaits before its request: a token endpoint that
 * never answers, or a token fetch that ignores its signal, holds no call
 * past its deadline or its signal, and no later call past the provider's
 * own timeout.
 */
import { describe, expect, it } from "vitest";
import {
  A2AClient,
  AbortedError,
  CallTimeoutError,
  createJsonRpcTransport,
  bearerAuth,
  clientCredentialsProvider,
  AuthenticationError,
} from "../../../src/node.js";
import { BOUND_MS, raw, useRawServer, settle, drain, noSocketLeft } from "../../support/deadline-server.js";

useRawServer();

describe("what a call awaits before its request: token fetches, pages", () => {
  it("a token endpoint that never answers does not hold a call past its deadline or its signal", async () => {
    raw.behaviour = "silent";
    const provider = clientCredentialsProvider({ tokenUrl: `${raw.url}/token`, clientId: "id", clientSecret: "secret", timeoutMs: 1500 });
    const client = new A2AClient(createJsonRpcTransport({ baseUrl: `${raw.url}/a2a`, interceptors: [bearerAuth(provider)] }));
    const timed = await settle(client.getTask({ id: "t1" }, { timeoutMs: 60 }));
    expect(timed.error).toBeInstanceOf(CallTimeoutError);
    expect(timed.ms).toBeLessThan(1000);

    const controller = new AbortController();
    const stop = setTimeout(() => controller.abort(), 30);
    const aborted = await settle(drain(client.subscribeToTask({ id: "t1" }, { resume: false, signal: controller.signal })));
    clearTimeout(stop);
    expect(aborted.error).toBeInstanceOf(AbortedError);
    expect(aborted.ms).toBeLessThan(1000);
    // The shared token request ends by its own timeout, and lets its socket go.
    await expect(provider.token()).rejects.toBeInstanceOf(AuthenticationError);
    await noSocketLeft();
  });

  it("a token request whose fetch ignores its signal fails by the provider's timeout instead of holding every later call", async () => {
    const fetchNever = (() => new Promise<Response>(() => {})) as typeof fetch;
    const provider = clientCredentialsProvider({
      tokenUrl: "http://127.0.0.1:9/token",
      clientId: "id",
      clientSecret: "secret",
      timeoutMs: 40,
      fetch: fetchNever,
    });
    const { error, ms } = await settle(provider.token());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toContain("no answer within 40 ms");
    expect(ms).toBeLessThan(BOUND_MS);
  });
});
