/**
 * createFetchHttpClient on its own, over a recording fetch: what reaches
 * fetch, and what the response carries for connect.
 */
import { describe, expect, it } from "vitest";
import { createFetchHttpClient } from "../../src/http/fetch-client.js";
import { single } from "../../src/util.js";

const encoder = new TextEncoder();

/** A fetch that records each call's body and answers 200 with a small JSON body. */
function recordingFetch() {
  const bodies: unknown[] = [];
  const fetchFn = (async (_input: RequestInfo | URL, init?: RequestInit) => {
    bodies.push(init?.body);
    return new Response('{"ok":true}', { status: 200, headers: { "content-type": "application/json" } });
  }) as typeof fetch;
  return { bodies, fetchFn };
}

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield encoder.encode(p);
}

const request = (body: AsyncIterable<Uint8Array> | undefined) => ({
  url: "http://127.0.0.1:9/rpc",
  method: "POST",
  header: new Headers({ "content-type": "application/json" }),
  body,
  signal: new AbortController().signal,
});

describe("createFetchHttpClient", () => {
  it("sends a one-chunk body as it is, without reading it first; a body of several chunks is joined", async () => {
    const { bodies, fetchFn } = recordingFetch();
    const client = createFetchHttpClient(fetchFn);
    const bytes = encoder.encode('{"jsonrpc":"2.0"}');
    const pending = client(request(single(bytes)));
    // fetch was called in the same turn: no await on the body came first.
    expect(bodies).toEqual([bytes]);
    expect(bodies[0]).toBe(bytes);
    await pending;
    await client(request(chunks('{"a":', "1}")));
    expect(new TextDecoder().decode(bodies[1] as Uint8Array)).toBe('{"a":1}');
    await client(request(undefined));
    expect(bodies[2]).toBeUndefined();
  });

  it("every response's trailer is empty and cannot be changed, so no response can change another's", async () => {
    const { fetchFn } = recordingFetch();
    const client = createFetchHttpClient(fetchFn);
    const a = await client(request(undefined));
    const b = await client(request(undefined));
    for (const res of [a, b]) {
      expect([...res.trailer]).toEqual([]);
      expect(res.trailer.get("grpc-status")).toBeNull();
    }
    expect(() => a.trailer.set("x-leak", "1")).toThrow(TypeError);
    expect(() => a.trailer.append("x-leak", "1")).toThrow(TypeError);
    expect(b.trailer.has("x-leak")).toBe(false);
  });
});
